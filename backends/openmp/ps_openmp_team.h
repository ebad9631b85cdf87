/*
 * ps_openmp_team.h - the CPU backend's threads: a pool that the library
 * owns, driven one phase at a time by the thread that called the sort.
 *
 * A sort opens a team (ps_team_open), runs its parallel steps as phases of
 * claimable items (ps_team_for), and closes it.  The calling thread is
 * member 0 and drives: it decides every phase, publishes it, takes items
 * itself, and waits only for the items that another member has taken and
 * not finished.  A worker that is descheduled (a busy machine), or that
 * never wakes, costs nothing but the items it holds: the caller takes the
 * rest.  Members that wait, wait briefly in a spin and then sleep in the
 * kernel, so that they give their core back to whoever needs it.
 *
 * Why not OpenMP's teams, which this backend used until issue 34: an
 * OpenMP barrier needs every member of the team to arrive, so one member
 * descheduled by another process stalls all of them for a time slice at
 * every barrier, and libgomp's waiting members spin for milliseconds
 * (OMP_WAIT_POLICY, which a library cannot set for itself) while the
 * member they wait for needs a core; a 64K-key sort on two threads took
 * 121 ms beside two busy processes, against 0.66 ms on one thread.
 * libgomp also calls exit() when it cannot start a thread, hangs in a
 * forked child whose parent used it, and crashes when unloaded under its
 * parked threads (issue 27, items 8 to 10).  The pool here starts its
 * threads with pthread_create, uses fewer when that fails, starts afresh
 * in a forked child, and is never unloaded (libportsort is linked
 * -z nodelete).
 */
#ifndef PS_OPENMP_TEAM_H
#define PS_OPENMP_TEAM_H

#include <stddef.h>

/* The most members a team has (PORTSORT_THREADS accepts up to this). */
#define PS_TEAM_MAX 1024

typedef struct ps_team ps_team;

/* One item of a phase: run by member `member` (0 for the caller, then
 * 1 .. members - 1), item i of the phase's items.  Items of one phase may
 * run in any order and at once; each runs exactly once. */
typedef void (*ps_team_item)(void *arg, int member, size_t i);

/* Take the pool for one sort and wake up to want - 1 of its workers.
 * Returns NULL when the sort should run on the calling thread alone: want
 * is at most 1, another thread's sort holds the pool, or no worker could
 * be started.  The pool is started here, on first use, and grows to the
 * largest want asked for. */
ps_team *ps_team_open(int want);

/* The number of members of team t (the caller included), which is at most
 * the want of ps_team_open: what per-member scratch must be laid out for.
 * 1 for a NULL team. */
int ps_team_members(const ps_team *t);

/* Run item(arg, member, i) for every i in [0, items), on the members of
 * team t, and return when all have returned.  With t NULL, on the calling
 * thread, in order.  Not reentrant: an item must not call ps_team_for. */
void ps_team_for(ps_team *t, size_t items, ps_team_item item, void *arg);

/* Give the pool back.  Accepts NULL. */
void ps_team_close(ps_team *t);

/* The threads a sort would use by default: the CPUs this process may run
 * on (sched_getaffinity), fewer when a cgroup quota (cpu.max) allows
 * fewer, at least 1. */
int ps_team_cpus(void);

/* Workers the pool could not start, since the process began or forked
 * (pthread_create failed: RLIMIT_NPROC, a cgroup's pids.max, memory);
 * what that error was, as an errno value, in *err.  For the backend's
 * PORTSORT_VERBOSE line. */
int ps_team_start_failures(int *err);

#endif /* PS_OPENMP_TEAM_H */

// ps_gpu_fake.cc - the CPU stand-in for the CUDA runtime declared in
// ps_gpu_fake.h.  Everything is synchronous: a copy is a memcpy, a stream
// or event wait returns at once, and a launch runs the grid's work-groups
// one after the other on the launching thread, each work-item a fiber
// (see "Switching fibers" below) that runs until it reaches a barrier and then hands over to
// the next.  Launches are serialised (the emulated kernels' local arrays
// are static).  Work-items form warps of 32 or, with PS_FAKE_WARP=64, 64
// (ps_fake_ballot, ps_fake_shfl), each with its own barrier and exchange
// slots.
//
// Devices and contexts follow CUDA 12: each thread has a stack of current
// contexts (the driver's) and the device cudaSetDevice chose (the
// runtime's); a runtime call that needs a device while no context is
// current binds the primary context of the runtime's device, device 0 when
// the thread never chose one.  The tests read which primary contexts came
// to exist (ps_fake_contexts), so that a library touching a device the
// application does not use is caught.
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include "ps_gpu_fake.h"

// ASan must be told when the stack changes under it (its fake stacks and
// the shadow of each fiber's stack); without ASan these are no-ops.
#if defined(__SANITIZE_ADDRESS__)
#  define PS_FAKE_ASAN 1
#elif defined(__has_feature)
#  if __has_feature(address_sanitizer)
#    define PS_FAKE_ASAN 1
#  endif
#endif
#ifdef PS_FAKE_ASAN
extern "C" void __sanitizer_start_switch_fiber(void **save, const void *bottom,
                                               size_t size);
extern "C" void __sanitizer_finish_switch_fiber(void *save, const void **bottom,
                                                size_t *size);
#endif

namespace {
const unsigned max_warp = 64;
unsigned warp_width()
{
    static const unsigned w = std::getenv("PS_FAKE_WARP") != nullptr
                              && std::atoi(std::getenv("PS_FAKE_WARP")) == 64 ? 64 : 32;
    return w;
}

// A barrier among `count` fibers: the last to arrive opens it; the others
// hand over to the next fiber until it has opened.
struct fiber_barrier {
    unsigned count, arrived = 0, phase = 0;
    explicit fiber_barrier(unsigned n) : count(n) {}
    void arrive_and_wait();
};
struct warp {
    fiber_barrier sync;
    unsigned slot[max_warp];
    explicit warp(unsigned n) : sync(n), slot() {}
};
// The running work-item.  Every fiber runs on the launching thread, one at
// a time, so plain variables are enough.
unsigned t_lid, t_group, t_ngroups, t_nlocal;
unsigned *t_pauses;                     // ps_fake_pause calls of this item in this group
fiber_barrier *t_barrier;
warp *t_warp;
std::mutex launch_lock;

std::atomic<unsigned> contexts;         // bit d: device d's primary context exists
std::atomic<bool> dead;                 // a kernel faulted: every later call fails
std::atomic<int> last_launch{-1};
// Current contexts (their devices), top last.  Plain arrays: a
// thread_local with a destructor is gone before the library's destructor
// releases the backend at exit.
thread_local int t_stack[16];
thread_local int t_depth;
thread_local int t_rt_device = -1;      // cudaSetDevice's choice; -1: none yet
// The thread's last error, as CUDA keeps it: set by a call that fails
// (the allocations here), returned and reset by cudaGetLastError.  An
// application may leave one pending across a call into the library,
// which must not clear it (ps_test_gpu_ctx.c, "alloc").
thread_local psfakeError_t t_last = psfakeSuccess;
std::atomic<long> async_failures;       // stream-ordered allocations refused
char ctx_token[32];                     // a device's primary context is &ctx_token[d]

int env_int(const char *name, int dflt)
{
    const char *e = std::getenv(name);
    return e != nullptr ? std::atoi(e) : dflt;
}

// CUDA cannot be used in a child forked after the parent initialised it:
// its calls fail or hang there, releases included.  The stand-in ends such
// a child with a message instead, so that a test sees every call the
// library makes there (ps_test_gpu_fake's forked child, which exits
// through the library's destructors).
pid_t owner;

void fork_check()
{
    pid_t me = getpid();
    if (owner == 0)
        owner = me;
    if (owner != me) {
        std::fprintf(stderr, "ps_gpu_fake: the runtime was called in a child "
                     "forked after its parent initialised it\n");
        std::abort();
    }
}

// The device the calling thread's runtime work goes to, binding a primary
// context first if none is current.
int bind()
{
    fork_check();
    if (t_depth == 0) {
        int d = t_rt_device < 0 ? 0 : t_rt_device;
        contexts |= 1u << d;
        t_stack[t_depth++] = d;
    }
    return t_stack[t_depth - 1];
}

// Runtime work on the current device: after a fault the context is gone
// and every call says so (CUDA's "sticky" errors).
psfakeError_t work()
{
    bind();
    return dead ? psfakeErrorIllegalAddress : psfakeSuccess;
}

// PS_FAKE_NO_IMAGE=d plays device d as a GPU the module has no kernel
// image for.
bool no_image_here()
{
    return bind() == env_int("PS_FAKE_NO_IMAGE", -1);
}
}  // namespace

struct psfake_stream { int unused; };
struct psfake_event { int unused; };

extern "C" {

unsigned ps_fake_lid(void) { return t_lid; }
unsigned ps_fake_group(void) { return t_group; }
unsigned ps_fake_ngroups(void) { return t_ngroups; }
unsigned ps_fake_nlocal(void) { return t_nlocal; }
void ps_fake_barrier(void) { t_barrier->arrive_and_wait(); }

unsigned ps_fake_warp_size(void) { return warp_width(); }

// Each lane posts its word, all read, and nobody posts again before every
// lane has read.
static void warp_exchange(unsigned v)
{
    t_warp->slot[t_lid % warp_width()] = v;
    t_warp->sync.arrive_and_wait();
}

unsigned long long ps_fake_ballot(int pred)
{
    unsigned long long m = 0;
    unsigned i;
    warp_exchange(pred != 0);
    for (i = 0; i < warp_width(); i++)
        m |= (unsigned long long)t_warp->slot[i] << i;
    t_warp->sync.arrive_and_wait();
    return m;
}

unsigned long long ps_fake_match_any(unsigned v)
{
    unsigned long long m = 0;
    unsigned i;
    warp_exchange(v);
    for (i = 0; i < warp_width(); i++)
        m |= (unsigned long long)(t_warp->slot[i] == v) << i;
    t_warp->sync.arrive_and_wait();
    return m;
}

unsigned long long ps_fake_match_bit(unsigned v, unsigned bit)
{
    return ps_fake_match_any(v & bit);
}

unsigned ps_fake_match_mode(void)
{
    static const unsigned mode = [] {
        const char *e = std::getenv("PS_FAKE_MATCH");
        return e == nullptr ? 0u : std::strcmp(e, "any") == 0 ? 1u
               : std::strcmp(e, "bit") == 0 ? 2u : 0u;
    }();
    return mode;
}

unsigned ps_fake_shfl(unsigned v, unsigned lane)
{
    unsigned r;
    warp_exchange(v);
    r = t_warp->slot[lane % warp_width()];
    t_warp->sync.arrive_and_wait();
    return r;
}

static unsigned env_spins()
{
    const char *e = std::getenv("PS_FAKE_OS_SPINS");
    if (e != nullptr && std::strcmp(e, "never") == 0)
        return ~0u;
    return e != nullptr ? (unsigned)std::atoi(e) : 8u;
}
unsigned ps_fake_os_spins(void)
{
    static const unsigned spins = env_spins();
    return spins;
}
unsigned ps_fake_os_order(void)
{
    static const unsigned order = (unsigned)env_int("PS_FAKE_OS_ORDER", 0);
    return order;
}
// No hand-over here: the tile waited for belongs to another work-group,
// which cannot run before this one ends (groups run one at a time), so
// only counting the rounds can tell a look-back that would never end.
void ps_fake_pause(unsigned)
{
    if (++*t_pauses == 1000) {
        std::fprintf(stderr, "ps_gpu_fake: work-group %u waited 1000 look-back "
                     "rounds for a tile that cannot come: no forward progress\n",
                     t_group);
        std::abort();
    }
}

// PS_FAKE_DRIVER_VERSION=N plays a driver for CUDA N (1000 * major + 10 *
// minor; 0: none installed).  Below 13000, the version the stand-in poses
// as being built with, it is too old: every call fails as the CUDA runtime
// does then.
static int driver_version()
{
    const char *e = std::getenv("PS_FAKE_DRIVER_VERSION");
    return e != nullptr ? std::atoi(e) : 13000;
}
psfakeError_t psfakeDriverGetVersion(int *v)
{
    *v = driver_version();
    return psfakeSuccess;
}

psfakeError_t psfakeGetDeviceCount(int *n)
{
    // PS_FAKE_DEVICES=0 plays a machine without a GPU.
    const char *e = std::getenv("PS_FAKE_DEVICES");
    *n = 0;
    if (driver_version() < 13000)
        return psfakeErrorInsufficientDriver;
    *n = e != nullptr ? std::atoi(e) : 1;
    return *n > 0 ? psfakeSuccess : psfakeErrorNoDevice;
}

psfakeError_t psfakeGetDeviceProperties(psfakeDeviceProp *p, int dev)
{
    std::memset(p, 0, sizeof *p);
    std::snprintf(p->name, sizeof p->name, "CPU stand-in for GPU %d (tests only)", dev);
    p->major = 9;
    p->multiProcessorCount = 1;
    p->totalGlobalMem = (size_t)1 << 30;
    return psfakeSuccess;
}

psfakeError_t psfakeGetDevice(int *dev)
{
    *dev = t_depth > 0 ? t_stack[t_depth - 1] : t_rt_device < 0 ? 0 : t_rt_device;
    return psfakeSuccess;
}
// As in CUDA 12: creates the device's primary context and makes it current.
psfakeError_t psfakeSetDevice(int dev)
{
    int n = 0;
    if (psfakeGetDeviceCount(&n) != psfakeSuccess || dev < 0 || dev >= n || dev >= 32)
        return psfakeErrorInvalidDevice;
    t_rt_device = dev;
    contexts |= 1u << dev;
    if (t_depth == 0)
        t_depth = 1;
    t_stack[t_depth - 1] = dev;
    return psfakeSuccess;
}

unsigned ps_fake_contexts(void) { return contexts; }
int ps_fake_thread_context(void) { return t_depth > 0 ? t_stack[t_depth - 1] : -1; }
int ps_fake_last_launch_device(void) { return last_launch; }

// The driver's context calls, as the CUDA backend reaches them (CUresult
// 0 is success, 201 CUDA_ERROR_INVALID_CONTEXT).
static int drv_device_get(int *dev, int ordinal) { *dev = ordinal; return 0; }
static int drv_retain(void **ctx, int dev)
{
    fork_check();
    contexts |= 1u << dev;
    *ctx = &ctx_token[dev];
    return 0;
}
static int drv_release(int) { fork_check(); return 0; }
static int drv_push(void *ctx)
{
    fork_check();
    if (t_depth == 16)
        return 201;
    t_stack[t_depth++] = (int)(static_cast<char *>(ctx) - ctx_token);
    return 0;
}
static int drv_pop(void **ctx)
{
    if (t_depth == 0)
        return 201;
    t_depth--;
    if (ctx != nullptr)
        *ctx = &ctx_token[t_stack[t_depth]];
    return 0;
}
// PS_FAKE_NO_ENTRY_POINTS=1 plays a runtime without them.
psfakeError_t psfakeGetDriverEntryPointByVersion(
    const char *sym, void **fn, unsigned, unsigned long long,
    enum psfakeDriverEntryPointQueryResult *result)
{
    static const struct { const char *name; void *fn; } table[] = {
        { "cuDeviceGet", (void *)drv_device_get },
        { "cuDevicePrimaryCtxRetain", (void *)drv_retain },
        { "cuDevicePrimaryCtxRelease", (void *)drv_release },
        { "cuCtxPushCurrent", (void *)drv_push },
        { "cuCtxPopCurrent", (void *)drv_pop },
    };
    *fn = nullptr;
    *result = psfakeDriverEntryPointSymbolNotFound;
    if (env_int("PS_FAKE_NO_ENTRY_POINTS", 0) != 0)
        return psfakeSuccess;
    for (const auto &t : table)
        if (std::strcmp(sym, t.name) == 0) {
            *fn = t.fn;
            *result = psfakeDriverEntryPointSuccess;
        }
    return psfakeSuccess;
}

// Poisoned, so that a kernel reading scratch it never wrote shows up.
psfakeError_t psfakeMalloc(void **p, size_t bytes)
{
    *p = nullptr;
    if (work() != psfakeSuccess)
        return psfakeErrorIllegalAddress;
    *p = std::malloc(bytes ? bytes : 1);
    if (*p == nullptr)
        return t_last = psfakeErrorMemoryAllocation;
    std::memset(*p, 0xA5, bytes);
    return psfakeSuccess;
}
psfakeError_t psfakeFree(void *p) { std::free(p); return work(); }
psfakeError_t psfakeMallocHost(void **p, size_t bytes) { return psfakeMalloc(p, bytes); }
psfakeError_t psfakeFreeHost(void *p) { return psfakeFree(p); }
// PS_FAKE_NO_POOLS=1 plays a device without memory pools (some vGPU and
// WSL setups): the attribute says 0 and stream-ordered allocation fails.
static bool no_pools()
{
    const char *e = std::getenv("PS_FAKE_NO_POOLS");
    return e != nullptr && std::atoi(e) != 0;
}
psfakeError_t psfakeDeviceGetAttribute(int *v, enum psfakeDeviceAttr a, int)
{
    *v = a == psfakeDevAttrMemoryPoolsSupported ? !no_pools() : 0;
    return psfakeSuccess;
}
// PS_FAKE_POOL_FAILS=1: the device reports pools, but its pool cannot
// grow (a release threshold, a driver that reports pools it refuses):
// every stream-ordered allocation fails while plain ones succeed.
psfakeError_t psfakeMallocAsync(void **p, size_t bytes, psfakeStream_t)
{
    *p = nullptr;
    if (no_pools() || env_int("PS_FAKE_POOL_FAILS", 0) != 0) {
        async_failures++;
        return t_last = no_pools() ? psfakeErrorNotSupported
                                   : psfakeErrorMemoryAllocation;
    }
    return psfakeMalloc(p, bytes);
}
psfakeError_t psfakeFreeAsync(void *p, psfakeStream_t) { return psfakeFree(p); }

// PS_FAKE_FAIL_COPY_OUT=k: the k-th device-to-host copy of the process
// (from 1) fails, as a copy does when the device is lost, having written
// nothing; so do the ones after it.  Tests of the "nothing lost" promise
// use it to fail a sort's write-back midway (ps_test_gpu_copyfault.c).
static bool copy_out_fails()
{
    static std::mutex m;
    static long count;
    const char *e = std::getenv("PS_FAKE_FAIL_COPY_OUT");
    std::lock_guard<std::mutex> g(m);
    return e != nullptr && ++count >= std::atol(e);
}

psfakeError_t psfakeMemcpyAsync(void *dst, const void *src, size_t bytes,
                                enum psfakeMemcpyKind kind, psfakeStream_t)
{
    if (work() != psfakeSuccess)
        return psfakeErrorIllegalAddress;
    if (kind == psfakeMemcpyDeviceToHost && copy_out_fails())
        return psfakeErrorIllegalAddress;
    std::memmove(dst, src, bytes);
    return psfakeSuccess;
}
psfakeError_t psfakeMemsetAsync(void *dst, int v, size_t bytes, psfakeStream_t)
{
    if (work() != psfakeSuccess)
        return psfakeErrorIllegalAddress;
    std::memset(dst, v, bytes);
    return psfakeSuccess;
}

psfakeError_t psfakeStreamCreateWithFlags(psfakeStream_t *s, unsigned)
{
    *s = new psfake_stream();
    return work();
}
psfakeError_t psfakeStreamDestroy(psfakeStream_t s)
{
    fork_check();
    delete s;
    return psfakeSuccess;
}
psfakeError_t psfakeStreamSynchronize(psfakeStream_t) { return work(); }
psfakeError_t psfakeEventCreateWithFlags(psfakeEvent_t *e, unsigned)
{
    *e = new psfake_event();
    return work();
}
psfakeError_t psfakeEventDestroy(psfakeEvent_t e)
{
    fork_check();
    delete e;
    return psfakeSuccess;
}
psfakeError_t psfakeEventRecord(psfakeEvent_t, psfakeStream_t) { return work(); }
psfakeError_t psfakeEventSynchronize(psfakeEvent_t) { return work(); }
psfakeError_t psfakeFuncAttributes_get(psfakeFuncAttributes *a, const void *)
{
    a->numRegs = 0;
    if (no_image_here())
        return psfakeErrorNoKernelImageForDevice;
    return work();
}

// A pool of work-items, made on the first launch of a block size: one
// fiber each, because the kernels' barriers need every work-item of a group
// in flight.  Fibers, not threads: a barrier is then a round of context
// switches on one core instead of hundreds of threads woken through the
// scheduler, which on a 2-core machine made the stand-in the slowest test.
namespace {
// Room for a work-item's frames; ASan's redzones make them several times
// larger.  Pages are touched only as used (MAP_NORESERVE).
const size_t stack_bytes = 256 * 1024;

// Switching fibers.  swapcontext saves and restores the signal mask, a
// system call each way: perf put 85% of the stand-in's time there
// (__swapcontext, rt_sigprocmask), which made gpu-fake.sh one of CI's
// longest tests.  No work-item touches the signal mask, so on x86-64 a
// switch keeps only what the ABI has a callee preserve (rbx, rbp,
// r12-r15, the stack pointer, the SSE and x87 control words) and never
// enters the kernel.  Elsewhere, and where control-flow protection may
// keep a shadow stack that a switch of our own would not (__CET__),
// ucontext stays.  ASan is told of every switch either way (resume,
// yield).
#if defined(__x86_64__) && !defined(__CET__) && !defined(PS_FAKE_UCONTEXT)
extern "C" void ps_fake_switch(void **save_sp, void *to_sp);
asm(".text\n"
    ".p2align 4\n"
    ".hidden ps_fake_switch\n"
    ".type ps_fake_switch, @function\n"
    "ps_fake_switch:\n"
    "    pushq %rbp\n"
    "    pushq %rbx\n"
    "    pushq %r12\n"
    "    pushq %r13\n"
    "    pushq %r14\n"
    "    pushq %r15\n"
    "    subq $8, %rsp\n"
    "    stmxcsr (%rsp)\n"
    "    fnstcw 4(%rsp)\n"
    "    movq %rsp, (%rdi)\n"
    "    movq %rsi, %rsp\n"
    "    ldmxcsr (%rsp)\n"
    "    fldcw 4(%rsp)\n"
    "    addq $8, %rsp\n"
    "    popq %r15\n"
    "    popq %r14\n"
    "    popq %r13\n"
    "    popq %r12\n"
    "    popq %rbx\n"
    "    popq %rbp\n"
    "    ret\n"
    ".size ps_fake_switch, .-ps_fake_switch\n");

struct fiber_ctx {
    void *sp;
};

// A fiber's first switch "returns" into fn from a frame laid out as
// ps_fake_switch leaves one: the control words, six registers, fn's
// address, then a null return address for fn (which never returns), so
// that fn starts with the stack aligned as after a call.
void ctx_make(fiber_ctx &c, unsigned char *stack, size_t bytes, void (*fn)())
{
    uintptr_t top = (reinterpret_cast<uintptr_t>(stack) + bytes) & ~uintptr_t(15);
    uint64_t *f = reinterpret_cast<uint64_t *>(top - 72);
    uint32_t mxcsr;
    uint16_t fcw;
    asm volatile("stmxcsr %0" : "=m"(mxcsr));
    asm volatile("fnstcw %0" : "=m"(fcw));
    f[0] = mxcsr | uint64_t(fcw) << 32;
    for (int r = 1; r <= 6; r++)
        f[r] = 0;
    f[7] = reinterpret_cast<uintptr_t>(fn);
    f[8] = 0;
    c.sp = f;
}

void ctx_switch(fiber_ctx &from, fiber_ctx &to)
{
    ps_fake_switch(&from.sp, to.sp);
}
#else
struct fiber_ctx {
    ucontext_t uc;
};

void ctx_make(fiber_ctx &c, unsigned char *stack, size_t bytes, void (*fn)())
{
    getcontext(&c.uc);
    c.uc.uc_stack.ss_sp = stack;
    c.uc.uc_stack.ss_size = bytes;
    c.uc.uc_link = nullptr;
    makecontext(&c.uc, fn, 0);
}

void ctx_switch(fiber_ctx &from, fiber_ctx &to)
{
    swapcontext(&from.uc, &to.uc);
}
#endif

struct fiber {
    fiber_ctx ctx;
    unsigned char *stack;
    bool done;
    unsigned pauses;
    void *asan_fake;
};

struct pool {
    unsigned n;
    fiber_barrier local;
    const ps_fake_kernel *k = nullptr;
    void **args = nullptr;
    std::vector<std::unique_ptr<warp>> warps;
    std::vector<fiber> items;
    unsigned char *stacks;
    fiber_ctx sched;                    // the launching thread's own stack
    const void *sched_bottom = nullptr;
    size_t sched_size = 0;
    unsigned cur = 0;
    unsigned long progress = 0;         // barriers opened, items finished

    explicit pool(unsigned n_);
    ~pool() { munmap(stacks, stack_bytes * n); }
    void resume(unsigned t);
    void yield();
    void run_group();
};
pool *the_pool;

void fiber_barrier::arrive_and_wait()
{
    unsigned ph = phase;
    if (++arrived == count) {
        arrived = 0;
        phase++;
        the_pool->progress++;
        return;
    }
    while (phase == ph)
        the_pool->yield();
}

// Back in a fiber after a switch: tell ASan, and learn the launching
// thread's stack from the first switch.
void fiber_resumed(fiber &f)
{
#ifdef PS_FAKE_ASAN
    __sanitizer_finish_switch_fiber(f.asan_fake, &the_pool->sched_bottom,
                                    &the_pool->sched_size);
#else
    (void)f;
#endif
}

// Every fiber runs this forever: one work-item of each group in turn.
// Later groups resume it in yield(), which finishes the switch itself.
void fiber_main()
{
    fiber_resumed(the_pool->items[the_pool->cur]);
    for (;;) {
        fiber &f = the_pool->items[the_pool->cur];
        the_pool->k->run(the_pool->args);
        f.done = true;
        the_pool->progress++;
        the_pool->yield();
    }
}

pool::pool(unsigned n_) : n(n_), local(n_), items(n_)
{
    const unsigned ws = warp_width();
    for (unsigned w = 0; w * ws < n; w++)
        warps.emplace_back(new warp(n - w * ws < ws ? n - w * ws : ws));
    void *m = mmap(nullptr, stack_bytes * n, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) {
        std::perror("ps_gpu_fake: fiber stacks");
        std::abort();
    }
    stacks = static_cast<unsigned char *>(m);
    for (unsigned t = 0; t < n; t++) {
        fiber &f = items[t];
        f.stack = stacks + stack_bytes * t;
        f.done = true;
        f.asan_fake = nullptr;
        ctx_make(f.ctx, f.stack, stack_bytes, fiber_main);
    }
}

void pool::resume(unsigned t)
{
    cur = t;
    t_lid = t;
    t_warp = warps[t / warp_width()].get();
    t_pauses = &items[t].pauses;
#ifdef PS_FAKE_ASAN
    void *fake = nullptr;
    __sanitizer_start_switch_fiber(&fake, items[t].stack, stack_bytes);
    ctx_switch(sched, items[t].ctx);
    __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#else
    ctx_switch(sched, items[t].ctx);
#endif
}

void pool::yield()
{
    fiber &f = items[cur];
#ifdef PS_FAKE_ASAN
    __sanitizer_start_switch_fiber(&f.asan_fake, sched_bottom, sched_size);
#endif
    ctx_switch(f.ctx, sched);
    fiber_resumed(f);
}

// One work-group: round after round, each unfinished item runs until it
// waits at a barrier or ends.  A round in which no barrier opens and no
// item ends can only repeat forever: some items wait at a barrier the
// others never reach, which is undefined on a GPU, so say so and stop.
void pool::run_group()
{
    unsigned alive = n;
    for (auto &f : items) {
        f.done = false;
        f.pauses = 0;
    }
    while (alive > 0) {
        unsigned long before = progress;
        for (unsigned t = 0; t < n; t++) {
            if (items[t].done)
                continue;
            resume(t);
            if (items[t].done)
                alive--;
        }
        if (alive > 0 && progress == before) {
            std::fprintf(stderr, "ps_gpu_fake: work-group %u: %u work-items "
                         "wait at a barrier the others never reach\n",
                         t_group, alive);
            std::abort();
        }
    }
}
}  // namespace

psfakeError_t psfakeLaunchKernel(const void *fn, dim3 grid, dim3 block, void **args,
                                 size_t, psfakeStream_t)
{
    const ps_fake_kernel *k = static_cast<const ps_fake_kernel *>(fn);
    static std::atomic<long> launches;
    if (fn == nullptr || grid.x == 0 || block.x == 0 || grid.y != 1 || block.y != 1)
        return psfakeErrorInvalidValue;
    if (no_image_here())
        return psfakeErrorNoKernelImageForDevice;
    if (work() != psfakeSuccess)
        return psfakeErrorIllegalAddress;
    last_launch = bind();
    // PS_FAKE_FAULT_LAUNCH=k: the k-th launch of the process (from 1)
    // faults, as a kernel's illegal address does: it is not run, and the
    // context is lost for good.
    if (++launches == env_int("PS_FAKE_FAULT_LAUNCH", 0)) {
        dead = true;
        return psfakeErrorIllegalAddress;
    }
    std::lock_guard<std::mutex> hold(launch_lock);
    if (the_pool != nullptr && the_pool->n != block.x) {
        delete the_pool;
        the_pool = nullptr;
    }
    if (the_pool == nullptr)
        the_pool = new pool(block.x);
    the_pool->k = k;
    the_pool->args = args;
    t_ngroups = grid.x;
    t_nlocal = block.x;
    t_barrier = &the_pool->local;
    for (unsigned g = 0; g < grid.x; g++) {
        t_group = g;
        the_pool->run_group();
    }
    return psfakeSuccess;
}

psfakeError_t psfakeGetLastError(void)
{
    psfakeError_t e = t_last;
    t_last = psfakeSuccess;
    return dead ? psfakeErrorIllegalAddress : e;
}
void ps_fake_set_last_error(int e) { t_last = static_cast<psfakeError_t>(e); }
long ps_fake_async_failures(void) { return async_failures; }
unsigned long long ps_fake_max_items(void)
{
    const char *e = std::getenv("PS_FAKE_MAX_ITEMS");
    return e != nullptr ? std::strtoull(e, nullptr, 10) : 0;
}
const char *psfakeGetErrorString(psfakeError_t e)
{
    return e == psfakeSuccess ? "no error"
           : e == psfakeErrorIllegalAddress ? "an illegal memory access was encountered"
           : e == psfakeErrorNoKernelImageForDevice
               ? "no kernel image is available for execution on the device"
           : "stand-in runtime error";
}
const char *psfakeGetErrorName(psfakeError_t e)
{
    return e == psfakeSuccess ? "psfakeSuccess"
           : e == psfakeErrorIllegalAddress ? "psfakeErrorIllegalAddress"
           : e == psfakeErrorNoKernelImageForDevice ? "psfakeErrorNoKernelImageForDevice"
           : "psfakeError";
}

// The identity permutation of the device argsort (ps_gpu_util.cu on a GPU).
static void iota64_run(void **args)
{
    unsigned long long *out = *static_cast<unsigned long long **>(args[0]);
    unsigned long long n = *static_cast<unsigned long long *>(args[1]);
    unsigned long long i = (unsigned long long)t_group * t_nlocal + t_lid;
    for (; i < n; i += (unsigned long long)t_ngroups * t_nlocal)
        out[i] = i;
}
static const ps_fake_kernel iota64 = { iota64_run };
extern const void *const ps_gpu_iota64_kernel;
const void *const ps_gpu_iota64_kernel = &iota64;

}  // extern "C"

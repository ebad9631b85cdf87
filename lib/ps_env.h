/*
 * ps_env.h - how libportsort, its backend modules and libportsort_mpi read
 * the environment.  A leaf header: the C library only, no other header of
 * the core, so that the core, every backend (through ps_backend.h) and the
 * MPI library share one rule.
 *
 * Two promises live here:
 *  - A process that runs with privileges it did not get from its caller
 *    (setuid or setgid, file capabilities) reads no variable at all: the
 *    caller's environment must not choose the code such a program loads
 *    (PORTSORT_MODULE_PATH) or how it behaves.  glibc's secure_getenv
 *    makes that decision from the kernel's AT_SECURE flag; elsewhere a
 *    real and effective id that differ stand for it.
 *  - A variable the library parses is either well-formed or refused with
 *    a message naming the variable, its value and what is accepted; never
 *    silently ignored.  The parsers below write that message.  An unset
 *    or empty variable means "use the default".
 */
#ifndef PS_ENV_H
#define PS_ENV_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(HAVE_SECURE_GETENV) && !defined(__cplusplus) && !defined(_GNU_SOURCE)
/* glibc declares it only under _GNU_SOURCE, which the core does not set
 * for every file (it changes other declarations, strerror_r's among them).
 * C++ compilers define _GNU_SOURCE themselves. */
extern char *secure_getenv(const char *name);
#endif

/* The value of environment variable `name`, or NULL when it is unset or
 * the process runs with privileges its caller does not have. */
static inline const char *ps_getenv(const char *name)
{
#if defined(HAVE_SECURE_GETENV)
    return secure_getenv(name);
#else
    if (getuid() != geteuid() || getgid() != getegid())
        return NULL;
    return getenv(name);
#endif
}

/* The value of `name` when set and not empty; else NULL. */
static inline const char *ps_getenv_set(const char *name)
{
    const char *v = ps_getenv(name);
    return v != NULL && v[0] != '\0' ? v : NULL;
}

/* Write the refusal of `name`=`value` into why: the variable, the value
 * (cut short, so that a long or hostile one cannot hide the rest) and what
 * is accepted.  Returns -1, the parsers' "malformed". */
static inline int ps_env_refuse(const char *name, const char *value,
                                const char *accepted, char *why, size_t why_len)
{
    /* A message longer than why_len is cut short, which is fine. */
    if (snprintf(why, why_len, "%s=%.64s%s: invalid value (accepted: %s)", name,
                 value, strlen(value) > 64 ? "..." : "", accepted) < 0)
        why[0] = '\0';
    return -1;
}

/* Parse s as a whole number written in decimal digits only (no sign, no
 * blanks, no suffix) no larger than hi.  Returns 0 and sets *out, or -1. */
static inline int ps_env_digits(const char *s, unsigned long long hi,
                                unsigned long long *out)
{
    unsigned long long v = 0;
    if (*s == '\0')
        return -1;
    for (; *s != '\0'; s++) {
        unsigned d = (unsigned)(*s - '0');
        if (d > 9 || d > hi || v > (hi - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

/* Variable `name` as a whole number from lo to hi.  Returns 1 with *out
 * set, 0 when unset or empty (*out untouched), or -1 with why set. */
static inline int ps_env_number(const char *name, unsigned long long lo,
                                unsigned long long hi, unsigned long long *out,
                                char *why, size_t why_len)
{
    const char *v = ps_getenv_set(name);
    unsigned long long x;
    char accepted[96];
    if (v == NULL)
        return 0;
    if (ps_env_digits(v, hi, &x) == 0 && x >= lo) {
        *out = x;
        return 1;
    }
    snprintf(accepted, sizeof accepted, "a whole number from %llu to %llu", lo, hi);
    return ps_env_refuse(name, v, accepted, why, why_len);
}

/* Variable `name` as a byte count: decimal digits, then optionally one of
 * K, M, G (or k, m, g: 2^10, 2^20, 2^30), no larger than SIZE_MAX.
 * Returns 1 with *out set, 0 when unset or empty, or -1 with why set. */
static inline int ps_env_bytes(const char *name, size_t *out, char *why,
                               size_t why_len)
{
    const char *v = ps_getenv_set(name);
    char digits[32];
    size_t len;
    unsigned long long x, unit = 1;
    if (v == NULL)
        return 0;
    len = strlen(v);
    if (len > 0 && len < sizeof digits) {
        memcpy(digits, v, len + 1);
        switch (digits[len - 1]) {
        case 'K': case 'k': unit = 1ull << 10; break;
        case 'M': case 'm': unit = 1ull << 20; break;
        case 'G': case 'g': unit = 1ull << 30; break;
        default: break;
        }
        if (unit != 1)
            digits[len - 1] = '\0';
        if (ps_env_digits(digits, (unsigned long long)SIZE_MAX / unit, &x) == 0) {
            *out = (size_t)(x * unit);
            return 1;
        }
    }
    return ps_env_refuse(name, v, "bytes as decimal digits, optionally "
                         "followed by K, M or G (2^10, 2^20, 2^30)", why,
                         why_len);
}

/* Variable `name` as one of the words of the NULL-terminated list (which
 * `accepted` spells out for the message).  Returns 1 with *out set to the
 * word's index, 0 when unset or empty, or -1 with why set. */
static inline int ps_env_word(const char *name, const char *const *words,
                              const char *accepted, int *out, char *why,
                              size_t why_len)
{
    const char *v = ps_getenv_set(name);
    int i;
    if (v == NULL)
        return 0;
    for (i = 0; words[i] != NULL; i++) {
        if (strcmp(v, words[i]) == 0) {
            *out = i;
            return 1;
        }
    }
    return ps_env_refuse(name, v, accepted, why, why_len);
}

#endif /* PS_ENV_H */

/*
 * ps_test_faults.c - host allocation fault injection (see ps_test_util.h).
 * Linked only into the programs that inject faults: it defines
 * aligned_alloc, which would clash with a sanitizer runtime linked
 * statically into a fuzz target.
 */
#include <malloc.h>
#include <stdlib.h>

#include "ps_test_util.h"

static long fail_at;          /* 0: disarmed */
static long alloc_count;
static int alloc_failed;

/* Disarming (k = 0) keeps the counters, so that a test can disarm right
 * after the call it probes and then ask what happened in it. */
void t_fail_alloc_at(long k)
{
    if (k > 0) {
        __atomic_store_n(&alloc_count, 0, __ATOMIC_SEQ_CST);
        __atomic_store_n(&alloc_failed, 0, __ATOMIC_SEQ_CST);
    }
    __atomic_store_n(&fail_at, k, __ATOMIC_SEQ_CST);
}

long t_alloc_count(void)
{
    return __atomic_load_n(&alloc_count, __ATOMIC_SEQ_CST);
}

int t_alloc_failed(void)
{
    return __atomic_load_n(&alloc_failed, __ATOMIC_SEQ_CST);
}

/* Interposes the C library's aligned_alloc for libportsort too (ELF symbol
 * interposition), so the library's own allocations can be made to fail
 * without any hook in the library.  memalign is what glibc's aligned_alloc
 * does underneath.  The tests are compiled with -fvisibility=hidden like the
 * library, so the definition must be made visible explicitly: a hidden one
 * stays out of the dynamic symbol table and interposes nothing. */
__attribute__((visibility("default")))
void *aligned_alloc(size_t align, size_t size)
{
    long k = __atomic_load_n(&fail_at, __ATOMIC_SEQ_CST);
    if (k > 0) {
        long c = __atomic_add_fetch(&alloc_count, 1, __ATOMIC_SEQ_CST);
        if (c == k) {
            __atomic_store_n(&alloc_failed, 1, __ATOMIC_SEQ_CST);
            return NULL;
        }
    }
    return memalign(align, size);
}

/*
 * ps_topk_vec.c - which vector form of top-k's column bound runs: the
 * best the CPU has, unless PORTSORT_OPENMP_SIMD says less.
 */
#include <config.h>

#include <pthread.h>
#include <stddef.h>

#include "ps_env.h"
#include "ps_topk_vec.h"

#if PS_TOPK_VEC

/* The OpenMP backend's words for PORTSORT_OPENMP_SIMD, in its order: a
 * value it refuses leaves the best the CPU has, there and here. */
static const char *const simd_words[] = { "none", "avx2", "avx512", NULL };

static const ps_topk_vec *chosen;
static pthread_once_t choose_once = PTHREAD_ONCE_INIT;

static void choose(void)
{
    char why[160];
    int want = 2, have = 0;
    if (ps_env_word("PORTSORT_OPENMP_SIMD", simd_words,
                    "avx512, avx2 or none", &want, why, sizeof why) < 0)
        want = 2;
    __builtin_cpu_init();
    /* The AVX2 form counts with popcnt, which every AVX2 CPU has. */
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt"))
        have = 1;
    if (__builtin_cpu_supports("avx512f"))
        have = 2;
    switch (want < have ? want : have) {
    case 2: chosen = &ps_topk_vec_x512; break;
    case 1: ps_topk_avx2_init(); chosen = &ps_topk_vec_avx2; break;
    default: chosen = NULL; break;
    }
}

const ps_topk_vec *ps_topk_vec_get(void)
{
    pthread_once(&choose_once, choose);
    return chosen;
}

#endif /* PS_TOPK_VEC */

/*
 * ps_reference_kernels-inl.h - the reference sort's loops over keys for one
 * key width.  ps_reference.c includes it once per width with PS_W defined
 * to 8, 16, 32 or 64, and calls these kernels, a pass at a time, through
 * that width's table (ref_kernels); the sort's control (which digits to
 * sort on, where each pass reads and writes) is plain C there.  Names end
 * in the width: FN(pass) is ref_pass32 in the 32-bit instance.
 */
#if !defined(PS_W)
#error "define PS_W (8, 16, 32 or 64) before including ps_reference_kernels-inl.h"
#endif

#define PS_CAT_(a, b) a##b
#define PS_CAT(a, b) PS_CAT_(a, b)
#define KEY_T PS_CAT(PS_CAT(uint, PS_W), _t)
#define ENC PS_CAT(ps_enc, PS_W)
#define FN(name) PS_CAT(PS_CAT(ref_, name), PS_W)

/* Counts of every 8-bit digit of the images of keys[0, n): digit p in
 * hist[p] (PS_W / 8 digits).  Returns the image of keys[0]. */
static uint64_t FN(hist)(const void *keys, size_t n, ps_xf xf,
                         size_t (*hist)[256])
{
    const KEY_T *k = (const KEY_T *)keys;
    size_t i;
    int p;
    for (i = 0; i < n; i++) {
        KEY_T t = ENC(k[i], xf);
        for (p = 0; p < PS_W / 8; p++)
            hist[p][(t >> (8 * p)) & 0xff]++;
    }
    return ENC(k[0], xf);
}

/* One stable pass by the 8-bit digit at bit sh: element i of src (values
 * vsrc of vs bytes, or none when vsrc is NULL) to dst[off[digit]++]. */
static void FN(pass)(const void *src, void *dst, const unsigned char *vsrc,
                     unsigned char *vdst, size_t vs, size_t n, ps_xf xf,
                     unsigned sh, size_t *off)
{
    const KEY_T *ksrc = (const KEY_T *)src;
    KEY_T *kdst = (KEY_T *)dst;
    size_t i;
    if (vsrc == NULL) {
        for (i = 0; i < n; i++) {
            KEY_T k = ksrc[i];
            kdst[off[(ENC(k, xf) >> sh) & 0xff]++] = k;
        }
    } else if (vs == 4) {
        const uint32_t *vs4 = (const uint32_t *)(const void *)vsrc;
        uint32_t *vd4 = (uint32_t *)(void *)vdst;
        for (i = 0; i < n; i++) {
            KEY_T k = ksrc[i];
            size_t at = off[(ENC(k, xf) >> sh) & 0xff]++;
            kdst[at] = k;
            vd4[at] = vs4[i];
        }
    } else if (vs == 8) {
        const uint64_t *vs8 = (const uint64_t *)(const void *)vsrc;
        uint64_t *vd8 = (uint64_t *)(void *)vdst;
        for (i = 0; i < n; i++) {
            KEY_T k = ksrc[i];
            size_t at = off[(ENC(k, xf) >> sh) & 0xff]++;
            kdst[at] = k;
            vd8[at] = vs8[i];
        }
    } else {
        for (i = 0; i < n; i++) {
            KEY_T k = ksrc[i];
            size_t at = off[(ENC(k, xf) >> sh) & 0xff]++;
            kdst[at] = k;
            memcpy(vdst + at * vs, vsrc + i * vs, vs);
        }
    }
}

/* Stable insertion sort of a few keys, for the tiny segments of a
 * segmented sort, where a counting pass's 256 counters cost more than the
 * keys; vtmp holds one value. */
static void FN(insert)(void *keys, unsigned char *values, size_t vs,
                       size_t n, ps_xf xf, unsigned char *vtmp)
{
    KEY_T *k = (KEY_T *)keys;
    size_t i, j;
    for (i = 1; i < n; i++) {
        KEY_T x = k[i], ex = ENC(x, xf);
        for (j = i; j > 0 && ENC(k[j - 1], xf) > ex; j--)
            k[j] = k[j - 1];
        if (j == i)
            continue;
        k[j] = x;
        if (values != NULL) {
            memcpy(vtmp, values + i * vs, vs);
            memmove(values + (j + 1) * vs, values + j * vs, (i - j) * vs);
            memcpy(values + j * vs, vtmp, vs);
        }
    }
}

#undef KEY_T
#undef ENC
#undef FN
#undef PS_CAT
#undef PS_CAT_

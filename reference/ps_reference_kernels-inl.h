/*
 * ps_reference_impl.h - the reference sort for one key width.  Included by
 * ps_reference.c once per width with PS_W defined to 8, 16, 32 or 64.
 */
#define PS_CAT_(a, b) a##b
#define PS_CAT(a, b) PS_CAT_(a, b)
#define KEY_T PS_CAT(PS_CAT(uint, PS_W), _t)
#define ENC PS_CAT(ps_enc, PS_W)
#define SORT_W PS_CAT(sort_, PS_W)
#define SORT_IN PS_CAT(sort_in_, PS_W)
#define INSERT_W PS_CAT(insert_, PS_W)
#define PASSES (PS_W / 8)

/* Stable insertion sort of a few keys, for the tiny segments of a
 * segmented sort, where a counting pass's 256 counters cost more than the
 * keys; vtmp holds one value. */
static void INSERT_W(KEY_T *keys, unsigned char *values, size_t vs, size_t n,
                     ps_xf xf, unsigned char *vtmp)
{
    size_t i, j;
    for (i = 1; i < n; i++) {
        KEY_T x = keys[i], ex = ENC(x, xf);
        for (j = i; j > 0 && ENC(keys[j - 1], xf) > ex; j--)
            keys[j] = keys[j - 1];
        if (j == i)
            continue;
        keys[j] = x;
        if (values != NULL) {
            memcpy(vtmp, values + i * vs, vs);
            memmove(values + (j + 1) * vs, values + j * vs, (i - j) * vs);
            memcpy(values + j * vs, vtmp, vs);
        }
    }
}

/* The LSD sort proper, with scratch for n keys (kbuf) and n values (vbuf,
 * unused for keys only) given: it cannot fail. */
static void SORT_IN(KEY_T *keys, unsigned char *values, size_t vs, size_t n,
                    ps_xf xf, KEY_T *kbuf, unsigned char *vbuf)
{
    size_t hist[PASSES][256];
    int active[PASSES], nactive = 0;
    KEY_T *ksrc, *kdst;
    unsigned char *vsrc, *vdst;
    size_t i;
    int p;

    memset(hist, 0, sizeof hist);
    for (i = 0; i < n; i++) {
        KEY_T t = ENC(keys[i], xf);
        for (p = 0; p < PASSES; p++)
            hist[p][(t >> (8 * p)) & 0xff]++;
    }
    /* A digit shared by every key leaves the order as it is: skip it. */
    {
        KEY_T t0 = ENC(keys[0], xf);
        for (p = 0; p < PASSES; p++) {
            active[p] = hist[p][(t0 >> (8 * p)) & 0xff] != n;
            nactive += active[p];
        }
    }
    if (nactive == 0)
        return;

    ksrc = keys, kdst = kbuf, vsrc = values, vdst = vbuf;
    for (p = 0; p < PASSES; p++) {
        size_t off[256], sum = 0;
        unsigned sh = 8u * (unsigned)p;
        int d;
        if (!active[p])
            continue;
        for (d = 0; d < 256; d++) {
            off[d] = sum;
            sum += hist[p][d];
        }
        if (values == NULL) {
            for (i = 0; i < n; i++) {
                KEY_T k = ksrc[i];
                kdst[off[(ENC(k, xf) >> sh) & 0xff]++] = k;
            }
        } else if (vs == 4) {
            const uint32_t *vs4 = (const uint32_t *)(void *)vsrc;
            uint32_t *vd4 = (uint32_t *)(void *)vdst;
            for (i = 0; i < n; i++) {
                KEY_T k = ksrc[i];
                size_t at = off[(ENC(k, xf) >> sh) & 0xff]++;
                kdst[at] = k;
                vd4[at] = vs4[i];
            }
        } else if (vs == 8) {
            const uint64_t *vs8 = (const uint64_t *)(void *)vsrc;
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
        { KEY_T *t = ksrc; ksrc = kdst; kdst = t; }
        { unsigned char *t = vsrc; vsrc = vdst; vdst = t; }
    }
    if (ksrc != keys) {
        memcpy(keys, ksrc, n * sizeof(KEY_T));
        if (values != NULL)
            memcpy(values, vsrc, n * vs);
    }
}

static int SORT_W(KEY_T *keys, unsigned char *values, size_t vs, size_t n,
                  ps_xf xf, void *(*alloc)(size_t), void (*release)(void *))
{
    KEY_T *kbuf = alloc(n * sizeof(KEY_T));
    unsigned char *vbuf = values != NULL ? alloc(n * vs) : NULL;
    if (kbuf == NULL || (values != NULL && vbuf == NULL)) {
        release(kbuf);
        release(vbuf);
        return PS_ERR_NO_MEMORY;
    }
    SORT_IN(keys, values, vs, n, xf, kbuf, vbuf);
    release(kbuf);
    release(vbuf);
    return PS_OK;
}

#undef KEY_T
#undef ENC
#undef SORT_W
#undef SORT_IN
#undef INSERT_W
#undef PASSES
#undef PS_CAT
#undef PS_CAT_

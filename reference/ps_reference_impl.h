/*
 * ps_reference_impl.h - the reference sort for one key width.  Included by
 * ps_reference.c once per width with PS_W defined to 8, 16, 32 or 64.
 */
#define PS_CAT_(a, b) a##b
#define PS_CAT(a, b) PS_CAT_(a, b)
#define KEY_T PS_CAT(PS_CAT(uint, PS_W), _t)
#define ENC PS_CAT(ps_enc, PS_W)
#define SORT_W PS_CAT(sort_, PS_W)
#define PASSES (PS_W / 8)

static int SORT_W(KEY_T *keys, unsigned char *values, size_t vs, size_t n,
                  ps_xf xf, void *(*alloc)(size_t), void (*release)(void *))
{
    size_t hist[PASSES][256];
    int active[PASSES], nactive = 0;
    KEY_T *kbuf, *ksrc, *kdst;
    unsigned char *vbuf = NULL, *vsrc, *vdst;
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
        return PS_OK;

    kbuf = alloc(n * sizeof(KEY_T));
    if (values != NULL)
        vbuf = alloc(n * vs);
    if (kbuf == NULL || (values != NULL && vbuf == NULL)) {
        release(kbuf);
        release(vbuf);
        return PS_ERR_NO_MEMORY;
    }

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
    release(kbuf);
    release(vbuf);
    return PS_OK;
}

#undef KEY_T
#undef ENC
#undef SORT_W
#undef PASSES
#undef PS_CAT
#undef PS_CAT_

/*
 * ps_recplan.h - the plan of a records or columns sort, shared by the
 * host form (lib/ps_records.c) and the device forms (the OpenCL and
 * CUDA/HIP modules: their API files check and plan with it,
 * ps_opencl_records.c and ps_gpu_records.c launch from the plan), so that
 * the words, shifts, order transforms and argument checks are decided in
 * one place.
 *
 * Each key (a field of a record, or a column) becomes its order image
 * (ps_keytype.h); the images of consecutive keys are packed, most
 * significant first, into words of at most 64 bits, each key at its
 * shift; a key is never split across words.  Header-only, so that the
 * modules, which link none of libportsort's internals, can use it.
 */
#ifndef PS_RECPLAN_H
#define PS_RECPLAN_H

#include <stddef.h>
#include <stdint.h>

#include "portsort.h"
#include "ps_keytype.h"

/* One key: element i's bytes are at base + off + i * stride (the host form
 * sets base to where key 0 lies and off to the field's offset in its
 * record, for the records' rebuild; the device forms leave base NULL and
 * keep their own pointers), kb bytes wide, shifted left by `shift` in its
 * word, encoded by xf. */
typedef struct ps_rec_key {
    const unsigned char *base;
    size_t off;
    size_t stride;
    unsigned kb;
    unsigned shift;
    ps_xf xf;
} ps_rec_key;

/* One word: keys first .. first + count - 1, `bits` bits in all. */
typedef struct ps_rec_word {
    size_t first, count;
    unsigned bits;
} ps_rec_word;

/* Bytes of a word's images: the narrowest unsigned type that holds them. */
static inline unsigned ps_rec_word_bytes(unsigned bits)
{
    return bits <= 8 ? 1 : bits <= 16 ? 2 : bits <= 32 ? 4 : 8;
}

/* Packs the nkeys keys into words greedily, most significant first, and
 * gives each key its shift: the words are then as few as 64 bits a word
 * allows.  word holds nkeys entries; returns how many are used. */
static inline size_t ps_rec_pack(ps_rec_key *key, size_t nkeys, ps_rec_word *word)
{
    size_t f = 0, nwords = 0;
    while (f < nkeys) {
        ps_rec_word *w = &word[nwords++];
        size_t g;
        unsigned used = 0;
        w->first = f;
        while (f < nkeys && used + 8 * key[f].kb <= 64)
            used += 8 * key[f++].kb;
        w->count = f - w->first;
        w->bits = used;
        for (g = w->first; g < f; g++) {
            used -= 8 * key[g].kb;
            key[g].shift = used;
        }
    }
    return nwords;
}

/* The checks of one key (a field or a column), named `what` i. */
static inline int ps_rec_check_key(const char *fn, const char *what, size_t i,
                                   ps_type type, unsigned flags,
                                   void (*fail)(const char *fmt, ...))
{
    if (!ps_type_valid((int)type)) {
        fail("%s: %s %zu: type %d is not a ps_type", fn, what, i, (int)type);
        return PS_ERR_INVALID_ARG;
    }
    if ((flags & ~(unsigned)PS_DESCENDING) != 0) {
        fail("%s: %s %zu: flags 0x%x (only PS_DESCENDING is allowed)", fn, what,
             i, flags);
        return PS_ERR_INVALID_ARG;
    }
    return PS_OK;
}

/* The checks of a records call's description, before anything else: at
 * least one field, record_size > 0, n records that size_t can count in
 * bytes, every field a known type and flags and lying inside the record.
 * The records pointer itself is the caller's to check. */
static inline int ps_rec_check_fields(const char *fn, size_t record_size, size_t n,
                                      const ps_field *fields, size_t num_fields,
                                      void (*fail)(const char *fmt, ...))
{
    size_t f;
    int st;
    if (fields == NULL || num_fields == 0) {
        fail("%s: no field to sort by (fields %s, num_fields %zu)", fn,
             fields == NULL ? "NULL" : "given", num_fields);
        return PS_ERR_INVALID_ARG;
    }
    if (record_size == 0) {
        fail("%s: record_size is 0", fn);
        return PS_ERR_INVALID_ARG;
    }
    if (n > SIZE_MAX / record_size) {
        fail("%s: n = %zu records of %zu bytes overflow size_t", fn, n, record_size);
        return PS_ERR_INVALID_ARG;
    }
    for (f = 0; f < num_fields; f++) {
        size_t kb;
        st = ps_rec_check_key(fn, "field", f, fields[f].type, fields[f].flags, fail);
        if (st != PS_OK)
            return st;
        kb = ps_type_bytes(fields[f].type);
        if (fields[f].offset > record_size || record_size - fields[f].offset < kb) {
            fail("%s: field %zu (%zu bytes at offset %zu) does not lie inside a "
                 "record of %zu bytes", fn, f, kb, fields[f].offset, record_size);
            return PS_ERR_INVALID_ARG;
        }
    }
    return PS_OK;
}

/* The checks of a columns call's description: the arrays of columns
 * (called `name` in the message) and types given, at least one column,
 * each of a known type and flags (flags NULL: all ascending).  The
 * columns' pointers are the caller's to check. */
static inline int ps_rec_check_columns(const char *fn, const char *name,
                                       const void *columns, const ps_type *types,
                                       const unsigned *flags, size_t num_columns,
                                       void (*fail)(const char *fmt, ...))
{
    size_t c;
    int st = PS_OK;
    if (columns == NULL || types == NULL || num_columns == 0) {
        fail("%s: no column to sort by (%s %s, types %s, num_columns %zu)", fn,
             name, columns ? "given" : "NULL", types ? "given" : "NULL",
             num_columns);
        return PS_ERR_INVALID_ARG;
    }
    for (c = 0; st == PS_OK && c < num_columns; c++)
        st = ps_rec_check_key(fn, "column", c, types[c], flags ? flags[c] : 0, fail);
    return st;
}

/* Key i of a records call (base NULL: the caller sets it if it wants). */
static inline ps_rec_key ps_rec_field_key(const ps_field *f, size_t record_size)
{
    ps_rec_key k = { NULL, f->offset, record_size, ps_type_bytes(f->type), 0,
                     ps_xf_make(f->type, f->flags) };
    return k;
}

/* Key c of a columns call: the column's elements side by side. */
static inline ps_rec_key ps_rec_column_key(ps_type type, unsigned flags)
{
    ps_rec_key k = { NULL, 0, ps_type_bytes(type), ps_type_bytes(type), 0,
                     ps_xf_make(type, flags) };
    return k;
}

#endif /* PS_RECPLAN_H */

/* vec.c - a growable array of fixed-size rows, and the hash index a
 * stream-stream join builds over one side's rows when a window closes. */
#include "air.h"

#include <stdlib.h>
#include <string.h>

#define VEC_FIRST_CAP 2 /* rows allocated by the first push: an interval join keeps a pair of arrays per key and time bucket, most of them short */

/* Room for one more row of row_size bytes (the same for every call on v).
 * Capacity doubles, so adds are amortised O(1). */
void *air_vec_add(AirVec *v, size_t row_size) {
  if (v->n == v->cap) {
    size_t cap = v->cap ? v->cap * 2 : VEC_FIRST_CAP;
    size_t unit = row_size ? row_size : 1;
    if (cap <= SIZE_MAX / unit)
      air_memory_check(cap * unit, "a join buffer");
    void *p = cap > SIZE_MAX / unit ? NULL : realloc(v->data, cap * unit);
    if (!p) {
      char what[64];
      snprintf(what, sizeof what, "row buffer of %zu rows", cap);
      air_oom(what);
    }
    v->data = p;
    v->cap = cap;
  }
  return (char *)v->data + v->n++ * row_size;
}

/* Append a copy of row. */
void air_vec_push(AirVec *v, const void *row, size_t row_size) {
  memcpy(air_vec_add(v, row_size), row, row_size);
}

void air_vec_free(AirVec *v) {
  if (!v) return;
  free(v->data);
  v->data = NULL;
  v->n = 0;
  v->cap = 0;
}

/* Chains of row indices per slot, at least two slots per row so chains
 * stay short; built from the last row down, so each chain is in row order
 * (the pairs of a key come out in arrival order, as before the index). */
void air_join_index(AirJoinIndex *x, const void *rows, size_t n, size_t stride) {
  if (n >= AIR_JOIN_NONE) air_oom("a join window of 2^32 rows or more on one side");
  unsigned bits = 4;
  while (((size_t)1 << bits) < 2 * n) bits++;
  size_t cap = (size_t)1 << bits;
  air_memory_check(cap * sizeof *x->head + n * sizeof *x->next, "a join window's index");
  x->head = malloc(cap * sizeof *x->head);
  x->next = malloc((n ? n : 1) * sizeof *x->next);
  if (!x->head || !x->next) air_oom("a join window's index");
  x->shift = 64 - bits;
  memset(x->head, 0xff, cap * sizeof *x->head);
  for (size_t i = n; i-- > 0;) {
    uint64_t h;
    memcpy(&h, (const char *)rows + i * stride, sizeof h);
    size_t j = (size_t)((h * AIR_JOIN_MUL) >> x->shift);
    x->next[i] = x->head[j];
    x->head[j] = (uint32_t)i;
  }
}

void air_join_index_free(AirJoinIndex *x) {
  free(x->head);
  free(x->next);
  x->head = x->next = NULL;
}

/* ---- checkpoints: the rows ---------------------------------------------- */

void air_vec_save(AirCkptW *w, const AirVec *v, size_t row_size) {
  air_ckpt_put_i64(w, (int64_t)v->n);
  air_ckpt_put(w, v->data, v->n * row_size);
}

void air_vec_load(AirCkptR *r, AirVec *v, size_t row_size) {
  int64_t n = air_ckpt_get_i64(r);
  for (int64_t i = 0; i < n; i++) {
    void *row = air_vec_add(v, row_size);
    air_ckpt_get(r, row, row_size);
    uint64_t h;
    memcpy(&h, row, sizeof h);
    if (!air_ckpt_keeps(r, h)) v->n--; /* another rank's key now */
  }
}

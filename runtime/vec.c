/* vec.c - a growable array of fixed-size rows (stream-stream join buffers). */
#include "air.h"

#include <stdlib.h>
#include <string.h>

#define VEC_FIRST_CAP 16 /* rows allocated by the first push */

/* Append a copy of row (row_size bytes, the same for every call on v).
 * Capacity doubles, so pushes are amortised O(1). */
void air_vec_push(AirVec *v, const void *row, size_t row_size) {
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
  memcpy((char *)v->data + v->n * row_size, row, row_size);
  v->n++;
}

void air_vec_free(AirVec *v) {
  if (!v) return;
  free(v->data);
  v->data = NULL;
  v->n = 0;
  v->cap = 0;
}

/* sinks.c - what the sinks that are no file share: the bytes a collector
 * writes into a sink's FILE cut into lines (kafka, redis), and the first
 * failure of a sink kept with its reason (redis, tcp). */
#include "air_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void air_lines_feed(AirLines *l, const char *buf, size_t size, void (*line)(void *ctx, const char *p, size_t n),
                    void *ctx) {
  for (size_t i = 0; i < size; i++) {
    /* a CSV field may hold a line end inside its quotes ("" toggles twice) */
    if (buf[i] == '"' && !l->json) l->inq = !l->inq;
    if (buf[i] == '\n' && !l->inq) {
      line(ctx, l->p, l->n);
      l->n = 0;
      continue;
    }
    if (l->n == l->cap) {
      size_t cap = l->cap ? l->cap * 2 : 4096;
      char *p = realloc(l->p, cap);
      if (!p) air_oom("a sink's line");
      l->p = p;
      l->cap = cap;
    }
    l->p[l->n++] = buf[i];
  }
}

void air_lines_free(AirLines *l) {
  free(l->p);
  *l = (AirLines){0};
}

void air_sink_fail(AirSinkErr *e, const char *fmt, ...) {
  if (e->failed) return;
  e->failed = true;
  char msg[384];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  snprintf(e->why, sizeof e->why, "%s: %s", e->who, msg);
}

bool air_sink_report(const AirSinkErr *e, char *why, size_t n) {
  if (e->failed) snprintf(why, n, "%s", e->why);
  return !e->failed;
}

const char *air_sink_error(const void *sink) {
  const AirSinkErr *e = sink;
  return e && e->why[0] ? e->why : "write error";
}

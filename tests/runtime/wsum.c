/* wsum.c - libair integration test, written against air.h only, the way
 * airc's generated code uses it:
 *
 *   gen (source, --threads instances)   rows i = 0..N-1, key = i % 50,
 *                                       ts = i, value = i % 97; partial sums
 *                                       per tumbling window of SIZE
 *     -> HASH edge 0 on the key
 *   merge (consumer, every rank)        sums partials per (window, key),
 *                                       emits final rows when the
 *                                       watermark passes the window end
 *     -> GATHER edge 1
 *   collector (rank 0)                  "key,total,WINDOW_END" by window, key
 *
 * usage: mpirun -np W ./wsum [runtime flags] [N [SIZE]]
 * WSUM_RAW=1 sends every row over the HASH edge instead of partial sums
 * (a stress test of batching and backpressure); WSUM_OUT=path writes the
 * result to a file.
 */
#include <stdlib.h>
#include <string.h>

#include "air.h"

#define KEYS 50

typedef struct Partial {
  int64_t key;
  int64_t wend; /* window end */
  int64_t sum;
} Partial;

typedef struct Final {
  int64_t key;
  int64_t total;
  int64_t wend;
  int64_t ts; /* release time, for the latency stats */
} Final;

typedef struct Query {
  AirRuntime *rt;
  AirEdge *partials, *finals;
  int64_t n, size;
  /* merge state: windows [next_win, nwin) of this rank, sums per key */
  int64_t nwin, next_win;
  int64_t *sum;   /* nwin * KEYS */
  char *seen;     /* nwin * KEYS */
  AirOut *out;    /* merge's port on `finals` */
  bool raw;       /* no partial sums at the source */
} Query;

static void emit_partials(Query *q, AirOut *o, int64_t win, int64_t *sum, char *seen) {
  int world = air_world(q->rt);
  for (int k = 0; k < KEYS; k++) {
    if (!seen[k])
      continue;
    Partial *p = air_out_row(o, (int)(air_hash_u64((uint64_t)k) % (uint64_t)world));
    p->key = k;
    p->wend = (win + 1) * q->size;
    p->sum = sum[k];
  }
  memset(sum, 0, KEYS * sizeof *sum);
  memset(seen, 0, KEYS);
}

static void gen_fn(AirVertex *v, int instance, void *ctx) {
  Query *q = ctx;
  AirOut *o = air_out_open(v, instance, q->partials);
  AirGen *g = air_gen_open(v, instance, 0, q->n, 1, true);
  int64_t sum[KEYS];
  char seen[KEYS];
  memset(sum, 0, sizeof sum);
  memset(seen, 0, sizeof seen);
  int64_t win = -1;
  uint64_t first, stride;
  int64_t now;
  while (!air_gen_done(g)) {
    size_t n = air_gen_next(g, 1024, &first, &stride, &now);
    if (n == 0)
      continue;
    air_stat_add(q->rt, AIR_STAT_EVENTS_IN, (int64_t)n);
    uint64_t i = first;
    for (size_t j = 0; j < n; j++, i += stride) {
      int64_t w = (int64_t)i / q->size;
      if (w != win) {
        if (win >= 0)
          emit_partials(q, o, win, sum, seen);
        win = w;
      }
      int k = (int)(i % KEYS);
      if (q->raw) {
        Partial *p = air_out_row(o, (int)(air_hash_u64((uint64_t)k) % (uint64_t)air_world(q->rt)));
        p->key = k;
        p->wend = (w + 1) * q->size;
        p->sum = (int64_t)(i % 97);
        continue;
      }
      sum[k] += (int64_t)(i % 97);
      seen[k] = 1;
    }
    /* Every later row has ts >= i; a window ending by then is complete
     * here and its partials must go before the watermark. */
    if (win >= 0 && (int64_t)i >= (win + 1) * q->size) {
      emit_partials(q, o, win, sum, seen);
      win = -1;
    }
    air_out_watermark(o, (int64_t)i);
  }
  if (win >= 0)
    emit_partials(q, o, win, sum, seen);
  air_gen_close(g);
}

static void merge_batch(AirVertex *v, int input, const void *rows, size_t nrows, void *ctx) {
  Query *q = ctx;
  (void)v;
  (void)input;
  const Partial *p = rows;
  for (size_t i = 0; i < nrows; i++) {
    int64_t w = p[i].wend / q->size - 1;
    if (w < q->next_win || w >= q->nwin || p[i].key < 0 || p[i].key >= KEYS) {
      air_stat_add(q->rt, AIR_STAT_LATE, 1);
      continue;
    }
    q->sum[w * KEYS + p[i].key] += p[i].sum;
    q->seen[w * KEYS + p[i].key] = 1;
  }
}

static void merge_watermark(AirVertex *v, int64_t wm, void *ctx) {
  Query *q = ctx;
  (void)v;
  int64_t now = air_now_ms();
  while (q->next_win < q->nwin && (q->next_win + 1) * q->size <= wm) {
    int64_t w = q->next_win++;
    for (int k = 0; k < KEYS; k++) {
      if (!q->seen[w * KEYS + k])
        continue;
      Final *f = air_out_row(q->out, 0);
      f->key = k;
      f->total = q->sum[w * KEYS + k];
      f->wend = (w + 1) * q->size;
      f->ts = now;
    }
  }
  air_out_watermark(q->out, wm);
}

static int final_cmp(const void *a, const void *b) {
  const Final *x = a, *y = b;
  if (x->wend != y->wend)
    return x->wend < y->wend ? -1 : 1;
  return (x->key > y->key) - (x->key < y->key);
}

static char *final_format(char *p, const void *row) {
  const Final *f = row;
  p = air_put_i64(p, f->key);
  *p++ = ',';
  p = air_put_i64(p, f->total);
  *p++ = ',';
  p = air_put_i64(p, f->wend);
  *p++ = '\n';
  return p;
}

int main(int argc, char **argv) {
  Query q;
  memset(&q, 0, sizeof q);
  q.rt = air_init(&argc, &argv, "wsum");
  q.n = argc > 1 ? atoll(argv[1]) : 200000;
  q.size = argc > 2 ? atoll(argv[2]) : 1000;
  q.raw = getenv("WSUM_RAW") != NULL;
  q.nwin = (q.n + q.size - 1) / q.size;
  q.sum = calloc((size_t)(q.nwin * KEYS) + 1, sizeof *q.sum);
  q.seen = calloc((size_t)(q.nwin * KEYS) + 1, 1);

  q.partials = air_edge_new(q.rt, 0, sizeof(Partial), AIR_ROUTE_HASH, air_threads(q.rt));
  q.finals = air_edge_new(q.rt, 1, sizeof(Final), AIR_ROUTE_GATHER, 1);
  air_vertex_source(q.rt, "gen", gen_fn, &q, air_threads(q.rt));
  AirEdge *in[1] = {q.partials};
  AirVertex *merge = air_vertex_consumer(q.rt, "merge", in, 1, merge_batch, merge_watermark, &q,
                                         false);
  q.out = air_out_open(merge, 0, q.finals);
  AirCollectorDef def = {
      .row_size = sizeof(Final),
      .wend_offset = offsetof(Final, wend),
      .ts_offset = offsetof(Final, ts),
      .windowed = true,
      .latency = true,
      .compare = final_cmp,
      .format = final_format,
      .line_max = 3 * AIR_PUT_I64_MAX + 3,
      .header = "key,total,WINDOW_END",
      .path = getenv("WSUM_OUT"),
  };
  air_collector_new(q.rt, "collect", q.finals, &def);
  int status = air_run(q.rt);
  free(q.sum);
  free(q.seen);
  return status;
}

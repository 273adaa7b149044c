/* air.h - libair, the thin runtime that airc's generated programs link against.
 *
 * SPMD: every MPI rank runs the same program. The generated code defines typed
 * row structs and the per-query loops; everything here is query-independent:
 * vertices on threads, bounded queues, non-blocking MPI channels with
 * watermarks, the rank-0 result collector, stats, hash tables, window state,
 * generators and CSV. See docs/design.md for the mechanisms.
 *
 * Ownership: the runtime owns every object it returns; they live until
 * air_run() returns, except where a function says otherwise.
 */
#ifndef AIR_H
#define AIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "air_limits.h" /* AIR_TS_MIN/MAX, AIR_MAX_EDGES, AIR_YSB_* */

#define AIR_WM_NONE INT64_MIN       /* no watermark yet */
#define AIR_WM_END INT64_MAX        /* end of stream */
#define AIR_WM_STOP (INT64_MAX - 1) /* a stop's cut: every window still open closes early */
#define AIR_BATCH_BYTES (64 * 1024) /* payload bytes per batch (at least one row) */

typedef struct AirRuntime AirRuntime; /* one per rank */
typedef struct AirEdge AirEdge;       /* a typed channel between two vertices */
typedef struct AirVertex AirVertex;   /* a thread running a source or consumer */
typedef struct AirOut AirOut;         /* one producer instance's port on one edge */

/* ======================================================================
 * Runtime, flags, clock (runtime.c)
 * ====================================================================== */

/* Parse run-time flags (--rate R, --duration S, --threads T, --stats,
 * --stats-json FILE, --quiet, --set REL.KEY=VALUE, --help) and initialise MPI (THREAD_FUNNELED:
 * only the calling thread uses MPI). An unknown flag prints a message and
 * exits 2 on every rank. query_name names the program in messages. */
AirRuntime *air_init(int *argc, char ***argv, const char *query_name);
int air_rank(const AirRuntime *rt);
int air_world(const AirRuntime *rt);
int64_t air_rate_override(const AirRuntime *rt); /* --rate, or -1 when absent */
int air_threads(const AirRuntime *rt);           /* --threads, default 1 */
double air_duration_s(const AirRuntime *rt);     /* --duration, 0 = none */
int64_t air_default_seed(const AirRuntime *rt);  /* clock seed, equal on all ranks */
int64_t air_now_ms(void);                        /* wall clock, ms since the epoch */
bool air_should_stop(const AirRuntime *rt);      /* duration over or signal seen */
bool air_on_stop_emit(const AirRuntime *rt);     /* --on-stop emit: a stop writes what it closes early */
AirRuntime *air_vertex_runtime(const AirVertex *v);
/* Run-time option overrides (options.c). The program's table of every
 * source, table and sink option (air_limits.h's AirOptDef, n rows), given
 * right after air_init: the compiled values are parsed, the environment's
 * AIRC_SET_rel__key=value and then --set rel.key=value applied, each
 * checked with airc's messages; a refused one ends every rank with status
 * 1 ("airc: name: --set a.b=c: why") before anything starts. Then the
 * setup reads every value through air_opt_* (row i of the table): */
void air_options(AirRuntime *rt, const AirOptDef *defs, int n);
const char *air_opt_str(const AirRuntime *rt, int i); /* a string, or NULL when none */
int64_t air_opt_i64(const AirRuntime *rt, int i);     /* integer, ms (-1: none), bool, header, end, bad-row kind */
double air_opt_f64(const AirRuntime *rt, int i);      /* max_bad_rows: the count or percentage */
bool air_opt_given(const AirRuntime *rt, int i);      /* a value was compiled or set */
/* prefix and row i's string ("tcp:" and the address), owned by the runtime */
const char *air_opt_join(AirRuntime *rt, const char *prefix, int i);
/* the kafka.* properties: the compiled name, value pairs with row i's
 * overrides replacing or added (owned by the runtime) */
void air_opt_props(AirRuntime *rt, int i, const char *const *compiled, int ncompiled, const char *const **props,
                   int *nprops);

/* Vertex threads get a stack of 8 MB plus `bytes` (called before air_run:
 * the generated program's bound on the rows its functions keep there). */
void air_stack_hint(AirRuntime *rt, size_t bytes);
/* A fatal error before the stream starts (missing file, bad table): prints
 * "name: error: msg" once per distinct message and ends every rank with a
 * non-zero status. Never returns. */
void air_fatal(AirRuntime *rt, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn));
/* Out of memory growing `what`, on any thread: air_fatal on this rank's
 * runtime ("out of memory (what)"), so every rank ends with one message;
 * before air_init (unit tests) the message and exit status 1 alone. */
void air_oom(const char *what) __attribute__((noreturn));
/* Called before run-time state grows by `more` bytes (`what` names it):
 * ends the run like air_fatal, with "memory limit: ...", when this rank
 * would pass its budget, rather than leave it to the kernel's OOM killer.
 * The budget is AIR_MEMORY_LIMIT_MB per rank (0: no limit), by default 75%
 * of the node's memory shared by the ranks on the node. */
void air_memory_check(size_t more, const char *what);

/* ======================================================================
 * Edges, vertices, ports (vertex.c, comm.c, queue.c)
 * ====================================================================== */

typedef enum {
  AIR_ROUTE_HASH,   /* the producer picks the destination rank per row */
  AIR_ROUTE_LOCAL,  /* always the producer's own rank */
  AIR_ROUTE_GATHER, /* always rank 0 (only rank 0 has the consumer) */
} AirRoute;

/* Define edge `id` (unique, < AIR_MAX_EDGES; the MPI tag) carrying rows of
 * row_size bytes. producers_per_rank: producer instances per rank. Called on
 * every rank in the same order, before air_run. */
AirEdge *air_edge_new(AirRuntime *rt, int id, size_t row_size, AirRoute route,
                      int producers_per_rank);

/* A source vertex: fn runs `instances` times in parallel, each on its own
 * thread. When fn returns, AIR_WM_END is sent on every port it opened. */
typedef void (*AirSourceFn)(AirVertex *v, int instance, void *ctx);
AirVertex *air_vertex_source(AirRuntime *rt, const char *name, AirSourceFn fn,
                             void *ctx, int instances);

/* A consumer vertex reading `inputs`. Callbacks run on the vertex's thread.
 * on_batch: rows (nrows structs of the input edge's row_size) are valid
 *   during the call only.
 * on_watermark: the minimum watermark over every sender of every input
 *   strictly increased to wm; the last call has wm == AIR_WM_END, after
 *   which the vertex ends (sending AIR_WM_END on all its ports).
 * rank0_only: the vertex exists on rank 0 only; its inputs are GATHER edges. */
typedef void (*AirBatchFn)(AirVertex *v, int input, const void *rows,
                           size_t nrows, void *ctx);
typedef void (*AirWatermarkFn)(AirVertex *v, int64_t wm, void *ctx);
AirVertex *air_vertex_consumer(AirRuntime *rt, const char *name,
                               AirEdge **inputs, int ninputs,
                               AirBatchFn on_batch, AirWatermarkFn on_watermark,
                               void *ctx, bool rank0_only);

/* Open vertex v's port on edge e for one producer instance (sources: inside
 * fn with its instance; consumers: instance 0, in a callback or before
 * air_run). A consumer's ports are flushed whenever its input queue runs
 * dry, so rows never wait for a full batch. */
AirOut *air_out_open(AirVertex *v, int instance, AirEdge *e);

/* The hot path of air_out_row: a cursor per destination rank. */
typedef struct AirOutCursor {
  char *next; /* where the next row goes */
  char *end;  /* end of the current batch payload */
} AirOutCursor;
typedef struct AirOutHead {
  AirOutCursor *cur; /* per destination rank (index 0 only for LOCAL/GATHER) */
  size_t row_size;   /* bytes per row */
  int route;         /* AirRoute of the edge */
} AirOutHead;
void *air_out_row_slow(AirOut *o, int dest);

/* Space for one row to rank `dest` (ignored for LOCAL and GATHER edges);
 * the caller fills row_size bytes before the next call on this port. A full
 * batch is handed to the channel first, which may block (backpressure). */
static inline void *air_out_row(AirOut *o, int dest) {
  AirOutHead *h = (AirOutHead *)o;
  AirOutCursor *c = &h->cur[h->route == AIR_ROUTE_HASH ? dest : 0];
  if (c->next + h->row_size <= c->end) {
    void *p = c->next;
    c->next += h->row_size;
    return p;
  }
  return air_out_row_slow(o, dest);
}
/* Flush pending rows, then send watermark wm to every consumer rank. */
void air_out_watermark(AirOut *o, int64_t wm);
/* Hand partially filled batches to the channel (bounds latency). */
void air_out_flush(AirOut *o);

/* A source instance, between rows, once air_should_stop() is true: the rows
 * of its source before position pos (its own order: a generator's row
 * index, a file's record index) are consumed. Blocks until the ranks agreed
 * on the cut K >= pos (the largest position any instance parked at); the
 * instance then makes or reads its rows before K, sends the watermark the
 * cut implies and AIR_WM_STOP, and ends (cut.c). Returns K. */
int64_t air_source_park(AirVertex *v, int64_t pos);
/* What the other ranks' instances of source vertex v last sent as their
 * watermark, as heard here over the exchanges v feeds (the minimum), or
 * AIR_WM_NONE when v feeds none or some has sent nothing yet. */
int64_t air_peer_wm(AirVertex *v);
/* Source v's input is all idle (or no longer): batches say so from now
 * on, and an empty one goes out at once on every port. Its own thread. */
void air_source_idle(AirVertex *v, bool idle);

/* Start every vertex thread, run the MPI loop on the calling thread until
 * every vertex on every rank ended, print the summary (rank 0), finalize MPI
 * and free everything. Returns the process exit status. */
int air_run(AirRuntime *rt);

/* ======================================================================
 * Stats (stats.c): per-rank counters, merged on rank 0 at the end
 * ====================================================================== */

typedef enum {
  AIR_STAT_EVENTS_IN,  /* rows entering from sources */
  AIR_STAT_FILTERED,   /* rows removed by WHERE */
  AIR_STAT_UNMATCHED,  /* inner-join rows without a partner (dropped by design) */
  AIR_STAT_LATE,       /* rows behind their operator's watermark */
  AIR_STAT_DROPPED,    /* rows lost for any other reason (must stay 0) */
  AIR_STAT_BAD_ROWS,   /* malformed input rows skipped */
  AIR_STAT_WINDOWS,    /* window result rows (one per key and window) */
  AIR_STAT_DIV_ZERO,   /* divisions by zero (integers: result 0) */
  AIR_STAT_BYTES_SENT, /* bytes sent to other ranks (MPI messages, headers included) */
  AIR_STAT_MESSAGES,   /* MPI messages sent to other ranks */
  AIR_STAT_EARLY_WINDOWS, /* windows still open at a stop's cut (closed early) */
  AIR_STAT_EARLY_ROWS, /* their result rows (written with --on-stop emit, else left out) */
  AIR_STAT_PARTIAL_RAW, /* rows per-rank partials sent on unaggregated (window.c) */
  AIR_STAT_STATE_PEAK, /* the most bytes of hash-table slots a rank held at once, summed over ranks */
  AIR_STAT_STATE_SETTLED, /* the same outside table doublings */
  AIR_STAT_OUTPUT_US,  /* microseconds collectors spent merging and writing windowed results */
  AIR_STAT_CAST_ERRORS, /* text CAST to a number or BOOLEAN, or TO_TIMESTAMP'd, that was none (gave 0) */
  AIR_STAT_EXPIRED,    /* keys of updating queries dropped by state_ttl (idle that long in event time) */
  AIR_STAT_SOURCE_LAG, /* a gauge, not a count: messages behind the newest offsets of the
                          kafka partitions this rank reads, as last measured (kafka.c) */
  AIR_STAT_COUNT,
} AirStat;
void air_stat_add(AirRuntime *rt, AirStat s, int64_t n); /* thread-safe */
void air_stat_set(AirRuntime *rt, AirStat s, int64_t v); /* thread-safe: a gauge's value */
void air_latency_record(AirRuntime *rt, double ms);      /* rank 0 collector */

/* ======================================================================
 * Collector (collector.c): rank 0 writes results in docs/language.md's order
 * ====================================================================== */

typedef struct AirCollectorDef {
  size_t row_size;    /* bytes per row on the gather edge */
  size_t wend_offset; /* offset of the int64_t window end (windowed only) */
  size_t ts_offset;   /* offset of the int64_t event time */
  bool windowed;      /* hold rows until the watermark passes their window end */
  bool latency;       /* record now - event time per written row */
  int (*compare)(const void *a, const void *b); /* total order within a window */
  /* one line with '\n' put at p (at most line_max bytes); returns its end */
  char *(*format)(char *p, const void *row);
  size_t line_max;
  const char *header; /* CSV header line, without '\n' */
  const char *path;   /* NULL: stdout (or sink_ops); else path.tmp renamed to path at the end */
  bool live;          /* path is written in place (an unbounded source): flushed per
                         window, no .tmp and no rename */
  /* A sink that is no file (kafka, redis, tcp; path NULL): its ops and its
   * definition (an AirKafkaSinkDef, AirRedisSinkDef, ...), else NULL. */
  const struct AirSinkOps *sink_ops;
  const void *sink_def;
  const char *tag;    /* NULL, or a first field put before every line, header too
                         (several queries sharing standard output) */
  int64_t limit;      /* windowed: rows written per window at most (the first in
                         compare's order; LIMIT n), or 0 for all */
  /* limit per partition of a window (ROW_NUMBER() OVER (PARTITION BY
   * window_start, window_end, k ...)): rows equal by same_part, which
   * compare orders next to each other, share the limit; NULL: the window */
  int (*same_part)(const void *a, const void *b);
  bool rn;            /* the row's number in its partition, from 1, into the */
  size_t rn_offset;   /* int64_t at this offset before the row is formatted */
  /* NULL, or a condition on each row kept by limit, numbered (the other
   * conditions of a Top-N's WHERE rownum <= n AND ...): false drops it */
  bool (*keep)(const void *row);
} AirCollectorDef;
/* A rank-0 consumer of gather edge e writing results. Windowed: when the
 * watermark reaches wm, rows with window end <= wm are complete; they are
 * sorted with compare and written, and counted as AIR_STAT_WINDOWS.
 * Otherwise rows are written as they arrive. def is copied. */
AirVertex *air_collector_new(AirRuntime *rt, const char *name, AirEdge *e,
                             const AirCollectorDef *def);

/* ======================================================================
 * Hashing and hash tables (hash.c)
 * ====================================================================== */

uint64_t air_hash_bytes(const void *p, size_t n);

/* splitmix64's finalizer: a bijective 64-bit mixer. */
static inline uint64_t air_mix64(uint64_t z) {
  z += 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}
static inline uint64_t air_hash_u64(uint64_t x) { return air_mix64(x); }
static inline uint64_t air_hash_combine(uint64_t h, uint64_t x) {
  return air_mix64(h ^ (x + 0x632BE59BD9B4E019ULL + (h << 6) + (h >> 2)));
}

/* Open addressing over fixed-size keys (compared with memcmp) and values.
 * Grows by doubling; running out of memory ends the run with a message. */
typedef struct AirHash AirHash;
AirHash *air_hash_new(size_t key_size, size_t val_size, size_t initial_cap);
void air_hash_free(AirHash *h); /* accepts NULL */
void *air_hash_find(const AirHash *h, const void *key, uint64_t hash);
void *air_hash_upsert(AirHash *h, const void *key, uint64_t hash, bool *is_new);
size_t air_hash_count(const AirHash *h);
size_t air_hash_cap(const AirHash *h); /* its slots */
/* Ask the cache for the first slot key's probe reads (a hint: callers that
 * know their next keys overlap the misses of a table past the caches). */
void air_hash_prefetch(const AirHash *h, const void *key, uint64_t hash);
/* size_t pos = 0; while (air_hash_next(h, &pos, &k, &v)) ... */
bool air_hash_next(const AirHash *h, size_t *pos, const void **key, void **val);
void air_hash_clear(AirHash *h); /* empties, keeps capacity */
/* air_hash_next, with the key's hash as stored: passed to air_hash_find or
 * air_hash_upsert of any table it finds the same key. */
bool air_hash_next_h(const AirHash *h, size_t *pos, const void **key,
                     void **val, uint64_t *hash);
/* Sorts the entries by key (cmp compares two keys): air_hash_next then
 * gives them in that order, and the table takes no upsert or find until
 * air_hash_clear. */
void air_hash_sort(AirHash *h, int (*cmp)(const void *, const void *));
/* Drops the entries keep() refuses (the table is made anew, *hp replaced);
 * returns how many it dropped. */
size_t air_hash_retain(AirHash **hp, bool (*keep)(const void *val, void *ctx), void *ctx);
/* The same for 8-byte keys that are one int64_t ordered as signed (a
 * BIGINT or TIMESTAMP group key): a radix sort, without comparisons. */
void air_hash_sort_i64(AirHash *h);
/* The most bytes of slots all tables of the process held at once; settled:
 * outside doublings (which hold the old slots beside the new). */
int64_t air_hash_peak_bytes(bool settled);

/* ======================================================================
 * Windows (window.c)
 * ====================================================================== */

static inline int64_t air_floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}
static inline int64_t air_tumble_start(int64_t ts, int64_t size_ms) {
  return air_floor_div(ts, size_ms) * size_ms;
}
/* Lowest start s of a hopping window [s, s+size) containing ts; the others
 * are s + k*adv while s + k*adv <= ts. */
static inline int64_t air_hop_first_start(int64_t ts, int64_t size_ms,
                                          int64_t adv_ms) {
  return (air_floor_div(ts - size_ms, adv_ms) + 1) * adv_ms;
}

/* Open windows of one operator: window start -> table (key -> accumulator). */
typedef struct AirWindows AirWindows;
AirWindows *air_windows_new(size_t key_size, size_t acc_size);
/* Many short windows of few keys each (an updating query's EMIT CHANGES,
 * a window per ms): fresh tables start small, and more are kept for reuse. */
void air_windows_small(AirWindows *w);
void air_windows_free(AirWindows *w); /* accepts NULL */
/* The accumulator of (window start, key), zeroed when new. */
void *air_windows_acc(AirWindows *w, int64_t win_start, const void *key,
                      uint64_t hash, bool *is_new);
/* The accumulator of (win_start, key) if that window and key are open, else
 * NULL; opens nothing (an interval join's probe). */
void *air_windows_find(const AirWindows *w, int64_t win_start, const void *key, uint64_t hash);
/* Remove and return the earliest open window with start + size_ms <= wm,
 * with its start in *win_start; NULL when none. Iterate the table, then
 * give it back with air_windows_recycle. */
AirHash *air_windows_pop_closed(AirWindows *w, int64_t wm, int64_t size_ms,
                                int64_t *win_start);
void air_windows_recycle(AirWindows *w, AirHash *h);
size_t air_windows_open_count(const AirWindows *w);
/* air_windows_acc for a per-rank partial, or NULL when pre-aggregating
 * does not pay (window.c): the caller then sends the row on as a partial
 * of its own. */
void *air_windows_partial_acc(AirWindows *w, int64_t win_start, const void *key, uint64_t hash, bool *is_new);
/* Staging (window.c): true when a partial's open tables are past the
 * caches, so that its caller should collect rows as one-row partials and
 * merge them a batch at a time (air_windows_prefetch ahead, then
 * air_windows_partial_acc and the merge), overlapping the cache misses of
 * the batch instead of waiting out each in turn. */
bool air_windows_staging(const AirWindows *w);
#define AIR_STAGE_ROWS 256 /* rows a caller stages before it merges them */
#define AIR_STAGE_AHEAD 16 /* rows between a prefetch and its row's merge */
void air_windows_prefetch(const AirWindows *w, int64_t win_start, const void *key, uint64_t hash);
int64_t air_windows_raw_rows(void); /* rows every partial of the process sent on unaggregated */
/* The earliest open window's start, false when none is open. */
bool air_windows_first_start(const AirWindows *w, int64_t *win_start);

/* Window state for a group key known to lie in [lo, hi] (a generated
 * uniform column): per window an array indexed by key - lo (dense.c). The
 * caller guarantees lo <= key <= hi. */
typedef struct AirDense AirDense;
AirDense *air_dense_new(int64_t lo, int64_t hi, size_t acc_size);
void air_dense_free(AirDense *d); /* accepts NULL */
/* The accumulator of (window start, key), zeroed when new. */
void *air_dense_acc(AirDense *d, int64_t win_start, int64_t key, bool *is_new);
/* Hand out the earliest open window with start + size_ms <= wm (false when
 * none): iterate it with air_dense_next; the next pop or air_dense_recycle
 * gives it back. */
bool air_dense_pop_closed(AirDense *d, int64_t wm, int64_t size_ms, int64_t *win_start);
bool air_dense_next(AirDense *d, size_t *pos, int64_t *key, void **acc);
void air_dense_recycle(AirDense *d);
size_t air_dense_open_count(const AirDense *d);

/* ======================================================================
 * Generators (gen.c). Row i of a stream is a function of (seed, i) alone:
 *   mix64            as air_mix64 above
 *   row hash   H     = mix64(mix64(seed) + i)
 *   column     r     = mix64(H + c)      c = 0-based column in the declaration
 *                                        (ysb: the field number below)
 *   uniform(lo, hi)  = lo + r % (hi - lo + 1)   (unsigned arithmetic)
 *   choice(k items)  = item[r % k]
 *   sequence(a, d)   = a + i * d
 *   uuid()           = the 16 bytes big-endian r then big-endian mix64(r),
 *                      byte 6 = (byte 6 & 0x0f) | 0x40,
 *                      byte 8 = (byte 8 & 0x3f) | 0x80,
 *                      as lowercase hex 8-4-4-4-12 (36 chars)
 * YSB fields: user_id 0, page_id 1 (uuid of r), ad_id 2 (uuid of ad r % 1000),
 *   ad_type 3 ({banner, modal, sponsored-search, mail, mobile}[r % 5]),
 *   event_type 4 ({view, click, purchase}[r % 3]), ip 5 (dotted quad of the
 *   low 32 bits of r, most significant byte first), ts 6.
 * YSB campaigns: ad k (0..999) belongs to campaign k / 10; the uuid of ad k is
 *   uuid(mix64(0xADADADAD00000000 + k)), of campaign j
 *   uuid(mix64(0xCAC0CAC000000000 + j)).
 * ====================================================================== */

/* The fields AIR_YSB_*, AIR_YSB_ADS and AIR_YSB_CAMPAIGNS: air_limits.h. */

static inline uint64_t air_gen_row(int64_t seed, uint64_t i) {
  return air_mix64(air_mix64((uint64_t)seed) + i);
}
static inline uint64_t air_gen_col(uint64_t row_hash, int col) {
  return air_mix64(row_hash + (uint64_t)col);
}
static inline int64_t air_gen_uniform(uint64_t r, int64_t lo, int64_t hi) {
  uint64_t span = (uint64_t)hi - (uint64_t)lo + 1; /* 0: the whole int64 range */
  return (int64_t)((uint64_t)lo + (span ? r % span : r));
}
void air_gen_uuid(uint64_t r, char out[37]); /* 36 chars and a NUL */
void air_ysb_ad_uuid(int ad, char out[37]);
void air_ysb_campaign_uuid(int campaign, char out[37]);
/* A YSB string field (not TS) for column value r, NUL-padded to cap bytes
 * (cap > the field's longest value). The fields a query filters and joins
 * on come from NUL-padded tables (ad ids formatted at program start), so a
 * column of at most AIR_YSB_PAD bytes is filled by one fixed-size copy. */
#define AIR_YSB_PAD 48
extern char air_ysb_ad_ids_padded[AIR_YSB_ADS][AIR_YSB_PAD];
extern const char air_ysb_event_types_padded[3][AIR_YSB_PAD];
extern const char air_ysb_ad_types_padded[5][AIR_YSB_PAD];
void air_ysb_fill_slow(int field, uint64_t r, char *out, size_t cap);
/* air_hash_bytes of ad id k as a VARCHAR(36) column (37 bytes, NUL-padded):
 * a join on it looks the generated id up without hashing it per event. */
extern uint64_t air_ysb_ad_hashes[AIR_YSB_ADS];
static inline void air_ysb_fill(int field, uint64_t r, char *out, size_t cap) {
  const char *src;
  switch (field) {
  case AIR_YSB_AD_ID: src = air_ysb_ad_ids_padded[r % AIR_YSB_ADS]; break;
  case AIR_YSB_AD_TYPE: src = air_ysb_ad_types_padded[r % 5]; break;
  case AIR_YSB_EVENT_TYPE: src = air_ysb_event_types_padded[r % 3]; break;
  default: air_ysb_fill_slow(field, r, out, cap); return;
  }
  if (cap <= AIR_YSB_PAD) {
    memcpy(out, src, cap);
  } else {
    memcpy(out, src, AIR_YSB_PAD);
    memset(out + AIR_YSB_PAD, 0, cap - AIR_YSB_PAD);
  }
}

/* Pacing and partitioning of one generator instance. Global row indices are
 * dealt round-robin: instance t of rank p among T instances on W ranks makes
 * i = p*T + t, then i + W*T, ... (below limit when limit > 0). rate is in
 * events/s over all ranks (0 = unthrottled), overridden by --rate. Without a
 * seed, air_default_seed is used. */
typedef struct AirGen AirGen;
AirGen *air_gen_open(AirVertex *v, int instance, int64_t rate, int64_t limit,
                     int64_t seed, bool seed_given);
/* Up to max rows to make now: their global indices are *first,
 * *first + *stride, ...; *now_ms is their ingestion time (one clock read per
 * call). Sleeps as pacing needs; may return 0 with *now_ms set while pacing
 * (advance the watermark). Returns 0 with air_gen_done() true at the end. */
size_t air_gen_next(AirGen *g, size_t max, uint64_t *first, uint64_t *stride,
                    int64_t *now_ms);
bool air_gen_done(const AirGen *g);
/* Was the stream cut by a stop (then *k is the cut: rows before it made)? */
bool air_gen_cut(const AirGen *g, int64_t *k);
/* The stream ends here (its next row cannot be made: why); said once, on
 * rank 0. */
void air_gen_end(AirGen *g, const char *source, const char *why);
int64_t air_gen_seed(const AirGen *g);
void air_gen_close(AirGen *g); /* accepts NULL */

/* ======================================================================
 * CSV input and output (csv.c, format.c)
 * ====================================================================== */

typedef struct AirCsv AirCsv;
typedef struct AirField {
  const char *p; /* field bytes, quotes removed; air_null_field: NULL */
  size_t n;      /* length */
} AirField;
/* The bytes of a NULL field (an empty csv field without quotes, a null or
 * missing JSON value): an empty field that the code parsing it can tell. */
extern const char air_null_field[1];

/* Why a field was refused, for the parsers whose messages tell more. */
typedef enum AirParse {
  AIR_PARSE_OK,      /* *out holds the value */
  AIR_PARSE_INVALID, /* not of the type's syntax */
  AIR_PARSE_RANGE,   /* well-formed, but out of the type's range (VARCHAR: too long) */
  AIR_PARSE_NUL,     /* VARCHAR: holds a NUL byte */
} AirParse;
/* TIMESTAMPs lie in [AIR_TS_MIN, AIR_TS_MAX] (air_limits.h). */

typedef enum AirCsvHeader {
  AIR_CSV_NO_HEADER,   /* the first record is data */
  AIR_CSV_HEADER,      /* it names the columns: checked against the declaration */
  AIR_CSV_HEADER_SKIP, /* it is skipped unchecked (header = 'skip') */
} AirCsvHeader;

/* When bad rows of one csv source or table fail the run (max_bad_rows). */
typedef enum AirBadLimit {
  AIR_BAD_NO_GOOD, /* the default: when it has records and none is good */
  AIR_BAD_COUNT,   /* when more than bad_max of its rows are bad */
  AIR_BAD_PCT,     /* when more than bad_max percent of its records are bad */
} AirBadLimit;

/* source = 'kafka' (kafka.c): the csv reader's records are the messages of
 * Kafka topics. Only a query that reads Kafka links kafka.c and librdkafka:
 * the reader calls it through the ops its AirKafkaDef names. */
typedef struct AirKafka AirKafka;
typedef struct AirCkptW AirCkptW; /* checkpoints, below */
typedef struct AirCkptR AirCkptR;
typedef struct AirKafkaMsg {
  const char *p;  /* the value (NULL and 0 for a tombstone) */
  size_t n;
  int part;       /* index among this rank's partitions */
  int64_t offset;
  int64_t ts;     /* the message timestamp, ms, or AIR_WM_NONE */
} AirKafkaMsg;
struct AirKafkaDef;
typedef struct AirKafkaOps {
  /* this rank's consumer (main thread, before the run), or NULL and err */
  AirKafka *(*open)(AirRuntime *rt, const struct AirKafkaDef *d, const char *stream, char *err, size_t nerr);
  /* 1: a message in *m; 0: none within timeout_ms; -1: every partition at its end */
  int (*next)(AirKafka *k, int timeout_ms, AirKafkaMsg *m);
  int64_t *(*maxts)(AirKafka *k, int part); /* a partition's largest event time */
  int64_t (*wm)(AirKafka *k, int64_t bound); /* min over partitions holding it; AIR_WM_END: none */
  void (*where)(const AirKafka *k, int part, int64_t offset, char *buf, size_t n);
  void (*close)(AirKafka *k); /* commits a group's offsets; accepts NULL */
  void (*lag)(AirKafka *k);   /* measure AIR_STAT_SOURCE_LAG now (the source's end or stop) */
  /* checkpoints (ckpt.c): each partition's next offset and largest event
   * time; read back, the partitions this rank reads now take them (and
   * are assigned there); seek: those of ranks of then that had ended
   * (pos[j % n] == INT64_MAX for partition j) are at their end */
  void (*save)(AirKafka *k, AirCkptW *w);
  void (*load)(AirKafka *k, AirCkptR *r);
  void (*seek)(AirKafka *k, const int64_t *pos, int n);
} AirKafkaOps;
extern const AirKafkaOps air_kafka_ops;
typedef struct AirKafkaDef {
  const AirKafkaOps *ops;  /* &air_kafka_ops */
  const char *brokers;     /* bootstrap servers, host:port,... */
  const char *topics;      /* topic,... */
  const char *group;       /* consumer group for committed offsets, or NULL */
  const char *start;       /* earliest, latest, or [topic:]partition:offset,... */
  bool until_end;          /* end = 'latest': stop at the end offsets of the start */
  int64_t idle_ms;         /* idle_timeout, -1: a partition is never idle */
  int64_t timeout_ms;      /* brokers unreachable this long end the run */
  const char *const *props; /* kafka.* options: name, value, name, value... */
  int nprops;
} AirKafkaDef;

/* A sink that is not a file: rank 0's collector writes its rows, as to a
 * file, into the FILE open() returns (fopencookie), whose writer sends them
 * on. A write that fails sets errno, and error() says why; the collector
 * ends the run with it. */
typedef struct AirSinkOps {
  /* rank 0, before the run: the sink (its peer reached within its timeout)
   * and the FILE of its lines, or NULL and err */
  void *(*open)(AirRuntime *rt, const void *def, FILE **out, char *err, size_t nerr);
  /* NULL, or called before each windowed row's line with its window end */
  void (*row)(void *s, int64_t wend);
  /* at the end: flush f, make sure everything arrived; false and why if not */
  bool (*finish)(void *s, FILE *f, char *why, size_t n);
  const char *(*error)(const void *s); /* why a write failed */
} AirSinkOps;

/* sink = 'kafka' (kafka.c): the collector's lines become messages. */
extern const AirSinkOps air_kafka_sink_ops;
typedef struct AirKafkaSinkDef {
  const char *brokers;
  const char *topic;
  int64_t timeout_ms;       /* delivery timeout (message.timeout.ms), and the start's */
  const char *const *props; /* kafka.* options: name, value pairs */
  int nprops;
  const int *key_fields;    /* the result columns of a message's key (the group key) */
  int nkey;
  bool json;                /* lines are JSON objects (else CSV records) */
  /* an updating query's changelog (each line starts with its op) as
   * upserts: +I and +U the row without its op, -D a tombstone (the key and
   * no value), -U nothing (the +U after it replaces the row) */
  bool ops;
} AirKafkaSinkDef;

/* source = 'redis' for a TABLE (redis_table.c, linked with -lhiredis only
 * by programs that have one): rank 0 reads the keys, every rank gets them. */
typedef struct AirRedisTable AirRedisTable;
typedef struct AirRedisTableDef {
  const char *name;          /* the table, for messages */
  const char *address;       /* host:port */
  const char *pattern;       /* SCAN MATCH pattern of the keys read, or NULL: '*' */
  const char *key_prefix;    /* or the keys that start with it, which the key column drops; NULL */
  bool hash;                 /* layout = 'hash': HMGET of fields; else each key's string value */
  const char *const *fields; /* hash: the fields, the non-key columns in order */
  int nfields;               /* the values per key (string: 1) */
  int64_t timeout_ms;        /* connecting, and each answer */
  AirBadLimit bad_limit;     /* as a csv table's */
  double bad_max;
} AirRedisTableDef;
/* [main, collective, before the run] Read the keys (rank 0: SCAN, then
 * MGET or HMGET pipelined), each once, sorted, on every rank. Redis not
 * reached within timeout_ms, an answer not within it, or an error reply
 * end the run on every rank (air_fatal) with the reason. */
AirRedisTable *air_redis_table_open(AirRuntime *rt, const AirRedisTableDef *def);
/* The next key: f[0] the key (without the prefix), f[1..nfields] its
 * values; false at the end. A key of another type or a missing hash field
 * is counted as a bad row and skipped. */
bool air_redis_table_next(AirRedisTable *t, AirField *f);
/* Count a bad row of the key just returned; "redis 'addr' key 'k': why"
 * for the first 10 (rank 0). */
void air_redis_table_bad_row(AirRedisTable *t, const char *why);
const char *air_redis_table_where(AirRedisTable *t); /* "redis 'addr' key 'k'" */
/* Ends the run when the bad rows pass max_bad_rows (or all are bad); frees t. */
void air_redis_table_close(AirRedisTable *t);

/* sink = 'redis' (redis_sink.c): a hash per window and group key, through
 * hiredis, written pipelined. Only a query with a redis sink links it. */
extern const AirSinkOps air_redis_sink_ops;
typedef struct AirRedisSinkDef {
  const char *name;         /* the sink's name, for messages */
  const char *address;      /* host:port ([v6]:port) */
  const char *prefix;       /* put before every key */
  const char *password;     /* AUTH, or NULL */
  int db;                   /* SELECT, 0: the default database */
  int64_t timeout_ms;       /* connecting, and each reply */
  const char *const *columns; /* the result column names: the hash's fields */
  int ncolumns;
  const int *key_fields;    /* the result columns of the group key, in GROUP BY order */
  int nkey;
  /* an updating query's (upsert form): one hash per group key, no window
   * end in its name, made anew by each row; ops: each line starts with its
   * change (+I, -U, +U, -D): -U writes nothing, -D deletes the hash */
  bool upsert, ops;
} AirRedisSinkDef;

/* sink = 'tcp' (tcp.c): the lines to a server. */
extern const AirSinkOps air_tcp_sink_ops;
typedef struct AirTcpSinkDef {
  const char *name;         /* the sink's name, for messages */
  const char *address;      /* connect = 'host:port' */
  int64_t timeout_ms;       /* connecting; a peer that takes nothing this long */
} AirTcpSinkDef;

/* What the query declares about a csv source or table. */
typedef struct AirCsvDef {
  const char *path;        /* the file, as the query names it */
  const char *name;        /* the stream's or table's name, for messages */
  bool table;              /* every rank reads every record (else its blocks) */
  bool single;             /* rank 0 alone reads it, whatever the file is (standard
                              input: under a launcher other ranks' is not the same) */
  bool json;               /* format = 'json': one object per line, keys = cols */
  const char *json_kinds;  /* json: per column 'n' number, 's' string, 'b' boolean, 't' a number or a string (TIMESTAMP) */
  const char *tcp_listen;  /* source = 'tcp': host:port to listen on, or NULL */
  const char *tcp_connect; /* ... to connect to (and reconnect), or NULL; path names it */
  const AirKafkaDef *kafka; /* source = 'kafka', or NULL; path names it */
  bool follow;             /* a stream's file that is still growing: its end is no
                              end, the reader waits for more (follow = true, with
                              single); a stop ends it */
  AirCsvHeader header;     /* what the first record is */
  const char *const *cols; /* the declared column names, ncols of them */
  int ncols;               /* fields per record */
  int time_col;            /* the event-time column (a stream's), -1 for a table */
  bool time_from_message;  /* kafka: the event time is each message's timestamp (the
                              record has no field for it; time_col is -1) */
  bool proc_time;          /* the stream's time is each record's processing time: the wall clock
                            * when it is read (no field), its watermark the clock (docs/language.md) */
  int64_t wm_bound_ms;     /* the stream's WATERMARK bound, 0 without one */
  int64_t rate;            /* a stream's replay rate, records/s over all ranks
                              (each rank paces its share); 0 = as fast as it
                              reads; --rate overrides it */
  AirBadLimit bad_limit;   /* when bad rows fail the run: the counts of all */
  double bad_max;          /* ranks, checked as the run ends (a count limit
                              is also checked as rows go bad) */
} AirCsvDef;
/* Open the file before the run (main thread; every rank opens its csv
 * sources and tables in the same order). A stream's reader gives this rank
 * the records of its blocks of the file (on one rank, every record; on
 * more, the file after its header is cut in blocks dealt round robin, each
 * starting at a record boundary, found before the run), a table's every
 * record. Ends the run on every rank with "cannot open 'path':
 * reason" when the file cannot be opened, or with "path:line: header ...
 * does not match the columns of ..." when def->header is AIR_CSV_HEADER
 * and the header's fields are not the declared names, in order (ASCII
 * case-insensitive). def is copied; the runtime owns a stream's reader, a
 * table's loader closes its own with air_csv_close. */
AirCsv *air_csv_open(AirRuntime *rt, const AirCsvDef *def);
/* air_csv_next's results besides a field count. */
#define AIR_CSV_END (-1)         /* end of input (or a stop was requested) */
#define AIR_CSV_BAD_QUOTING (-2) /* a record with malformed quoting (json: a bad line), */
const char *air_csv_bad_why(const AirCsv *c); /* ... why, in words */
#define AIR_CSV_BARRIER (-4)     /* the records before a checkpoint's cut were read:
                                  * the caller sends its barrier, then reads on */
#define AIR_CSV_WAIT (-3)        /* no record yet: replay at a rate waits (~10 ms), or a
                                    pipe's writer has been idle for 100 ms */
/* The next record of this rank's share: up to max fields; returns the field
 * count (the caller checks it) or one of the codes above. *line is the
 * 1-based line where the record starts. Fields are valid until the next
 * call. On AIR_CSV_WAIT the caller may send its watermark, then calls
 * again. */
int air_csv_next(AirCsv *c, AirField *fields, int max, long *line);
/* Lateness of a stream's records is a function of the file alone (record
 * order and the WATERMARK bound), whatever the ranks and their chunks:
 * record i's event time *counts* when it has ncols fields and its time
 * column is a valid TIMESTAMP (its other fields may be bad). Before the
 * run each rank learns the largest counted event time before each of its
 * blocks (csv.c's split).
 * W(i) = (the largest counted event time of records 0..i-1) - bound, or
 * AIR_WM_NONE while none counted: a row is late for a window that ended
 * by W(i). air_csv_row_wm (below) is W(i) of the record just returned;
 * air_csv_scanned_wm is the largest counted event time of every record
 * before the record just read (of its block and every earlier one) - bound, the watermark to send: no
 * later record's W is below it. */
int64_t air_csv_scanned_wm(AirCsv *c);
/* The source vertex reading c: a stop then parks the reader between
 * records, and it reads on to the cut every rank agreed on (cut.c) and
 * ends there; air_csv_cut gives that cut (records, the header not counted)
 * once a stop made one. An unbound reader (a table) ends at a stop. */
void air_csv_bind(AirCsv *c, AirVertex *v);
bool air_csv_cut(const AirCsv *c, int64_t *k);
/* The start of every AirCsv: what the generated loop reads per row, inline
 * (two calls per row cost 5% of a 1-rank csv query). */
typedef struct AirCsvRow {
  int64_t wm;      /* W(i) of the record just returned */
  int64_t ts;      /* its time column, when ts_ok is AIR_PARSE_OK */
  AirParse ts_ok;  /* that column parsed as air_parse_ts does (records of ncols fields) */
} AirCsvRow;
static inline int64_t air_csv_row_wm(const AirCsv *c) { return ((const AirCsvRow *)c)->wm; }
static inline AirParse air_csv_time(const AirCsv *c, int64_t *ts) {
  const AirCsvRow *r = (const AirCsvRow *)c;
  if (r->ts_ok == AIR_PARSE_OK) *ts = r->ts;
  return r->ts_ok;
}
/* Count a bad row (AIR_STAT_BAD_ROWS); "path:line: why" for the first 10.
 * A table's rows are read by every rank: rank 0 alone prints and counts
 * them. Ends the run (air_fatal) once the rows of a count limit are passed
 * on this rank; a table that ends over its limit ends the run too. */
void air_csv_bad_row(AirCsv *c, long line, const char *why);
const char *air_csv_path(const AirCsv *c);
/* About how many records c's file holds (from its size and the lengths of
 * sampled lines; rather under than over), 0 when it cannot tell (not a
 * regular file): a table is sized by it before it is loaded. */
size_t air_csv_rows_hint(const AirCsv *c);
void air_csv_close(AirCsv *c); /* accepts NULL */

/* Whole-field parsers (no surrounding spaces); false when malformed. *out
 * is left alone unless the field is good. */
bool air_parse_i64(AirField f, int64_t *out);
bool air_parse_i32(AirField f, int32_t *out);
bool air_parse_bool(AirField f, bool *out); /* true/false/1/0, any case */

/* Decimal [+-]?(digits[.digits]|.digits)([eE][+-]?digits)?, or inf, +inf,
 * -inf, infinity (signed too), nan, in any case: what air_write_double
 * writes reads back. RANGE: finite text that overflows, or a nonzero
 * number that rounds to 0 (subnormals are in range). */
AirParse air_parse_double(AirField f, double *out);
/* a TIMESTAMP: an integer of ms since the epoch, or ISO-8601 text as
 * air_parse_time_text reads it; in [AIR_TS_MIN, AIR_TS_MAX] */
AirParse air_parse_ts(AirField f, int64_t *out);
/* Time functions, in UTC. Days since 1970-01-01 to (year, month, day) in
 * the proleptic Gregorian calendar, by 400-year eras of 146097 days. */
static inline void air_civil(int64_t days, int64_t *y, int64_t *m, int64_t *d) {
  days += 719468; /* from 0000-03-01 */
  int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  int64_t doe = days - era * 146097;                                /* [0, 146096] */
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365; /* [0, 399] */
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);             /* [0, 365] */
  int64_t mp = (5 * doy + 2) / 153;                                  /* March = 0 */
  *d = doy - (153 * mp + 2) / 5 + 1;
  *m = mp < 10 ? mp + 3 : mp - 9;
  *y = yoe + era * 400 + (*m <= 2);
}
/* a DATE: 'yyyy-MM-dd' alone, a date that exists in years 1 to 9999; the
 * ms of its midnight UTC (docs/design.md, "DATE") */
AirParse air_parse_date(AirField f, int64_t *out);
/* a DATE (the ms of a midnight UTC) as 'yyyy-MM-dd', in double quotes when quote */
enum { AIR_PUT_DATE_MAX = 20 }; /* a year of int64 ms: up to 9 digits and a sign */
char *air_put_date(char *p, int64_t day_ms, bool quote);
/* The change a row of an updating query is (Flink's RowKind, as it prints
 * them): an insert, a key's old row before its update and new row after it,
 * a delete. The odd ones take a row back (weight -1 for an aggregate over
 * them), the even ones add one. */
enum { AIR_OP_INSERT = 0, AIR_OP_UPDATE_BEFORE = 1, AIR_OP_UPDATE_AFTER = 2, AIR_OP_DELETE = 3 };
/* A partial's window start plus this: the rows of that window late by less
 * than its GRACE PERIOD (its late bucket), not its on-time rows. Far above
 * every TIMESTAMP, so it meets no window start. */
#define AIR_GRACE_LATE (INT64_C(1) << 61)
static inline const char *air_op_name(int64_t op) { return &"+I-U+U-D"[(op & 3) * 2]; }
static inline int64_t air_op_weight(int64_t op) { return (op & 1) ? -1 : 1; }
/* ts as 'yyyy-MM-dd HH:mm:ss.SSS' (UTC), in double quotes when quote (JSON) */
enum { AIR_PUT_TS_ISO_MAX = 25 };
char *air_put_ts_iso(char *p, int64_t ts, bool quote);
/* 'yyyy-MM-dd', or that with ' HH:mm:ss' or 'THH:mm:ss', an optional
 * fraction of a second (to the ms; more digits dropped) and an optional
 * 'Z' or +HH:mm / -HH:mm offset (UTC without one): ms since the epoch.
 * INVALID for other text or a date or time that does not exist, RANGE
 * outside years 1 to 9999 (the offset applied). */
AirParse air_parse_time_text(const char *p, size_t n, int64_t *out);
/* Copy into dst (maxlen + 1 bytes, NUL-padded). RANGE: longer than maxlen. */
AirParse air_parse_str(AirField f, char *dst, size_t maxlen);

/* Writers into memory: each puts its text at p and returns the byte after
 * it. Room needed: AIR_PUT_I64_MAX, AIR_PUT_DOUBLE_MAX, 5 for a BOOL;
 * 2 * strlen(s) + 2 for air_put_str, 6 * strlen(s) + 2 for
 * air_put_json_str. The FILE writers below write the same bytes. */
#define AIR_PUT_I64_MAX 20    /* "-9223372036854775808" */
#define AIR_PUT_DOUBLE_MAX 24 /* "-2.2250738585072014e-308" */
char *air_put_u64(char *p, uint64_t v);
char *air_put_i64(char *p, int64_t v);
char *air_put_double(char *p, double v);
char *air_put_str(char *p, const char *s);
char *air_put_bool(char *p, bool v);
char *air_put_json_str(char *p, const char *s);
char *air_put_json_double(char *p, double v);

void air_write_i64(FILE *f, int64_t v);
void air_write_double(FILE *f, double v); /* shortest repr that reads back */
void air_write_str(FILE *f, const char *s); /* CSV quoting only where needed */
void air_write_bool(FILE *f, bool v);       /* true / false */
/* JSON output (format = 'json' on a sink): a string with " \ and control
 * characters escaped (as Python's json.dumps, ensure_ascii=False), a DOUBLE
 * as air_write_double, NaN and infinities as null. */
void air_write_json_str(FILE *f, const char *s);
void air_write_json_double(FILE *f, double v);


/* ======================================================================
 * Exact DOUBLE sums (xsum.c)
 * ====================================================================== */

/* The exact sum of any number of doubles, as one fixed-point integer wide
 * enough for every finite double (bit 0 is 2^-1074, the smallest
 * subnormal; bits up to 2^1087 leave room for 2^63 additions of DBL_MAX),
 * in two's complement over 34 64-bit limbs, plus flags for NaN and the
 * infinities. Integer addition is associative and commutative, so the sum
 * does not depend on the order of the additions or merges: SUM and AVG of
 * DOUBLE give the same bits for any number of ranks, fused or not, and the
 * value is the exact sum rounded once to the nearest double (ties to even).
 * A zeroed AirXsum is the empty sum; copy it by value (it holds no pointer). */
#define AIR_XSUM_LIMBS 34
enum { AIR_XSUM_NAN = 1, AIR_XSUM_PINF = 2, AIR_XSUM_NINF = 4 };
typedef struct AirXsum {
  uint64_t limb[AIR_XSUM_LIMBS]; /* least significant first */
  uint64_t special;              /* AIR_XSUM_* flags seen */
} AirXsum;

static inline void air_xsum_add(AirXsum *s, double x) {
  uint64_t bits;
  memcpy(&bits, &x, sizeof bits);
  uint64_t e = (bits >> 52) & 0x7ff, m = bits & ((UINT64_C(1) << 52) - 1);
  if (e == 0x7ff) {
    s->special |= m ? AIR_XSUM_NAN : (bits >> 63) ? AIR_XSUM_NINF : AIR_XSUM_PINF;
    return;
  }
  if (m == 0 && e == 0)
    return; /* +0 and -0 */
  unsigned pos = 0;
  if (e) {
    m |= UINT64_C(1) << 52;
    pos = (unsigned)e - 1;
  }
  unsigned i = pos / 64, off = pos % 64;
  uint64_t lo = m << off, hi = off ? m >> (64 - off) : 0;
  if (!(bits >> 63)) {
    uint64_t t = s->limb[i] + lo;
    uint64_t c = t < lo;
    s->limb[i] = t;
    t = s->limb[i + 1] + hi;
    uint64_t c2 = t < hi;
    t += c;
    c2 |= t < c;
    s->limb[i + 1] = t;
    for (unsigned k = i + 2; c2 && k < AIR_XSUM_LIMBS; k++)
      c2 = ++s->limb[k] == 0;
  } else {
    uint64_t t = s->limb[i];
    uint64_t b = t < lo;
    s->limb[i] = t - lo;
    t = s->limb[i + 1];
    uint64_t b2 = t < hi;
    t -= hi;
    b2 |= t < b;
    t -= b;
    s->limb[i + 1] = t;
    for (unsigned k = i + 2; b2 && k < AIR_XSUM_LIMBS; k++)
      b2 = s->limb[k]-- == 0;
  }
}
/* dst += src (both exact sums). */
void air_xsum_merge(AirXsum *dst, const AirXsum *src);
/* The exact sum rounded to the nearest double: NaN if a NaN was added or
 * both infinities, else the infinity added, else the rounded sum (+0 for an
 * exact zero, and +-inf when it is beyond the largest double). */
double air_xsum_value(const AirXsum *s);
/* VAR_POP and the like: x into the exact sums of the values (s) and of
 * their squares (q, each square as its rounded value plus its exact error,
 * so q is exact too). */
void air_var_add(AirXsum *s, AirXsum *q, double x);
/* The variance of n >= 1 values (samp: over n - 1, n >= 2), its square
 * root when root, from their exact sums: S2 - S1^2 / n in double-double
 * arithmetic, summed exactly and rounded once, so the result does not
 * depend on the order of the values (any number of ranks gives its bits). */
double air_var_value(const AirXsum *s, const AirXsum *q, int64_t n, bool samp, bool root);

/* ======================================================================
 * Session windows (session.c) and row vectors (vec.c)
 * ====================================================================== */

/* merge(dst, src): fold accumulator src into dst (both acc_size bytes). */
typedef void (*AirAccMergeFn)(void *dst, const void *src);
/* emit: a closed session [start, end) of key with its accumulator. */
typedef void (*AirSessionEmitFn)(const void *key, int64_t start, int64_t end,
                                 void *acc, void *ctx);

/* Open sessions per key. A session is [start, end) where end is its last
 * event + gap: an event at ts covers [ts, ts + gap) and joins every open
 * session of its key it overlaps, merging them into one (the earliest kept,
 * merge() folding the others into it). */
typedef struct AirSessions AirSessions;
AirSessions *air_sessions_new(size_t key_size, size_t acc_size, int64_t gap_ms,
                              AirAccMergeFn merge);
void air_sessions_free(AirSessions *s); /* accepts NULL */
/* The accumulator of the session the event (key, ts) belongs to after
 * extending and merging; a fresh session's is zeroed with *is_new true.
 * NULL when the event is late: it overlaps no open session and
 * ts + gap <= wm (its session would already have closed). */
void *air_sessions_acc(AirSessions *s, const void *key, uint64_t hash,
                       int64_t ts, int64_t wm, bool *is_new);
/* Close every session with end <= wm, calling emit for each in order of
 * end, then key bytes; returns how many closed. */
size_t air_sessions_close(AirSessions *s, int64_t wm, AirSessionEmitFn emit,
                          void *ctx);
size_t air_sessions_open_count(const AirSessions *s);

/* ======================================================================
 * Hopping windows that share slices (slide.c)
 * ====================================================================== */

/* A HOPPING window of size S every A, its rows kept in slices of
 * air_slice_len(S, A) = gcd(S, A) ms (air_limits.h), each window the merge of its slices.
 * A row goes into its slice when the slice starts at or after
 * air_slide_cut() (none of its windows closed), else into each still open
 * window of its (air_slide_extra). A stage that sends partials pops closed
 * slices and extras; one that makes results closes windows with
 * air_slide_close. */
typedef struct AirSlide AirSlide;
/* The largest window end <= wm (wm itself for none, a stop and the end). */
int64_t air_slide_window_cut(int64_t wm, int64_t size_ms, int64_t adv_ms);
AirSlide *air_slide_new(size_t key_size, size_t acc_size, int64_t size_ms,
                        int64_t adv_ms, AirAccMergeFn merge);
void air_slide_free(AirSlide *s); /* accepts NULL */
int64_t air_slide_cut(const AirSlide *s);
/* The accumulator of key in the slice starting at slice_start. */
void *air_slide_acc(AirSlide *s, int64_t slice_start, const void *key,
                    uint64_t hash, bool *is_new);
/* The accumulator of key in the window starting at win_start alone. */
void *air_slide_extra(AirSlide *s, int64_t win_start, const void *key,
                      uint64_t hash, bool *is_new);
/* Partials: the cut moves to the last window end <= wm (returned); then pop
 * every slice before it and every extra window ended by wm, iterate each
 * table and hand it back. */
int64_t air_slide_advance_cut(AirSlide *s, int64_t wm);
AirHash *air_slide_pop_slice(AirSlide *s, int64_t *slice_start);
void air_slide_recycle(AirSlide *s, AirHash *h);
AirHash *air_slide_pop_extra(AirSlide *s, int64_t wm, int64_t *win_start);
void air_slide_recycle_extra(AirSlide *s, AirHash *h);
/* Results: every window ended by wm with rows in it, in order of end, each
 * key's merged accumulator to emit (in no key order); returns the windows. */
size_t air_slide_close(AirSlide *s, int64_t wm, AirSessionEmitFn emit,
                       void *ctx);

/* A growable array of fixed-size rows (stream-stream join buffers). A
 * zeroed AirVec is empty; running out of memory ends the run with a message. */
typedef struct AirVec {
  void *data; /* rows */
  size_t n;   /* rows held */
  size_t cap; /* rows allocated */
} AirVec;
void air_vec_push(AirVec *v, const void *row, size_t row_size);
/* Room for one more row at the end, uninitialised, for the caller to fill. */
void *air_vec_add(AirVec *v, size_t row_size);
void air_vec_free(AirVec *v); /* frees the rows, leaves v empty */

/* The hash index a stream-stream join builds over one side's rows of a
 * window when the window closes (vec.c): rows of `stride` bytes, each
 * starting with its key's 64-bit hash, chained per home slot in row order.
 * Walk the rows whose hash shares h's slot with air_join_first and
 * air_join_next (AIR_JOIN_NONE ends), then compare hash and key. */
#define AIR_JOIN_NONE UINT32_MAX
typedef struct AirJoinIndex {
  uint32_t *head; /* per slot: its first row, AIR_JOIN_NONE when none */
  uint32_t *next; /* per row: the next row of its slot */
  unsigned shift; /* a slot is the top bits of hash * AIR_JOIN_MUL */
} AirJoinIndex;
#define AIR_JOIN_MUL 0x9E3779B97F4A7C15ULL
void air_join_index(AirJoinIndex *x, const void *rows, size_t n, size_t stride);
void air_join_index_free(AirJoinIndex *x);
static inline uint32_t air_join_first(const AirJoinIndex *x, uint64_t h) {
  return x->head[(h * AIR_JOIN_MUL) >> x->shift];
}
static inline uint32_t air_join_next(const AirJoinIndex *x, uint32_t i) { return x->next[i]; }

/* ======================================================================
 * Checkpoints (ckpt.c): consistent snapshots taken by barriers that flow
 * with the rows, and resume (docs/design.md "Checkpoints")
 * ====================================================================== */

/* AirCkptW: a checkpoint file being written (its CRC32C kept); AirCkptR:
 * one being read back (verified before). */
void air_ckpt_put(AirCkptW *w, const void *p, size_t n);
void air_ckpt_put_i64(AirCkptW *w, int64_t v);
/* Reading past what was written ends the run with a message naming the file. */
void air_ckpt_get(AirCkptR *r, void *p, size_t n);
int64_t air_ckpt_get_i64(AirCkptR *r);
typedef void (*AirCkptSaveFn)(AirCkptW *w, void *ctx);
typedef void (*AirCkptLoadFn)(AirCkptR *r, void *ctx);
/* An accumulator or join value that is not plain bytes (a join window's rows). */
typedef void (*AirCkptValSaveFn)(AirCkptW *w, const void *val);
typedef void (*AirCkptValLoadFn)(AirCkptR *r, void *val);

/* [main, collective] Right after air_options: the --checkpoint-* and
 * --resume flags against this program (fingerprint: its query's, from
 * airc); when resuming, which checkpoint (rank 0 verifies it). */
void air_checkpoint_setup(AirRuntime *rt, const char *fingerprint);
bool air_ckpt_on(const AirRuntime *rt);       /* checkpoints are taken */
bool air_ckpt_resuming(const AirRuntime *rt); /* state comes from a checkpoint */
/* A vertex's state: save is called on its thread when every input's
 * barrier arrived, load before the threads start (consumers) or by
 * air_ckpt_source_begin (each source instance, on its thread). A source
 * vertex without it cannot be checkpointed (the run says so). */
void air_vertex_ckpt(AirVertex *v, AirCkptSaveFn save, AirCkptLoadFn load, void *ctx);
/* A source's instance without a state file of its own (it had ended, or
 * the ranks or threads changed) skips the rows read before the checkpoint:
 * pos[j] is where instance j of then was (its own rows before it read),
 * INT64_MAX when it had ended. */
typedef void (*AirCkptSeekFn)(void *st, const int64_t *pos, int n);
void air_source_ckpt(AirVertex *v, AirCkptSaveFn save, AirCkptLoadFn load, AirCkptSeekFn seek);
/* Resuming on another number of ranks or threads (ckpt.c): a state file of
 * another rank's is read too, keeping the keys this rank owns now
 * (air_ckpt_keeps of a key's routing hash); several files fold into one
 * state, scalars (watermarks) by their minimum. */
bool air_ckpt_keeps(const AirCkptR *r, uint64_t hash);
bool air_ckpt_rescaled(const AirCkptR *r);
bool air_ckpt_dropping(const AirCkptR *r); /* its keyed state is read past, kept by another instance */
size_t air_ckpt_share(const AirCkptR *r, size_t n); /* of n keys read, about how many stay here */
int64_t air_ckpt_get_min(AirCkptR *r, int64_t cur);
typedef uint64_t (*AirCkptRouteFn)(const void *key); /* a key's routing hash (hash_K) */
void air_ckpt_source_begin(AirVertex *v, int inst, void *st);
/* A source instance was asked for a checkpoint between two rows: its state
 * is written and a barrier goes out on each of its ports. */
void air_ckpt_source_barrier(AirVertex *v, int inst, void *st);
/* Send a checkpoint barrier on o after the rows before it. */
void air_out_barrier(AirOut *o, int64_t id);

/* The state of each kind, written and read back as it is. */
void air_hash_save(AirCkptW *w, const AirHash *h, AirCkptValSaveFn val);
/* route: keep only the keys this rank owns (NULL: all); merge: fold into a
 * key already there (NULL: replace); val: a value that is no plain bytes,
 * read into the key's slot (appending to what a join window holds). */
void air_hash_load(AirCkptR *r, AirHash *h, AirCkptValLoadFn val, AirCkptRouteFn route, AirAccMergeFn merge);
void air_windows_save(AirCkptW *w, const AirWindows *win, AirCkptValSaveFn val);
void air_windows_load(AirCkptR *r, AirWindows *win, AirCkptValLoadFn val, AirCkptRouteFn route,
                      AirAccMergeFn merge);
void air_dense_save(AirCkptW *w, const AirDense *d);
void air_dense_load(AirCkptR *r, AirDense *d, AirAccMergeFn merge);
void air_slide_save(AirCkptW *w, const AirSlide *s);
void air_slide_load(AirCkptR *r, AirSlide *s);
void air_sessions_save(AirCkptW *w, const AirSessions *s);
void air_sessions_load(AirCkptR *r, AirSessions *s, AirCkptRouteFn route);
void air_vec_save(AirCkptW *w, const AirVec *v, size_t row_size);
/* Rows that start with their key's routing hash (join rows): a rescaled
 * resume keeps the ones this rank owns. */
void air_vec_load(AirCkptR *r, AirVec *v, size_t row_size);
void air_gen_save(AirCkptW *w, const AirGen *g);
void air_gen_load(AirCkptR *r, AirGen *g);
void air_gen_seek(AirGen *g, const int64_t *pos, int n);
/* After a chunk: a checkpoint was asked for, its barrier goes now (once). */
bool air_gen_barrier(AirGen *g);
void air_csv_save(AirCkptW *w, const AirCsv *c);
void air_csv_load(AirCkptR *r, AirCsv *c);
void air_csv_seek(AirCsv *c, const int64_t *pos, int n);

#endif /* AIR_H */

/* air_int.h - libair's internal structures, shared by runtime.c, vertex.c,
 * comm.c, queue.c, watermark.c, stats.c and collector.c. Not installed:
 * generated programs see air.h only. */
#ifndef AIR_INT_H
#define AIR_INT_H

#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>

#include "air.h"

/* ======================================================================
 * Tuning
 * ====================================================================== */

#define AIR_INQ_BATCHES 64  /* input queue of a consumer vertex, batches */
#define AIR_OUTQ_BATCHES 8  /* outbound queue per (destination rank, edge), batches */
#define AIR_MAX_INFLIGHT 4  /* outstanding MPI_Issend per (destination rank, edge) */
#define AIR_RECV_BURST 16   /* receives per edge per comm-loop round (fairness) */
#define AIR_IDLE_MIN_US 20  /* comm loop back-off when idle, us */
#define AIR_IDLE_MAX_US 1000
/* MPI tags beyond the edges' (edge ids are the tags 0..AIR_MAX_EDGES-1). */
enum {
  AIR_TAG_FATAL = AIR_MAX_EDGES, /* a fatal error's message (comm.c) */
  AIR_TAG_PROGRESS,              /* a rank's counters for the progress line (progress.c) */
  AIR_TAG_STOP,                  /* a rank got SIGINT/SIGTERM (comm.c) */
  AIR_TAG_CUT_REPORT,            /* a rank's source positions at a stop, to rank 0 (cut.c) */
  AIR_TAG_CUT,                   /* the agreed cut, from rank 0 (cut.c) */
  AIR_TAG_CKPT_START,            /* a checkpoint begins, from rank 0 (ckpt.c) */
  AIR_TAG_CKPT_DONE,             /* a rank's state is written (its sources' positions), to rank 0 */
};

/* ======================================================================
 * Bounded blocking queue (queue.c)
 * ====================================================================== */

/* A FIFO of non-NULL pointers. Producers block while it holds `limit` items
 * or more; the comm thread, which must never block, uses air_queue_push_force
 * after checking air_queue_has_room, so the queue may exceed its limit by the
 * few items pushed between the check and the push. */
typedef struct AirQueue {
  pthread_mutex_t mu;
  pthread_cond_t not_empty; /* signalled on push */
  pthread_cond_t not_full;  /* signalled on pop */
  void **ring;              /* ring buffer of ring_cap slots */
  size_t ring_cap;          /* slots (grows only on forced pushes) */
  size_t head;              /* index of the oldest item */
  size_t count;             /* items held */
  size_t limit;             /* blocking pushes wait while count >= limit */
} AirQueue;

/* The queue is thread-safe: every function [any]. */
AirQueue *air_queue_new(size_t limit); /* NULL when out of memory */
void air_queue_free(AirQueue *q);      /* accepts NULL; items are not freed */
void air_queue_push(AirQueue *q, void *item); /* blocks while full */
bool air_queue_try_push(AirQueue *q, void *item); /* false when full */
void air_queue_push_force(AirQueue *q, void *item); /* never blocks */
void *air_queue_pop(AirQueue *q);      /* blocks while empty */
void *air_queue_try_pop(AirQueue *q);  /* NULL when empty */
size_t air_queue_count(AirQueue *q);
bool air_queue_has_room(AirQueue *q);  /* count < limit */

/* ======================================================================
 * Watermark tracking (watermark.c): the min rule over senders
 * ====================================================================== */

/* One slot per (input edge, sender) of a consumer vertex. A slot only moves
 * forward: a smaller watermark from a sender is ignored. The vertex's
 * watermark is the minimum over all slots; with no slots at all it is
 * AIR_WM_END from the start. */
typedef struct AirWm {
  int64_t *slot; /* last watermark per sender */
  int nslot;     /* number of slots */
  int64_t min;   /* current minimum over slots */
} AirWm;

int air_wm_init(AirWm *w, int nslot); /* 0, or -1 when out of memory */
void air_wm_free(AirWm *w);
/* Record wm for slot; true when the minimum strictly increased (then read
 * w->min). An out-of-range slot is ignored and returns false. */
bool air_wm_update(AirWm *w, int slot, int64_t wm);

/* ======================================================================
 * Batches: the unit on queues and on the wire
 * ====================================================================== */

/* Wire format: this header, then nrows * row_size bytes of rows; the MPI tag
 * is the edge id. A batch with 0 rows is a pure watermark. */
typedef struct AirBatch {
  int32_t edge;   /* edge id */
  int32_t sender; /* rank * producers_per_rank + instance */
  int32_t nrows;  /* rows that follow */
  int32_t flags;  /* AIR_BATCH_IDLE or 0 */
  int64_t wm;     /* sender's watermark after these rows */
} AirBatch;

static inline char *air_batch_rows(AirBatch *b) {
  return (char *)b + sizeof(AirBatch);
}

/* ======================================================================
 * Edges, vertices, ports (vertex.c)
 * ====================================================================== */

/* AirBatch.flags: the sending source's input is all idle (kafka's
 * idle_timeout): its watermark holds no other rank back (air_peer_wm). */
#define AIR_BATCH_IDLE 1
/* AirBatch.flags: a checkpoint barrier (no rows; wm holds the checkpoint's
 * id): the sender's rows before it are in checkpoint wm, none after. */
#define AIR_BATCH_BARRIER 2

struct AirEdge {
  AirRuntime *rt;
  int id;               /* MPI tag */
  size_t row_size;      /* bytes per row */
  AirRoute route;
  int ppr;              /* producer instances per rank */
  size_t cap_rows;      /* rows per full batch */
  AirVertex *consumer;  /* consumer on this rank, NULL when none here */
  int input;            /* index of this edge among the consumer's inputs */
  int slot_base;        /* first watermark slot of this edge at the consumer */
  _Atomic int64_t *heard; /* HASH: per sender (rank * ppr + instance), the largest watermark that
                             came from another rank (comm thread), for air_peer_wm */
  _Atomic bool *heard_idle; /* ... and whether its last batch said its source was idle */
};

/* A source's stop at one agreed cut (cut.c): each instance parks at its
 * position when a stop is requested; the ranks agree on the largest. */
typedef struct AirCut {
  pthread_mutex_t mu;
  pthread_cond_t agreed; /* signalled when k is known */
  int parked, ended;     /* instances parked at the stop / returned */
  int64_t pos;           /* largest position of a parked instance, -1 when none */
  int64_t k;             /* the agreed cut, AIR_CUT_PENDING until known, -1: not cut */
} AirCut;
#define AIR_CUT_PENDING INT64_MIN

struct AirVertex {
  AirRuntime *rt;
  char *name;
  bool source;            /* source vertex (else consumer) */
  bool active;            /* runs on this rank (rank0_only vertices elsewhere: no) */
  bool idle;              /* source: its input is all idle (air_source_idle; its thread only) */
  AirSourceFn src_fn;     /* sources */
  int instances;          /* sources: threads; consumers: 1 */
  AirEdge **inputs;       /* consumers */
  int ninputs;
  AirBatchFn on_batch;
  AirWatermarkFn on_wm;
  void *ctx;
  int batch_sender;       /* consumers: during on_batch, the batch's sender (rank * ppr + instance) */
  void (*destroy)(void *ctx); /* internal users (collector): frees ctx at the end */
  AirQueue *inq;          /* consumers: input batches */
  AirWm wm;               /* consumers: watermark over all input senders */
  pthread_mutex_t mu;     /* guards `outs` insertion */
  AirOut *_Atomic outs;   /* ports, newest first; nodes never removed before the end */
  pthread_t *threads;     /* `instances` threads */
  struct AirThreadArg *args;
  atomic_int live;        /* instances still running */
  AirCut cut;             /* sources: the stop's cut */
  int index;              /* position in rt->vertices (names its checkpoint files) */
  AirCkptSaveFn ck_save;  /* its state for checkpoints (air_vertex_ckpt), NULL: none */
  AirCkptLoadFn ck_load;
  AirCkptSeekFn ck_seek;  /* sources: to a checkpoint's cut */
  void *ck_ctx;
  _Atomic int64_t *ck_done; /* per instance: the last checkpoint written, INT64_MAX once ended */
  _Atomic int64_t *ck_taken; /* sources, per instance: the last checkpoint whose barrier it sent */
  _Atomic int64_t *ck_pos;   /* ... and its position then (rows before it were read) */
  int64_t (*ck_stats)[AIR_STAT_COUNT]; /* per instance: its thread's counts (air_stat_thread) */
};

struct AirOut {
  AirOutHead head;       /* first: air_out_row reads it through a cast */
  AirVertex *v;
  AirEdge *e;
  int instance;          /* producer instance */
  int sender;            /* rank * ppr + instance */
  int ndest;             /* world for HASH, else 1 */
  AirOutCursor *cur;     /* per destination */
  AirBatch **batch;      /* per destination: the batch being filled, or NULL */
  char *park;            /* row_size bytes the cursors point at when no batch */
  int64_t wm_sent;       /* last watermark sent */
  bool ended;            /* AIR_WM_END sent: no more rows */
  AirOut *next;
};

/* ======================================================================
 * The runtime (runtime.c), comm loop (comm.c), stats (stats.c)
 * ====================================================================== */

#define AIR_LAT_MAX_SAMPLES (1u << 20) /* reservoir above this many */

typedef struct AirStats {
  _Atomic int64_t count[AIR_STAT_COUNT];
  _Atomic int64_t restored_events; /* of count[AIR_STAT_EVENTS_IN], from a checkpoint (not this run's) */
  pthread_mutex_t lat_mu;
  double *lat;          /* latency samples, ms */
  size_t nlat;          /* samples held */
  size_t lat_cap;       /* allocated */
  uint64_t lat_seen;    /* samples offered (reservoir sampling beyond the max) */
  uint64_t lat_rng;     /* reservoir's random state */
} AirStats;

#define AIR_MAX_SINKS 16 /* collectors whose watermark the progress line shows */
typedef struct AirProgress AirProgress;

struct AirRuntime {
  const char *name;       /* query name, for messages */
  int rank, world;
  MPI_Comm comm;          /* our dup of MPI_COMM_WORLD */
  int64_t rate;           /* --rate, -1 when absent */
  int threads;            /* --threads */
  size_t stack_bytes;     /* vertex thread stack size, 0 = the default */
  double duration_s;      /* --duration, 0 = none */
  bool show_stats;        /* --stats */
  bool quiet;             /* --quiet */
  _Atomic bool has_lag;   /* a source measures AIR_STAT_SOURCE_LAG (kafka): the progress line
                             and the summary show it */
  char *stats_json;       /* --stats-json path or NULL */
  int64_t seed;           /* default generator seed, equal on all ranks */
  double t0;              /* monotonic start of the run, s */
  atomic_bool stop;       /* duration over or signal seen */
  atomic_int stop_sig;    /* the signal that stopped the run, 0 for --duration (when stop) */
  bool on_stop_emit;      /* --on-stop emit: write the windows a stop closes early */
  struct AirCutState *cutst; /* the main thread's side of the stop's cut (cut.c) */
  atomic_int status;      /* exit status so far (0 ok) */
  AirStats stats;
  AirEdge *edges[AIR_MAX_EDGES];
  AirVertex **vertices;
  int nvertices;
  AirQueue **outq;        /* per (destination rank, edge): [d * AIR_MAX_EDGES + edge], NULL for self */
  struct Inflight *inflight; /* the comm loop's MPI_Issends in flight, as outq (comm.c) */
  bool barrier_posted;    /* the comm loop's end barrier was posted (comm.c) */
  MPI_Request end_barrier; /* ... its request (valid once barrier_posted; MPI_REQUEST_NULL once complete) */
  atomic_int live;        /* vertex threads still running on this rank */
  pthread_t main_thread;  /* the one thread that may call MPI */
  pthread_mutex_t fatal_mu;
  atomic_bool fatal;      /* air_fatal was called on this rank */
  char fatal_msg[1024];   /* its first message */
  AirProgress *progress;  /* the live progress line, NULL when off (progress.c) */
  bool stdout_tty;        /* rank 0: results go to the terminal the line is on */
  _Atomic int64_t sink_wm[AIR_MAX_SINKS]; /* rank 0: each collector's watermark */
  int nsinks;             /* collectors registered (main thread, before air_run) */
  struct AirSinkFile **files; /* rank 0: sink files written as path.tmp (collector.c) */
  int nfiles;
  struct AirCsv **csvs;   /* csv stream readers, in open order (the same on every rank) */
  int ncsvs;
  const char **sets;      /* --set arguments, in argv's order (options.c) */
  char **set_origins;     /* ... each as "--set a.b=c", for messages */
  int nsets;
  struct AirOpts *opts;   /* the program's options after overrides, NULL before air_options */
  const char *ck_flags[4]; /* --checkpoint-dir, --checkpoint-interval, --checkpoint-keep, --resume */
  struct AirCkpt *ck;     /* checkpoints (ckpt.c), NULL when none are taken or read */
  _Atomic int64_t ck_req; /* the checkpoint sources are asked to cut for, 0: none yet */
};

/* Each internal function below says the thread it runs on: [main] the one
 * thread that calls MPI (air_run's comm loop), [vertex] a source or consumer
 * thread, [any] either. [collective] also needs every rank to call it. */

double air_mono_s(void);                 /* [any] monotonic clock, s */
void air_options_free(AirRuntime *rt);   /* [main] options.c's state, at the end */
void air_fail(AirRuntime *rt, const char *fmt, ...) /* [any] message; exit status 1 at the end */
    __attribute__((format(printf, 2, 3)));
void *air_xmalloc(AirRuntime *rt, size_t n); /* [any] never NULL: ends the run when out of memory */
int air_signal_seen(void); /* [any] SIGINT or SIGTERM received by this process, else 0 */

void air_stats_init(AirStats *s); /* [main] */
/* [vertex] This thread's own counts also go to counts (NULL: not), which
 * its checkpoints carry; air_stat_carried says which counters are carried
 * (counts of rows, not bytes, messages or times); [any] air_stat_restore
 * adds a checkpoint's. */
void air_stat_thread(int64_t *counts);
bool air_stat_carried(AirStat s);
void air_stat_restore(AirRuntime *rt, AirStat s, int64_t n);
void air_stats_free(AirStats *s); /* [main] */
/* [main, collective] Merge every rank's stats on rank 0, print the summary and
 * write --stats-json there. elapsed_s: this rank's run time. */
void air_stats_finish(AirRuntime *rt, double elapsed_s);

/* [vertex] Hand a filled batch to rank `dest` on edge e (may block: backpressure). */
void air_batch_send(AirRuntime *rt, AirEdge *e, int dest, AirBatch *b);
/* [main] The comm loop: MPI sends and receives until every vertex on every
 * rank ended. */
void air_comm_run(AirRuntime *rt);
/* [main] air_fatal's side on the main thread: agree with the other ranks, print
 * each distinct message once on rank 0, end every rank with status 1. */
void air_fatal_main(AirRuntime *rt) __attribute__((noreturn));
/* [main] In the comm loop: a fatal error elsewhere? (then never returns) */
void air_fatal_poll(AirRuntime *rt);
/* vertex.c [main]: start / join every vertex thread; free edges and vertices. */
void air_vertices_start(AirRuntime *rt);
void air_vertices_join(AirRuntime *rt);
void air_vertices_free(AirRuntime *rt);

/* progress.c [main, init collective]: the live progress line (see there for how totals reach rank 0).
 * init is collective (in air_init); poll runs each comm-loop round, with
 * done once this rank's vertices ended and its sends drained; the loop ends
 * only when settled; finish clears the line before the summary. */
void air_progress_init(AirRuntime *rt);
void air_progress_poll(AirRuntime *rt, bool done);
bool air_progress_settled(AirRuntime *rt);
void air_progress_finish(AirRuntime *rt);
void air_progress_clear(AirRuntime *rt); /* [any] before a message on rank 0's stderr */
int air_progress_sink(AirRuntime *rt);   /* [main] a collector's slot for its watermark, or -1 */
void air_progress_sink_wm(AirRuntime *rt, int slot, int64_t wm); /* [vertex] the collector's */
/* [vertex] Before result rows to out: erase the line when both share the terminal. */
void air_progress_stdout(AirRuntime *rt, FILE *out);

/* cut.c [main]: the main thread's side of a stop, each comm-loop round: once a stop
 * is requested and this rank's sources are parked or ended, report their
 * positions to rank 0, which answers every rank with the largest; true
 * while the exchange is under way (the run must not end yet). */
bool air_cut_poll(AirRuntime *rt);
/* ckpt.c [main]: a checkpoint's cut and completion, each comm-loop round
 * (done: this rank's vertices ended); finish drains its messages at the
 * end; start loads the consumers' state before the threads run (resume)
 * and checks that every source can be checkpointed; end removes the
 * checkpoints of a job that completed (status 0, no stop). */
void air_ckpt_poll(AirRuntime *rt, bool done);
void air_ckpt_finish(AirRuntime *rt);
void air_ckpt_start(AirRuntime *rt);
void air_ckpt_end(AirRuntime *rt, int status);
void air_ckpt_free(AirRuntime *rt);
void air_ckpt_settle(AirRuntime *rt); /* [main, collective] before the summary */
void air_ckpt_describe(const AirRuntime *rt, FILE *out, bool json);
/* [vertex] A source instance between rows: true (once) when a checkpoint
 * was asked that it has not taken (*seen older); pos is its position, the
 * rows before it being read. The caller then sends its barrier
 * (air_ckpt_source_barrier). */
bool air_ckpt_due(AirVertex *v, int inst, int64_t *seen, int64_t pos);
/* csv.c: a stream file is read in blocks when the checkpoint it resumes
 * was taken on more than one rank (the blocks' positions are kept per rank). */
bool air_ckpt_old_split(const AirRuntime *rt);
/* [vertex] consumer_main's side: the vertex's barriers all arrived. */
void air_ckpt_vertex_barrier(AirVertex *v, int64_t id);
/* [vertex] An instance of v ended: it counts as done for every checkpoint. */
void air_ckpt_instance_ended(AirVertex *v, int inst);
/* Drain cut messages left when the run ended without needing them. */
void air_cut_finish(AirRuntime *rt);
/* For the summary (rank 0): was any source cut; its cut per source vertex. */
bool air_cut_happened(const AirRuntime *rt);
void air_cut_describe(const AirRuntime *rt, FILE *out, bool json);
void air_cut_free(AirRuntime *rt);
/* csv.c [main, collective], at the end of a run: every csv stream's
 * bad rows and records summed over the ranks and held against its limit
 * (max_bad_rows; by default: records but no good row). Rank 0 prints one
 * error per source over its limit; returns 1 on every rank when one is,
 * else 0. Frees the readers. */
int air_csv_settle(AirRuntime *rt);

/* tcp.c: the bytes of a tcp source, whole lines of one sender at a time.
 * Listening: bound now (NULL and err on failure); connecting: the first
 * read connects, and reconnects after the server closed (said on stderr). */
typedef struct AirTcp AirTcp;
AirTcp *air_tcp_open(const char *spec, bool listen_mode, const char *who, char *err, size_t nerr);
/* Up to n bytes ending at a line end; -2 when nothing came within
 * timeout_ms; -1 with errno on a failure of poll. Never 0: a tcp stream
 * has no end but a stop. */
ssize_t air_tcp_read(AirTcp *t, char *out, size_t n, int timeout_ms);
/* The sender of the bytes the last air_tcp_read gave ("127.0.0.1:40122")
 * and the number of their first line among that sender's lines. */
const char *air_tcp_from(const AirTcp *t, long *first_line);
void air_tcp_close(AirTcp *t); /* accepts NULL */

/* collector.c: sink files. Results are written to path.tmp; air_run renames
 * each to path only when every rank ended with status 0, and removes them
 * otherwise (air_fatal too), so path appears only for a complete run. */
typedef struct AirSinkFile {
  char *tmp;    /* path.tmp */
  char *path;   /* the sink's path */
  bool closed;  /* written and closed without error */
} AirSinkFile;
/* [main] After the exit status of every rank is known (rank 0): rename or remove.
 * Returns status, or 1 when a rename failed. */
int air_sink_files_settle(AirRuntime *rt, int status);
/* Remove every sink's path.tmp (a fatal error; any thread, rank 0). */
void air_sink_files_remove(AirRuntime *rt);

/* sinks.c: the bytes a collector writes into a sink's FILE, cut into
 * lines (a line end inside a quoted CSV field is no cut; JSON lines have
 * none). air_lines_feed calls line(ctx, p, n) for each whole line, without
 * its line end. */
typedef struct AirLines {
  char *p;
  size_t n, cap;
  bool inq;  /* inside a quoted CSV field */
  bool json; /* lines are JSON objects: quotes are no CSV quoting */
} AirLines;
void air_lines_feed(AirLines *l, const char *buf, size_t size, void (*line)(void *ctx, const char *p, size_t n),
                    void *ctx);
void air_lines_free(AirLines *l);
/* A sink's first failure: who it is ("redis sink 'out' (host:port)"), set
 * at open, and the reason. The first member of a sink's struct, so that
 * air_sink_error (an AirSinkOps.error) takes the sink itself. */
typedef struct AirSinkErr {
  bool failed;
  char who[300];
  char why[700];
} AirSinkErr;
void air_sink_fail(AirSinkErr *e, const char *fmt, ...) __attribute__((format(printf, 2, 3))); /* the first wins */
bool air_sink_report(const AirSinkErr *e, char *why, size_t n); /* true when it did not fail, else why */
const char *air_sink_error(const void *sink);
/* tcp.c: "host:port" ("[v6]:port" too) into host (brackets removed) and
 * port, each with its size; false when malformed. */
bool air_split_hostport(const char *spec, char *host, size_t nh, char *port, size_t np);

#endif /* AIR_INT_H */

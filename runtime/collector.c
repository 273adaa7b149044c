/* collector.c - the rank-0 vertex writing results in order: windowed rows
 * are held until the watermark says their window is complete, then sorted
 * with the query's total order and written. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "air_int.h"

/* The rows one sender sent that are not written yet, in arrival order:
 * rows [head, n), counted from the first row of chunk[0]. A final stage
 * sends each window's rows sorted, one window after another, so a run is
 * usually in the total order already; `sorted` says whether it is (checked
 * row by row as they come). Rank 0 then only merges the runs, which it
 * used to qsort whole (perf: a fifth of the 10M-key run in cmp_O0 and the
 * sort's moves).
 *
 * The rows are kept in chunks of CHUNK_BYTES that never move: a run grown
 * by realloc was moved by mremap at each doubling, and on this VM the
 * first touch of every moved page costs about 6 us (a 550 MB run took 0.9
 * s to read once after its last move, 0.03 s the second time; perf had put
 * the 10M-key case's output at 100-150 ns per row, mostly there). Written
 * chunks are freed as the head passes them, instead of the old memmove. */
enum { CHUNK_BYTES = 2 << 20 };

typedef struct Run {
  char **chunk;   /* chunk[i] holds rows [i * per, (i + 1) * per) */
  size_t nchunk, chunk_cap;
  size_t head, n; /* rows written / held */
  bool sorted;    /* rows [head, n) are in the total order */
  size_t ready;   /* during a flush: rows [head, ready) are complete */
} Run;

typedef struct Collector {
  AirRuntime *rt;
  char *name;      /* "results of query N", for messages */
  AirCollectorDef def;
  FILE *out;       /* stdout or the .tmp file */
  AirSinkFile *file; /* the sink file's entry in the runtime, NULL for stdout */
  void *sink;      /* a sink that is no file (def.sink_ops): out is its FILE of lines, else NULL */
  char *tmp_path;  /* path + ".tmp", NULL for stdout and a live file (owned by file) */
  Run *runs;       /* held rows (windowed), one run per sender */
  int nruns;
  size_t n;        /* rows held, all runs */
  int wm_slot;     /* this collector's slot for the progress line, or -1 */
  int64_t min_wend; /* smallest window end among held rows (INT64_MAX: none) */
  size_t per;      /* rows per chunk of a run */
  size_t chunk_bytes; /* per rows: CHUNK_BYTES or less, one row if larger */
  int *heap;       /* scratch of the merge: runs by their next row */
  char *buf;       /* lines formatted, not yet handed to out: buf[0..blen) */
  size_t blen, bcap;
  size_t taglen;   /* strlen(def.tag), 0 without */
  int werr;        /* errno of the first handing of buf to out that failed */
  int64_t lim_wend; /* def.limit: the window being written (INT64_MIN: none yet), and */
  int64_t lim_n;    /* its rows written so far (in its partition: def.same_part) */
  char *lim_row;    /* def.same_part: the last row limited, to compare the next with */
  bool lim_any;     /* lim_row holds one */
  char *rn_row;     /* def.rn: the row being written, numbered */
  char **sort_ptr; /* run_sort's scratch: pointers to the rows, then */
  char *sort_rows; /* the rows in order; sort_cap of each, kept for the next */
  size_t sort_cap;
} Collector;

/* Lines are formatted into buf and handed to out in blocks of about 256
 * KiB: through stdio field by field (its lock and bookkeeping per call),
 * rank 0 wrote 4.5M rows/s of the 10M-key case (with the chunks below, 27-33M). */
enum { COLLECTOR_BLOCK = 1 << 18 };

static void put_lines(Collector *c) {
  errno = 0;
  if (c->blen && fwrite(c->buf, 1, c->blen, c->out) != c->blen && !c->werr)
    c->werr = errno ? errno : EIO;
  c->blen = 0;
}

static int64_t row_i64(const char *row, size_t off) {
  int64_t v;
  memcpy(&v, row + off, sizeof v);
  return v;
}

/* Row i of run r. */
static inline char *run_row(const Collector *c, const Run *r, size_t i) {
  return r->chunk[i / c->per] + (i % c->per) * c->def.row_size;
}

/* Room for rows up to `upto` in r: chunks added as needed (2 MiB aligned,
 * transparent huge pages advised from the second one on). */
static void run_reserve(Collector *c, Run *r, size_t upto) {
  while (r->nchunk * c->per < upto) {
    if (r->nchunk == r->chunk_cap) {
      size_t cap = r->chunk_cap ? r->chunk_cap * 2 : 8;
      char **p = realloc(r->chunk, cap * sizeof *p);
      if (!p)
        air_fatal(c->rt, "out of memory holding %zu result rows", c->n);
      r->chunk = p;
      r->chunk_cap = cap;
    }
    air_memory_check(c->chunk_bytes, "results held until their window closes");
    void *m = NULL;
    if (posix_memalign(&m, CHUNK_BYTES, c->chunk_bytes) != 0)
      air_fatal(c->rt, "out of memory holding %zu result rows", c->n + c->per);
#ifdef MADV_HUGEPAGE
    if (r->nchunk > 0)
      madvise(m, c->chunk_bytes, MADV_HUGEPAGE); /* advice only */
#endif
    r->chunk[r->nchunk++] = m;
  }
}

/* Free the chunks every row of which is written; all but the first when
 * the run is empty (kept for the next window's rows). */
static void run_trim(Collector *c, Run *r) {
  size_t drop = r->head / c->per;
  if (r->head == r->n) {
    drop = r->nchunk > 0 ? r->nchunk - 1 : 0;
    if (drop > 0) { /* keep chunk[0]: free the rest */
      for (size_t i = 1; i < r->nchunk; i++)
        free(r->chunk[i]);
      r->nchunk = 1;
    }
    r->head = r->n = 0;
    return;
  }
  if (drop == 0)
    return;
  for (size_t i = 0; i < drop; i++)
    free(r->chunk[i]);
  memmove(r->chunk, r->chunk + drop, (r->nchunk - drop) * sizeof *r->chunk);
  r->nchunk -= drop;
  r->head -= drop * c->per;
  r->n -= drop * c->per;
}

static int cmp_row_ptr(const void *a, const void *b, void *ctx) {
  const Collector *c = ctx;
  return c->def.compare(*(const char *const *)a, *(const char *const *)b);
}

/* A run that came out of order, rows [head, n) (a stage that does not sort
 * its windows: a join, or ORDER BY). Pointers to the rows are sorted, not
 * the rows: qsort of rows larger than 32 bytes sorts pointers itself and
 * then moves the rows through a buffer of its own, and copying the run in
 * and out of another cost as much again
 * (perf, a stream join's 1M result rows on 1 rank: 40% of the run in this
 * function, its memcpy, comparisons and the page faults of its buffers).
 * Then the rows are gathered in order into the kept scratch buffer and
 * copied back in place. */
static void run_sort(Collector *c, Run *r) {
  size_t rs = c->def.row_size, m = r->n - r->head;
  if (m > c->sort_cap) {
    free(c->sort_ptr);
    free(c->sort_rows);
    c->sort_ptr = malloc(m * sizeof *c->sort_ptr);
    c->sort_rows = malloc(m * rs);
    c->sort_cap = m;
    if (!c->sort_ptr || !c->sort_rows)
      air_fatal(c->rt, "out of memory sorting %zu result rows", m);
  }
  for (size_t i = 0; i < m; i++)
    c->sort_ptr[i] = run_row(c, r, r->head + i);
  qsort_r(c->sort_ptr, m, sizeof *c->sort_ptr, cmp_row_ptr, c);
  for (size_t i = 0; i < m; i++)
    memcpy(c->sort_rows + i * rs, c->sort_ptr[i], rs);
  for (size_t i = 0; i < m; i++)
    memcpy(run_row(c, r, r->head + i), c->sort_rows + i * rs, rs);
}

static void write_row(Collector *c, const char *row, int64_t now) {
  if (c->def.limit > 0 && c->def.windowed) { /* LIMIT n: the first n of each window (partition) */
    int64_t wend = row_i64(row, c->def.wend_offset);
    bool same = wend == c->lim_wend && (!c->def.same_part || (c->lim_any && c->def.same_part(row, c->lim_row)));
    if (!same) {
      c->lim_wend = wend;
      c->lim_n = 0;
    }
    if (c->def.same_part) {
      memcpy(c->lim_row, row, c->def.row_size);
      c->lim_any = true;
    }
    if (c->lim_n >= c->def.limit)
      return;
    c->lim_n++;
    if (c->def.rn) { /* ROW_NUMBER(): its number in the partition */
      memcpy(c->rn_row, row, c->def.row_size);
      memcpy(c->rn_row + c->def.rn_offset, &c->lim_n, sizeof c->lim_n);
      row = c->rn_row;
    }
  }
  if (c->def.keep && !c->def.keep(row)) /* after the cut and the numbering */
    return;
  if (c->sink && c->def.sink_ops->row && c->def.windowed) {
    put_lines(c); /* the lines before this row's reach the sink first */
    c->def.sink_ops->row(c->sink, row_i64(row, c->def.wend_offset));
  }
  if (c->blen + c->taglen + 1 + c->def.line_max > c->bcap)
    put_lines(c);
  char *p = c->buf + c->blen;
  if (c->taglen) {
    memcpy(p, c->def.tag, c->taglen);
    p += c->taglen;
    *p++ = ',';
  }
  p = c->def.format(p, row);
  c->blen = (size_t)(p - c->buf);
  if (c->def.latency)
    air_latency_record(c->rt, (double)(now - row_i64(row, c->def.ts_offset)));
}

/* After a flush: a sink that cannot take more (a full disk, a closed pipe)
 * ends the run at once with the reason, rather than run on losing every
 * later result and say only "cannot write" at the end. A .tmp file is
 * removed: it may end inside a row, and the sink's own path is never
 * created. Called without the stream lock (air_fatal's path flushes
 * stdout). */
static void check_written(Collector *c, bool flush_failed, int err) {
  if (!flush_failed && !ferror(c->out))
    return;
  if (!err)
    err = c->werr; /* the fwrite of the lines failed, the fflush after it had nothing left */
  const char *why = err ? strerror(err) : "write error";
  if (c->sink)
    air_fatal(c->rt, "%s", c->def.sink_ops->error(c->sink));
  if (!c->tmp_path && c->def.path) /* live: the windows written so far stay */
    air_fatal(c->rt, "cannot write '%s': %s", c->def.path, why);
  if (!c->tmp_path)
    air_fatal(c->rt, "cannot write standard output: %s", why);
  fclose(c->out);
  c->out = NULL;
  if (!air_ckpt_on(c->rt)) /* with checkpoints: kept for --resume, cut back to its checkpoint */
    remove(c->tmp_path);
  air_fatal(c->rt, "cannot write '%s': %s", c->tmp_path, why);
}

/* The lines formatted so far to the sink, flushed, and the stream lock
 * (taken by the caller) released; a sink that failed ends the run. */
static void flush_unlock(Collector *c) {
  put_lines(c);
  errno = 0;
  bool failed = fflush(c->out) != 0;
  int err = errno;
  funlockfile(c->out);
  check_written(c, failed, err);
}

static void on_batch(AirVertex *v, int input, const void *rows, size_t nrows, void *ctx) {
  Collector *c = ctx;
  size_t rs = c->def.row_size;
  (void)v;
  (void)input;
  if (!c->def.windowed) {
    int64_t now = air_now_ms();
    air_progress_stdout(c->rt, c->out);
    /* Several queries' collectors may share stdout: hold its lock over
     * whole rows so theirs never interleave inside a line. */
    flockfile(c->out);
    for (size_t i = 0; i < nrows; i++)
      write_row(c, (const char *)rows + i * rs, now);
    flush_unlock(c);
    return;
  }
  int sender = v->batch_sender;
  if (sender < 0 || sender >= c->nruns)
    air_fatal(c->rt, "%s: a batch from sender %d of %d", c->name, sender, c->nruns);
  Run *r = &c->runs[sender];
  run_reserve(c, r, r->n + nrows);
  const char *in = rows;
  if (r->n == r->head)
    r->sorted = true;
  /* in order: each row after the one before it, the first after the run's last */
  for (size_t i = 0; i < nrows && r->sorted; i++) {
    const char *prev = i ? in + (i - 1) * rs : r->n > r->head ? run_row(c, r, r->n - 1) : NULL;
    if (prev && c->def.compare(prev, in + i * rs) > 0)
      r->sorted = false;
  }
  for (size_t done = 0; done < nrows;) { /* chunk by chunk */
    size_t at = (r->n + done) % c->per, take = c->per - at;
    if (take > nrows - done)
      take = nrows - done;
    memcpy(run_row(c, r, r->n + done), in + done * rs, take * rs);
    done += take;
  }
  for (size_t i = 0; i < nrows; i++) {
    int64_t wend = row_i64(in + i * rs, c->def.wend_offset);
    if (wend < c->min_wend)
      c->min_wend = wend;
  }
  r->n += nrows;
  c->n += nrows;
}

/* The end of the results: a sink file is closed here and renamed by
 * air_run once every rank is known to have succeeded. */
static void finish(Collector *c) {
  const char *shown = c->def.path ? c->def.path : "standard output";
  bool bad = ferror(c->out) != 0;
  if (c->sink) {
    char why[768];
    if (!c->def.sink_ops->finish(c->sink, c->out, why, sizeof why))
      air_fail(c->rt, "%s", why);
    else if (bad)
      air_fail(c->rt, "%s", c->def.sink_ops->error(c->sink));
    fclose(c->out);
    c->out = NULL;
    c->sink = NULL;
  } else if (c->def.path && !c->tmp_path) { /* live: written in place */
    errno = 0;
    bad |= fclose(c->out) != 0;
    int err = errno ? errno : c->werr;
    c->out = NULL;
    if (bad)
      air_fail(c->rt, "cannot write '%s': %s", c->def.path, err ? strerror(err) : "write error");
  } else if (c->tmp_path) {
    errno = 0;
    bad |= fclose(c->out) != 0;
    int err = errno ? errno : c->werr;
    c->out = NULL;
    if (bad)
      air_fail(c->rt, "cannot write '%s': %s", c->tmp_path, err ? strerror(err) : "write error");
    else
      c->file->closed = true;
  } else {
    bad |= fflush(c->out) != 0;
    if (bad)
      air_fail(c->rt, "cannot write %s", shown);
  }
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* A stop's AIR_WM_STOP: every window still held was open at the cut and
 * closed early (complete ones left with the watermark before it). Say
 * which, count them, and drop their rows unless --on-stop emit. */
static void closed_early(Collector *c) {
  if (c->n == 0)
    return;
  int64_t *ends = air_xmalloc(c->rt, c->n * sizeof *ends);
  size_t m = 0;
  for (int k = 0; k < c->nruns; k++)
    for (size_t i = c->runs[k].head; i < c->runs[k].n; i++)
      ends[m++] = row_i64(run_row(c, &c->runs[k], i), c->def.wend_offset);
  qsort(ends, c->n, sizeof *ends, cmp_i64);
  size_t windows = 1;
  for (size_t i = 1; i < c->n; i++)
    windows += ends[i] != ends[i - 1];
  air_stat_add(c->rt, AIR_STAT_EARLY_WINDOWS, (int64_t)windows);
  air_stat_add(c->rt, AIR_STAT_EARLY_ROWS, (int64_t)c->n);
  if (!c->rt->quiet) {
    char range[64];
    if (windows == 1)
      snprintf(range, sizeof range, "%lld", (long long)ends[0]);
    else
      snprintf(range, sizeof range, "%lld to %lld", (long long)ends[0], (long long)ends[c->n - 1]);
    air_progress_clear(c->rt);
    fprintf(stderr, "airc: %s: %s: %zu window%s still open at the stop's cut (WINDOW_END %s, %zu row%s): %s\n",
            c->rt->name, c->name, windows, windows == 1 ? "" : "s", range, c->n, c->n == 1 ? "" : "s",
            c->rt->on_stop_emit ? "written as they are (--on-stop emit)" : "left out (--on-stop emit writes them)");
  }
  free(ends);
  if (!c->rt->on_stop_emit) {
    for (int k = 0; k < c->nruns; k++) {
      c->runs[k].head = c->runs[k].n;
      run_trim(c, &c->runs[k]);
    }
    c->n = 0;
    c->min_wend = INT64_MAX;
  }
}

/* The merge's heap of runs, ordered by their next row (the least first). */
static bool run_less(const Collector *c, int a, int b) {
  const Run *x = &c->runs[a], *y = &c->runs[b];
  return c->def.compare(run_row(c, x, x->head), run_row(c, y, y->head)) < 0;
}

static void heap_down(Collector *c, int n, int i) {
  for (;;) {
    int l = 2 * i + 1, m = i;
    if (l < n && run_less(c, c->heap[l], c->heap[m])) m = l;
    if (l + 1 < n && run_less(c, c->heap[l + 1], c->heap[m])) m = l + 1;
    if (m == i) return;
    int t = c->heap[i];
    c->heap[i] = c->heap[m];
    c->heap[m] = t;
    i = m;
  }
}

/* Write every held row whose window ended by wm, in the total order: each
 * run's complete rows are a prefix of it once it is sorted (the order
 * starts with the window end), and the prefixes are merged. A run that
 * came out of order (a stage that does not sort) is sorted here first. */
static void write_complete(Collector *c, int64_t wm) {
  size_t nready = 0;
  int nheap = 0;
  c->min_wend = INT64_MAX;
  for (int k = 0; k < c->nruns; k++) {
    Run *r = &c->runs[k];
    if (r->n == r->head)
      continue;
    if (!r->sorted) {
      run_sort(c, r);
      r->sorted = true;
    }
    size_t lo = r->head, hi = r->n; /* the first row of a window ending after wm */
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (row_i64(run_row(c, r, mid), c->def.wend_offset) <= wm) lo = mid + 1;
      else hi = mid;
    }
    r->ready = lo;
    nready += lo - r->head;
    if (lo > r->head)
      c->heap[nheap++] = k;
  }
  if (nready) {
    double t0 = air_mono_s();
    int64_t now = air_now_ms();
    air_progress_stdout(c->rt, c->out);
    flockfile(c->out); /* whole rows on a shared stdout, as in on_batch */
    for (int i = nheap / 2 - 1; i >= 0; i--)
      heap_down(c, nheap, i);
    while (nheap > 0) {
      Run *r = &c->runs[c->heap[0]];
      if (nheap == 1) { /* the last run: the rest of its prefix in order */
        for (; r->head < r->ready; r->head++)
          write_row(c, run_row(c, r, r->head), now);
        break;
      }
      write_row(c, run_row(c, r, r->head), now);
      if (++r->head == r->ready)
        c->heap[0] = c->heap[--nheap];
      heap_down(c, nheap, 0);
    }
    air_stat_add(c->rt, AIR_STAT_WINDOWS, (int64_t)nready);
    flush_unlock(c);
    air_stat_add(c->rt, AIR_STAT_OUTPUT_US, (int64_t)((air_mono_s() - t0) * 1e6));
  }
  c->n -= nready;
  for (int k = 0; k < c->nruns; k++) {
    Run *r = &c->runs[k];
    run_trim(c, r);
    if (r->head == r->n)
      continue;
    int64_t wend = row_i64(run_row(c, r, r->head), c->def.wend_offset); /* sorted: the least */
    if (wend < c->min_wend)
      c->min_wend = wend;
  }
}

static void on_watermark(AirVertex *v, int64_t wm, void *ctx) {
  Collector *c = ctx;
  (void)v;
  if (c->def.windowed && wm == AIR_WM_STOP)
    closed_early(c);
  /* Watermarks come every few milliseconds, windows close far less often:
   * scan the held rows only when one of them is complete (the benchmark's
   * 10M-key window rescanned every held row at every watermark). */
  if (c->def.windowed && c->n > 0 && c->min_wend <= wm)
    write_complete(c, wm);
  air_progress_sink_wm(c->rt, c->wm_slot, wm);
  if (wm == AIR_WM_END)
    finish(c);
}

/* ---- checkpoints ---------------------------------------------------------
 * The held rows of every run, the LIMIT state, and the length of the sink
 * file with every row written so far, flushed and fsync'd: resuming
 * truncates the file to it, so the rows after the checkpoint are written
 * once. Standard output and sinks that are no file cannot be taken back:
 * a resumed run writes their rows after the checkpoint again. */
static void collector_save(AirCkptW *w, void *ctx) {
  Collector *c = ctx;
  int64_t len = -1;
  if (c->out) {
    flockfile(c->out);
    flush_unlock(c);
    if (c->def.path && !c->sink) {
      if (fsync(fileno(c->out)) != 0)
        air_fatal(c->rt, "cannot write '%s': %s", c->tmp_path ? c->tmp_path : c->def.path, strerror(errno));
      len = (int64_t)ftello(c->out);
    }
  }
  air_ckpt_put_i64(w, len);
  air_ckpt_put_i64(w, c->lim_wend);
  air_ckpt_put_i64(w, c->lim_n);
  air_ckpt_put_i64(w, c->lim_any);
  if (c->lim_row)
    air_ckpt_put(w, c->lim_row, c->def.row_size);
  air_ckpt_put_i64(w, c->nruns);
  for (int k = 0; k < c->nruns; k++) {
    const Run *r = &c->runs[k];
    air_ckpt_put_i64(w, r->sorted);
    air_ckpt_put_i64(w, (int64_t)(r->n - r->head));
    for (size_t i = r->head; i < r->n; i++)
      air_ckpt_put(w, run_row(c, r, i), c->def.row_size);
  }
}

static void collector_load(AirCkptR *rd, void *ctx) {
  Collector *c = ctx;
  int64_t len = air_ckpt_get_i64(rd);
  if (len >= 0 && c->def.path && !c->sink) {
    const char *p = c->tmp_path ? c->tmp_path : c->def.path;
    struct stat sb;
    if (fstat(fileno(c->out), &sb) != 0 || sb.st_size < len)
      air_fatal(c->rt, "cannot resume: '%s' is shorter (%lld bytes) than at the checkpoint (%lld bytes)", p,
                (long long)sb.st_size, (long long)len);
    if (ftruncate(fileno(c->out), (off_t)len) != 0 || fseeko(c->out, (off_t)len, SEEK_SET) != 0)
      air_fatal(c->rt, "cannot resume: cannot cut '%s' back to %lld bytes: %s", p, (long long)len, strerror(errno));
  }
  c->lim_wend = air_ckpt_get_i64(rd);
  c->lim_n = air_ckpt_get_i64(rd);
  c->lim_any = air_ckpt_get_i64(rd) != 0;
  if (c->lim_row)
    air_ckpt_get(rd, c->lim_row, c->def.row_size);
  int64_t nruns = air_ckpt_get_i64(rd);
  bool same = nruns == c->nruns && !air_ckpt_rescaled(rd);
  for (int64_t k = 0; k < nruns; k++) {
    /* other senders then (rescaled): every held row into the first run,
     * which is sorted before it is written */
    Run *r = &c->runs[same ? k : 0];
    bool sorted = air_ckpt_get_i64(rd) != 0;
    r->sorted = same ? sorted : false;
    int64_t n = air_ckpt_get_i64(rd);
    run_reserve(c, r, r->n + (size_t)n);
    for (int64_t i = 0; i < n; i++) {
      char *row = run_row(c, r, r->n);
      air_ckpt_get(rd, row, c->def.row_size);
      int64_t wend = row_i64(row, c->def.wend_offset);
      if (wend < c->min_wend)
        c->min_wend = wend;
      r->n++;
      c->n++;
    }
  }
}

/* Resuming: the sink file as the interrupted run left it (path.tmp, or
 * path when that run ended by a stop), cut back to the checkpoint's length
 * by collector_load. */
static FILE *reopen_sink(Collector *c, const char *path) {
  if (c->tmp_path && access(c->tmp_path, F_OK) != 0 && access(c->def.path, F_OK) == 0 &&
      rename(c->def.path, c->tmp_path) != 0)
    air_fatal(c->rt, "cannot resume: cannot rename '%s' to '%s': %s", c->def.path, c->tmp_path, strerror(errno));
  FILE *f = fopen(path, "r+");
  if (!f)
    air_fatal(c->rt, "cannot resume: '%s', written up to the checkpoint, cannot be opened: %s", path,
              strerror(errno));
  return f;
}

static void collector_free(void *ctx) {
  Collector *c = ctx;
  if (c->out && c->out != stdout)
    fclose(c->out);
  for (int k = 0; k < c->nruns; k++) {
    for (size_t i = 0; i < c->runs[k].nchunk; i++)
      free(c->runs[k].chunk[i]);
    free(c->runs[k].chunk);
  }
  free(c->runs);
  free(c->heap);
  free(c->sort_ptr);
  free(c->sort_rows);
  free(c->lim_row);
  free(c->rn_row);
  free(c->buf);
  free(c->name);
  free(c);
}

AirVertex *air_collector_new(AirRuntime *rt, const char *name, AirEdge *e,
                             const AirCollectorDef *def) {
  AirEdge *inputs[1] = {e};
  if (rt->rank != 0)
    return air_vertex_consumer(rt, name, inputs, 1, NULL, NULL, NULL, true);
  if (!def->format || !def->line_max || (def->windowed && !def->compare) || def->row_size != e->row_size)
    air_fatal(rt, "collector '%s': bad definition", name ? name : "?");
  Collector *c = air_xmalloc(rt, sizeof *c);
  memset(c, 0, sizeof *c);
  c->rt = rt;
  c->def = *def;
  c->lim_wend = INT64_MIN;
  if (def->same_part) c->lim_row = air_xmalloc(rt, def->row_size);
  if (def->rn) c->rn_row = air_xmalloc(rt, def->row_size);
  c->taglen = def->tag ? strlen(def->tag) : 0;
  c->per = CHUNK_BYTES / def->row_size ? CHUNK_BYTES / def->row_size : 1;
  /* AIR_COLLECTOR_CHUNK_ROWS: fewer rows per chunk (the tests use tiny
   * chunks so runs cross chunks, and free them, in every case) */
  const char *ce = getenv("AIR_COLLECTOR_CHUNK_ROWS");
  char *cend;
  unsigned long cr = ce ? strtoul(ce, &cend, 10) : 0;
  if (ce && *ce && !*cend && cr > 0 && cr < c->per)
    c->per = cr;
  c->chunk_bytes = c->per * def->row_size;
  c->bcap = COLLECTOR_BLOCK + c->taglen + 1 + def->line_max;
  c->buf = air_xmalloc(rt, c->bcap);
  c->name = strdup(name ? name : "results");
  if (!c->name)
    air_fatal(rt, "out of memory");
  c->out = stdout;
  /* MPICH's MPI_Init makes stdout unbuffered, which turns every field of
   * every row into a write(2): 10 million result rows took minutes. Rows
   * are flushed after each batch anyway, so full buffering loses nothing. */
  static char stdout_buf[1 << 16];
  static bool stdout_buffered;
  if (def->sink_ops) {
    char err[768] = "";
    c->sink = def->sink_ops->open(rt, def->sink_def, &c->out, err, sizeof err);
    if (!c->sink) air_fatal(rt, "%s", err);
  }
  if (!def->path && !def->sink_ops && !stdout_buffered) {
    fflush(stdout);
    setvbuf(stdout, stdout_buf, _IOFBF, sizeof stdout_buf);
    stdout_buffered = true;
  }
  c->nruns = rt->world * e->ppr;
  c->runs = air_xmalloc(rt, (size_t)c->nruns * sizeof *c->runs);
  memset(c->runs, 0, (size_t)c->nruns * sizeof *c->runs);
  c->heap = air_xmalloc(rt, (size_t)c->nruns * sizeof *c->heap);
  c->wm_slot = air_progress_sink(rt);
  c->min_wend = INT64_MAX;
  if (def->path && def->live) {
    /* an unbounded source: the file itself, created fresh, each window
     * appended and flushed as it closes; a stop or an error leaves it */
    c->out = air_ckpt_resuming(rt) ? reopen_sink(c, def->path) : fopen(def->path, "w");
    if (!c->out)
      air_fatal(rt, "cannot write '%s': %s", def->path, strerror(errno));
  } else if (def->path) {
    size_t n = strlen(def->path);
    AirSinkFile **files = realloc(rt->files, (size_t)(rt->nfiles + 1) * sizeof *files);
    if (!files)
      air_fatal(rt, "out of memory");
    rt->files = files;
    c->file = files[rt->nfiles] = air_xmalloc(rt, sizeof *c->file);
    c->file->path = air_xmalloc(rt, n + 1);
    memcpy(c->file->path, def->path, n + 1);
    c->tmp_path = c->file->tmp = air_xmalloc(rt, n + 5);
    memcpy(c->tmp_path, def->path, n);
    memcpy(c->tmp_path + n, ".tmp", 5);
    c->file->closed = false;
    rt->nfiles++;
    c->out = air_ckpt_resuming(rt) ? reopen_sink(c, c->tmp_path) : fopen(c->tmp_path, "w");
    if (!c->out)
      air_fatal(rt, "cannot write '%s': %s", c->tmp_path, strerror(errno));
  }
  bool resumed_file = def->path && air_ckpt_resuming(rt);
  if (def->header && !resumed_file) {
    if (def->tag) {
      fputs(def->tag, c->out);
      fputc(',', c->out);
    }
    fputs(def->header, c->out);
    fputc('\n', c->out);
    fflush(c->out);
  }
  AirVertex *v = air_vertex_consumer(rt, name, inputs, 1, on_batch, on_watermark, c, true);
  v->destroy = collector_free;
  air_vertex_ckpt(v, collector_save, collector_load, c);
  return v;
}

int air_sink_files_settle(AirRuntime *rt, int status) {
  for (int i = 0; i < rt->nfiles; i++) {
    AirSinkFile *f = rt->files[i];
    if (status == 0 && f->closed) {
      if (rename(f->tmp, f->path) != 0) {
        air_fail(rt, "cannot rename '%s' to '%s': %s", f->tmp, f->path, strerror(errno));
        status = 1;
      }
    } else if (!air_ckpt_on(rt)) { /* with checkpoints: kept for --resume */
      remove(f->tmp);
    }
  }
  for (int i = 0; i < rt->nfiles; i++) {
    free(rt->files[i]->tmp);
    free(rt->files[i]->path);
    free(rt->files[i]);
  }
  free(rt->files);
  rt->files = NULL;
  rt->nfiles = 0;
  return status;
}

void air_sink_files_remove(AirRuntime *rt) {
  for (int i = 0; !air_ckpt_on(rt) && i < rt->nfiles; i++)
    remove(rt->files[i]->tmp);
}

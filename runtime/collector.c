/* collector.c - the rank-0 vertex writing results in order: windowed rows
 * are held until the watermark says their window is complete, then sorted
 * with the query's total order and written. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "air_int.h"

/* The rows one sender sent that are not written yet, in arrival order:
 * rows[head..n). A final stage sends each window's rows sorted, one window
 * after another, so a run is usually in the total order already; `sorted`
 * says whether it is (checked row by row as they come). Rank 0 then only
 * merges the runs, which it used to qsort whole (perf: a fifth of the
 * 10M-key run in cmp_O0 and the sort's moves). */
typedef struct Run {
  char *rows;
  size_t head, n, cap; /* rows written / held / allocated */
  bool sorted;         /* rows[head..n) are in the total order */
  size_t ready;        /* during a flush: rows[head..ready) are complete */
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
  int *heap;       /* scratch of the merge: runs by their next row */
} Collector;

static int64_t row_i64(const char *row, size_t off) {
  int64_t v;
  memcpy(&v, row + off, sizeof v);
  return v;
}

static void write_row(Collector *c, const char *row, int64_t now) {
  if (c->def.tag) {
    fputs(c->def.tag, c->out);
    fputc(',', c->out);
  }
  if (c->sink && c->def.sink_ops->row && c->def.windowed)
    c->def.sink_ops->row(c->sink, row_i64(row, c->def.wend_offset));
  c->def.format(c->out, row);
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
  const char *why = err ? strerror(err) : "write error";
  if (c->sink)
    air_fatal(c->rt, "%s", c->def.sink_ops->error(c->sink));
  if (!c->tmp_path && c->def.path) /* live: the windows written so far stay */
    air_fatal(c->rt, "cannot write '%s': %s", c->def.path, why);
  if (!c->tmp_path)
    air_fatal(c->rt, "cannot write standard output: %s", why);
  fclose(c->out);
  c->out = NULL;
  remove(c->tmp_path);
  air_fatal(c->rt, "cannot write '%s': %s", c->tmp_path, why);
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
    errno = 0;
    bool failed = fflush(c->out) != 0;
    int err = errno;
    funlockfile(c->out);
    check_written(c, failed, err);
    return;
  }
  int sender = v->batch_sender;
  if (sender < 0 || sender >= c->nruns)
    air_fatal(c->rt, "%s: a batch from sender %d of %d", c->name, sender, c->nruns);
  Run *r = &c->runs[sender];
  if (r->head > 0 && r->head * 2 >= r->n) { /* drop the written rows */
    memmove(r->rows, r->rows + r->head * rs, (r->n - r->head) * rs);
    r->n -= r->head;
    r->head = 0;
  }
  if (r->n + nrows > r->cap) {
    size_t cap = r->cap ? r->cap : 1024;
    while (cap < r->n + nrows)
      cap *= 2;
    air_memory_check((cap - r->cap) * rs, "results held until their window closes");
    char *p = realloc(r->rows, cap * rs);
    if (!p)
      air_fatal(c->rt, "out of memory holding %zu result rows", c->n + nrows);
    r->rows = p;
    r->cap = cap;
  }
  const char *in = rows;
  if (r->n == r->head)
    r->sorted = true;
  /* in order: each row after the one before it, the first after the run's last */
  for (size_t i = 0; i < nrows && r->sorted; i++) {
    const char *prev = i ? in + (i - 1) * rs : r->n > r->head ? r->rows + (r->n - 1) * rs : NULL;
    if (prev && c->def.compare(prev, in + i * rs) > 0)
      r->sorted = false;
  }
  memcpy(r->rows + r->n * rs, rows, nrows * rs);
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
    int err = errno;
    c->out = NULL;
    if (bad)
      air_fail(c->rt, "cannot write '%s': %s", c->def.path, err ? strerror(err) : "write error");
  } else if (c->tmp_path) {
    errno = 0;
    bad |= fclose(c->out) != 0;
    int err = errno;
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
  size_t rs = c->def.row_size;
  if (c->n == 0)
    return;
  int64_t *ends = air_xmalloc(c->rt, c->n * sizeof *ends);
  size_t m = 0;
  for (int k = 0; k < c->nruns; k++)
    for (size_t i = c->runs[k].head; i < c->runs[k].n; i++)
      ends[m++] = row_i64(c->runs[k].rows + i * rs, c->def.wend_offset);
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
    for (int k = 0; k < c->nruns; k++)
      c->runs[k].head = c->runs[k].n = 0;
    c->n = 0;
    c->min_wend = INT64_MAX;
  }
}

/* The merge's heap of runs, ordered by their next row (the least first). */
static bool run_less(const Collector *c, int a, int b) {
  size_t rs = c->def.row_size;
  const Run *x = &c->runs[a], *y = &c->runs[b];
  return c->def.compare(x->rows + x->head * rs, y->rows + y->head * rs) < 0;
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
  size_t rs = c->def.row_size, nready = 0;
  int nheap = 0;
  c->min_wend = INT64_MAX;
  for (int k = 0; k < c->nruns; k++) {
    Run *r = &c->runs[k];
    if (r->n == r->head)
      continue;
    if (!r->sorted) {
      qsort(r->rows + r->head * rs, r->n - r->head, rs, c->def.compare);
      r->sorted = true;
    }
    size_t lo = r->head, hi = r->n; /* the first row of a window ending after wm */
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (row_i64(r->rows + mid * rs, c->def.wend_offset) <= wm) lo = mid + 1;
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
          write_row(c, r->rows + r->head * rs, now);
        break;
      }
      write_row(c, r->rows + r->head * rs, now);
      if (++r->head == r->ready)
        c->heap[0] = c->heap[--nheap];
      heap_down(c, nheap, 0);
    }
    air_stat_add(c->rt, AIR_STAT_WINDOWS, (int64_t)nready);
    errno = 0;
    bool failed = fflush(c->out) != 0;
    int err = errno;
    funlockfile(c->out);
    check_written(c, failed, err);
    air_stat_add(c->rt, AIR_STAT_OUTPUT_US, (int64_t)((air_mono_s() - t0) * 1e6));
  }
  c->n -= nready;
  for (int k = 0; k < c->nruns; k++) {
    Run *r = &c->runs[k];
    if (r->head == r->n) {
      r->head = r->n = 0;
      continue;
    }
    int64_t wend = row_i64(r->rows + r->head * rs, c->def.wend_offset); /* sorted: the least */
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

static void collector_free(void *ctx) {
  Collector *c = ctx;
  if (c->out && c->out != stdout)
    fclose(c->out);
  for (int k = 0; k < c->nruns; k++)
    free(c->runs[k].rows);
  free(c->runs);
  free(c->heap);
  free(c->name);
  free(c);
}

AirVertex *air_collector_new(AirRuntime *rt, const char *name, AirEdge *e,
                             const AirCollectorDef *def) {
  AirEdge *inputs[1] = {e};
  if (rt->rank != 0)
    return air_vertex_consumer(rt, name, inputs, 1, NULL, NULL, NULL, true);
  if (!def->format || (def->windowed && !def->compare) || def->row_size != e->row_size)
    air_fatal(rt, "collector '%s': bad definition", name ? name : "?");
  Collector *c = air_xmalloc(rt, sizeof *c);
  memset(c, 0, sizeof *c);
  c->rt = rt;
  c->def = *def;
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
    c->out = fopen(def->path, "w");
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
    c->out = fopen(c->tmp_path, "w");
    if (!c->out)
      air_fatal(rt, "cannot write '%s': %s", c->tmp_path, strerror(errno));
    rt->nfiles++;
  }
  if (def->header) {
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
    } else {
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
  for (int i = 0; i < rt->nfiles; i++)
    remove(rt->files[i]->tmp);
}

/* stats.c - per-rank counters and latency samples, merged on rank 0 after
 * the vertex threads joined; the end-of-run summary and --stats-json. */
#include <errno.h>
#include <signal.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "air_int.h"

void air_stats_init(AirStats *s) {
  for (int i = 0; i < AIR_STAT_COUNT; i++)
    atomic_init(&s->count[i], 0);
  pthread_mutex_init(&s->lat_mu, NULL);
  s->lat = NULL;
  s->nlat = s->lat_cap = 0;
  s->lat_seen = 0;
  s->lat_rng = 0x243F6A8885A308D3ULL;
}

void air_stats_free(AirStats *s) {
  pthread_mutex_destroy(&s->lat_mu);
  free(s->lat);
  s->lat = NULL;
}

/* A vertex thread's own counts (ckpt.c): what its checkpoints carry, so
 * that a resumed job counts from its start (air_stat_thread). */
static _Thread_local int64_t *tl_count;

void air_stat_thread(int64_t *counts) { tl_count = counts; }

bool air_stat_carried(AirStat s) {
  return s == AIR_STAT_EVENTS_IN || s == AIR_STAT_FILTERED || s == AIR_STAT_UNMATCHED || s == AIR_STAT_LATE ||
         s == AIR_STAT_DROPPED || s == AIR_STAT_BAD_ROWS || s == AIR_STAT_WINDOWS || s == AIR_STAT_DIV_ZERO ||
         s == AIR_STAT_CAST_ERRORS || s == AIR_STAT_EXPIRED;
}

void air_stat_add(AirRuntime *rt, AirStat s, int64_t n) {
  if (!rt || (unsigned)s >= AIR_STAT_COUNT)
    return;
  atomic_fetch_add_explicit(&rt->stats.count[s], n, memory_order_relaxed);
  if (tl_count)
    tl_count[s] += n;
}

void air_stat_restore(AirRuntime *rt, AirStat s, int64_t n) {
  atomic_fetch_add_explicit(&rt->stats.count[s], n, memory_order_relaxed);
  if (s == AIR_STAT_EVENTS_IN)
    atomic_fetch_add_explicit(&rt->stats.restored_events, n, memory_order_relaxed);
}

void air_stat_set(AirRuntime *rt, AirStat s, int64_t v) {
  if (!rt || (unsigned)s >= AIR_STAT_COUNT)
    return;
  atomic_store_explicit(&rt->stats.count[s], v, memory_order_relaxed);
  if (s == AIR_STAT_SOURCE_LAG)
    atomic_store_explicit(&rt->has_lag, true, memory_order_relaxed);
}

/* Past AIR_LAT_MAX_SAMPLES, reservoir sampling keeps a uniform sample so
 * memory stays bounded on long runs. */
void air_latency_record(AirRuntime *rt, double ms) {
  AirStats *s = &rt->stats;
  pthread_mutex_lock(&s->lat_mu);
  s->lat_seen++;
  if (s->nlat < AIR_LAT_MAX_SAMPLES) {
    if (s->nlat == s->lat_cap) {
      size_t cap = s->lat_cap ? s->lat_cap * 2 : 1024;
      double *p = realloc(s->lat, cap * sizeof *p);
      if (!p) {
        pthread_mutex_unlock(&s->lat_mu);
        return; /* a missing latency sample is not worth ending the run */
      }
      s->lat = p;
      s->lat_cap = cap;
    }
    s->lat[s->nlat++] = ms;
  } else {
    s->lat_rng = air_mix64(s->lat_rng);
    uint64_t j = s->lat_rng % s->lat_seen;
    if (j < s->nlat)
      s->lat[j] = ms;
  }
  pthread_mutex_unlock(&s->lat_mu);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Nearest-rank percentile of sorted v[0..n-1], n > 0. */
static double percentile(const double *v, size_t n, double p) {
  size_t k = (size_t)ceil(p * (double)n);
  if (k < 1)
    k = 1;
  if (k > n)
    k = n;
  return v[k - 1];
}

typedef struct Summary {
  int64_t count[AIR_STAT_COUNT];
  double secs;
  double rate;          /* events/s */
  bool has_lat;
  double mean, p50, p99, max;
} Summary;

/* What stopped the run: "SIGINT", "SIGTERM", "--duration". */
static const char *stopped_by(const AirRuntime *rt) {
  int sig = atomic_load(&rt->stop_sig);
  return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig ? "a signal" : "--duration";
}

static void print_summary(AirRuntime *rt, const Summary *m, const int64_t *per_rank) {
  const char *q = rt->name;
  fprintf(stderr, "airc: %s: %d rank%s, %.1f s, %lld events in (%.0f events/s)\n", q,
          rt->world, rt->world == 1 ? "" : "s", m->secs,
          (long long)m->count[AIR_STAT_EVENTS_IN], m->rate);
  fprintf(stderr, "airc: %s: windows %lld, late %lld, dropped %lld, unmatched %lld, bad rows %lld\n",
          q, (long long)m->count[AIR_STAT_WINDOWS], (long long)m->count[AIR_STAT_LATE],
          (long long)m->count[AIR_STAT_DROPPED], (long long)m->count[AIR_STAT_UNMATCHED],
          (long long)m->count[AIR_STAT_BAD_ROWS]);
  if (rt->ck) {
    fprintf(stderr, "airc: %s: ", q);
    air_ckpt_describe(rt, stderr, false);
    fputc('\n', stderr);
  }
  if (air_cut_happened(rt)) {
    /* An interrupted run: say so, where the sources stopped, and what
     * became of the windows the stop closed early. */
    fprintf(stderr, "airc: %s: %s by %s: the sources stopped at one cut (", q,
            atomic_load(&rt->stop_sig) ? "interrupted" : "stopped", stopped_by(rt));
    air_cut_describe(rt, stderr, false);
    long long w = (long long)m->count[AIR_STAT_EARLY_WINDOWS];
    long long er = (long long)m->count[AIR_STAT_EARLY_ROWS];
    fprintf(stderr, "); %lld window%s still open then (%lld row%s) %s %s\n", w, w == 1 ? "" : "s", er,
            er == 1 ? "" : "s", w == 1 ? "was" : "were",
            rt->on_stop_emit ? "written as they are (--on-stop emit)" : "left out (--on-stop drop)");
  }
  if (atomic_load(&rt->has_lag))
    fprintf(stderr, "airc: %s: kafka lag at the end: %lld message%s behind the newest offsets\n", q,
            (long long)m->count[AIR_STAT_SOURCE_LAG], m->count[AIR_STAT_SOURCE_LAG] == 1 ? "" : "s");
  if (m->count[AIR_STAT_CAST_ERRORS])
    fprintf(stderr, "airc: %s: %lld value%s of text could not be converted (CAST to a number, BOOLEAN, "
                    "TIMESTAMP or DATE, TO_TIMESTAMP) and became NULL\n",
            q, (long long)m->count[AIR_STAT_CAST_ERRORS], m->count[AIR_STAT_CAST_ERRORS] == 1 ? "" : "s");
  if (m->count[AIR_STAT_EXPIRED])
    fprintf(stderr, "airc: %s: state_ttl dropped %lld idle key%s\n", q, (long long)m->count[AIR_STAT_EXPIRED],
            m->count[AIR_STAT_EXPIRED] == 1 ? "" : "s");
  if (m->has_lat)
    fprintf(stderr, "airc: %s: event-time latency ms: mean %.1f, p50 %.1f, p99 %.1f, max %.1f\n",
            q, m->mean, m->p50, m->p99, m->max);
  else
    fprintf(stderr, "airc: %s: event-time latency ms: n/a\n", q);
  if (rt->show_stats) {
    fprintf(stderr, "airc: %s: filtered %lld, division by zero %lld\n", q,
            (long long)m->count[AIR_STAT_FILTERED], (long long)m->count[AIR_STAT_DIV_ZERO]);
    fprintf(stderr, "airc: %s: conversion errors %lld\n", q, (long long)m->count[AIR_STAT_CAST_ERRORS]);
    fprintf(stderr, "airc: %s: sent %lld bytes in %lld messages to other ranks\n", q,
            (long long)m->count[AIR_STAT_BYTES_SENT], (long long)m->count[AIR_STAT_MESSAGES]);
    for (int r = 0; r < rt->world; r++)
      fprintf(stderr, "airc: %s: rank %d: %lld events in\n", q, r, (long long)per_rank[r]);
  }
}

static void json_num(FILE *f, bool has, double v) {
  if (has)
    fprintf(f, "%.3f", v);
  else
    fputs("null", f);
}

static void write_json(AirRuntime *rt, const Summary *m) {
  FILE *f = fopen(rt->stats_json, "w");
  if (!f) {
    air_fail(rt, "cannot write '%s': %s", rt->stats_json, strerror(errno));
    return;
  }
  fprintf(f,
          "{\"events_in\":%lld,\"events_per_s\":%.1f,\"windows\":%lld,\"late\":%lld,"
          "\"dropped\":%lld,\"unmatched\":%lld,\"bad_rows\":%lld,\"filtered\":%lld,"
          "\"div_zero\":%lld,\"cast_errors\":%lld,\"expired\":%lld,\"bytes_sent\":%lld,\"messages\":%lld,\"latency_ms\":{\"mean\":",
          (long long)m->count[AIR_STAT_EVENTS_IN], m->rate, (long long)m->count[AIR_STAT_WINDOWS],
          (long long)m->count[AIR_STAT_LATE], (long long)m->count[AIR_STAT_DROPPED],
          (long long)m->count[AIR_STAT_UNMATCHED], (long long)m->count[AIR_STAT_BAD_ROWS],
          (long long)m->count[AIR_STAT_FILTERED], (long long)m->count[AIR_STAT_DIV_ZERO],
          (long long)m->count[AIR_STAT_CAST_ERRORS], (long long)m->count[AIR_STAT_EXPIRED],
          (long long)m->count[AIR_STAT_BYTES_SENT],
          (long long)m->count[AIR_STAT_MESSAGES]);
  json_num(f, m->has_lat, m->mean);
  fputs(",\"p50\":", f);
  json_num(f, m->has_lat, m->p50);
  fputs(",\"p99\":", f);
  json_num(f, m->has_lat, m->p99);
  fputs(",\"max\":", f);
  json_num(f, m->has_lat, m->max);
  fputs("},\"kafka_lag\":", f); /* null without a kafka source */
  if (atomic_load(&rt->has_lag))
    fprintf(f, "%lld", (long long)m->count[AIR_STAT_SOURCE_LAG]);
  else
    fputs("null", f);
  fprintf(f, ",\"partial_raw_rows\":%lld,\"state_bytes_peak\":%lld,\"state_bytes_settled\":%lld,\"output_s\":%.6f",
          (long long)m->count[AIR_STAT_PARTIAL_RAW], (long long)m->count[AIR_STAT_STATE_PEAK],
          (long long)m->count[AIR_STAT_STATE_SETTLED], (double)m->count[AIR_STAT_OUTPUT_US] / 1e6);
  fputs(",\"interrupted\":", f);
  if (air_cut_happened(rt)) {
    fprintf(f, "{\"by\":\"%s\",\"on_stop\":\"%s\",\"early_windows\":%lld,\"early_rows\":%lld,\"cut\":",
            stopped_by(rt), rt->on_stop_emit ? "emit" : "drop", (long long)m->count[AIR_STAT_EARLY_WINDOWS],
            (long long)m->count[AIR_STAT_EARLY_ROWS]);
    air_cut_describe(rt, f, true);
    fputs("}", f);
  } else {
    fputs("null", f);
  }
  air_ckpt_describe(rt, f, true);
  fputs("}\n", f);
  if (ferror(f) | (fclose(f) != 0))
    air_fail(rt, "cannot write '%s'", rt->stats_json);
}

void air_stats_finish(AirRuntime *rt, double elapsed_s) {
  AirStats *s = &rt->stats;
  int64_t local[AIR_STAT_COUNT];
  Summary m;
  memset(&m, 0, sizeof m);
  for (int i = 0; i < AIR_STAT_COUNT; i++)
    local[i] = atomic_load(&s->count[i]);
  local[AIR_STAT_PARTIAL_RAW] = air_windows_raw_rows();
  local[AIR_STAT_STATE_PEAK] = air_hash_peak_bytes(false);
  local[AIR_STAT_STATE_SETTLED] = air_hash_peak_bytes(true);
  MPI_Reduce(local, m.count, AIR_STAT_COUNT, MPI_INT64_T, MPI_SUM, 0, rt->comm);
  MPI_Reduce(&elapsed_s, &m.secs, 1, MPI_DOUBLE, MPI_MAX, 0, rt->comm);
  /* a resumed job's counts start at its checkpoint's; its rate is this run's */
  int64_t restored = atomic_load(&s->restored_events), restored_all = 0;
  MPI_Reduce(&restored, &restored_all, 1, MPI_INT64_T, MPI_SUM, 0, rt->comm);

  int64_t *per_rank = NULL;
  int *counts = NULL, *displs = NULL;
  double *all = NULL;
  if (rt->rank == 0) {
    per_rank = calloc((size_t)rt->world, sizeof *per_rank);
    counts = calloc((size_t)rt->world, sizeof *counts);
    displs = calloc((size_t)rt->world, sizeof *displs);
    if (!per_rank || !counts || !displs)
      air_fatal(rt, "out of memory");
  }
  MPI_Gather(&local[AIR_STAT_EVENTS_IN], 1, MPI_INT64_T, per_rank, 1, MPI_INT64_T, 0, rt->comm);
  /* Latency is recorded by the collector on rank 0, but any rank may. */
  int n = (int)s->nlat;
  MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, rt->comm);
  size_t total = 0;
  if (rt->rank == 0) {
    for (int r = 0; r < rt->world; r++) {
      displs[r] = (int)total;
      total += (size_t)counts[r];
    }
    all = air_xmalloc(rt, total * sizeof *all);
  }
  MPI_Gatherv(s->lat, n, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, 0, rt->comm);
  if (rt->rank != 0)
    return;

  m.rate = m.secs > 0 ? (double)(m.count[AIR_STAT_EVENTS_IN] - restored_all) / m.secs : 0;
  if (total > 0) {
    qsort(all, total, sizeof *all, cmp_double);
    double sum = 0;
    for (size_t i = 0; i < total; i++)
      sum += all[i];
    m.has_lat = true;
    m.mean = sum / (double)total;
    m.p50 = percentile(all, total, 0.50);
    m.p99 = percentile(all, total, 0.99);
    m.max = all[total - 1];
  }
  if (!rt->quiet)
    print_summary(rt, &m, per_rank);
  if (rt->stats_json)
    write_json(rt, &m);
  free(all);
  free(per_rank);
  free(counts);
  free(displs);
}

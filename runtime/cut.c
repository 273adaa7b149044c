/* cut.c - a stop cuts every source at one agreed point.
 *
 * Without it, SIGINT or --duration stopped each rank's sources wherever
 * they were, and the windows open then were written as if final: which
 * rows made it depended on timing, per rank. Now a stop is a cut in each
 * source's own order of rows (a generator's row index, a file's record
 * index, both the same on every rank):
 *
 *  1. Each source instance, between rows, sees the stop and parks at its
 *     position: the rows before it are consumed (air_source_park).
 *  2. The main thread of each rank, once every instance of every source is
 *     parked or has ended, sends the positions to rank 0; rank 0 sends every
 *     rank the largest per source: the cut K (air_cut_poll).
 *  3. The instances resume, make or read their rows before K, send the
 *     watermark the cut implies, then AIR_WM_STOP, then end. Windows that
 *     end by that watermark are complete; those AIR_WM_STOP closes are
 *     not, and the collector writes or drops them (--on-stop).
 *
 * Messages are point to point, so a rank whose vertices already ended can
 * still answer; the run ends as before, when every rank's vertices ended
 * (a parked source keeps its rank from ending, so no rank leaves while a
 * cut is still needed), and stray cut messages are drained at the end.
 */
#include <stdlib.h>
#include <string.h>

#include "air_int.h"

typedef struct AirCutState {
  int nsrc;            /* source vertices, in definition order (the same on every rank) */
  AirVertex **src;
  int64_t *report;     /* this rank's positions, -1 where no instance parked */
  int64_t *k;          /* rank 0: the largest so far; every rank: the cut once agreed */
  int nreports;        /* rank 0: ranks whose report is in */
  bool reported;       /* this rank's report is made */
  bool agreed;         /* the cut is known here */
} AirCutState;

int64_t air_source_park(AirVertex *v, int64_t pos) {
  AirCut *c = &v->cut;
  pthread_mutex_lock(&c->mu);
  if (pos > c->pos)
    c->pos = pos;
  c->parked++;
  while (c->k == AIR_CUT_PENDING)
    pthread_cond_wait(&c->agreed, &c->mu);
  int64_t k = c->k;
  pthread_mutex_unlock(&c->mu);
  return k;
}

static AirCutState *cut_state(AirRuntime *rt) {
  AirCutState *st = air_xmalloc(rt, sizeof *st);
  memset(st, 0, sizeof *st);
  for (int i = 0; i < rt->nvertices; i++)
    st->nsrc += rt->vertices[i]->source;
  st->src = air_xmalloc(rt, (size_t)(st->nsrc ? st->nsrc : 1) * sizeof *st->src);
  st->report = air_xmalloc(rt, (size_t)(st->nsrc ? st->nsrc : 1) * sizeof *st->report);
  st->k = air_xmalloc(rt, (size_t)(st->nsrc ? st->nsrc : 1) * sizeof *st->k);
  int n = 0;
  for (int i = 0; i < rt->nvertices; i++)
    if (rt->vertices[i]->source)
      st->src[n++] = rt->vertices[i];
  for (int i = 0; i < st->nsrc; i++)
    st->k[i] = -1;
  return st;
}

/* Every instance of every source parked or ended: the report. */
static bool local_report(AirCutState *st) {
  for (int i = 0; i < st->nsrc; i++) {
    AirCut *c = &st->src[i]->cut;
    pthread_mutex_lock(&c->mu);
    bool ready = c->parked + c->ended >= st->src[i]->instances;
    st->report[i] = c->parked ? c->pos : -1;
    pthread_mutex_unlock(&c->mu);
    if (!ready)
      return false;
  }
  return true;
}

static void merge(AirCutState *st, const int64_t *r) {
  for (int i = 0; i < st->nsrc; i++)
    if (r[i] > st->k[i])
      st->k[i] = r[i];
  st->nreports++;
}

static void publish(AirCutState *st) {
  st->agreed = true;
  for (int i = 0; i < st->nsrc; i++) {
    AirCut *c = &st->src[i]->cut;
    pthread_mutex_lock(&c->mu);
    c->k = st->k[i];
    pthread_cond_broadcast(&c->agreed);
    pthread_mutex_unlock(&c->mu);
  }
}

bool air_cut_poll(AirRuntime *rt) {
  AirCutState *st = rt->cutst;
  if (!st) {
    if (!air_should_stop(rt))
      return false;
    st = rt->cutst = cut_state(rt);
  }
  if (st->agreed)
    return false;
  int n = st->nsrc > 0 ? st->nsrc : 1;
  if (!st->reported) {
    if (!local_report(st))
      return true;
    st->reported = true;
    if (rt->rank == 0) {
      merge(st, st->report);
    } else {
      MPI_Request req;
      MPI_Isend(st->report, st->nsrc, MPI_INT64_T, 0, AIR_TAG_CUT_REPORT, rt->comm, &req);
      MPI_Request_free(&req); /* a few bytes, sent eagerly; st lives to the end */
    }
  }
  int flag = 0;
  MPI_Status ms;
  if (rt->rank == 0) {
    int64_t *r = air_xmalloc(rt, (size_t)n * sizeof *r);
    for (;;) {
      MPI_Iprobe(MPI_ANY_SOURCE, AIR_TAG_CUT_REPORT, rt->comm, &flag, &ms);
      if (!flag)
        break;
      MPI_Recv(r, st->nsrc, MPI_INT64_T, ms.MPI_SOURCE, AIR_TAG_CUT_REPORT, rt->comm, MPI_STATUS_IGNORE);
      merge(st, r);
    }
    free(r);
    if (st->nreports < rt->world)
      return true;
    for (int d = 1; d < rt->world; d++) {
      MPI_Request req;
      MPI_Isend(st->k, st->nsrc, MPI_INT64_T, d, AIR_TAG_CUT, rt->comm, &req);
      MPI_Request_free(&req);
    }
    publish(st);
    return false;
  }
  MPI_Iprobe(0, AIR_TAG_CUT, rt->comm, &flag, &ms);
  if (!flag)
    return true;
  MPI_Recv(st->k, st->nsrc, MPI_INT64_T, 0, AIR_TAG_CUT, rt->comm, MPI_STATUS_IGNORE);
  publish(st);
  return false;
}

void air_cut_finish(AirRuntime *rt) {
  for (int tag = AIR_TAG_CUT_REPORT; tag <= AIR_TAG_CUT; tag++) {
    for (int flag = 1; flag;) {
      MPI_Status ms;
      MPI_Iprobe(MPI_ANY_SOURCE, tag, rt->comm, &flag, &ms);
      if (flag) {
        int count = 0;
        MPI_Get_count(&ms, MPI_INT64_T, &count);
        int64_t *r = air_xmalloc(rt, (size_t)(count > 0 ? count : 1) * sizeof *r);
        MPI_Recv(r, count, MPI_INT64_T, ms.MPI_SOURCE, tag, rt->comm, MPI_STATUS_IGNORE);
        free(r);
      }
    }
  }
}

bool air_cut_happened(const AirRuntime *rt) {
  const AirCutState *st = rt->cutst;
  if (!st || !st->agreed)
    return false;
  for (int i = 0; i < st->nsrc; i++)
    if (st->k[i] >= 0)
      return true;
  return false;
}

/* The source's name as the query wrote it (vertices are "source NAME"). */
static const char *source_name(const AirVertex *v) {
  return strncmp(v->name, "source ", 7) == 0 ? v->name + 7 : v->name;
}

void air_cut_describe(const AirRuntime *rt, FILE *out, bool json) {
  const AirCutState *st = rt->cutst;
  bool first = true;
  if (json)
    fputc('{', out);
  for (int i = 0; st && st->agreed && i < st->nsrc; i++) {
    if (st->k[i] < 0)
      continue;
    if (json) {
      fprintf(out, "%s", first ? "" : ",");
      air_write_json_str(out, source_name(st->src[i]));
      fprintf(out, ":%lld", (long long)st->k[i]);
    } else {
      fprintf(out, "%s'%s' after %lld rows", first ? "" : ", ", source_name(st->src[i]),
              (long long)st->k[i]);
    }
    first = false;
  }
  if (json)
    fputc('}', out);
}

void air_cut_free(AirRuntime *rt) {
  AirCutState *st = rt->cutst;
  if (!st)
    return;
  free(st->src);
  free(st->report);
  free(st->k);
  free(st);
  rt->cutst = NULL;
}

/* vertex.c - edges, vertices and their threads, and output ports (AirOut)
 * that cut rows into batches per destination rank and carry watermarks. */
#include <stdlib.h>
#include <string.h>

#include "air_int.h"

typedef struct AirThreadArg {
  AirVertex *v;
  int instance;
} AirThreadArg;

/* ======================================================================
 * Edges and vertices
 * ====================================================================== */

AirEdge *air_edge_new(AirRuntime *rt, int id, size_t row_size, AirRoute route,
                      int producers_per_rank) {
  if (id < 0 || id >= AIR_MAX_EDGES)
    air_fatal(rt, "edge id %d out of range 0..%d", id, AIR_MAX_EDGES - 1);
  if (rt->edges[id])
    air_fatal(rt, "edge %d defined twice", id);
  if (row_size == 0 || producers_per_rank < 1 ||
      (route != AIR_ROUTE_HASH && route != AIR_ROUTE_LOCAL && route != AIR_ROUTE_GATHER))
    air_fatal(rt, "edge %d: bad definition", id);
  AirEdge *e = air_xmalloc(rt, sizeof *e);
  memset(e, 0, sizeof *e);
  e->rt = rt;
  e->id = id;
  e->row_size = row_size;
  e->route = route;
  e->ppr = producers_per_rank;
  e->cap_rows = AIR_BATCH_BYTES / row_size;
  if (e->cap_rows == 0)
    e->cap_rows = 1;
  e->input = -1;
  if (route == AIR_ROUTE_HASH) {
    int n = rt->world * producers_per_rank;
    e->heard = air_xmalloc(rt, (size_t)n * sizeof *e->heard);
    e->heard_idle = air_xmalloc(rt, (size_t)n * sizeof *e->heard_idle);
    for (int i = 0; i < n; i++) {
      atomic_init(&e->heard[i], AIR_WM_NONE);
      atomic_init(&e->heard_idle[i], false);
    }
  }
  rt->edges[id] = e;
  return e;
}

/* Senders a consumer hears from on edge e. */
static int edge_senders(const AirEdge *e) {
  return e->route == AIR_ROUTE_LOCAL ? e->ppr : e->rt->world * e->ppr;
}

static AirVertex *vertex_new(AirRuntime *rt, const char *name, bool active) {
  AirVertex *v = air_xmalloc(rt, sizeof *v);
  memset(v, 0, sizeof *v);
  v->rt = rt;
  v->name = strdup(name ? name : "?");
  if (!v->name)
    air_fatal(rt, "out of memory");
  v->active = active;
  pthread_mutex_init(&v->mu, NULL);
  atomic_init(&v->outs, NULL);
  atomic_init(&v->live, 0);
  AirVertex **vs = realloc(rt->vertices, (size_t)(rt->nvertices + 1) * sizeof *vs);
  if (!vs)
    air_fatal(rt, "out of memory");
  rt->vertices = vs;
  v->index = rt->nvertices;
  rt->vertices[rt->nvertices++] = v;
  return v;
}

AirVertex *air_vertex_source(AirRuntime *rt, const char *name, AirSourceFn fn,
                             void *ctx, int instances) {
  if (!fn || instances < 1)
    air_fatal(rt, "source '%s': bad definition", name ? name : "?");
  AirVertex *v = vertex_new(rt, name, true);
  v->source = true;
  pthread_mutex_init(&v->cut.mu, NULL);
  pthread_cond_init(&v->cut.agreed, NULL);
  v->cut.pos = -1;
  v->cut.k = AIR_CUT_PENDING;
  v->src_fn = fn;
  v->ctx = ctx;
  v->instances = instances;
  return v;
}

AirVertex *air_vertex_consumer(AirRuntime *rt, const char *name, AirEdge **inputs,
                               int ninputs, AirBatchFn on_batch, AirWatermarkFn on_watermark,
                               void *ctx, bool rank0_only) {
  const char *nm = name ? name : "?";
  for (int i = 0; i < ninputs; i++) {
    AirEdge *e = inputs[i];
    if (!e)
      air_fatal(rt, "vertex '%s': input %d is NULL", nm, i);
    if (e->input >= 0)
      air_fatal(rt, "vertex '%s': edge %d already has a consumer", nm, e->id);
    /* A gather edge's senders talk to rank 0 only; a consumer elsewhere
     * would wait for them forever. */
    if ((e->route == AIR_ROUTE_GATHER) != rank0_only)
      air_fatal(rt, "vertex '%s': gather edges need a rank-0-only consumer", nm);
  }
  bool active = !rank0_only || rt->rank == 0;
  AirVertex *v = vertex_new(rt, name, active);
  v->instances = 1;
  v->on_batch = on_batch;
  v->on_wm = on_watermark;
  v->ctx = ctx;
  v->ninputs = ninputs;
  v->inputs = air_xmalloc(rt, (size_t)(ninputs > 0 ? ninputs : 1) * sizeof *v->inputs);
  int slots = 0;
  for (int i = 0; i < ninputs; i++) {
    AirEdge *e = inputs[i];
    v->inputs[i] = e;
    e->input = i;
    e->slot_base = slots;
    slots += edge_senders(e);
    if (active)
      e->consumer = v;
  }
  if (active) {
    v->inq = air_queue_new(AIR_INQ_BATCHES);
    if (!v->inq || air_wm_init(&v->wm, slots) != 0)
      air_fatal(rt, "out of memory");
  }
  return v;
}

/* ======================================================================
 * Ports
 * ====================================================================== */

static int dest_rank(const AirOut *o, int di) {
  switch (o->e->route) {
  case AIR_ROUTE_HASH:
    return di;
  case AIR_ROUTE_LOCAL:
    return o->v->rt->rank;
  default:
    return 0;
  }
}

AirOut *air_out_open(AirVertex *v, int instance, AirEdge *e) {
  AirRuntime *rt = v->rt;
  if (!e || instance < 0 || instance >= e->ppr)
    air_fatal(rt, "vertex '%s': port instance %d out of range for edge %d", v->name, instance,
              e ? e->id : -1);
  pthread_mutex_lock(&v->mu);
  for (AirOut *o = atomic_load(&v->outs); o; o = o->next) {
    if (o->e == e && o->instance == instance) {
      pthread_mutex_unlock(&v->mu);
      return o;
    }
  }
  AirOut *o = air_xmalloc(rt, sizeof *o);
  memset(o, 0, sizeof *o);
  o->v = v;
  o->e = e;
  o->instance = instance;
  o->sender = rt->rank * e->ppr + instance;
  o->ndest = e->route == AIR_ROUTE_HASH ? rt->world : 1;
  o->cur = air_xmalloc(rt, (size_t)o->ndest * sizeof *o->cur);
  o->batch = air_xmalloc(rt, (size_t)o->ndest * sizeof *o->batch);
  /* A parked cursor has no room, so air_out_row takes the slow path; it
   * points at a real row-sized buffer so that `next + row_size` stays valid
   * pointer arithmetic. */
  o->park = air_xmalloc(rt, e->row_size);
  for (int d = 0; d < o->ndest; d++) {
    o->batch[d] = NULL;
    o->cur[d].next = o->cur[d].end = o->park;
  }
  o->head.cur = o->cur;
  o->head.row_size = e->row_size;
  o->head.route = e->route;
  o->wm_sent = AIR_WM_NONE;
  o->next = atomic_load(&v->outs);
  atomic_store(&v->outs, o);
  pthread_mutex_unlock(&v->mu);
  return o;
}

static AirBatch *batch_new(AirOut *o, size_t rows) {
  AirBatch *b = air_xmalloc(o->v->rt, sizeof(AirBatch) + rows * o->e->row_size);
  b->edge = o->e->id;
  b->sender = o->sender;
  b->nrows = 0;
  b->flags = 0;
  b->wm = o->wm_sent;
  return b;
}

/* Send the batch for destination di (rows so far, watermark wm_sent) and
 * park the cursor; may block on a full queue. */
static void ship(AirOut *o, int di) {
  AirBatch *b = o->batch[di];
  if (b)
    b->nrows = (int32_t)((size_t)(o->cur[di].next - air_batch_rows(b)) / o->e->row_size);
  else
    b = batch_new(o, 0);
  b->wm = o->wm_sent;
  b->flags = o->v->idle ? AIR_BATCH_IDLE : 0;
  o->batch[di] = NULL;
  o->cur[di].next = o->cur[di].end = o->park;
  air_batch_send(o->v->rt, o->e, dest_rank(o, di), b);
}

void *air_out_row_slow(AirOut *o, int dest) {
  AirRuntime *rt = o->v->rt;
  if (o->ended)
    air_fatal(rt, "vertex '%s': row after the end of stream on edge %d", o->v->name, o->e->id);
  int di = 0;
  if (o->e->route == AIR_ROUTE_HASH) {
    if (dest < 0 || dest >= rt->world)
      air_fatal(rt, "vertex '%s': destination rank %d out of range", o->v->name, dest);
    di = dest;
  }
  if (o->batch[di])
    ship(o, di);
  AirBatch *b = batch_new(o, o->e->cap_rows);
  o->batch[di] = b;
  char *p = air_batch_rows(b);
  o->cur[di].next = p + o->e->row_size;
  o->cur[di].end = p + o->e->cap_rows * o->e->row_size;
  return p;
}

void air_out_flush(AirOut *o) {
  for (int di = 0; di < o->ndest; di++)
    if (o->batch[di])
      ship(o, di);
}

void air_out_watermark(AirOut *o, int64_t wm) {
  if (o->ended)
    return;
  if (wm <= o->wm_sent) {
    air_out_flush(o);
    return;
  }
  o->wm_sent = wm;
  /* Rows pending for a rank travel in the same message as the watermark. */
  for (int di = 0; di < o->ndest; di++)
    ship(o, di);
  if (wm == AIR_WM_END)
    o->ended = true;
}

/* A checkpoint's barrier: the rows before it go first, then an empty batch
 * flagged as the barrier to every destination. */
void air_out_barrier(AirOut *o, int64_t id) {
  if (o->ended)
    return;
  for (int di = 0; di < o->ndest; di++) {
    if (o->batch[di])
      ship(o, di);
    AirBatch *b = batch_new(o, 0);
    b->flags = AIR_BATCH_BARRIER;
    b->wm = id;
    air_batch_send(o->v->rt, o->e, dest_rank(o, di), b);
  }
}

/* The watermark the other ranks' instances of a source have reached, as
 * far as this rank heard over the exchanges the source feeds: the minimum
 * of what each sender that is not idle last sent here; when all of them
 * are idle, the largest (they will take it too: idle ranks agree on the
 * furthest any got). Senders that ended (no partitions, or at their end)
 * hold nothing back and count for neither. AIR_WM_NONE when the source
 * feeds no exchange, or a sender that is not idle has sent nothing yet;
 * AIR_WM_END when every other sender ended. A rank whose own input is all
 * idle may take it as its own (air.h). */
int64_t air_peer_wm(AirVertex *v) {
  AirRuntime *rt = v->rt;
  int64_t busy = AIR_WM_END, idle = AIR_WM_NONE;
  bool any_busy = false, any = false;
  for (AirOut *o = atomic_load(&v->outs); o; o = o->next) {
    const AirEdge *e = o->e;
    if (e->route != AIR_ROUTE_HASH || !e->heard)
      continue;
    for (int s = 0; s < rt->world * e->ppr; s++) {
      if (s / e->ppr == rt->rank)
        continue;
      int64_t w = atomic_load_explicit(&e->heard[s], memory_order_relaxed);
      any = true;
      if (w == AIR_WM_END)
        continue;
      if (atomic_load_explicit(&e->heard_idle[s], memory_order_relaxed)) {
        if (w > idle)
          idle = w;
      } else {
        any_busy = true;
        if (w < busy)
          busy = w;
      }
    }
  }
  if (!any)
    return AIR_WM_NONE;
  return any_busy ? busy : idle == AIR_WM_NONE ? AIR_WM_END : idle;
}

void air_source_idle(AirVertex *v, bool idle) {
  if (v->idle == idle)
    return;
  v->idle = idle;
  /* say so now: a batch, empty if need be, on every port */
  for (AirOut *o = atomic_load(&v->outs); o; o = o->next)
    for (int di = 0; di < o->ndest && !o->ended; di++)
      ship(o, di);
}

/* ======================================================================
 * Threads
 * ====================================================================== */

static void flush_ports(AirVertex *v) {
  for (AirOut *o = atomic_load(&v->outs); o; o = o->next)
    air_out_flush(o);
}

static void end_ports(AirVertex *v, int instance) {
  for (AirOut *o = atomic_load(&v->outs); o; o = o->next)
    if (o->instance == instance)
      air_out_watermark(o, AIR_WM_END);
}

/* When the last instance ended: every instance of every edge this vertex
 * feeds must have said AIR_WM_END, or consumers would wait forever, so
 * instances that returned before opening a port get one here. */
static void end_missing(AirVertex *v) {
  for (AirOut *o = atomic_load(&v->outs); o; o = o->next)
    for (int t = 0; t < o->e->ppr; t++)
      air_out_watermark(air_out_open(v, t, o->e), AIR_WM_END);
}

static void *source_main(void *arg) {
  AirThreadArg *a = arg;
  AirVertex *v = a->v;
  air_stat_thread(v->ck_stats ? v->ck_stats[a->instance] : NULL);
  v->src_fn(v, a->instance, v->ctx);
  air_ckpt_instance_ended(v, a->instance);
  pthread_mutex_lock(&v->cut.mu);
  v->cut.ended++;
  pthread_mutex_unlock(&v->cut.mu);
  end_ports(v, a->instance);
  if (atomic_fetch_sub(&v->live, 1) == 1)
    end_missing(v);
  atomic_fetch_sub(&v->rt->live, 1);
  return NULL;
}

/* Slot of a batch's sender in v's watermark table, -1 when it makes no
 * sense (a corrupt or misrouted batch). */
static int sender_slot(AirVertex *v, const AirEdge *e, int sender) {
  int idx = e->route == AIR_ROUTE_LOCAL ? sender - v->rt->rank * e->ppr : sender;
  if (idx < 0 || idx >= edge_senders(e))
    return -1;
  return e->slot_base + idx;
}

/* Batches a consumer holds back while it aligns a checkpoint's barriers:
 * a FIFO (per sender, the order they came in). */
typedef struct Held {
  AirBatch **b;
  size_t head, n, cap;
} Held;

static void held_push(AirRuntime *rt, Held *h, AirBatch *b) {
  if (h->head + h->n == h->cap) {
    if (h->head > 0) {
      memmove(h->b, h->b + h->head, h->n * sizeof *h->b);
      h->head = 0;
    } else {
      size_t cap = h->cap ? h->cap * 2 : 64;
      AirBatch **p = realloc(h->b, cap * sizeof *p);
      if (!p)
        air_fatal(rt, "out of memory holding batches for a checkpoint");
      h->b = p;
      h->cap = cap;
    }
  }
  h->b[h->head + h->n++] = b;
}

static AirBatch *held_pop(Held *h) {
  if (!h->n)
    return NULL;
  h->n--;
  return h->b[h->head++];
}

/* Every slot's barrier came (or the slot ended): the checkpoint of v is
 * its state now. The held batches then go first, before the queue's. */
static bool aligned(const AirVertex *v, const bool *blocked) {
  for (int s = 0; s < v->wm.nslot; s++)
    if (!blocked[s] && v->wm.slot[s] != AIR_WM_END)
      return false;
  return true;
}

static void *consumer_main(void *arg) {
  AirThreadArg *a = arg;
  AirVertex *v = a->v;
  AirRuntime *rt = v->rt;
  air_stat_thread(v->ck_stats ? v->ck_stats[0] : NULL);
  bool done = v->wm.min == AIR_WM_END;
  if (done && v->on_wm)
    v->on_wm(v, AIR_WM_END, v->ctx);
  bool *blocked = calloc((size_t)(v->wm.nslot > 0 ? v->wm.nslot : 1), sizeof *blocked);
  if (!blocked)
    air_fatal(rt, "out of memory");
  int64_t aligning = 0; /* the checkpoint whose barriers are coming in, 0: none */
  Held held = {0}, replay = {0};
  while (!done) {
    AirBatch *b = held_pop(&replay);
    if (!b)
      b = air_queue_try_pop(v->inq);
    if (!b) {
      /* Rows must not wait in half-full batches while we sleep. */
      flush_ports(v);
      b = air_queue_pop(v->inq);
    }
    AirEdge *e = b->edge >= 0 && b->edge < AIR_MAX_EDGES ? rt->edges[b->edge] : NULL;
    int slot = e && e->consumer == v ? sender_slot(v, e, b->sender) : -1;
    if (slot < 0)
      air_fatal(rt, "vertex '%s': batch from unknown sender %d on edge %d", v->name, b->sender,
                b->edge);
    if (aligning && blocked[slot]) { /* after its barrier: not in this checkpoint */
      held_push(rt, &held, b);
      continue;
    }
    if (b->flags & AIR_BATCH_BARRIER) {
      if (aligning && b->wm != aligning)
        air_fatal(rt, "vertex '%s': barrier of checkpoint %lld while aligning %lld", v->name,
                  (long long)b->wm, (long long)aligning);
      aligning = b->wm;
      blocked[slot] = true;
      free(b);
    } else {
      v->batch_sender = b->sender;
      if (b->nrows > 0 && v->on_batch)
        v->on_batch(v, e->input, air_batch_rows(b), (size_t)b->nrows, v->ctx);
      bool up = air_wm_update(&v->wm, slot, b->wm);
      free(b);
      if (up) {
        if (v->on_wm)
          v->on_wm(v, v->wm.min, v->ctx);
        done = v->wm.min == AIR_WM_END;
      }
    }
    if (aligning && aligned(v, blocked)) {
      air_ckpt_vertex_barrier(v, aligning);
      aligning = 0;
      memset(blocked, 0, (size_t)v->wm.nslot * sizeof *blocked);
      /* held, then what replay had left: each sender's batches in order */
      AirBatch *x;
      while ((x = held_pop(&replay)))
        held_push(rt, &held, x);
      Held t = replay;
      replay = held;
      held = t;
      held.head = held.n = 0;
    }
  }
  free(blocked);
  free(held.b);
  free(replay.b);
  air_ckpt_instance_ended(v, 0);
  end_ports(v, 0);
  end_missing(v);
  atomic_fetch_sub(&rt->live, 1);
  return NULL;
}

void air_vertices_start(AirRuntime *rt) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  if (rt->stack_bytes && pthread_attr_setstacksize(&attr, rt->stack_bytes) != 0)
    air_fatal(rt, "cannot give vertex threads a stack of %zu MB", rt->stack_bytes >> 20);
  int total = 0;
  for (int i = 0; i < rt->nvertices; i++)
    if (rt->vertices[i]->active)
      total += rt->vertices[i]->instances;
  atomic_store(&rt->live, total);
  for (int i = 0; i < rt->nvertices; i++) {
    AirVertex *v = rt->vertices[i];
    if (!v->active)
      continue;
    atomic_store(&v->live, v->instances);
    v->threads = air_xmalloc(rt, (size_t)v->instances * sizeof *v->threads);
    v->args = air_xmalloc(rt, (size_t)v->instances * sizeof *v->args);
    for (int t = 0; t < v->instances; t++) {
      v->args[t].v = v;
      v->args[t].instance = t;
      if (pthread_create(&v->threads[t], &attr, v->source ? source_main : consumer_main,
                         &v->args[t]) != 0)
        air_fatal(rt, "cannot start a thread for vertex '%s'", v->name);
    }
  }
  pthread_attr_destroy(&attr);
}

void air_vertices_join(AirRuntime *rt) {
  for (int i = 0; i < rt->nvertices; i++) {
    AirVertex *v = rt->vertices[i];
    if (!v->threads)
      continue;
    for (int t = 0; t < v->instances; t++)
      pthread_join(v->threads[t], NULL);
  }
}

void air_vertices_free(AirRuntime *rt) {
  for (int i = 0; i < rt->nvertices; i++) {
    AirVertex *v = rt->vertices[i];
    AirOut *o = atomic_load(&v->outs);
    while (o) {
      AirOut *next = o->next;
      for (int d = 0; d < o->ndest; d++)
        free(o->batch[d]);
      free(o->batch);
      free(o->cur);
      free(o->park);
      free(o);
      o = next;
    }
    if (v->inq) {
      void *b;
      while ((b = air_queue_try_pop(v->inq)))
        free(b);
      air_queue_free(v->inq);
    }
    air_wm_free(&v->wm);
    if (v->destroy)
      v->destroy(v->ctx);
    pthread_mutex_destroy(&v->mu);
    if (v->source) {
      pthread_mutex_destroy(&v->cut.mu);
      pthread_cond_destroy(&v->cut.agreed);
    }
    free(v->inputs);
    free(v->threads);
    free(v->args);
    free(v->name);
    free(v);
  }
  free(rt->vertices);
  rt->vertices = NULL;
  rt->nvertices = 0;
  for (int i = 0; i < AIR_MAX_EDGES; i++) {
    if (rt->edges[i]) {
      free((void *)rt->edges[i]->heard);
      free((void *)rt->edges[i]->heard_idle);
    }
    free(rt->edges[i]);
    rt->edges[i] = NULL;
  }
}

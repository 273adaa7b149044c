/* queue.c - the bounded blocking FIFO between threads. Producers sleep on a
 * condition variable while it is full and consumers while it is empty: no
 * thread spins. */
#include <stdlib.h>

#include "air_int.h"

AirQueue *air_queue_new(size_t limit) {
  AirQueue *q = calloc(1, sizeof *q);
  if (!q)
    return NULL;
  q->limit = limit ? limit : 1;
  q->ring_cap = q->limit + 4; /* room for a few forced pushes before growing */
  q->ring = malloc(q->ring_cap * sizeof *q->ring);
  if (!q->ring)
    goto fail;
  pthread_mutex_init(&q->mu, NULL);
  pthread_cond_init(&q->not_empty, NULL);
  pthread_cond_init(&q->not_full, NULL);
  return q;
fail:
  free(q);
  return NULL;
}

void air_queue_free(AirQueue *q) {
  if (!q)
    return;
  pthread_mutex_destroy(&q->mu);
  pthread_cond_destroy(&q->not_empty);
  pthread_cond_destroy(&q->not_full);
  free(q->ring);
  free(q);
}

/* Caller holds q->mu. */
static void put(AirQueue *q, void *item) {
  if (q->count == q->ring_cap) {
    size_t cap = q->ring_cap * 2;
    void **r = malloc(cap * sizeof *r);
    if (!r)
      abort(); /* only forced pushes grow, by a handful of slots */
    for (size_t i = 0; i < q->count; i++)
      r[i] = q->ring[(q->head + i) % q->ring_cap];
    free(q->ring);
    q->ring = r;
    q->ring_cap = cap;
    q->head = 0;
  }
  q->ring[(q->head + q->count) % q->ring_cap] = item;
  q->count++;
  pthread_cond_signal(&q->not_empty);
}

/* Caller holds q->mu and q->count > 0. */
static void *take(AirQueue *q) {
  void *item = q->ring[q->head];
  q->head = (q->head + 1) % q->ring_cap;
  q->count--;
  if (q->count < q->limit)
    pthread_cond_signal(&q->not_full);
  return item;
}

void air_queue_push(AirQueue *q, void *item) {
  pthread_mutex_lock(&q->mu);
  while (q->count >= q->limit)
    pthread_cond_wait(&q->not_full, &q->mu);
  put(q, item);
  pthread_mutex_unlock(&q->mu);
}

bool air_queue_try_push(AirQueue *q, void *item) {
  pthread_mutex_lock(&q->mu);
  bool ok = q->count < q->limit;
  if (ok)
    put(q, item);
  pthread_mutex_unlock(&q->mu);
  return ok;
}

void air_queue_push_force(AirQueue *q, void *item) {
  pthread_mutex_lock(&q->mu);
  put(q, item);
  pthread_mutex_unlock(&q->mu);
}

void *air_queue_pop(AirQueue *q) {
  pthread_mutex_lock(&q->mu);
  while (q->count == 0)
    pthread_cond_wait(&q->not_empty, &q->mu);
  void *item = take(q);
  pthread_mutex_unlock(&q->mu);
  return item;
}

void *air_queue_try_pop(AirQueue *q) {
  pthread_mutex_lock(&q->mu);
  void *item = q->count ? take(q) : NULL;
  pthread_mutex_unlock(&q->mu);
  return item;
}

size_t air_queue_count(AirQueue *q) {
  pthread_mutex_lock(&q->mu);
  size_t n = q->count;
  pthread_mutex_unlock(&q->mu);
  return n;
}

bool air_queue_has_room(AirQueue *q) {
  pthread_mutex_lock(&q->mu);
  bool room = q->count < q->limit;
  pthread_mutex_unlock(&q->mu);
  return room;
}

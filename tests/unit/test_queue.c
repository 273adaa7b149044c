/* Unit tests of the bounded blocking queue (runtime/queue.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdint.h>
#include <sched.h>
#include <time.h>

#include "air_int.h"

#define ITEM(i) ((void *)(uintptr_t)(i))

static void test_queue_fifo_order(void **state) {
  (void)state;
  AirQueue *q = air_queue_new(8);
  assert_non_null(q);
  assert_null(air_queue_try_pop(q));
  for (uintptr_t i = 1; i <= 8; i++)
    air_queue_push(q, ITEM(i));
  assert_int_equal(air_queue_count(q), 8);
  for (uintptr_t i = 1; i <= 8; i++)
    assert_ptr_equal(air_queue_pop(q), ITEM(i));
  assert_null(air_queue_try_pop(q));
  air_queue_free(q);
}

static void test_queue_try_push_respects_limit(void **state) {
  (void)state;
  AirQueue *q = air_queue_new(2);
  assert_true(air_queue_has_room(q));
  assert_true(air_queue_try_push(q, ITEM(1)));
  assert_true(air_queue_try_push(q, ITEM(2)));
  assert_false(air_queue_has_room(q));
  assert_false(air_queue_try_push(q, ITEM(3)));
  assert_ptr_equal(air_queue_try_pop(q), ITEM(1));
  assert_true(air_queue_try_push(q, ITEM(3)));
  assert_ptr_equal(air_queue_pop(q), ITEM(2));
  assert_ptr_equal(air_queue_pop(q), ITEM(3));
  air_queue_free(q);
}

/* Forced pushes may exceed the limit (the comm thread never blocks) and the
 * ring grows without losing order, also when it wrapped around. */
static void test_queue_force_grows_in_order(void **state) {
  (void)state;
  AirQueue *q = air_queue_new(3);
  air_queue_push(q, ITEM(100));
  air_queue_push(q, ITEM(101));
  air_queue_pop(q);
  air_queue_pop(q);
  for (uintptr_t i = 1; i <= 50; i++)
    air_queue_push_force(q, ITEM(i));
  assert_int_equal(air_queue_count(q), 50);
  assert_false(air_queue_has_room(q));
  for (uintptr_t i = 1; i <= 50; i++)
    assert_ptr_equal(air_queue_pop(q), ITEM(i));
  assert_true(air_queue_has_room(q));
  air_queue_free(q);
}

typedef struct Pusher {
  AirQueue *q;
  uintptr_t n;
  atomic_int pushed;
} Pusher;

static void *push_all(void *arg) {
  Pusher *p = arg;
  for (uintptr_t i = 1; i <= p->n; i++) {
    air_queue_push(p->q, ITEM(i));
    atomic_fetch_add(&p->pushed, 1);
  }
  return NULL;
}

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

static void test_queue_push_blocks_while_full(void **state) {
  (void)state;
  Pusher p = {air_queue_new(2), 3, 0};
  pthread_t t;
  pthread_create(&t, NULL, push_all, &p);
  sleep_ms(50);
  assert_int_equal(atomic_load(&p.pushed), 2); /* third push waits */
  assert_ptr_equal(air_queue_pop(p.q), ITEM(1));
  pthread_join(t, NULL);
  assert_int_equal(atomic_load(&p.pushed), 3);
  assert_ptr_equal(air_queue_pop(p.q), ITEM(2));
  assert_ptr_equal(air_queue_pop(p.q), ITEM(3));
  air_queue_free(p.q);
}

static void *pop_one(void *arg) { return air_queue_pop(arg); }

static void test_queue_pop_blocks_while_empty(void **state) {
  (void)state;
  AirQueue *q = air_queue_new(4);
  pthread_t t;
  pthread_create(&t, NULL, pop_one, q);
  sleep_ms(30);
  air_queue_push(q, ITEM(42));
  void *got;
  pthread_join(t, &got);
  assert_ptr_equal(got, ITEM(42));
  air_queue_free(q);
}

/* Producer and consumer threads through a small queue: every item arrives,
 * in order, and the queue never holds more than its limit. */
static void test_queue_threads_keep_order_and_bound(void **state) {
  (void)state;
  Pusher p = {air_queue_new(4), 100000, 0};
  pthread_t t;
  pthread_create(&t, NULL, push_all, &p);
  for (uintptr_t i = 1; i <= p.n; i++) {
    assert_true(air_queue_count(p.q) <= 4);
    void *it;
    if (i % 2)
      it = air_queue_pop(p.q);
    else
      while (!(it = air_queue_try_pop(p.q)))
        sched_yield();
    assert_ptr_equal(it, ITEM(i));
  }
  pthread_join(t, NULL);
  assert_int_equal(air_queue_count(p.q), 0);
  air_queue_free(p.q);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_queue_fifo_order),
      cmocka_unit_test(test_queue_try_push_respects_limit),
      cmocka_unit_test(test_queue_force_grows_in_order),
      cmocka_unit_test(test_queue_push_blocks_while_full),
      cmocka_unit_test(test_queue_pop_blocks_while_empty),
      cmocka_unit_test(test_queue_threads_keep_order_and_bound),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

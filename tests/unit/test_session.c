/* Unit tests for runtime/session.c: AirSessions (session windows). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "air.h"

#define GAP 100

typedef struct Acc {
  int64_t sum;   /* sum of event values */
  int64_t count; /* events */
} Acc;

static int merges; /* merge() calls since the last reset */

static void acc_merge(void *dst, const void *src) {
  Acc *d = dst;
  const Acc *s = src;
  d->sum += s->sum;
  d->count += s->count;
  merges++;
}

typedef struct Closed {
  int64_t key;
  int64_t start;
  int64_t end;
  int64_t sum;
  int64_t count;
} Closed;

typedef struct Sink {
  Closed *rows;
  size_t n, cap;
} Sink;

static void on_close(const void *key, int64_t start, int64_t end, void *acc,
                     void *ctx) {
  Sink *k = ctx;
  if (k->n == k->cap) {
    k->cap = k->cap ? k->cap * 2 : 64;
    k->rows = realloc(k->rows, k->cap * sizeof *k->rows);
    assert_non_null(k->rows);
  }
  Closed *c = &k->rows[k->n++];
  memcpy(&c->key, key, sizeof c->key);
  c->start = start;
  c->end = end;
  c->sum = ((Acc *)acc)->sum;
  c->count = ((Acc *)acc)->count;
}

/* Feed one event of value v; returns false when it was late. */
static bool event(AirSessions *s, int64_t key, int64_t ts, int64_t wm,
                  int64_t v, bool *is_new) {
  bool fresh = false;
  Acc *a = air_sessions_acc(s, &key, air_hash_u64((uint64_t)key), ts, wm, &fresh);
  if (is_new) *is_new = fresh;
  if (!a) return false;
  if (fresh) {
    assert_int_equal(a->sum, 0);
    assert_int_equal(a->count, 0);
  }
  a->sum += v;
  a->count++;
  return true;
}

static void check(const Closed *c, int64_t key, int64_t start, int64_t end,
                  int64_t sum, int64_t count) {
  assert_int_equal(c->key, key);
  assert_int_equal(c->start, start);
  assert_int_equal(c->end, end);
  assert_int_equal(c->sum, sum);
  assert_int_equal(c->count, count);
}

static void test_session_in_order(void **state) {
  (void)state;
  AirSessions *s = air_sessions_new(sizeof(int64_t), sizeof(Acc), GAP, acc_merge);
  Sink k = {0};
  bool is_new;
  assert_true(event(s, 1, 0, AIR_WM_NONE, 1, &is_new)); /* [0,100) */
  assert_true(is_new);
  assert_true(event(s, 1, 50, AIR_WM_NONE, 2, &is_new)); /* [0,150) */
  assert_false(is_new);
  assert_true(event(s, 1, 120, AIR_WM_NONE, 4, &is_new)); /* [0,220) */
  assert_false(is_new);
  /* 220 is not < the end 220: a gap of exactly GAP starts a new session. */
  assert_true(event(s, 1, 220, AIR_WM_NONE, 8, &is_new)); /* [220,320) */
  assert_true(is_new);
  assert_int_equal(air_sessions_open_count(s), 2);

  assert_int_equal(air_sessions_close(s, 219, on_close, &k), 0);
  assert_int_equal(air_sessions_close(s, 220, on_close, &k), 1);
  check(&k.rows[0], 1, 0, 220, 1 + 2 + 4, 3);
  assert_int_equal(air_sessions_open_count(s), 1);
  assert_int_equal(air_sessions_close(s, AIR_WM_END, on_close, &k), 1);
  check(&k.rows[1], 1, 220, 320, 8, 1);
  assert_int_equal(air_sessions_open_count(s), 0);
  free(k.rows);
  air_sessions_free(s);
  air_sessions_free(NULL);
}

static void test_session_out_of_order(void **state) {
  (void)state;
  AirSessions *s = air_sessions_new(sizeof(int64_t), sizeof(Acc), GAP, acc_merge);
  Sink k = {0};
  bool is_new;
  merges = 0;
  event(s, 7, 200, AIR_WM_NONE, 1, &is_new); /* [200,300) */
  assert_true(is_new);
  event(s, 7, 150, AIR_WM_NONE, 2, &is_new); /* [150,250) overlaps: [150,300) */
  assert_false(is_new);
  event(s, 7, 50, AIR_WM_NONE, 4, &is_new); /* [50,150) touches only: new */
  assert_true(is_new);
  event(s, 7, 0, AIR_WM_NONE, 8, &is_new); /* [0,100) joins [50,150): [0,150) */
  assert_false(is_new);
  assert_int_equal(air_sessions_open_count(s), 2);
  assert_int_equal(merges, 0);
  assert_int_equal(air_sessions_close(s, AIR_WM_END, on_close, &k), 2);
  check(&k.rows[0], 7, 0, 150, 4 + 8, 2);
  check(&k.rows[1], 7, 150, 300, 1 + 2, 2);
  free(k.rows);
  air_sessions_free(s);
}

/* An event between two sessions of a key joins them into one. */
static void test_session_bridge_merges(void **state) {
  (void)state;
  AirSessions *s = air_sessions_new(sizeof(int64_t), sizeof(Acc), GAP, acc_merge);
  Sink k = {0};
  bool is_new;
  merges = 0;
  event(s, 3, -500, AIR_WM_NONE, 100, NULL); /* [-500,-400), untouched */
  event(s, 3, 0, AIR_WM_NONE, 1, NULL);      /* [0,100) */
  event(s, 3, 180, AIR_WM_NONE, 2, NULL);    /* [180,280) */
  event(s, 3, 1000, AIR_WM_NONE, 200, NULL); /* [1000,1100), untouched */
  assert_int_equal(air_sessions_open_count(s), 4);
  /* [90,190) overlaps [0,100) and [180,280): one session [0,280). */
  event(s, 3, 90, AIR_WM_NONE, 4, &is_new);
  assert_false(is_new);
  assert_int_equal(merges, 1);
  assert_int_equal(air_sessions_open_count(s), 3);
  /* The earlier session's accumulator was kept and extended. */
  assert_int_equal(air_sessions_close(s, 279, on_close, &k), 1);
  check(&k.rows[0], 3, -500, -400, 100, 1);
  /* The merged session closes once, at its new end. */
  assert_int_equal(air_sessions_close(s, 280, on_close, &k), 1);
  check(&k.rows[1], 3, 0, 280, 1 + 2 + 4, 3);
  assert_int_equal(air_sessions_close(s, AIR_WM_END, on_close, &k), 1);
  check(&k.rows[2], 3, 1000, 1100, 200, 1);
  assert_int_equal(k.n, 3);
  free(k.rows);
  air_sessions_free(s);
}

static void test_session_several_keys_close_order(void **state) {
  (void)state;
  AirSessions *s = air_sessions_new(sizeof(int64_t), sizeof(Acc), GAP, acc_merge);
  Sink k = {0};
  event(s, 3, 0, AIR_WM_NONE, 1, NULL);  /* key 3 [0,100) */
  event(s, 1, 0, AIR_WM_NONE, 2, NULL);  /* key 1 [0,100) */
  event(s, 2, 10, AIR_WM_NONE, 3, NULL); /* key 2 [10,110) */
  event(s, 1, 50, AIR_WM_NONE, 4, NULL); /* key 1 [0,150) */
  event(s, 5, 0, AIR_WM_NONE, 5, NULL);  /* key 5 [0,100) */
  event(s, 4, 0, AIR_WM_NONE, 6, NULL);  /* key 4 [0,100) */
  assert_int_equal(air_sessions_open_count(s), 5);
  /* By end, then key bytes: little-endian int64 keys 3,4,5 < 256 sort by
   * their first byte. */
  assert_int_equal(air_sessions_close(s, 110, on_close, &k), 4);
  check(&k.rows[0], 3, 0, 100, 1, 1);
  check(&k.rows[1], 4, 0, 100, 6, 1);
  check(&k.rows[2], 5, 0, 100, 5, 1);
  check(&k.rows[3], 2, 10, 110, 3, 1);
  assert_int_equal(air_sessions_close(s, 149, on_close, &k), 0);
  assert_int_equal(air_sessions_close(s, 150, on_close, &k), 1);
  check(&k.rows[4], 1, 0, 150, 6, 2);
  /* Key 3 again after its session closed: a fresh one. */
  bool is_new;
  event(s, 3, 200, 150, 9, &is_new);
  assert_true(is_new);
  assert_int_equal(air_sessions_close(s, AIR_WM_END, on_close, &k), 1);
  check(&k.rows[5], 3, 200, 300, 9, 1);
  free(k.rows);
  air_sessions_free(s);
}

static void test_session_late_events(void **state) {
  (void)state;
  AirSessions *s = air_sessions_new(sizeof(int64_t), sizeof(Acc), GAP, acc_merge);
  Sink k = {0};
  int64_t wm = 500;
  assert_false(event(s, 1, 350, wm, 1, NULL)); /* 450 <= 500 */
  assert_false(event(s, 1, 400, wm, 1, NULL)); /* 500 <= 500 */
  assert_int_equal(air_sessions_open_count(s), 0);
  assert_true(event(s, 1, 401, wm, 2, NULL)); /* [401,501) */
  assert_true(event(s, 2, 450, wm, 4, NULL)); /* [450,550) */
  /* Late on its own ([300,400) <= 500) and touching nothing: dropped. */
  assert_false(event(s, 2, 300, wm, 1, NULL));
  /* Late on its own, but [360,460) overlaps [450,550): it joins. */
  bool is_new;
  assert_true(event(s, 2, 360, wm, 8, &is_new));
  assert_false(is_new);
  assert_int_equal(air_sessions_open_count(s), 2);
  assert_int_equal(air_sessions_close(s, AIR_WM_END, on_close, &k), 2);
  check(&k.rows[0], 1, 401, 501, 2, 1);
  check(&k.rows[1], 2, 360, 550, 12, 2);
  free(k.rows);
  air_sessions_free(s);
}

/* The end of stream closes everything, even sessions whose end saturates. */
static void test_session_close_all_at_end(void **state) {
  (void)state;
  AirSessions *s = air_sessions_new(sizeof(int64_t), sizeof(Acc), GAP, acc_merge);
  Sink k = {0};
  event(s, 9, INT64_MAX - 10, AIR_WM_NONE, 1, NULL); /* [MAX-10, MAX) */
  event(s, 8, 0, AIR_WM_NONE, 2, NULL);
  event(s, 8, 5000, AIR_WM_NONE, 3, NULL);
  assert_int_equal(air_sessions_close(s, INT64_MAX - 1, on_close, &k), 2);
  assert_int_equal(air_sessions_close(s, INT64_MAX, on_close, &k), 1);
  check(&k.rows[0], 8, 0, 100, 2, 1);
  check(&k.rows[1], 8, 5000, 5100, 3, 1);
  check(&k.rows[2], 9, INT64_MAX - 10, INT64_MAX, 1, 1);
  assert_int_equal(air_sessions_open_count(s), 0);
  assert_int_equal(air_sessions_close(s, INT64_MAX, on_close, &k), 0);
  /* A NULL emit just drops them. */
  event(s, 8, 0, AIR_WM_NONE, 2, NULL);
  assert_int_equal(air_sessions_close(s, INT64_MAX, NULL, NULL), 1);
  free(k.rows);
  air_sessions_free(s);
}

/* Keys whose hashes collide (a third of them hash to 0): closing some must
 * leave the others findable. */
static void test_session_colliding_hashes(void **state) {
  (void)state;
  AirSessions *s = air_sessions_new(sizeof(int64_t), sizeof(Acc), GAP, acc_merge);
  Sink k = {0};
  for (int64_t key = 0; key < 200; key++) {
    bool is_new;
    Acc *a = air_sessions_acc(s, &key, (uint64_t)key % 3, key * 10, AIR_WM_NONE,
                              &is_new);
    assert_true(is_new);
    a->count = 1; /* [key*10, key*10+100) */
  }
  /* Ends <= 1000: keys 0..90. */
  assert_int_equal(air_sessions_close(s, 1000, on_close, &k), 91);
  for (int64_t key = 0; key <= 90; key++)
    check(&k.rows[key], key, key * 10, key * 10 + 100, 0, 1);
  for (int64_t key = 91; key < 200; key++) {
    bool is_new;
    Acc *a = air_sessions_acc(s, &key, (uint64_t)key % 3, key * 10 + 50, 1000,
                              &is_new);
    assert_non_null(a);
    assert_false(is_new);
    a->count++; /* [key*10, key*10+150) */
  }
  assert_int_equal(air_sessions_open_count(s), 109);
  assert_int_equal(air_sessions_close(s, AIR_WM_END, on_close, &k), 109);
  for (int64_t key = 91; key < 200; key++)
    check(&k.rows[key], key, key * 10, key * 10 + 150, 0, 2);
  free(k.rows);
  air_sessions_free(s);
}

/* ---- against a naive reference ------------------------------------------ */

typedef struct RefSes {
  int64_t key, start, end, sum, count;
  bool open;
} RefSes;

static int closed_cmp(const void *pa, const void *pb) {
  const Closed *a = pa, *b = pb;
  if (a->end != b->end) return a->end < b->end ? -1 : 1;
  int c = memcmp(&a->key, &b->key, sizeof a->key);
  if (c) return c;
  return a->start < b->start ? -1 : a->start > b->start;
}

/* The rule of air.h applied literally over a flat list of sessions. */
static bool ref_event(RefSes *r, size_t *nr, int64_t key, int64_t ts,
                      int64_t wm, int64_t v) {
  int64_t start = ts, end = ts + GAP, sum = v, count = 1;
  bool any = false;
  for (size_t i = 0; i < *nr; i++) {
    RefSes *x = &r[i];
    if (!x->open || x->key != key || !(x->start < ts + GAP && ts < x->end))
      continue;
    any = true;
    if (x->start < start) start = x->start;
    if (x->end > end) end = x->end;
    sum += x->sum;
    count += x->count;
    x->open = false;
  }
  if (!any && ts + GAP <= wm) return false;
  r[(*nr)++] = (RefSes){key, start, end, sum, count, true};
  return true;
}

static size_t ref_close(RefSes *r, size_t nr, int64_t wm, Sink *k) {
  size_t first = k->n;
  for (size_t i = 0; i < nr; i++) {
    if (!r[i].open || r[i].end > wm) continue;
    r[i].open = false;
    Acc a = {r[i].sum, r[i].count};
    on_close(&r[i].key, r[i].start, r[i].end, &a, k);
  }
  if (k->n > first)
    qsort(k->rows + first, k->n - first, sizeof *k->rows, closed_cmp);
  return k->n - first;
}

static void test_session_matches_reference(void **state) {
  (void)state;
  enum { EVENTS = 4000 };
  RefSes *ref = calloc(EVENTS, sizeof *ref);
  size_t nref = 0;
  Sink got = {0}, want = {0};
  AirSessions *s = air_sessions_new(sizeof(int64_t), sizeof(Acc), GAP, acc_merge);
  uint64_t rng = 12345;
  merges = 0;
  int64_t wm = AIR_WM_NONE;
  for (int i = 0; i < EVENTS; i++) {
    rng = air_mix64(rng);
    int64_t key = (int64_t)(rng % 13) - 6;
    /* Time advances ~10 ms per event with up to 400 ms of disorder. */
    int64_t ts = i * 10 - (int64_t)((rng >> 20) % 400);
    int64_t v = (int64_t)((rng >> 40) % 1000);
    bool late_ref = !ref_event(ref, &nref, key, ts, wm, v);
    bool late = !event(s, key, ts, wm, v, NULL);
    assert_int_equal(late, late_ref);
    if (i % 7 == 0) {
      wm = i * 10 - 300;
      size_t n = air_sessions_close(s, wm, on_close, &got);
      assert_int_equal(n, ref_close(ref, nref, wm, &want));
    }
  }
  air_sessions_close(s, AIR_WM_END, on_close, &got);
  ref_close(ref, nref, AIR_WM_END, &want);
  assert_int_equal(got.n, want.n);
  assert_true(got.n > 100);
  assert_true(merges > 0); /* the disorder bridged some sessions */
  for (size_t i = 0; i < got.n; i++)
    check(&got.rows[i], want.rows[i].key, want.rows[i].start, want.rows[i].end,
          want.rows[i].sum, want.rows[i].count);
  free(got.rows);
  free(want.rows);
  free(ref);
  air_sessions_free(s);
}

/* 1e5 keys, three rounds of fresh keys (the last two trigger table
 * rebuilds), all in well under a second. */
static void test_session_many_keys(void **state) {
  (void)state;
  enum { KEYS = 100000, ROUNDS = 3 };
  clock_t t0 = clock();
  AirSessions *s = air_sessions_new(sizeof(int64_t), sizeof(Acc), GAP, acc_merge);
  Sink k = {0};
  for (int r = 0; r < ROUNDS; r++) {
    int64_t base = r * 10000;
    for (int64_t i = 0; i < KEYS; i++) {
      int64_t key = r * KEYS + i;
      int64_t ts = base + i % 1000;
      event(s, key, ts, base - 1, 1, NULL);      /* [ts, ts+100) */
      event(s, key, ts + 60, base - 1, 2, NULL); /* [ts, ts+160) */
    }
    assert_int_equal(air_sessions_open_count(s), KEYS);
    /* Ends run from base+160 to base+1159. */
    size_t first = k.n;
    assert_int_equal(air_sessions_close(s, base + 659, on_close, &k), KEYS / 2);
    assert_int_equal(air_sessions_close(s, base + 5000, on_close, &k), KEYS / 2);
    assert_int_equal(k.n - first, KEYS);
    for (size_t j = first; j < k.n; j++) {
      assert_int_equal(k.rows[j].sum, 3);
      assert_int_equal(k.rows[j].end - k.rows[j].start, 160);
      if (j > first) {
        /* ascending end, equal ends in ascending key bytes */
        assert_true(k.rows[j - 1].end <= k.rows[j].end);
        if (k.rows[j - 1].end == k.rows[j].end)
          assert_true(memcmp(&k.rows[j - 1].key, &k.rows[j].key, 8) < 0);
      }
    }
  }
  double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
  assert_true(secs < 5.0);
  free(k.rows);
  air_sessions_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_session_in_order),
      cmocka_unit_test(test_session_out_of_order),
      cmocka_unit_test(test_session_bridge_merges),
      cmocka_unit_test(test_session_several_keys_close_order),
      cmocka_unit_test(test_session_late_events),
      cmocka_unit_test(test_session_close_all_at_end),
      cmocka_unit_test(test_session_colliding_hashes),
      cmocka_unit_test(test_session_matches_reference),
      cmocka_unit_test(test_session_many_keys),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

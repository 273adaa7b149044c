/* session.c - the open session windows of one session-windowed operator.
 *
 * A key usually has one open session, rarely a few, so a key's entry in a
 * table holds one session inline and moves to an array (sorted by start;
 * they are disjoint, so also by end) only while it has several. With 1e5+
 * keys every table access is a cache miss; the inline session saves one
 * more per event and per close, and a malloc per session.
 *
 * Closing must be cheap with 1e5-1e6 keys and a watermark that moves every
 * few milliseconds, and must emit in order of (end, key). Sessions are filed
 * in a calendar: one bucket per distinct end (a table end -> bucket, and a
 * min-heap of the ends, which are few: they span about gap + disorder), each
 * bucket an append-only array sorted by key only when it closes. A binary
 * heap over all sessions did the same job several times slower: its sift
 * paths miss the cache on every level.
 *
 * The calendar is lazy: extending or merging a session does not refile it.
 * An entry sits in the bucket of the end its session had when filed; ends
 * only grow, so an entry never comes up after its session's true place.
 * When a bucket closes, an entry whose session has since grown is refiled
 * under its current end, and one whose session is gone (merged away) is
 * dropped. Sessions are named by a unique id because their start moves (an
 * out-of-order event can extend a session backwards).
 *
 * Keys come and go all the time (a user's session closes, a new one opens
 * later), so the tables here delete, unlike AirHash: open addressing with
 * linear probing and backward-shift deletion, so memory follows the open
 * sessions and no tombstones pile up.
 */
#include "air.h"

#include <stdlib.h>
#include <string.h>

#define SES_KEYS_CAP 1024 /* keys the table holds before it first grows */
#define SES_ENDS_CAP 1024 /* distinct ends the calendar holds before growing */

static size_t round8(size_t n) { return (n + 7) & ~(size_t)7; }

/* ---- a table with deletion ----------------------------------------------- */

/* A slot: the hash (0 = empty, so a hash of 0 is stored as 1), the key, the
 * value, each 8-byte aligned. The hash also picks the home slot. */
typedef struct Table {
  unsigned char *slots; /* cap slots of slot_size bytes */
  size_t cap;           /* slots, a power of two */
  size_t count;         /* occupied slots */
  size_t key_size;      /* bytes per key */
  size_t val_size;      /* bytes per value */
  size_t val_off;       /* value offset in a slot */
  size_t slot_size;     /* bytes per slot */
} Table;

#define T_HASH(t, i) (*(uint64_t *)((t)->slots + (i) * (t)->slot_size))
#define T_KEY(t, i) ((t)->slots + (i) * (t)->slot_size + 8)
#define T_VAL(t, i) ((t)->slots + (i) * (t)->slot_size + (t)->val_off)

static uint64_t stored_hash(uint64_t hash) { return hash ? hash : 1; }

static unsigned char *table_alloc(size_t cap, size_t slot_size) {
  if (cap > SIZE_MAX / slot_size) air_oom("session table");
  air_memory_check(cap * slot_size, "a session table");
  unsigned char *p = calloc(cap, slot_size);
  if (!p) air_oom("session table");
  return p;
}

static void table_init(Table *t, size_t key_size, size_t val_size,
                       size_t entries) {
  t->key_size = key_size;
  t->val_size = val_size;
  t->val_off = 8 + round8(key_size);
  t->slot_size = t->val_off + round8(val_size);
  t->cap = 16;
  while (t->cap / 4 * 3 < entries) t->cap *= 2;
  t->count = 0;
  t->slots = table_alloc(t->cap, t->slot_size);
}

static void *table_find(const Table *t, const void *key, uint64_t hash) {
  uint64_t sh = stored_hash(hash);
  size_t mask = t->cap - 1;
  for (size_t i = sh & mask;; i = (i + 1) & mask) {
    uint64_t h = T_HASH(t, i);
    if (h == 0) return NULL;
    if (h == sh && memcmp(T_KEY(t, i), key, t->key_size) == 0)
      return T_VAL(t, i);
  }
}

static void table_grow(Table *t) {
  unsigned char *old = t->slots;
  size_t old_cap = t->cap;
  if (old_cap > SIZE_MAX / 2) air_oom("session table");
  t->cap = old_cap * 2;
  t->slots = table_alloc(t->cap, t->slot_size);
  size_t mask = t->cap - 1;
  for (size_t j = 0; j < old_cap; j++) {
    unsigned char *src = old + j * t->slot_size;
    uint64_t h;
    memcpy(&h, src, 8);
    if (h == 0) continue;
    size_t i = h & mask;
    while (T_HASH(t, i) != 0) i = (i + 1) & mask;
    memcpy(t->slots + i * t->slot_size, src, t->slot_size);
  }
  free(old);
}

/* Insert key, known to be absent; its value starts zeroed. The pointer
 * stays valid until the next insert or delete. */
static void *table_insert(Table *t, const void *key, uint64_t hash) {
  if (t->count + 1 > t->cap / 4 * 3) table_grow(t);
  uint64_t sh = stored_hash(hash);
  size_t mask = t->cap - 1, i = sh & mask;
  while (T_HASH(t, i) != 0) i = (i + 1) & mask;
  T_HASH(t, i) = sh;
  memcpy(T_KEY(t, i), key, t->key_size);
  t->count++;
  return T_VAL(t, i);
}

/* Delete the entry whose value is val. Later entries of its probe run move
 * back into the hole, so lookups never need tombstones. */
static void table_delete(Table *t, void *val) {
  size_t mask = t->cap - 1;
  size_t hole = (size_t)((unsigned char *)val - t->val_off - t->slots) /
                t->slot_size;
  for (size_t j = (hole + 1) & mask;; j = (j + 1) & mask) {
    uint64_t h = T_HASH(t, j);
    if (h == 0) break;
    /* j may fill the hole unless its home lies cyclically in (hole, j]. */
    size_t home = h & mask;
    if (((j - home) & mask) >= ((j - hole) & mask)) {
      memcpy(t->slots + hole * t->slot_size, t->slots + j * t->slot_size,
             t->slot_size);
      hole = j;
    }
  }
  memset(t->slots + hole * t->slot_size, 0, t->slot_size);
  t->count--;
}

/* ---- sessions ------------------------------------------------------------ */

/* One open session; its accumulator follows (acc_size rounded to 8). */
typedef struct Session {
  int64_t start; /* first event time, ms */
  int64_t end;   /* last event time + gap, ms (exclusive) */
  uint64_t id;   /* unique per AirSessions, names it in the calendar */
} Session;

/* The value of a key in the table; one inline Session (sess_size bytes)
 * follows. The sessions are in `more` while cap > 0, which is while there
 * are two or more; otherwise inline. A key in the table has n >= 1. */
typedef struct KeySessions {
  unsigned char *more; /* cap sessions of sess_size bytes, or NULL */
  uint32_t n;          /* open sessions, sorted by start */
  uint32_t cap;        /* allocated sessions of more */
} KeySessions;

/* A calendar entry: the key (key_size rounded to 8), then this tail. */
typedef struct EntryTail {
  uint64_t id;   /* the session */
  uint64_t hash; /* the key's hash as the caller gave it, to find it again */
} EntryTail;

/* The value of an end in the calendar: the entries filed under it. One
 * entry follows inline (entry_size bytes), and a bucket moves to `entries`
 * only when it gets a second: with millisecond event times nearly every
 * session has an end of its own, and a malloc per end (room for 8) was a
 * quarter of a million sessions' run and 256 bytes per session. */
typedef struct Bucket {
  unsigned char *entries; /* cap entries of entry_size bytes, unordered, or NULL */
  uint32_t n;             /* used entries */
  uint32_t cap;           /* allocated entries of `entries`; 0: the one entry is inline */
} Bucket;

struct AirSessions {
  size_t key_size;     /* bytes per group key */
  size_t acc_size;     /* bytes per accumulator */
  size_t sess_size;    /* bytes per Session with its accumulator */
  size_t entry_size;   /* bytes per calendar entry */
  int64_t gap_ms;      /* session gap, ms */
  AirAccMergeFn merge; /* folds one accumulator into another */
  Table keys;          /* key -> KeySessions with an inline Session */
  size_t open;         /* open sessions over all keys */
  uint64_t next_id;    /* id of the next new session */
  Table ends;          /* end (int64_t) -> Bucket */
  unsigned char *scratch; /* a closing bucket's inline entry, out of the table */
  int64_t *heap;       /* the ends in the calendar, a min-heap */
  size_t nheap;        /* used entries of heap */
  size_t heap_cap;     /* allocated entries of heap */
};

#define SESS_BASE(ks) \
  ((ks)->cap ? (ks)->more : (unsigned char *)(ks) + sizeof(KeySessions))
#define SESS_AT(s, ks, i) \
  ((Session *)(SESS_BASE(ks) + (size_t)(i) * (s)->sess_size))
#define SESS_ACC(sp) ((void *)((unsigned char *)(sp) + sizeof(Session)))
#define ENTRY_AT(s, b, i) \
  ((b)->cap ? (b)->entries + (size_t)(i) * (s)->entry_size : (unsigned char *)(b) + sizeof(Bucket))

/* Owned by the caller; free with air_sessions_free. */
AirSessions *air_sessions_new(size_t key_size, size_t acc_size, int64_t gap_ms,
                              AirAccMergeFn merge) {
  AirSessions *s = calloc(1, sizeof *s);
  if (!s) air_oom("session state");
  s->key_size = key_size;
  s->acc_size = acc_size;
  s->sess_size = sizeof(Session) + round8(acc_size);
  s->entry_size = round8(key_size) + sizeof(EntryTail);
  s->gap_ms = gap_ms;
  s->merge = merge;
  table_init(&s->keys, key_size, sizeof(KeySessions) + s->sess_size,
             SES_KEYS_CAP);
  table_init(&s->ends, sizeof(int64_t), sizeof(Bucket) + s->entry_size, SES_ENDS_CAP);
  s->scratch = malloc(s->entry_size);
  if (!s->scratch) air_oom("session calendar");
  s->heap_cap = SES_ENDS_CAP;
  s->heap = malloc(s->heap_cap * sizeof *s->heap);
  if (!s->heap) air_oom("session calendar");
  return s;
}

void air_sessions_free(AirSessions *s) {
  if (!s) return;
  for (size_t i = 0; i < s->keys.cap; i++)
    if (T_HASH(&s->keys, i)) free(((KeySessions *)T_VAL(&s->keys, i))->more);
  for (size_t i = 0; i < s->ends.cap; i++)
    if (T_HASH(&s->ends, i)) free(((Bucket *)T_VAL(&s->ends, i))->entries);
  free(s->keys.slots);
  free(s->ends.slots);
  free(s->heap);
  free(s->scratch);
  free(s);
}

size_t air_sessions_open_count(const AirSessions *s) { return s->open; }

/* ---- the calendar -------------------------------------------------------- */

static void heap_push(AirSessions *s, int64_t end) {
  if (s->nheap == s->heap_cap) {
    if (s->heap_cap > SIZE_MAX / 2 / sizeof *s->heap)
      air_oom("session calendar");
    int64_t *h = realloc(s->heap, s->heap_cap * 2 * sizeof *h);
    if (!h) air_oom("session calendar");
    s->heap = h;
    s->heap_cap *= 2;
  }
  size_t i = s->nheap++;
  while (i > 0 && s->heap[(i - 1) / 2] > end) {
    s->heap[i] = s->heap[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  s->heap[i] = end;
}

static int64_t heap_pop(AirSessions *s) {
  int64_t top = s->heap[0];
  int64_t last = s->heap[--s->nheap];
  size_t i = 0, n = s->nheap;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= n) break;
    if (c + 1 < n && s->heap[c + 1] < s->heap[c]) c++;
    if (s->heap[c] >= last) break;
    s->heap[i] = s->heap[c];
    i = c;
  }
  if (n > 0) s->heap[i] = last;
  return top;
}

static uint64_t end_hash(int64_t end) { return air_hash_u64((uint64_t)end); }

/* File session id of key under end. */
static void calendar_add(AirSessions *s, const void *key, uint64_t hash,
                         int64_t end, uint64_t id) {
  Bucket *b = table_find(&s->ends, &end, end_hash(end));
  if (!b) {
    b = table_insert(&s->ends, &end, end_hash(end));
    heap_push(s, end);
  }
  if (b->n >= (b->cap ? b->cap : 1)) { /* full: the inline one, or the array */
    uint32_t cap = b->cap ? b->cap * 2 : 4;
    if (cap < b->cap) air_oom("session calendar");
    unsigned char *p = realloc(b->entries, (size_t)cap * s->entry_size);
    if (!p) air_oom("session calendar");
    if (b->cap == 0) /* the inline entry moves out */
      memcpy(p, (unsigned char *)b + sizeof(Bucket), s->entry_size);
    b->entries = p;
    b->cap = cap;
  }
  unsigned char *e = ENTRY_AT(s, b, b->n);
  b->n++;
  memcpy(e, key, s->key_size);
  memset(e + s->key_size, 0, round8(s->key_size) - s->key_size);
  EntryTail tail = {id, hash};
  memcpy(e + round8(s->key_size), &tail, sizeof tail);
}

static EntryTail entry_tail(const AirSessions *s, const unsigned char *e) {
  EntryTail tail;
  memcpy(&tail, e + round8(s->key_size), sizeof tail);
  return tail;
}

/* Entries of one bucket in key order; the id orders a live session after a
 * stale entry of the same key, which is harmless either way. */
static int entry_cmp(const void *a, const void *b, void *arg) {
  const AirSessions *s = arg;
  int c = memcmp(a, b, s->key_size);
  if (c != 0) return c;
  uint64_t ia = entry_tail(s, a).id, ib = entry_tail(s, b).id;
  return ia < ib ? -1 : ia > ib;
}

/* ---- events -------------------------------------------------------------- */

static int64_t add_sat(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return b > 0 ? INT64_MAX : INT64_MIN;
  return r;
}

/* Room for one more session in ks (n >= 1). */
static void key_reserve(AirSessions *s, KeySessions *ks) {
  if (ks->n < ks->cap) return;
  uint32_t cap = ks->cap ? ks->cap * 2 : 4;
  if (cap < ks->cap) air_oom("session window");
  unsigned char *p = realloc(ks->more, (size_t)cap * s->sess_size);
  if (!p) air_oom("session window");
  if (ks->cap == 0) /* the one inline session moves out */
    memcpy(p, (unsigned char *)ks + sizeof(KeySessions), s->sess_size);
  ks->more = p;
  ks->cap = cap;
}

/* Remove count sessions of ks from index i; back inline when one is left.
 * The caller deletes the key when none is. */
static void key_remove(AirSessions *s, KeySessions *ks, uint32_t i,
                       uint32_t count) {
  memmove(SESS_AT(s, ks, i), SESS_AT(s, ks, i + count),
          (size_t)(ks->n - i - count) * s->sess_size);
  ks->n -= count;
  s->open -= count;
  if (ks->cap > 0 && ks->n <= 1) {
    if (ks->n == 1)
      memcpy((unsigned char *)ks + sizeof(KeySessions), ks->more, s->sess_size);
    free(ks->more);
    ks->more = NULL;
    ks->cap = 0;
  }
}

/* The accumulator of the session (key, ts) belongs to, valid until the next
 * call on s. NULL when the event is late (see air.h). */
void *air_sessions_acc(AirSessions *s, const void *key, uint64_t hash,
                       int64_t ts, int64_t wm, bool *is_new) {
  int64_t ev_end = add_sat(ts, s->gap_ms);
  KeySessions *ks = table_find(&s->keys, key, hash);
  uint32_t lo = 0, hi = 0;
  if (ks) {
    /* The overlapping sessions are contiguous: from the first that ends
     * after ts up to, excluding, the first that starts at or after ev_end. */
    uint32_t a = 0, b = ks->n;
    while (a < b) {
      uint32_t mid = a + (b - a) / 2;
      if (SESS_AT(s, ks, mid)->end <= ts) a = mid + 1;
      else b = mid;
    }
    lo = hi = a;
    while (hi < ks->n && SESS_AT(s, ks, hi)->start < ev_end) hi++;
  }

  if (lo < hi) {
    Session *keep = SESS_AT(s, ks, lo);
    Session *last = SESS_AT(s, ks, hi - 1);
    int64_t end = last->end > ev_end ? last->end : ev_end;
    for (uint32_t j = lo + 1; j < hi; j++)
      s->merge(SESS_ACC(keep), SESS_ACC(SESS_AT(s, ks, j)));
    if (ts < keep->start) keep->start = ts;
    keep->end = end;
    /* The merged-away sessions' entries go stale: their ids vanish. */
    if (hi - lo > 1) {
      key_remove(s, ks, lo + 1, hi - lo - 1);
      keep = SESS_AT(s, ks, lo); /* it may have moved back inline */
    }
    if (is_new) *is_new = false;
    return SESS_ACC(keep);
  }

  if (ev_end <= wm) return NULL;
  if (ks) {
    key_reserve(s, ks);
    memmove(SESS_AT(s, ks, lo + 1), SESS_AT(s, ks, lo),
            (size_t)(ks->n - lo) * s->sess_size);
  } else {
    ks = table_insert(&s->keys, key, hash);
  }
  ks->n++;
  Session *ns = SESS_AT(s, ks, lo);
  ns->start = ts;
  ns->end = ev_end;
  ns->id = s->next_id++;
  memset(SESS_ACC(ns), 0, s->acc_size);
  s->open++;
  calendar_add(s, key, hash, ev_end, ns->id);
  if (is_new) *is_new = true;
  return SESS_ACC(ns);
}

/* ---- closing ------------------------------------------------------------- */

/* Settle one calendar entry of bucket end: emit and remove its session, or
 * refile it if it grew, or drop the entry if its session is gone. */
static bool close_entry(AirSessions *s, const unsigned char *e, int64_t end,
                        AirSessionEmitFn emit, void *ctx) {
  EntryTail tail = entry_tail(s, e);
  KeySessions *ks = table_find(&s->keys, e, tail.hash);
  if (!ks) return false;
  uint32_t i = 0;
  while (i < ks->n && SESS_AT(s, ks, i)->id != tail.id) i++;
  if (i == ks->n) return false; /* merged away */
  Session *ses = SESS_AT(s, ks, i);
  if (ses->end != end) {
    calendar_add(s, e, tail.hash, ses->end, tail.id);
    return false;
  }
  if (emit) emit(e, ses->start, ses->end, SESS_ACC(ses), ctx);
  key_remove(s, ks, i, 1);
  if (ks->n == 0) table_delete(&s->keys, ks);
  return true;
}

/* Close sessions with end <= wm in order of (end, key), calling emit for
 * each; key and acc are valid during the call only, and emit must not call
 * back into s. Returns how many closed. */
size_t air_sessions_close(AirSessions *s, int64_t wm, AirSessionEmitFn emit,
                          void *ctx) {
  size_t closed = 0;
  while (s->nheap > 0 && s->heap[0] <= wm) {
    int64_t end = heap_pop(s);
    /* Take the bucket out first: refiling inserts into the same table. */
    Bucket *b = table_find(&s->ends, &end, end_hash(end));
    Bucket taken = *b;
    if (taken.cap == 0) { /* its one entry is in the table: keep a copy */
      memcpy(s->scratch, (unsigned char *)b + sizeof(Bucket), s->entry_size);
      taken.entries = s->scratch;
      taken.cap = 1;
    }
    table_delete(&s->ends, b);
    qsort_r(taken.entries, taken.n, s->entry_size, entry_cmp, s);
    for (uint32_t i = 0; i < taken.n; i++)
      closed += close_entry(s, ENTRY_AT(s, &taken, i), end, emit, ctx);
    if (taken.entries != s->scratch) free(taken.entries);
  }
  return closed;
}

/* ---- checkpoints: per key its open sessions; the calendar is refiled ---- */

void air_sessions_save(AirCkptW *w, const AirSessions *s) {
  air_ckpt_put_i64(w, (int64_t)s->keys.count);
  for (size_t i = 0; i < s->keys.cap; i++) {
    uint64_t h = T_HASH(&s->keys, i);
    if (!h) continue;
    KeySessions *ks = (KeySessions *)T_VAL(&s->keys, i);
    air_ckpt_put(w, &h, sizeof h);
    air_ckpt_put(w, T_KEY(&s->keys, i), s->key_size);
    air_ckpt_put_i64(w, ks->n);
    for (uint32_t j = 0; j < ks->n; j++) {
      Session *ses = SESS_AT(s, ks, j);
      air_ckpt_put_i64(w, ses->start);
      air_ckpt_put_i64(w, ses->end);
      air_ckpt_put(w, SESS_ACC(ses), s->acc_size);
    }
  }
}

void air_sessions_load(AirCkptR *r, AirSessions *s, AirCkptRouteFn route) {
  int64_t nkeys = air_ckpt_get_i64(r);
  unsigned char *key = malloc(s->key_size ? s->key_size : 1), *acc = malloc(s->acc_size ? s->acc_size : 1);
  if (!key || !acc) air_oom("session state");
  for (int64_t i = 0; i < nkeys; i++) {
    uint64_t h;
    air_ckpt_get(r, &h, sizeof h);
    air_ckpt_get(r, key, s->key_size);
    int64_t n = air_ckpt_get_i64(r);
    bool keep = !route || air_ckpt_keeps(r, route(key));
    if (n < 1 || (keep && table_find(&s->keys, key, h))) air_fatal(NULL, "checkpoint: a session key is there twice");
    KeySessions *ks = keep ? table_insert(&s->keys, key, h) : NULL;
    for (int64_t j = 0; j < n; j++) {
      int64_t start = air_ckpt_get_i64(r), end = air_ckpt_get_i64(r);
      air_ckpt_get(r, acc, s->acc_size);
      if (!keep) continue; /* another rank's key now */
      if (j > 0) key_reserve(s, ks);
      ks->n++;
      Session *ses = SESS_AT(s, ks, j);
      ses->start = start;
      ses->end = end;
      ses->id = s->next_id++;
      memcpy(SESS_ACC(ses), acc, s->acc_size);
      s->open++;
      calendar_add(s, key, h, ses->end, ses->id);
    }
  }
  free(key);
  free(acc);
}

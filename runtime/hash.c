/* hash.c - the byte hash and the open-addressing table behind group-by state.
 *
 * air_hash_find/air_hash_upsert run once per event, so the table is one flat
 * array of slots {stored hash, key, value} probed linearly: a lookup touches
 * one or two cache lines, compares the stored hash before the key, and never
 * allocates. There is no deletion (windows drop whole tables), which keeps
 * linear probing free of tombstones.
 */
#include "air.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* ---- air_hash_bytes ----------------------------------------------------
 * Sixteen bytes per step: two words, each xored with a constant, multiplied
 * 64x64->128 and the halves xored ("multiply-mix"), so every input bit
 * reaches every output bit of the step and one multiply covers 16 bytes.
 * The running state enters one factor, so word order matters. The last 1..16
 * bytes are read as two possibly overlapping words (cheaper than a byte
 * loop); that is unambiguous because the length is folded in at the start
 * and the end. air_mix64 finishes the avalanche. */

#define HASH_K0 0xA0761D6478BD642FULL
#define HASH_K1 0xE7037ED1A0B428DBULL
#define HASH_K2 0x8EBC6AF09C88C6E3ULL

static inline uint64_t mulmix(uint64_t a, uint64_t b) {
  unsigned __int128 p = (unsigned __int128)a * b;
  return (uint64_t)p ^ (uint64_t)(p >> 64);
}

static inline uint64_t read64(const unsigned char *p) {
  uint64_t v;
  memcpy(&v, p, 8); /* unaligned-safe; one mov on x86 */
  return v;
}

static inline uint64_t read32(const unsigned char *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}

uint64_t air_hash_bytes(const void *data, size_t len) {
  const unsigned char *p = data;
  size_t n = len;
  uint64_t h = HASH_K0 ^ ((uint64_t)len * HASH_K1);
  while (n > 16) {
    h = mulmix(read64(p) ^ HASH_K1 ^ h, read64(p + 8) ^ HASH_K2);
    p += 16;
    n -= 16;
  }
  uint64_t a = 0, b = 0;
  if (n > 8) {
    a = read64(p);
    b = read64(p + n - 8);
  } else if (n >= 4) {
    a = read32(p);
    b = read32(p + n - 4);
  } else if (n > 0) {
    a = (uint64_t)p[0] << 16 | (uint64_t)p[n >> 1] << 8 | p[n - 1];
  }
  h = mulmix(a ^ HASH_K1 ^ h, b ^ HASH_K2 ^ (uint64_t)len);
  return air_mix64(h);
}

/* ---- the table ----------------------------------------------------------
 *
 * Two slot layouts. A table of 8-byte keys (a BIGINT group key, the
 * commonest) stores {key, value}: the key is one load to compare, so a
 * stored hash would only cost 8 bytes a slot (a BIGINT key with SUM and
 * COUNT and the latest event time: 32 bytes a slot instead of 40). Key 0
 * marks an empty slot, and a real key 0 lives beside the array (zero_val).
 * A slot's home comes from the key alone (mix64 of its bits), so growing
 * needs no hash from the caller. Other tables store {hash, key, value}; a
 * stored hash of 0 marks an empty slot. */

/* Keys compare equal. An 8-byte key (a BIGINT group key) is one load and
 * compare instead of a call to memcmp: perf showed memcmp at 12% of SWA. */
static inline bool key_eq(const void *a, const void *b, size_t n) {
  if (n == 8) {
    uint64_t x, y;
    memcpy(&x, a, 8);
    memcpy(&y, b, 8);
    return x == y;
  }
  return memcmp(a, b, n) == 0;
}

struct AirHash {
  unsigned char *slots; /* cap slots of slot_size bytes */
  size_t cap;           /* slots, a power of two */
  size_t mask;          /* cap - 1 */
  uint64_t mul;         /* this table's odd multiplier: a key's first slot is */
  unsigned shift;       /* (hash * mul) >> shift, the top log2(cap) bits */
  size_t count;         /* occupied slots (and the zero key) */
  size_t grow_at;       /* count that triggers doubling (75% of cap) */
  size_t key_size;      /* bytes per key */
  size_t val_size;      /* bytes per value */
  size_t key_off;       /* key offset in a slot: 0 (key8) or 8 */
  size_t val_off;       /* value offset in a slot (8-byte aligned) */
  size_t slot_size;     /* bytes per slot (multiple of 8) */
  bool key8;            /* the {key, value} layout of 8-byte keys */
  bool mapped;          /* slots come from mmap (a big table), not calloc */
  bool has_zero;        /* key8: key 0 is present, its value in zero_val */
  bool sorted;          /* air_hash_sort ran: the first count slots in order */
  unsigned char *zero_val; /* key8: the value of key 0 (val_size bytes) */
};

#define SLOT(h, i) ((h)->slots + (i) * (h)->slot_size)
#define SLOT_HASH(h, i) (*(uint64_t *)SLOT(h, i))
#define SLOT_KEY(h, i) (SLOT(h, i) + (h)->key_off)
#define SLOT_VAL(h, i) (SLOT(h, i) + (h)->val_off)

static inline uint64_t stored_hash(uint64_t hash) { return hash ? hash : 1; }
static inline uint64_t load_key8(const void *key) {
  uint64_t k;
  memcpy(&k, key, 8);
  return k;
}

static size_t round8(size_t n) { return (n + 7) & ~(size_t)7; }

static _Noreturn void out_of_memory(size_t entries) {
  char what[64];
  snprintf(what, sizeof what, "hash table of %zu entries", entries);
  air_oom(what);
}

/* Tables of 4 MiB and more are mapped and asked for transparent huge
 * pages: a 10M-key table is 512 MiB, which in 4 KiB pages is 131k page
 * faults as it fills (perf put a quarter of the big-state run in faults);
 * in 2 MiB pages 256. The pages come zeroed either way. */
#define HASH_MAP_BYTES ((size_t)4 << 20)

/* Bytes of slots held by every table of the process now, and at most
 * (--stats-json state_bytes_peak); the most between doublings
 * (state_bytes_settled: a doubling holds the old slots and the new, half
 * as many again, for as long as it moves the entries). */
static _Atomic int64_t slot_bytes, slot_bytes_peak, slot_bytes_settled;

int64_t air_hash_peak_bytes(bool settled) {
  return atomic_load_explicit(settled ? &slot_bytes_settled : &slot_bytes_peak, memory_order_relaxed);
}

static void raise_to(_Atomic int64_t *peak, int64_t now) {
  int64_t p = atomic_load_explicit(peak, memory_order_relaxed);
  while (now > p && !atomic_compare_exchange_weak_explicit(peak, &p, now, memory_order_relaxed, memory_order_relaxed)) {
  }
}

static void count_bytes(int64_t d) {
  raise_to(&slot_bytes_peak, atomic_fetch_add_explicit(&slot_bytes, d, memory_order_relaxed) + d);
}

static void count_settled(void) {
  raise_to(&slot_bytes_settled, atomic_load_explicit(&slot_bytes, memory_order_relaxed));
}

static unsigned char *alloc_slots(size_t cap, size_t slot_size, bool *mapped) {
  if (cap > SIZE_MAX / slot_size) out_of_memory(cap);
  size_t bytes = cap * slot_size;
  count_bytes((int64_t)bytes);
  air_memory_check(bytes, "a hash table (group keys, table rows)");
  *mapped = bytes >= HASH_MAP_BYTES;
  if (*mapped) {
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) out_of_memory(cap);
#ifdef MADV_HUGEPAGE
    madvise(p, bytes, MADV_HUGEPAGE); /* advice only: without it, 4 KiB pages */
#endif
    return p;
  }
  unsigned char *s = calloc(cap, slot_size);
  if (!s) out_of_memory(cap);
  return s;
}

static void free_slots(unsigned char *s, size_t cap, size_t slot_size, bool mapped) {
  count_bytes(-(int64_t)(cap * slot_size));
  if (mapped) munmap(s, cap * slot_size);
  else free(s);
}

static void set_cap(AirHash *h, size_t cap) {
  h->cap = cap;
  h->mask = cap - 1;
  h->grow_at = cap / 4 * 3;
  unsigned bits = 0;
  while (((size_t)1 << bits) < cap) bits++;
  h->shift = 64 - bits;
}

/* Where a key's probe starts. Each table takes its slot from its own mix of
 * the hash: with one rule for all (hash & mask), the rows of one table read
 * in slot order (a window's partials, sent when it closes) arrive at another
 * sorted by the very bits that place them, and once the receiving table is
 * smaller than the range they came from (it grows as they arrive) every
 * insert lands in one ever longer run of full slots: quadratic. 10M keys in
 * one window spent 93% of the run in air_hash_upsert. */
static inline size_t home(const AirHash *h, uint64_t hash) { return (size_t)((hash * h->mul) >> h->shift); }
static inline size_t home8(const AirHash *h, uint64_t key) { return home(h, air_mix64(key)); }

/* A different odd multiplier for every table made (any thread); results do
 * not depend on slot order (the collector sorts, sums are exact). */
static uint64_t next_multiplier(void) {
  static _Atomic uint64_t n;
  uint64_t k = atomic_fetch_add_explicit(&n, 1, memory_order_relaxed);
  return air_mix64(0x9E3779B97F4A7C15ULL * (2 * k + 1)) | 1;
}

/* Owned by the caller; free with air_hash_free. initial_cap is the number
 * of entries the table holds before it first grows. */
AirHash *air_hash_new(size_t key_size, size_t val_size, size_t initial_cap) {
  AirHash *h = calloc(1, sizeof *h);
  if (!h) out_of_memory(initial_cap);
  h->key_size = key_size;
  h->val_size = val_size;
  h->key8 = key_size == 8;
  h->key_off = h->key8 ? 0 : 8;
  h->val_off = h->key_off + round8(key_size);
  h->slot_size = h->val_off + round8(val_size);
  if (h->key8) {
    h->zero_val = calloc(1, round8(val_size) ? round8(val_size) : 8);
    if (!h->zero_val) out_of_memory(initial_cap);
  }
  h->mul = next_multiplier();
  size_t cap = 16;
  while (cap / 4 * 3 < initial_cap && cap < SIZE_MAX / 4) cap *= 2;
  set_cap(h, cap);
  h->slots = alloc_slots(cap, h->slot_size, &h->mapped);
  count_settled();
  return h;
}

void air_hash_free(AirHash *h) {
  if (!h) return;
  free_slots(h->slots, h->cap, h->slot_size, h->mapped);
  free(h->zero_val);
  free(h);
}

size_t air_hash_count(const AirHash *h) { return h->count; }

size_t air_hash_cap(const AirHash *h) { return h->cap; }

/* The value of key, or NULL. The pointer stays valid until the next
 * air_hash_upsert or air_hash_clear on h. */
void *air_hash_find(const AirHash *h, const void *key, uint64_t hash) {
  if (h->key8) {
    uint64_t k = load_key8(key);
    if (k == 0) return h->has_zero ? h->zero_val : NULL;
    for (size_t i = home8(h, k);; i = (i + 1) & h->mask) {
      uint64_t s = load_key8(SLOT(h, i));
      if (s == k) return SLOT_VAL(h, i);
      if (s == 0) return NULL;
    }
  }
  uint64_t sh = stored_hash(hash);
  size_t i = home(h, sh);
  for (;;) {
    uint64_t s = SLOT_HASH(h, i);
    if (s == 0) return NULL;
    if (s == sh && key_eq(SLOT_KEY(h, i), key, h->key_size))
      return SLOT_VAL(h, i);
    i = (i + 1) & h->mask;
  }
}

void air_hash_prefetch(const AirHash *h, const void *key, uint64_t hash) {
  size_t i = h->key8 ? home8(h, load_key8(key)) : home(h, stored_hash(hash));
  __builtin_prefetch(SLOT(h, i), 1);
}

/* The first empty slot of a key's probe (growing: the key is absent). */
static inline size_t free_slot(const AirHash *h, const unsigned char *slot) {
  size_t i;
  if (h->key8) {
    i = home8(h, load_key8(slot));
    while (load_key8(SLOT(h, i)) != 0) i = (i + 1) & h->mask;
  } else {
    i = home(h, load_key8(slot));
    while (SLOT_HASH(h, i) != 0) i = (i + 1) & h->mask;
  }
  return i;
}

static void grow(AirHash *h) {
  unsigned char *old = h->slots;
  size_t old_cap = h->cap;
  bool old_mapped = h->mapped;
  if (old_cap > SIZE_MAX / 2) out_of_memory(old_cap);
  h->slots = alloc_slots(old_cap * 2, h->slot_size, &h->mapped);
  set_cap(h, old_cap * 2);
  for (size_t j = 0; j < old_cap; j++) {
    const unsigned char *src = old + j * h->slot_size;
    if (load_key8(src) == 0) continue; /* key8: key 0 is empty; else hash 0 */
    memcpy(SLOT(h, free_slot(h, src)), src, h->slot_size);
  }
  free_slots(old, old_cap, h->slot_size, old_mapped);
  count_settled();
}

/* The value of key, inserted zeroed (with *is_new = true) when absent.
 * The pointer stays valid until the next upsert or clear on h. */
void *air_hash_upsert(AirHash *h, const void *key, uint64_t hash,
                      bool *is_new) {
  size_t i;
  if (h->key8) {
    uint64_t k = load_key8(key);
    if (k == 0) {
      if (is_new) *is_new = !h->has_zero;
      if (!h->has_zero) h->count++;
      h->has_zero = true;
      return h->zero_val;
    }
    for (i = home8(h, k);; i = (i + 1) & h->mask) {
      uint64_t s = load_key8(SLOT(h, i));
      if (s == k) {
        if (is_new) *is_new = false;
        return SLOT_VAL(h, i);
      }
      if (s == 0) break;
    }
    if (h->count >= h->grow_at) {
      grow(h);
      for (i = home8(h, k); load_key8(SLOT(h, i)) != 0; i = (i + 1) & h->mask) {}
    }
    memcpy(SLOT(h, i), &k, 8);
  } else {
    uint64_t sh = stored_hash(hash);
    for (i = home(h, sh);; i = (i + 1) & h->mask) {
      uint64_t s = SLOT_HASH(h, i);
      if (s == 0) break;
      if (s == sh && key_eq(SLOT_KEY(h, i), key, h->key_size)) {
        if (is_new) *is_new = false;
        return SLOT_VAL(h, i);
      }
    }
    if (h->count >= h->grow_at) {
      grow(h);
      for (i = home(h, sh); SLOT_HASH(h, i) != 0; i = (i + 1) & h->mask) {}
    }
    SLOT_HASH(h, i) = sh;
    memcpy(SLOT_KEY(h, i), key, h->key_size);
  }
  /* Empty slots are all-zero (calloc, mmap, clear), so the value starts
   * zeroed. */
  h->count++;
  if (is_new) *is_new = true;
  return SLOT_VAL(h, i);
}

/* Positions: the slots 0..cap-1, then (key8) cap for key 0; a sorted
 * table's are its first count slots. */
static bool next_at(const AirHash *h, size_t *pos, size_t *slot) {
  size_t i = *pos;
  if (h->sorted) {
    if (i >= h->count) return false;
    *slot = i;
    *pos = i + 1;
    return true;
  }
  for (; i < h->cap; i++) {
    if (load_key8(SLOT(h, i)) != 0) {
      *slot = i;
      *pos = i + 1;
      return true;
    }
  }
  if (i == h->cap && h->has_zero) {
    *slot = SIZE_MAX;
    *pos = i + 1;
    return true;
  }
  *pos = h->cap + 1;
  return false;
}

static const uint64_t zero_key;

bool air_hash_next_h(const AirHash *h, size_t *pos, const void **key,
                     void **val, uint64_t *hash) {
  size_t i;
  if (!next_at(h, pos, &i)) return false;
  if (i == SIZE_MAX) {
    *key = &zero_key;
    *val = h->zero_val;
    *hash = air_mix64(0);
    return true;
  }
  *key = SLOT_KEY(h, i);
  *val = SLOT_VAL(h, i);
  *hash = h->key8 ? air_mix64(load_key8(*key)) : SLOT_HASH(h, i);
  return true;
}

bool air_hash_next(const AirHash *h, size_t *pos, const void **key,
                   void **val) {
  size_t i;
  if (!next_at(h, pos, &i)) return false;
  if (key) *key = i == SIZE_MAX ? (const void *)&zero_key : SLOT_KEY(h, i);
  if (val) *val = i == SIZE_MAX ? (void *)h->zero_val : SLOT_VAL(h, i);
  return true;
}

/* Sorts the entries by key (cmp compares two keys) for air_hash_next, which
 * then gives them in that order; the table is no table any more until
 * air_hash_clear. In place: the occupied slots are moved to the front
 * (key 0 as a slot of its own), then sorted. */
typedef struct SortBy {
  int (*cmp)(const void *, const void *);
  size_t key_off;
} SortBy;

static int cmp_slots(const void *a, const void *b, void *arg) {
  const SortBy *by = arg;
  return by->cmp((const unsigned char *)a + by->key_off, (const unsigned char *)b + by->key_off);
}

static size_t compact(AirHash *h);

void air_hash_sort(AirHash *h, int (*cmp)(const void *, const void *)) {
  if (h->sorted) return;
  size_t n = compact(h);
  SortBy by = {cmp, h->key_off};
  qsort_r(h->slots, n, h->slot_size, cmp_slots, &by);
}

/* air_hash_sort for a table whose key is one int64_t ordered as signed:
 * an in-place most-significant-digit radix sort (American flag sort) of
 * the slots, a byte at a time from the highest byte in which two keys
 * differ, with insertion sort for small buckets. No comparison calls and
 * no scratch array: perf put the general sort (glibc's merge sort, with a
 * buffer as large as the rows, and a call per comparison) at a quarter of
 * the 10M-key run. */
static inline uint64_t ukey(const unsigned char *slot) { return load_key8(slot) ^ ((uint64_t)1 << 63); }

static void insertion_sort(unsigned char *base, size_t n, size_t sz, unsigned char *tmp) {
  for (size_t i = 1; i < n; i++) {
    uint64_t k = ukey(base + i * sz);
    if (ukey(base + (i - 1) * sz) <= k) continue;
    memcpy(tmp, base + i * sz, sz);
    size_t j = i;
    do {
      memcpy(base + j * sz, base + (j - 1) * sz, sz);
      j--;
    } while (j > 0 && ukey(base + (j - 1) * sz) > k);
    memcpy(base + j * sz, tmp, sz);
  }
}

static void radix_sort(unsigned char *base, size_t n, size_t sz, unsigned shift, unsigned char *tmp) {
  if (n <= 32) {
    insertion_sort(base, n, sz, tmp);
    return;
  }
  size_t count[256] = {0}, next[256], end[256];
  for (size_t i = 0; i < n; i++) count[(ukey(base + i * sz) >> shift) & 255]++;
  size_t at = 0;
  for (int b = 0; b < 256; b++) {
    next[b] = at;
    at += count[b];
    end[b] = at;
  }
  unsigned char *carry = tmp + sz, *swap = tmp + 2 * sz;
  for (int b = 0; b < 256; b++) {
    while (next[b] < end[b]) {
      unsigned char *p = base + next[b] * sz;
      unsigned d = (unsigned)(ukey(p) >> shift) & 255;
      if (d == (unsigned)b) {
        next[b]++;
        continue;
      }
      /* a cycle: each row displaces one of the bucket it belongs to */
      memcpy(carry, p, sz);
      do {
        unsigned char *q = base + next[d]++ * sz;
        memcpy(swap, q, sz);
        memcpy(q, carry, sz);
        memcpy(carry, swap, sz);
        d = (unsigned)(ukey(carry) >> shift) & 255;
      } while (d != (unsigned)b);
      memcpy(p, carry, sz);
      next[b]++;
    }
  }
  if (shift == 0) return;
  at = 0;
  for (int b = 0; b < 256; b++) {
    if (count[b] > 1) radix_sort(base + at * sz, count[b], sz, shift - 8, tmp);
    at += count[b];
  }
}

/* Moves the occupied slots to the front (key 0 as a slot of its own):
 * their number. */
static size_t compact(AirHash *h) {
  size_t n = 0;
  for (size_t i = 0; i < h->cap; i++) {
    if (load_key8(SLOT(h, i)) == 0) continue;
    if (i != n) {
      memcpy(SLOT(h, n), SLOT(h, i), h->slot_size);
      memset(SLOT(h, i), 0, h->slot_size);
    }
    n++;
  }
  if (h->has_zero) { /* n < cap: the table is at most 75% full */
    memset(SLOT(h, n), 0, h->slot_size);
    memcpy(SLOT(h, n) + h->val_off, h->zero_val, h->val_size);
    n++;
    h->has_zero = false;
    memset(h->zero_val, 0, h->val_size);
  }
  h->sorted = true;
  return n;
}

void air_hash_sort_i64(AirHash *h) {
  if (h->sorted) return;
  if (!h->key8) abort(); /* the generated code asks this of 8-byte keys only */
  size_t n = compact(h);
  if (n < 2) return;
  uint64_t lo = UINT64_MAX, hi = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t k = ukey(SLOT(h, i));
    if (k < lo) lo = k;
    if (k > hi) hi = k;
  }
  if (lo == hi) return;
  unsigned top = 63 - (unsigned)__builtin_clzll(lo ^ hi); /* the highest bit in which keys differ */
  unsigned char *tmp = malloc(3 * h->slot_size);
  if (!tmp) out_of_memory(n);
  radix_sort(h->slots, n, h->slot_size, top / 8 * 8, tmp);
  free(tmp);
}

/* Keeps the capacity: a recycled window table of a busy operator needs it
 * again for the next window. A mapped table's pages go back to the system
 * (they come back zeroed as they are touched again). */
void air_hash_clear(AirHash *h) {
  if (h->count == 0 && !h->sorted) return;
  if (h->mapped) {
    if (madvise(h->slots, h->cap * h->slot_size, MADV_DONTNEED) != 0)
      memset(h->slots, 0, h->cap * h->slot_size);
  } else {
    memset(h->slots, 0, h->cap * h->slot_size);
  }
  if (h->zero_val) memset(h->zero_val, 0, h->val_size);
  h->has_zero = false;
  h->sorted = false;
  h->count = 0;
}

/* ---- checkpoints: the entries, each {hash, key, value} ------------------ */

void air_hash_save(AirCkptW *w, const AirHash *h, AirCkptValSaveFn val) {
  air_ckpt_put_i64(w, (int64_t)h->count);
  size_t pos = 0;
  const void *k;
  void *v;
  uint64_t hash;
  while (air_hash_next_h(h, &pos, &k, &v, &hash)) {
    air_ckpt_put(w, &hash, sizeof hash);
    air_ckpt_put(w, k, h->key_size);
    if (val) val(w, v);
    else air_ckpt_put(w, v, h->val_size);
  }
}

void air_hash_load(AirCkptR *r, AirHash *h, AirCkptValLoadFn val, AirCkptRouteFn route, AirAccMergeFn merge) {
  int64_t n = air_ckpt_get_i64(r);
  /* Room for them first: the entries come in the slot order of a table
   * that had the same multiplier (tables are made in the same order), and
   * a table growing under them is the quadratic case of home() above (1M
   * keys took 24 s to load, 0.1 s with the room made first). */
  size_t want = air_ckpt_share(r, n > 0 ? (size_t)n : 0);
  while (h->count + want > h->grow_at) grow(h);
  unsigned char *key = malloc(h->key_size ? h->key_size : 1), *tmp = malloc(h->val_size ? h->val_size : 1);
  if (!key || !tmp) out_of_memory((size_t)n);
  for (int64_t i = 0; i < n; i++) {
    uint64_t hash;
    bool is_new;
    air_ckpt_get(r, &hash, sizeof hash);
    air_ckpt_get(r, key, h->key_size);
    if (val && air_ckpt_dropping(r)) air_fatal(NULL, "checkpoint: a join's rows in a source");
    if (val) { /* into its slot: a join window's rows are appended (and filtered by row) */
      val(r, air_hash_upsert(h, key, hash, &is_new));
      continue;
    }
    air_ckpt_get(r, tmp, h->val_size);
    if (air_ckpt_dropping(r) || (route && !air_ckpt_keeps(r, route(key)))) continue; /* another's now */
    void *v = air_hash_upsert(h, key, hash, &is_new);
    if (is_new || !merge) memcpy(v, tmp, h->val_size);
    else merge(v, tmp);
  }
  free(key);
  free(tmp);
}

/* Drops the entries whose value keep() refuses: the table is made anew
 * with the others (there is no delete; a sweep is rare, and its cost that
 * of one pass), *hp replaced. Returns how many were dropped. */
size_t air_hash_retain(AirHash **hp, bool (*keep)(const void *val, void *ctx), void *ctx) {
  AirHash *h = *hp;
  size_t pos = 0, gone = 0;
  const void *k;
  void *v;
  while (air_hash_next(h, &pos, &k, &v))
    if (!keep(v, ctx)) gone++;
  if (!gone) return 0;
  AirHash *n = air_hash_new(h->key_size, h->val_size, h->count - gone + 16);
  uint64_t hash;
  pos = 0;
  while (air_hash_next_h(h, &pos, &k, &v, &hash)) {
    if (!keep(v, ctx)) continue;
    bool is_new;
    memcpy(air_hash_upsert(n, k, hash, &is_new), v, h->val_size);
  }
  air_hash_free(h);
  *hp = n;
  return gone;
}

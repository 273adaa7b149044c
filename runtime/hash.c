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

/* ---- the table ---------------------------------------------------------- */

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
  size_t count;         /* occupied slots */
  size_t grow_at;       /* count that triggers doubling (75% of cap) */
  size_t key_size;      /* bytes per key */
  size_t val_size;      /* bytes per value */
  size_t val_off;       /* value offset in a slot (8-byte aligned) */
  size_t slot_size;     /* bytes per slot (multiple of 8) */
};

/* A slot starts with the key's hash; 0 marks an empty slot, so a real hash
 * of 0 is stored as 1 (it only costs an extra memcmp on a rare collision). */
#define SLOT_HASH(h, i) (*(uint64_t *)((h)->slots + (i) * (h)->slot_size))
#define SLOT_KEY(h, i) ((h)->slots + (i) * (h)->slot_size + 8)
#define SLOT_VAL(h, i) ((h)->slots + (i) * (h)->slot_size + (h)->val_off)

static inline uint64_t stored_hash(uint64_t hash) { return hash ? hash : 1; }

static size_t round8(size_t n) { return (n + 7) & ~(size_t)7; }

static _Noreturn void out_of_memory(size_t entries) {
  char what[64];
  snprintf(what, sizeof what, "hash table of %zu entries", entries);
  air_oom(what);
}

static unsigned char *alloc_slots(size_t cap, size_t slot_size) {
  if (cap > SIZE_MAX / slot_size) out_of_memory(cap);
  air_memory_check(cap * slot_size, "a hash table (group keys, table rows)");
  unsigned char *s = calloc(cap, slot_size);
  if (!s) out_of_memory(cap);
  return s;
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
  h->val_off = 8 + round8(key_size);
  h->slot_size = h->val_off + round8(val_size);
  h->mul = next_multiplier();
  size_t cap = 16;
  while (cap / 4 * 3 < initial_cap && cap < SIZE_MAX / 4) cap *= 2;
  set_cap(h, cap);
  h->slots = alloc_slots(cap, h->slot_size);
  return h;
}

void air_hash_free(AirHash *h) {
  if (!h) return;
  free(h->slots);
  free(h);
}

size_t air_hash_count(const AirHash *h) { return h->count; }

/* The value of key, or NULL. The pointer stays valid until the next
 * air_hash_upsert or air_hash_clear on h. */
void *air_hash_find(const AirHash *h, const void *key, uint64_t hash) {
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

static void grow(AirHash *h) {
  unsigned char *old = h->slots;
  size_t old_cap = h->cap;
  if (old_cap > SIZE_MAX / 2) out_of_memory(old_cap);
  h->slots = alloc_slots(old_cap * 2, h->slot_size);
  set_cap(h, old_cap * 2);
  for (size_t j = 0; j < old_cap; j++) {
    const unsigned char *src = old + j * h->slot_size;
    uint64_t s;
    memcpy(&s, src, 8);
    if (s == 0) continue;
    size_t i = home(h, s);
    while (SLOT_HASH(h, i) != 0) i = (i + 1) & h->mask;
    memcpy(h->slots + i * h->slot_size, src, h->slot_size);
  }
  free(old);
}

/* The value of key, inserted zeroed (with *is_new = true) when absent.
 * The pointer stays valid until the next upsert or clear on h. */
void *air_hash_upsert(AirHash *h, const void *key, uint64_t hash,
                      bool *is_new) {
  uint64_t sh = stored_hash(hash);
  size_t i = home(h, sh);
  for (;;) {
    uint64_t s = SLOT_HASH(h, i);
    if (s == 0) break;
    if (s == sh && key_eq(SLOT_KEY(h, i), key, h->key_size)) {
      if (is_new) *is_new = false;
      return SLOT_VAL(h, i);
    }
    i = (i + 1) & h->mask;
  }
  if (h->count >= h->grow_at) {
    grow(h);
    i = home(h, sh);
    while (SLOT_HASH(h, i) != 0) i = (i + 1) & h->mask;
  }
  /* Empty slots are all-zero (calloc, clear), so the value starts zeroed. */
  SLOT_HASH(h, i) = sh;
  memcpy(SLOT_KEY(h, i), key, h->key_size);
  h->count++;
  if (is_new) *is_new = true;
  return SLOT_VAL(h, i);
}

bool air_hash_next_h(const AirHash *h, size_t *pos, const void **key,
                     void **val, uint64_t *hash) {
  for (size_t i = *pos; i < h->cap; i++) {
    uint64_t s = SLOT_HASH(h, i);
    if (s != 0) {
      *key = SLOT_KEY(h, i);
      *val = SLOT_VAL(h, i);
      *hash = s;
      *pos = i + 1;
      return true;
    }
  }
  *pos = h->cap;
  return false;
}

bool air_hash_next(const AirHash *h, size_t *pos, const void **key,
                   void **val) {
  for (size_t i = *pos; i < h->cap; i++) {
    if (SLOT_HASH(h, i) != 0) {
      if (key) *key = SLOT_KEY(h, i);
      if (val) *val = SLOT_VAL(h, i);
      *pos = i + 1;
      return true;
    }
  }
  *pos = h->cap;
  return false;
}

/* Keeps the capacity: a recycled window table of a busy operator needs it
 * again for the next window. */
void air_hash_clear(AirHash *h) {
  if (h->count == 0) return;
  memset(h->slots, 0, h->cap * h->slot_size);
  h->count = 0;
}

/* redis_table.c - source = 'redis' for a TABLE: the keys of a Redis server,
 * read once before the run through hiredis.
 *
 * Rank 0 alone talks to Redis: it walks the keyspace with SCAN (MATCH the
 * pattern, COUNT 1000; never KEYS, which blocks the server on a large
 * keyspace), and for each batch of keys sends, pipelined behind the next
 * SCAN, one MGET (layout 'string') or one HMGET per key naming the other
 * columns (layout 'hash'). A key MGET finds no string for is asked its TYPE:
 * gone since SCAN ('none'), it is skipped; of another type it is a bad row.
 * SCAN may return a key more than once, so the records are sorted by key
 * and repeats dropped; the table is then the same bytes on every rank,
 * whatever the server did meanwhile, broadcast with MPI, and every rank
 * converts and inserts the rows (the generated loader, as for csv tables).
 * Only programs with a redis table link this file and -lhiredis.
 *
 * Record layout in the buffer: u8 status (REC_OK, REC_TYPE: of the wrong
 * type, its type name the one part that follows), u32 parts, then parts of
 * u32 length (NIL_LEN: a hash field that is missing) and bytes. Part 0 is
 * the key, 1.. the values.
 */
#include "air_int.h"

#include <errno.h>
#include <hiredis/hiredis.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#define SCAN_COUNT "1000"  /* keys asked of each SCAN step (a hint to the server) */
#define REDIS_BAD_SHOWN 10 /* bad rows printed in full */
#define NIL_LEN UINT32_MAX
enum { REC_OK, REC_TYPE };

struct AirRedisTable {
  AirRuntime *rt;
  AirRedisTableDef def; /* its pattern the one SCAN matches (glob, owned) */
  size_t strip;         /* bytes the key column drops from each key (key_prefix) */
  char *buf;        /* the records, sorted by key, each once */
  size_t len, cap;
  size_t pos;       /* the next record */
  size_t cur;       /* the record just returned (for air_redis_table_where) */
  uint64_t records; /* returned or bad */
  uint64_t bad;
  char where[400];  /* "redis 'addr' key '...'" of the record just returned */
  size_t where_key; /* where its key starts */
};

/* ---- rank 0: reading Redis ---------------------------------------------- */

typedef struct Load {
  AirRedisTable *t;
  redisContext *c;
  size_t *recs; /* record offsets in t->buf */
  size_t nrecs, caprecs;
  char err[600]; /* what ends the run, empty while all is well */
} Load;

static void grow(AirRedisTable *t, size_t more) {
  if (t->len + more <= t->cap) return;
  size_t cap = t->cap ? t->cap : 1 << 16;
  while (cap < t->len + more) cap *= 2;
  air_memory_check(cap - t->cap, "a redis table");
  char *b = realloc(t->buf, cap);
  if (!b) air_oom("redis table");
  t->buf = b;
  t->cap = cap;
}

static void put(AirRedisTable *t, const void *p, size_t n) {
  grow(t, n);
  memcpy(t->buf + t->len, p, n);
  t->len += n;
}

static void put_part(AirRedisTable *t, const char *p, size_t n, bool nil) {
  uint32_t len = nil ? NIL_LEN : (uint32_t)n;
  put(t, &len, sizeof len);
  if (!nil) put(t, p, n);
}

/* A new record of `parts` parts, the key its first. */
static void begin_record(Load *l, uint8_t status, const redisReply *key, uint32_t parts) {
  if (l->nrecs == l->caprecs) {
    l->caprecs = l->caprecs ? 2 * l->caprecs : 4096;
    size_t *r = realloc(l->recs, l->caprecs * sizeof *r);
    if (!r) air_oom("redis table");
    l->recs = r;
  }
  l->recs[l->nrecs++] = l->t->len;
  put(l->t, &status, 1);
  put(l->t, &parts, sizeof parts);
  put_part(l->t, key->str, key->len, false);
}

static void failed(Load *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void failed(Load *l, const char *fmt, ...) {
  if (l->err[0]) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(l->err, sizeof l->err, fmt, ap);
  va_end(ap);
}

/* A reply: NULL after an I/O error or a timeout (then l->err says which),
 * an error reply also ends the load, with what Redis said. */
static redisReply *reply(Load *l, const char *what) {
  void *r = NULL;
  const AirRedisTableDef *d = &l->t->def;
  if (redisGetReply(l->c, &r) != REDIS_OK || !r) {
    if (l->c->err == REDIS_ERR_IO && (errno == EAGAIN || errno == EWOULDBLOCK))
      failed(l, "table '%s': redis at '%s' did not answer %s within %lld ms (timeout)", d->name, d->address,
             what, (long long)d->timeout_ms);
    else
      failed(l, "table '%s': redis at '%s' failed during %s: %s", d->name, d->address, what,
             l->c->errstr[0] ? l->c->errstr : "connection lost");
    return NULL;
  }
  redisReply *rr = r;
  if (rr->type == REDIS_REPLY_ERROR) {
    failed(l, "table '%s': redis at '%s' refused %s: %s", d->name, d->address, what, rr->str);
    freeReplyObject(rr);
    return NULL;
  }
  return rr;
}

static void append_scan(Load *l, const char *cursor) {
  const char *argv[] = {"SCAN", cursor, "MATCH", l->t->def.pattern, "COUNT", SCAN_COUNT};
  redisAppendCommandArgv(l->c, 6, argv, NULL);
}

/* The batch's values: one MGET, or one HMGET per key. */
static void append_values(Load *l, const redisReply *keys) {
  const AirRedisTableDef *d = &l->t->def;
  size_t n = keys->elements;
  if (!d->hash) {
    const char **argv = malloc((n + 1) * sizeof *argv);
    size_t *lens = malloc((n + 1) * sizeof *lens);
    if (!argv || !lens) air_oom("redis table");
    argv[0] = "MGET";
    lens[0] = 4;
    for (size_t i = 0; i < n; i++) {
      argv[i + 1] = keys->element[i]->str;
      lens[i + 1] = keys->element[i]->len;
    }
    redisAppendCommandArgv(l->c, (int)(n + 1), argv, lens);
    free(argv);
    free(lens);
    return;
  }
  int argc = d->nfields + 2;
  const char **argv = malloc((size_t)argc * sizeof *argv);
  size_t *lens = malloc((size_t)argc * sizeof *lens);
  if (!argv || !lens) air_oom("redis table");
  argv[0] = "HMGET";
  lens[0] = 5;
  for (int k = 0; k < d->nfields; k++) {
    argv[k + 2] = d->fields[k];
    lens[k + 2] = strlen(d->fields[k]);
  }
  for (size_t i = 0; i < n; i++) {
    argv[1] = keys->element[i]->str;
    lens[1] = keys->element[i]->len;
    redisAppendCommandArgv(l->c, argc, argv, lens);
  }
  free(argv);
  free(lens);
}

/* A key whose value was not there: its TYPE says whether it went away
 * (skipped), is of another type (a bad row naming it), or is a hash with
 * none of the fields (a bad row: the first is missing). */
static void typed_records(Load *l, const redisReply *keys, const bool *odd) {
  size_t n = keys->elements, asked = 0;
  for (size_t i = 0; i < n; i++)
    if (odd[i]) {
      const char *argv[] = {"TYPE", keys->element[i]->str};
      size_t lens[] = {4, keys->element[i]->len};
      redisAppendCommandArgv(l->c, 2, argv, lens);
      asked++;
    }
  for (size_t i = 0; i < n && asked; i++) {
    if (!odd[i]) continue;
    redisReply *r = reply(l, "TYPE");
    asked--;
    if (!r) continue;
    if (r->type == REDIS_REPLY_STATUS && l->t->def.hash && strcmp(r->str, "hash") == 0) {
      /* a hash with none of the fields: all of them missing */
      begin_record(l, REC_OK, keys->element[i], (uint32_t)l->t->def.nfields + 1);
      for (int k = 0; k < l->t->def.nfields; k++) put_part(l->t, NULL, 0, true);
    } else if (r->type == REDIS_REPLY_STATUS && strcmp(r->str, "none") != 0) {
      begin_record(l, REC_TYPE, keys->element[i], 2);
      put_part(l->t, r->str, r->len, false);
    }
    freeReplyObject(r);
  }
}

/* The values of one batch of keys into records. */
static void take_values(Load *l, const redisReply *keys) {
  const AirRedisTableDef *d = &l->t->def;
  size_t n = keys->elements;
  bool *odd = calloc(n ? n : 1, 1);
  if (!odd) air_oom("redis table");
  bool any = false;
  if (!d->hash) {
    redisReply *r = reply(l, "MGET");
    if (r && (r->type != REDIS_REPLY_ARRAY || r->elements != n))
      failed(l, "table '%s': redis at '%s' answered MGET with no list of %zu values", d->name, d->address, n);
    for (size_t i = 0; r && !l->err[0] && i < n; i++) {
      const redisReply *v = r->element[i];
      if (v->type != REDIS_REPLY_STRING) {
        odd[i] = any = true;
        continue;
      }
      begin_record(l, REC_OK, keys->element[i], 2);
      put_part(l->t, v->str, v->len, false);
    }
    if (r) freeReplyObject(r);
  } else {
    for (size_t i = 0; i < n; i++) {
      /* every reply is read, so none is left behind for the next command */
      void *raw = NULL;
      if (redisGetReply(l->c, &raw) != REDIS_OK || !raw) {
        reply(l, "HMGET"); /* says why */
        break;
      }
      redisReply *r = raw;
      if (r->type == REDIS_REPLY_ERROR) { /* WRONGTYPE: ask its type */
        odd[i] = any = true;
      } else if (r->type == REDIS_REPLY_ARRAY && r->elements == (size_t)d->nfields) {
        bool none = d->nfields > 0;
        for (size_t k = 0; k < r->elements; k++) none &= r->element[k]->type != REDIS_REPLY_STRING;
        if (none) { /* no field at all: gone since SCAN, or of another type */
          odd[i] = any = true;
        } else {
          begin_record(l, REC_OK, keys->element[i], (uint32_t)d->nfields + 1);
          for (size_t k = 0; k < r->elements; k++) {
            const redisReply *v = r->element[k];
            put_part(l->t, v->str, v->len, v->type != REDIS_REPLY_STRING);
          }
        }
      } else {
        failed(l, "table '%s': redis at '%s' answered HMGET with no list of %d values", d->name, d->address,
               d->nfields);
      }
      freeReplyObject(r);
    }
  }
  if (any && !l->err[0]) typed_records(l, keys, odd);
  free(odd);
}

static const char *rec_key(const AirRedisTable *t, size_t off, uint32_t *len) {
  memcpy(len, t->buf + off + 5, sizeof *len);
  return t->buf + off + 9;
}

static const AirRedisTable *sort_table;
static int cmp_rec(const void *a, const void *b) {
  uint32_t la, lb;
  const char *ka = rec_key(sort_table, *(const size_t *)a, &la), *kb = rec_key(sort_table, *(const size_t *)b, &lb);
  int c = memcmp(ka, kb, la < lb ? la : lb);
  return c ? c : (la > lb) - (la < lb);
}

static size_t rec_size(const AirRedisTable *t, size_t off) {
  uint32_t parts;
  memcpy(&parts, t->buf + off + 1, sizeof parts);
  size_t p = off + 5;
  for (uint32_t i = 0; i < parts; i++) {
    uint32_t len;
    memcpy(&len, t->buf + p, sizeof len);
    p += 4 + (len == NIL_LEN ? 0 : len);
  }
  return p - off;
}

/* Sorted by key, each key once (SCAN may return one twice). */
static void sort_unique(Load *l) {
  AirRedisTable *t = l->t;
  sort_table = t;
  qsort(l->recs, l->nrecs, sizeof *l->recs, cmp_rec);
  char *out = malloc(t->len ? t->len : 1);
  if (!out) air_oom("redis table");
  size_t n = 0;
  for (size_t i = 0; i < l->nrecs; i++) {
    if (i > 0 && cmp_rec(&l->recs[i - 1], &l->recs[i]) == 0) continue;
    size_t sz = rec_size(t, l->recs[i]);
    memcpy(out + n, t->buf + l->recs[i], sz);
    n += sz;
  }
  free(t->buf);
  t->buf = out;
  t->len = t->cap = n;
}

/* host:port ([v6]:port) into host (brackets dropped) and port. */
static bool split_address(const char *a, char *host, size_t n, int *port) {
  const char *colon = strrchr(a, ':');
  if (!colon) return false;
  const char *h = a;
  size_t hn = (size_t)(colon - a);
  if (hn >= 2 && a[0] == '[' && colon[-1] == ']') h++, hn -= 2;
  if (hn == 0 || hn >= n) return false;
  memcpy(host, h, hn);
  host[hn] = '\0';
  *port = atoi(colon + 1);
  return *port > 0 && *port < 65536;
}

static void load(Load *l) {
  const AirRedisTableDef *d = &l->t->def;
  char host[256];
  int port;
  if (!split_address(d->address, host, sizeof host, &port)) {
    failed(l, "table '%s': redis address '%s' is not host:port", d->name, d->address);
    return;
  }
  struct timeval tv = {(time_t)(d->timeout_ms / 1000), (suseconds_t)(d->timeout_ms % 1000 * 1000)};
  l->c = redisConnectWithTimeout(host, port, tv);
  if (!l->c || l->c->err) {
    failed(l, "table '%s': cannot connect to redis at '%s' (timeout %lld ms): %s", d->name, d->address,
           (long long)d->timeout_ms, l->c ? l->c->errstr : "out of memory");
    return;
  }
  redisSetTimeout(l->c, tv);
  append_scan(l, "0");
  redisReply *scan = reply(l, "SCAN");
  while (scan) {
    if (scan->type != REDIS_REPLY_ARRAY || scan->elements != 2 || scan->element[0]->type != REDIS_REPLY_STRING ||
        scan->element[1]->type != REDIS_REPLY_ARRAY) {
      failed(l, "table '%s': redis at '%s' answered SCAN with no cursor and keys", d->name, d->address);
      freeReplyObject(scan);
      return;
    }
    bool more = strcmp(scan->element[0]->str, "0") != 0;
    const redisReply *keys = scan->element[1];
    for (size_t i = 0; i < keys->elements; i++)
      if (keys->element[i]->type != REDIS_REPLY_STRING) {
        failed(l, "table '%s': redis at '%s' answered SCAN with a key that is no string", d->name, d->address);
        freeReplyObject(scan);
        return;
      }
    /* the next step of the walk goes out before this batch's values come back */
    if (more) append_scan(l, scan->element[0]->str);
    if (keys->elements) append_values(l, keys);
    redisReply *next = more ? reply(l, "SCAN") : NULL;
    if (keys->elements && !l->err[0]) take_values(l, keys);
    freeReplyObject(scan);
    scan = l->err[0] ? NULL : next;
    if (l->err[0] && next) freeReplyObject(next);
  }
  if (!l->err[0]) sort_unique(l);
}

/* ---- every rank ---------------------------------------------------------- */

AirRedisTable *air_redis_table_open(AirRuntime *rt, const AirRedisTableDef *def) {
  AirRedisTable *t = calloc(1, sizeof *t);
  if (!t) air_oom("redis table");
  t->rt = rt;
  t->def = *def;
  /* key_prefix: the keys that start with it, glob characters in it escaped
   * (here, not in the generated code: --set may change it) */
  if (def->key_prefix && def->pattern)
    air_fatal(rt, "table '%s': options 'pattern' and 'key_prefix' both select the keys; give one", def->name);
  const char *pre = def->key_prefix ? def->key_prefix : "";
  char *glob = malloc(2 * strlen(pre) + (def->pattern ? strlen(def->pattern) : 0) + 2);
  if (!glob) air_oom("redis table");
  char *g = glob;
  for (const char *p = pre; *p; p++) {
    if (strchr("*?[]\\", *p)) *g++ = '\\';
    *g++ = *p;
  }
  strcpy(g, def->key_prefix || !def->pattern ? "*" : def->pattern);
  t->def.pattern = glob;
  t->strip = strlen(pre);
  snprintf(t->where, sizeof t->where - 100, "redis '%s' key '", def->address);
  t->where_key = strlen(t->where);
  Load l = {.t = t};
  if (rt->rank == 0) {
    load(&l);
    if (l.c) redisFree(l.c);
    free(l.recs);
  }
  /* rank 0's verdict, then the records: every rank has the same table */
  uint64_t hdr[2] = {l.err[0] ? strlen(l.err) + 1 : 0, t->len};
  MPI_Bcast(hdr, 2, MPI_UINT64_T, 0, rt->comm);
  if (hdr[0]) {
    MPI_Bcast(l.err, (int)hdr[0], MPI_CHAR, 0, rt->comm);
    air_fatal(rt, "%s", l.err);
  }
  if (rt->rank != 0) {
    t->len = t->cap = hdr[1];
    air_memory_check(t->len, "a redis table");
    t->buf = malloc(t->len ? t->len : 1);
    if (!t->buf) air_oom("redis table");
  }
  for (uint64_t at = 0; at < t->len; at += 1u << 30) {
    uint64_t k = t->len - at < (1u << 30) ? t->len - at : (1u << 30);
    MPI_Bcast(t->buf + at, (int)k, MPI_CHAR, 0, rt->comm);
  }
  return t;
}

/* "redis 'addr' key 'k'", the key's bytes outside printable ASCII (and \
 * and ') as \xNN; made for every row (the table's insert names it), so
 * without printf. */
static void describe(AirRedisTable *t, size_t off) {
  static const char hex[] = "0123456789abcdef";
  uint32_t klen;
  const unsigned char *k = (const unsigned char *)rec_key(t, off, &klen);
  size_t n = t->where_key, end = sizeof t->where - 6;
  for (uint32_t i = 0; i < klen && n < end; i++) {
    if (k[i] >= 0x20 && k[i] < 0x7f && k[i] != '\\' && k[i] != '\'') {
      t->where[n++] = (char)k[i];
    } else {
      t->where[n++] = '\\';
      t->where[n++] = 'x';
      t->where[n++] = hex[k[i] >> 4];
      t->where[n++] = hex[k[i] & 15];
    }
  }
  t->where[n++] = '\'';
  t->where[n] = '\0';
}

const char *air_redis_table_where(AirRedisTable *t) {
  describe(t, t->cur);
  return t->where;
}

/* The table's bad rows over its max_bad_rows: the message, or NULL. */
static const char *over_limit(const AirRedisTable *t, uint64_t bad, uint64_t records, char *msg, size_t n) {
  const AirRedisTableDef *d = &t->def;
  if (d->bad_limit == AIR_BAD_NO_GOOD && records > 0 && bad == records)
    snprintf(msg, n, "table '%s' (redis '%s', keys '%s'): all %llu keys are bad rows, none was read%s", d->name,
             d->address, d->pattern, (unsigned long long)records,
             records > REDIS_BAD_SHOWN ? " (the first ones are listed above)" : "");
  else if (d->bad_limit == AIR_BAD_COUNT && (double)bad > d->bad_max)
    snprintf(msg, n, "table '%s' (redis '%s', keys '%s'): more than max_bad_rows = %.0f bad rows", d->name,
             d->address, d->pattern, d->bad_max);
  else if (d->bad_limit == AIR_BAD_PCT && records > 0 && 100.0 * (double)bad > d->bad_max * (double)records)
    snprintf(msg, n, "table '%s' (redis '%s', keys '%s'): %llu of %llu keys are bad rows (%.2f%%), more than "
             "max_bad_rows = '%g%%'", d->name, d->address, d->pattern, (unsigned long long)bad,
             (unsigned long long)records, 100.0 * (double)bad / (double)records, d->bad_max);
  else
    return NULL;
  return msg;
}

void air_redis_table_bad_row(AirRedisTable *t, const char *why) {
  t->bad++;
  /* every rank converts the same records: rank 0 speaks for them */
  if (t->rt->rank == 0) {
    air_stat_add(t->rt, AIR_STAT_BAD_ROWS, 1);
    if (t->bad <= REDIS_BAD_SHOWN) fprintf(stderr, "%s: %s\n", air_redis_table_where(t), why);
  }
  char msg[768];
  if (t->def.bad_limit == AIR_BAD_COUNT && over_limit(t, t->bad, t->bad, msg, sizeof msg))
    air_fatal(t->rt, "%s", msg);
}

bool air_redis_table_next(AirRedisTable *t, AirField *f) {
  while (t->pos < t->len) {
    size_t off = t->pos;
    t->pos += rec_size(t, off);
    t->cur = off;
    t->records++;
    uint8_t status = (uint8_t)t->buf[off];
    uint32_t parts;
    memcpy(&parts, t->buf + off + 1, sizeof parts);
    size_t p = off + 5;
    int missing = -1;
    for (uint32_t i = 0; i < parts; i++) {
      uint32_t len;
      memcpy(&len, t->buf + p, sizeof len);
      p += 4;
      if (len == NIL_LEN && missing < 0) missing = (int)i;
      f[i] = (AirField){t->buf + p, len == NIL_LEN ? 0 : len};
      p += len == NIL_LEN ? 0 : len;
    }
    char why[300];
    if (status == REC_TYPE) {
      snprintf(why, sizeof why, "not a %s but a %.*s", t->def.hash ? "hash" : "string", (int)f[1].n, f[1].p);
      air_redis_table_bad_row(t, why);
      continue;
    }
    if (missing > 0) {
      snprintf(why, sizeof why, "field %s is missing", t->def.fields[missing - 1]);
      air_redis_table_bad_row(t, why);
      continue;
    }
    size_t strip = t->strip < f[0].n ? t->strip : f[0].n;
    f[0].p += strip;
    f[0].n -= strip;
    return true;
  }
  return false;
}

void air_redis_table_close(AirRedisTable *t) {
  char msg[768];
  /* the counts are the same on every rank: each decides alone */
  if (over_limit(t, t->bad, t->records, msg, sizeof msg)) air_fatal(t->rt, "%s", msg);
  free((char *)t->def.pattern);
  free(t->buf);
  free(t);
}

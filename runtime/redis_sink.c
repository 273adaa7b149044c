/* redis_sink.c - sink = 'redis': one Redis hash per window and group key,
 * as the Yahoo Streaming Benchmark writes its results.
 *
 * The collector writes its rows, as to a file, into a FILE made with
 * fopencookie; each line (a CSV record) becomes
 *
 *     HSET <prefix><key 1>:<key 2>:...:<window end ms> <column> <value> ...
 *
 * the key fields being the row's GROUP BY columns as written in the record
 * (quotes undone), the fields the result's column names, the values its
 * fields as the CSV sink writes them (quotes undone). The window end comes
 * from the collector (ops.row, before each line), so it is in the key even
 * when the query does not select it. HSET of the same fields overwrites: a
 * rerun writes the same hashes again instead of adding to them.
 *
 * An updating query's rows are upserts (AirRedisSinkDef.upsert): the key
 * has no window end, each +I or +U row is DEL then HSET (a NULL column
 * leaves no old value behind), a -D row is DEL, a -U row nothing: the
 * hashes are the query's table as of the last emission written.
 *
 * Commands are appended to hiredis' output buffer and sent pipelined:
 * every write the FILE makes (one per collector flush, or per 64 KiB) sends
 * them all and then reads every reply. An error reply, a lost connection
 * or a reply not there within `timeout` fails the write (EIO), and the
 * collector ends the run with error()'s message.
 */
#include "air_int.h"

#include <hiredis/hiredis.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

typedef struct RSink {
  AirSinkErr err; /* first: air_sink_error takes the sink */
  const AirRedisSinkDef *def;
  redisContext *c;
  AirLines lines;   /* the record being written */
  int64_t *wends;   /* window ends of rows announced, not yet written (a FIFO) */
  size_t whead, wn, wcap;
  size_t pending;   /* commands sent whose replies are not read */
  long long written;
  char *buf;        /* the fields of one record, unquoted, one after another */
  size_t bcap;
  const char **argv; /* HSET, key, column, value, ... */
  size_t *argl;
  size_t *spans;    /* field k of the record: offset and length in buf */
  char *key;
  size_t kcap;
  char fbuf[1 << 16]; /* the FILE's buffer */
} RSink;

static void *grow(void *p, size_t n) {
  void *q = realloc(p, n);
  if (!q) air_oom("redis sink");
  return q;
}

/* Read the replies of every command sent; the first bad one fails the sink. */
static void read_replies(RSink *s) {
  while (s->pending > 0 && !s->err.failed) {
    redisReply *r = NULL;
    if (redisGetReply(s->c, (void **)&r) != REDIS_OK || !r) {
      /* hiredis says "Server closed the connection", or errno's text,
       * "Resource temporarily unavailable" for a timeout */
      bool tmo = s->c->err == REDIS_ERR_IO && (errno == EAGAIN || errno == EWOULDBLOCK);
      if (tmo)
        air_sink_fail(&s->err, "no reply within %lld ms (option 'timeout')", (long long)s->def->timeout_ms);
      else
        air_sink_fail(&s->err, "lost the connection: %s", s->c->errstr[0] ? s->c->errstr : "no reply");
      return;
    }
    s->pending--;
    if (r->type == REDIS_REPLY_ERROR)
      air_sink_fail(&s->err, "error reply: %s", r->str);
    freeReplyObject(r);
  }
}

#define FIELD_NULL ((size_t)-1) /* the length of a NULL field */

/* One CSV record: its fields unquoted into s->buf, HSET appended. */
static void line(void *ctx, const char *p, size_t n) {
  RSink *s = ctx;
  const AirRedisSinkDef *d = s->def;
  if (s->err.failed) return;
  if (s->wn == 0) {
    air_sink_fail(&s->err, "a result row without its window end (internal error)");
    return;
  }
  int64_t wend = s->wends[s->whead];
  s->whead = (s->whead + 1) % s->wcap;
  s->wn--;
  char op = 'I'; /* the change: +I, -U, +U, -D; I for a table's row */
  if (d->ops) {
    if (n < 3 || p[2] != ',') {
      air_sink_fail(&s->err, "a result row without its change (internal error)");
      return;
    }
    op = p[0] == '-' ? (p[1] == 'D' ? 'D' : 'u') : p[1];
    p += 3;
    n -= 3;
    if (op == 'u') { /* the old row of an update: the +U after it writes the new */
      s->written++;
      return;
    }
  }
  if (n + 1 > s->bcap) {
    s->bcap = 2 * n + 64;
    s->buf = grow(s->buf, s->bcap);
  }
  /* fields, unquoted into buf: field k is buf[start[2k]..] of length start[2k+1] */
  size_t nf = 0, at = 0, i = 0;
  size_t *start = s->spans;
  for (;;) {
    size_t from = at;
    bool quoted = i < n && p[i] == '"';
    if (quoted) {
      for (i++; i < n; i++) {
        if (p[i] == '"') {
          if (i + 1 < n && p[i + 1] == '"') {
            s->buf[at++] = '"';
            i++;
            continue;
          }
          i++;
          break;
        }
        s->buf[at++] = p[i];
      }
    }
    while (i < n && p[i] != ',') s->buf[at++] = p[i++];
    if ((int)nf < d->ncolumns) {
      start[2 * nf] = from;
      /* an empty field without quotes is NULL: no field in the hash */
      start[2 * nf + 1] = at == from && !quoted ? FIELD_NULL : at - from;
    }
    nf++;
    if (i >= n) break;
    i++; /* the comma */
  }
  if ((int)nf != d->ncolumns) {
    air_sink_fail(&s->err, "a result row of %zu fields, not %d (internal error)", nf, d->ncolumns);
    return;
  }
  /* the key: prefix, the group key fields and the window end, ':' between */
  size_t plen = strlen(d->prefix), klen = plen + 24;
  for (int k = 0; k < d->nkey; k++) {
    size_t *len = &start[2 * d->key_fields[k] + 1];
    if (*len == FIELD_NULL) *len = 0; /* a NULL key: empty in the hash's name */
    klen += *len + 1;
  }
  if (klen > s->kcap) {
    s->kcap = 2 * klen;
    s->key = grow(s->key, s->kcap);
  }
  memcpy(s->key, d->prefix, plen);
  size_t kl = plen;
  for (int k = 0; k < d->nkey; k++) {
    size_t f = (size_t)d->key_fields[k];
    memcpy(s->key + kl, s->buf + start[2 * f], start[2 * f + 1]);
    kl += start[2 * f + 1];
    s->key[kl++] = ':';
  }
  if (d->upsert) { /* the group key alone names the hash: made anew (+I, +U) or deleted (-D) */
    kl -= kl > plen; /* no ':' after the last key field */
    const char *del[2] = {"DEL", s->key};
    size_t dell[2] = {3, kl};
    if (redisAppendCommandArgv(s->c, 2, del, dell) != REDIS_OK) {
      air_sink_fail(&s->err, "cannot send: %s", s->c->errstr);
      return;
    }
    s->pending++;
    if (op == 'D') {
      s->written++;
      return;
    }
  } else {
    kl += (size_t)snprintf(s->key + kl, s->kcap - kl, "%lld", (long long)wend);
  }
  /* argv: HSET key column value ... (values point into buf) */
  s->argv[0] = "HSET";
  s->argl[0] = 4;
  s->argv[1] = s->key;
  s->argl[1] = kl;
  int argc = 2;
  for (int k = 0; k < d->ncolumns; k++) {
    size_t off = start[2 * k], len = start[2 * k + 1];
    if (len == FIELD_NULL) continue;
    s->argv[argc] = d->columns[k];
    s->argl[argc++] = strlen(d->columns[k]);
    s->argv[argc] = s->buf + off;
    s->argl[argc++] = len;
  }
  if (argc == 2) { /* every column NULL: no hash */
    s->written++;
    return;
  }
  if (redisAppendCommandArgv(s->c, argc, s->argv, s->argl) != REDIS_OK) {
    air_sink_fail(&s->err, "cannot send: %s", s->c->errstr);
    return;
  }
  s->pending++;
  s->written++;
}

static ssize_t rsink_write(void *cookie, const char *buf, size_t size) {
  RSink *s = cookie;
  air_lines_feed(&s->lines, buf, size, line, s);
  read_replies(s); /* sends the pipeline, then waits for its replies */
  if (s->err.failed) {
    errno = EIO;
    return -1;
  }
  return (ssize_t)size;
}

static int rsink_close(void *cookie) {
  RSink *s = cookie;
  if (s->c) redisFree(s->c);
  air_lines_free(&s->lines);
  free(s->wends);
  free(s->buf);
  free(s->argv);
  free(s->argl);
  free(s->spans);
  free(s->key);
  free(s);
  return 0;
}

static void rsink_row(void *sink, int64_t wend) {
  RSink *s = sink;
  if (s->wn == s->wcap) {
    size_t cap = s->wcap ? 2 * s->wcap : 1024;
    int64_t *w = grow(NULL, cap * sizeof *w);
    for (size_t i = 0; i < s->wn; i++) w[i] = s->wends[(s->whead + i) % s->wcap];
    free(s->wends);
    s->wends = w;
    s->wcap = cap;
    s->whead = 0;
  }
  s->wends[(s->whead + s->wn++) % s->wcap] = wend;
}

/* A command before the run (AUTH, SELECT, PING): its reply must not be an error. */
static bool setup_command(RSink *s, char *err, size_t nerr, const char *what, int argc, const char **argv) {
  redisReply *r = redisCommandArgv(s->c, argc, argv, NULL);
  if (!r) {
    snprintf(err, nerr, "%s: %s: %s", s->err.who, what, s->c->errstr[0] ? s->c->errstr : "no reply");
    return false;
  }
  bool ok = r->type != REDIS_REPLY_ERROR;
  if (!ok) snprintf(err, nerr, "%s: %s: %s", s->err.who, what, r->str);
  freeReplyObject(r);
  return ok;
}

static void *rsink_open(AirRuntime *rt, const void *def, FILE **out, char *err, size_t nerr) {
  const AirRedisSinkDef *d = def;
  (void)rt;
  char host[256], port[16];
  if (!air_split_hostport(d->address, host, sizeof host, port, sizeof port)) {
    snprintf(err, nerr, "redis sink '%s': '%s' is not host:port", d->name, d->address);
    return NULL;
  }
  RSink *s = calloc(1, sizeof *s);
  if (!s) air_oom("redis sink");
  s->def = d;
  snprintf(s->err.who, sizeof s->err.who, "redis sink '%s' (%s)", d->name, d->address);
  s->argv = grow(NULL, (size_t)(2 + 2 * d->ncolumns) * sizeof *s->argv);
  s->argl = grow(NULL, (size_t)(2 + 2 * d->ncolumns) * sizeof *s->argl);
  s->spans = grow(NULL, (size_t)(2 * d->ncolumns) * sizeof *s->spans);
  int64_t ms = d->timeout_ms > 0 ? d->timeout_ms : 30000;
  struct timeval tv = {.tv_sec = (time_t)(ms / 1000), .tv_usec = (suseconds_t)(ms % 1000 * 1000)};
  s->c = redisConnectWithTimeout(host, atoi(port), tv);
  if (!s->c || s->c->err) {
    snprintf(err, nerr, "redis sink '%s': cannot connect to redis at %s within %lld ms (option 'timeout'): %s",
             d->name, d->address, (long long)ms, s->c ? s->c->errstr : "out of memory");
    goto fail;
  }
  redisSetTimeout(s->c, tv);
  if (d->password && !setup_command(s, err, nerr, "AUTH", 2, (const char *[]){"AUTH", d->password}))
    goto fail;
  char db[16];
  snprintf(db, sizeof db, "%d", d->db);
  if (d->db && !setup_command(s, err, nerr, "SELECT", 2, (const char *[]){"SELECT", db}))
    goto fail;
  if (!setup_command(s, err, nerr, "PING", 1, (const char *[]){"PING"}))
    goto fail;
  cookie_io_functions_t io = {.write = rsink_write, .close = rsink_close};
  FILE *f = fopencookie(s, "w", io);
  if (!f) {
    snprintf(err, nerr, "redis sink '%s': %s", d->name, strerror(errno));
    goto fail;
  }
  setvbuf(f, s->fbuf, _IOFBF, sizeof s->fbuf);
  *out = f;
  return s;
fail:
  rsink_close(s);
  return NULL;
}

/* Every command's reply read (the FILE flushed first); the FILE is closed
 * by the caller. */
static bool rsink_finish(void *sink, FILE *f, char *why, size_t n) {
  RSink *s = sink;
  fflush(f);
  read_replies(s);
  return air_sink_report(&s->err, why, n);
}

const AirSinkOps air_redis_sink_ops = {
    .open = rsink_open,
    .row = rsink_row,
    .finish = rsink_finish,
    .error = air_sink_error,
};

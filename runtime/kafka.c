/* kafka.c - source = 'kafka': the records of a stream are the messages of
 * Kafka topics, read through librdkafka.
 *
 * Only a query that reads Kafka links this file (and -lrdkafka): the csv
 * reader reaches it through the AirKafkaOps the generated program names.
 *
 * Partitions go to ranks by a fixed rule, never by a group rebalance: the
 * partitions of the topics, in the order the topics are named and then by
 * partition number, are numbered j = 0, 1, ...; partition j is read by rank
 * j mod N. So a run is reproducible, and one topic's partition p is read by
 * rank p mod N. A rank without partitions has an empty share.
 *
 * Each rank's consumer is assigned its partitions (rd_kafka_assign, no
 * subscription). With a group, the committed offset of a partition is where
 * it starts (else `start`), and the offsets of the messages read are
 * committed every 5 s (librdkafka's auto commit) and when the source ends.
 *
 * Watermarks are per partition: W_p = (the largest event time read from p)
 * - bound. A row's lateness is decided by its own partition's W_p before it
 * (so by the order of the partition alone, whatever the ranks), and never
 * below the watermark this rank has sent (so a row never goes into a window
 * already closed). The rank's watermark is the minimum of W_p over its
 * partitions that are neither at their end (end = 'latest') nor idle: a
 * partition from which nothing came for idle_timeout stops holding it back
 * until its next message (Flink's idleness).
 *
 * Backpressure: messages are taken only when the source loop asks for the
 * next record, and the loop waits while the pipeline is full; librdkafka
 * then stops fetching once its queue holds queued.max.messages.kbytes
 * (16 MB here unless kafka.queued.max.messages.kbytes says otherwise).
 *
 * Brokers that cannot be reached: at the start, a clear error once
 * `timeout` passed; during the run, librdkafka retries, and when all
 * brokers stayed down for `timeout` the run ends with the reason.
 */
#include "air_int.h"

#include <librdkafka/rdkafka.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define KAFKA_BATCH 1024          /* messages taken from librdkafka at once */
#define KAFKA_QUEUE_KB "16384"    /* librdkafka's prefetch bound per consumer */

typedef struct Part {
  int j;           /* its number among every topic's partitions (rank j mod N reads it) */
  int topic;       /* index into topics */
  int32_t id;      /* partition number */
  int64_t start;   /* first offset (or RD_KAFKA_OFFSET_*) */
  int64_t end;     /* end = 'latest': the offset it ends before, else -1 */
  int64_t next;    /* offset of the next message expected */
  int64_t maxts;   /* largest event time read, or AIR_WM_NONE (the csv reader keeps it) */
  int64_t last_ms; /* wall clock of its last message (or of the start) */
  bool done;       /* at its end */
} Part;

struct AirKafka {
  AirRuntime *rt;
  rd_kafka_t *rk;
  rd_kafka_queue_t *q;
  char *who;         /* "stream 'x'" for messages */
  char *brokers;
  char **topics;
  int ntopics;
  Part *parts;       /* this rank's */
  int nparts;
  int ndone;
  bool group;
  bool until_end;
  int64_t idle_ms;   /* -1: never idle */
  int64_t timeout_ms;
  rd_kafka_message_t *batch[KAFKA_BATCH];
  int nbatch, at;    /* messages in batch, the next one */
  rd_kafka_message_t *held; /* the message the reader has, destroyed at the next */
  bool reassign;     /* resumed: assign the partitions again, at the checkpoint's offsets */
  const void *last_rkt; /* a cache for part_of */
  int last_topic;
  atomic_llong down_since; /* ms when all brokers went down, 0 while up */
  char down_why[256];
  int64_t last_probe;
  int64_t lag_ms;    /* wall clock of the last lag measurement */
};

static void set_err(char *err, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void set_err(char *err, size_t n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, n, fmt, ap);
  va_end(ap);
}

static void on_error(rd_kafka_t *rk, int e, const char *reason, void *opaque) {
  (void)rk;
  AirKafka *k = opaque;
  if (e == RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN || e == RD_KAFKA_RESP_ERR__TRANSPORT ||
      e == RD_KAFKA_RESP_ERR__RESOLVE) {
    long long zero = 0;
    snprintf(k->down_why, sizeof k->down_why, "%s", reason);
    atomic_compare_exchange_strong(&k->down_since, &zero, (long long)air_now_ms());
  }
}

/* The consumer lag, as the progress line and --stats show it: messages
 * between the next offset of each of this rank's partitions and the
 * newest offset the brokers reported (librdkafka's cached high watermark,
 * refreshed by every fetch: no request of its own). While running, a
 * partition not fetched from yet counts nothing; at the end (ask), its
 * offsets are asked of the brokers (500 ms at most). */
static void measure(AirKafka *k, bool ask) {
  int64_t lag = 0;
  for (int i = 0; i < k->nparts; i++) {
    const Part *p = &k->parts[i];
    int64_t lo = -1, hi = -1;
    if ((rd_kafka_get_watermark_offsets(k->rk, k->topics[p->topic], p->id, &lo, &hi) || hi < 0) &&
        (!ask || rd_kafka_query_watermark_offsets(k->rk, k->topics[p->topic], p->id, &lo, &hi, 500) || hi < 0))
      continue;
    int64_t at = p->next >= 0 ? p->next : p->next == RD_KAFKA_OFFSET_END ? hi : lo;
    if (p->end >= 0 && hi > p->end) hi = p->end; /* end = 'latest': nothing past it is read */
    if (at >= 0 && hi > at) lag += hi - at;
  }
  air_stat_set(k->rt, AIR_STAT_SOURCE_LAG, lag);
  k->lag_ms = air_now_ms();
}

static void measure_lag(AirKafka *k) { measure(k, true); }

static void kafka_free(AirKafka *k) {
  if (!k) return;
  for (int i = k->at; i < k->nbatch; i++) rd_kafka_message_destroy(k->batch[i]);
  if (k->held) rd_kafka_message_destroy(k->held);
  if (k->q) rd_kafka_queue_destroy(k->q);
  if (k->rk) {
    if (k->group) {
      rd_kafka_commit(k->rk, NULL, 0);
      rd_kafka_consumer_close(k->rk);
    }
    rd_kafka_destroy(k->rk);
  }
  for (int i = 0; i < k->ntopics; i++) free(k->topics[i]);
  free(k->topics);
  free(k->parts);
  free(k->who);
  free(k->brokers);
  free(k);
}

/* `start`'s offset for one partition: "earliest", "latest", or a list of
 * [topic:]partition:offset entries (partitions not named: earliest). */
static int64_t start_offset(const char *start, const char *topic, int32_t id) {
  if (!start || strcmp(start, "earliest") == 0) return RD_KAFKA_OFFSET_BEGINNING;
  if (strcmp(start, "latest") == 0) return RD_KAFKA_OFFSET_END;
  const char *p = start;
  while (*p) {
    const char *e = strchr(p, ',');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    char item[300];
    if (n < sizeof item) {
      memcpy(item, p, n);
      item[n] = '\0';
      char *c2 = strrchr(item, ':');
      if (c2) {
        *c2 = '\0';
        char *c1 = strrchr(item, ':');
        const char *t = c1 ? item : NULL;
        const char *ps = c1 ? c1 + 1 : item;
        if (c1) *c1 = '\0';
        if ((!t || strcmp(t, topic) == 0) && atol(ps) == id) return atoll(c2 + 1);
      }
    }
    p += n;
    if (*p == ',') p++;
  }
  return RD_KAFKA_OFFSET_BEGINNING;
}

static int cmp_part(const void *a, const void *b) {
  const Part *x = a, *y = b;
  if (x->topic != y->topic) return x->topic - y->topic;
  return (x->id > y->id) - (x->id < y->id);
}

static AirKafka *kafka_open(AirRuntime *rt, const AirKafkaDef *d, const char *stream, char *err, size_t nerr) {
  AirKafka *k = calloc(1, sizeof *k);
  if (!k) air_oom("kafka consumer");
  k->rt = rt;
  char who[300];
  snprintf(who, sizeof who, "stream '%s'", stream);
  k->who = strdup(who);
  k->brokers = strdup(d->brokers);
  k->group = d->group && d->group[0];
  k->until_end = d->until_end;
  k->idle_ms = d->idle_ms;
  k->timeout_ms = d->timeout_ms > 0 ? d->timeout_ms : 30000;
  k->last_topic = -1;
  /* the topics, comma-separated */
  for (const char *p = d->topics; *p;) {
    const char *e = strchr(p, ',');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    char **t = realloc(k->topics, (size_t)(k->ntopics + 1) * sizeof *t);
    if (!t) air_oom("kafka topics");
    k->topics = t;
    k->topics[k->ntopics] = strndup(p, n);
    if (!k->topics[k->ntopics]) air_oom("kafka topics");
    k->ntopics++;
    p += n;
    if (*p == ',') p++;
  }

  char e2[512];
  rd_kafka_conf_t *conf = rd_kafka_conf_new();
  char tmo[32];
  snprintf(tmo, sizeof tmo, "%lld", (long long)k->timeout_ms);
  struct {
    const char *k, *v;
  } base[] = {
      {"bootstrap.servers", d->brokers},
      {"client.id", "airc"},
      {"enable.partition.eof", "false"},
      {"queued.max.messages.kbytes", KAFKA_QUEUE_KB},
      {"socket.connection.setup.timeout.ms", tmo},
      {"log_level", "3"},
      {"group.id", k->group ? d->group : "airc"},
      {"enable.auto.commit", k->group ? "true" : "false"},
      {"auto.offset.reset", "earliest"},
  };
  for (size_t i = 0; i < sizeof base / sizeof base[0]; i++)
    if (rd_kafka_conf_set(conf, base[i].k, base[i].v, e2, sizeof e2) != RD_KAFKA_CONF_OK) {
      set_err(err, nerr, "%s: kafka: %s", who, e2);
      goto fail_conf;
    }
  for (int i = 0; i < d->nprops; i++)
    if (rd_kafka_conf_set(conf, d->props[2 * i], d->props[2 * i + 1], e2, sizeof e2) != RD_KAFKA_CONF_OK) {
      set_err(err, nerr, "%s: option 'kafka.%s': %s", who, d->props[2 * i], e2);
      goto fail_conf;
    }
  rd_kafka_conf_set_error_cb(conf, on_error);
  rd_kafka_conf_set_opaque(conf, k);
  k->rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, e2, sizeof e2);
  if (!k->rk) {
    set_err(err, nerr, "%s: kafka: %s", who, e2);
    goto fail_conf;
  }
  rd_kafka_poll_set_consumer(k->rk);

  /* every partition of every topic, numbered in order */
  int64_t deadline = air_now_ms() + k->timeout_ms;
  int total = 0, mine = 0;
  for (int t = 0; t < k->ntopics; t++) {
    rd_kafka_topic_t *rkt = rd_kafka_topic_new(k->rk, k->topics[t], NULL);
    const struct rd_kafka_metadata *md = NULL;
    rd_kafka_resp_err_t e = RD_KAFKA_RESP_ERR__TIMED_OUT;
    /* a broker that is not up yet: ask again until the timeout */
    for (;;) {
      int64_t left = deadline - air_now_ms();
      e = rd_kafka_metadata(k->rk, 0, rkt, &md, left > 100 ? (int)left : 100);
      if (e == RD_KAFKA_RESP_ERR_NO_ERROR || air_now_ms() >= deadline) break;
    }
    if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
      rd_kafka_topic_destroy(rkt);
      set_err(err, nerr, "%s: cannot reach the kafka brokers '%s' within %lld ms (option 'timeout'): %s%s%s",
              who, d->brokers, (long long)k->timeout_ms, rd_kafka_err2str(e), k->down_why[0] ? ": " : "",
              k->down_why);
      goto fail;
    }
    const rd_kafka_metadata_topic_t *mt = md->topic_cnt > 0 ? &md->topics[0] : NULL;
    if (!mt || mt->err || mt->partition_cnt == 0) {
      set_err(err, nerr, "%s: kafka topic '%s' on '%s': %s", who, k->topics[t], d->brokers,
              mt && mt->err ? rd_kafka_err2str(mt->err) : "it has no partitions");
      rd_kafka_metadata_destroy(md);
      rd_kafka_topic_destroy(rkt);
      goto fail;
    }
    Part *all = calloc((size_t)mt->partition_cnt, sizeof *all);
    if (!all) air_oom("kafka partitions");
    for (int i = 0; i < mt->partition_cnt; i++) all[i] = (Part){.topic = t, .id = mt->partitions[i].id};
    qsort(all, (size_t)mt->partition_cnt, sizeof *all, cmp_part);
    for (int i = 0; i < mt->partition_cnt; i++, total++) {
      if (total % air_world(rt) != air_rank(rt)) continue;
      all[i].j = total;
      Part *np = realloc(k->parts, (size_t)(mine + 1) * sizeof *np);
      if (!np) air_oom("kafka partitions");
      k->parts = np;
      k->parts[mine++] = all[i];
    }
    free(all);
    rd_kafka_metadata_destroy(md);
    rd_kafka_topic_destroy(rkt);
  }
  k->nparts = mine;

  rd_kafka_topic_partition_list_t *list = rd_kafka_topic_partition_list_new(mine > 0 ? mine : 1);
  for (int i = 0; i < mine; i++)
    rd_kafka_topic_partition_list_add(list, k->topics[k->parts[i].topic], k->parts[i].id);
  if (k->group && mine > 0) {
    int64_t left = deadline - air_now_ms();
    rd_kafka_resp_err_t e = rd_kafka_committed(k->rk, list, left > 1000 ? (int)left : 1000);
    if (e) {
      set_err(err, nerr, "%s: cannot read the committed offsets of group '%s': %s", who, d->group,
              rd_kafka_err2str(e));
      rd_kafka_topic_partition_list_destroy(list);
      goto fail;
    }
  }
  int64_t now = air_now_ms();
  for (int i = 0; i < mine; i++) {
    Part *p = &k->parts[i];
    rd_kafka_topic_partition_t *tp = &list->elems[i];
    int64_t committed = k->group && tp->err == 0 ? tp->offset : RD_KAFKA_OFFSET_INVALID;
    p->start = committed >= 0 ? committed : start_offset(d->start, k->topics[p->topic], p->id);
    p->maxts = AIR_WM_NONE;
    p->last_ms = now;
    p->end = -1;
    if (k->until_end) {
      int64_t lo = 0, hi = 0;
      int64_t left = deadline - air_now_ms();
      rd_kafka_resp_err_t e = rd_kafka_query_watermark_offsets(k->rk, k->topics[p->topic], p->id, &lo, &hi,
                                                               left > 1000 ? (int)left : 1000);
      if (e) {
        set_err(err, nerr, "%s: cannot read the end offsets of topic '%s' partition %d: %s", who,
                k->topics[p->topic], p->id, rd_kafka_err2str(e));
        rd_kafka_topic_partition_list_destroy(list);
        goto fail;
      }
      p->end = hi;
      if (p->start == RD_KAFKA_OFFSET_BEGINNING || p->start < lo) p->start = lo;
      if (p->start == RD_KAFKA_OFFSET_END || p->start > hi) p->start = hi;
      p->done = p->start >= hi;
      k->ndone += p->done;
    }
    p->next = p->start;
    tp->offset = p->start;
  }
  if (mine > 0) {
    rd_kafka_resp_err_t e = rd_kafka_assign(k->rk, list);
    if (e) {
      set_err(err, nerr, "%s: cannot assign the partitions: %s", who, rd_kafka_err2str(e));
      rd_kafka_topic_partition_list_destroy(list);
      goto fail;
    }
  }
  rd_kafka_topic_partition_list_destroy(list);
  k->q = rd_kafka_queue_get_consumer(k->rk);
  atomic_store(&k->down_since, 0);
  k->down_why[0] = '\0';
  return k;

fail_conf:
  rd_kafka_conf_destroy(conf);
fail:
  kafka_free(k);
  return NULL;
}

static int part_of(AirKafka *k, const rd_kafka_message_t *m) {
  if (m->rkt != k->last_rkt) {
    const char *name = rd_kafka_topic_name(m->rkt);
    k->last_topic = -1;
    for (int t = 0; t < k->ntopics; t++)
      if (strcmp(name, k->topics[t]) == 0) k->last_topic = t;
    k->last_rkt = m->rkt;
  }
  for (int i = 0; i < k->nparts; i++)
    if (k->parts[i].topic == k->last_topic && k->parts[i].id == m->partition) return i;
  return -1;
}

/* All brokers down for longer than the timeout ends the run. While they
 * are down, a metadata request once a second tells when one is back. */
static void check_down(AirKafka *k) {
  long long since = atomic_load(&k->down_since);
  if (!since) return;
  int64_t now = air_now_ms();
  if (now - k->last_probe >= 1000) {
    k->last_probe = now;
    const struct rd_kafka_metadata *md = NULL;
    if (rd_kafka_metadata(k->rk, 0, NULL, &md, 200) == RD_KAFKA_RESP_ERR_NO_ERROR) {
      rd_kafka_metadata_destroy(md);
      atomic_store(&k->down_since, 0);
      return;
    }
  }
  if (now - since > k->timeout_ms)
    air_fatal(k->rt, "%s: the kafka brokers '%s' were unreachable for more than %lld ms (option 'timeout'): %s",
              k->who, k->brokers, (long long)k->timeout_ms, k->down_why);
}

/* The next message of this rank's partitions: 1 (in *m, valid until the
 * next call), 0 when none came within timeout_ms, -1 when every partition
 * is at its end (end = 'latest'; a rank without partitions at once). */
static void reassign(AirKafka *k);

static int kafka_next(AirKafka *k, int timeout_ms, AirKafkaMsg *m) {
  if (k->reassign) { /* resumed: the checkpoint's offsets, assigned once */
    k->reassign = false;
    reassign(k);
  }
  if (k->held) {
    rd_kafka_message_destroy(k->held);
    k->held = NULL;
  }
  if (k->nparts == 0 || (k->until_end && k->ndone == k->nparts)) return -1;
  for (;;) {
    if (k->at == k->nbatch) {
      check_down(k);
      if (air_now_ms() - k->lag_ms >= 250) measure(k, false);
      k->at = 0;
      ssize_t n = rd_kafka_consume_batch_queue(k->q, timeout_ms, k->batch, KAFKA_BATCH);
      k->nbatch = n > 0 ? (int)n : 0;
      if (k->nbatch == 0) return 0;
    }
    rd_kafka_message_t *msg = k->batch[k->at++];
    int pi = part_of(k, msg);
    if (msg->err) {
      if (msg->err != RD_KAFKA_RESP_ERR__PARTITION_EOF)
        air_fatal(k->rt, "%s: kafka topic '%s' partition %d: %s", k->who,
                  msg->rkt ? rd_kafka_topic_name(msg->rkt) : "?", msg->partition, rd_kafka_message_errstr(msg));
      rd_kafka_message_destroy(msg);
      continue;
    }
    Part *p = pi >= 0 ? &k->parts[pi] : NULL;
    /* a message past a partition's end (end = 'latest'), or of no partition of ours */
    if (!p || p->done || (p->end >= 0 && msg->offset >= p->end)) {
      rd_kafka_message_destroy(msg);
      continue;
    }
    if (msg->offset < p->next) { /* fetched before a checkpoint's offset was assigned: read then */
      rd_kafka_message_destroy(msg);
      continue;
    }
    atomic_store(&k->down_since, 0);
    p->next = msg->offset + 1;
    p->last_ms = air_now_ms();
    if (p->end >= 0 && p->next >= p->end) {
      p->done = true;
      k->ndone++;
    }
    rd_kafka_timestamp_type_t tt;
    int64_t ts = rd_kafka_message_timestamp(msg, &tt);
    k->held = msg;
    *m = (AirKafkaMsg){.p = msg->payload, .n = msg->payload ? msg->len : 0, .part = pi,
                       .offset = msg->offset, .ts = ts >= 0 ? ts : AIR_WM_NONE};
    return 1;
  }
}

static int64_t *kafka_maxts(AirKafka *k, int part) { return &k->parts[part].maxts; }

static int64_t minus(int64_t ts, int64_t bound) {
  int64_t wm;
  if (ts == AIR_WM_NONE || __builtin_sub_overflow(ts, bound, &wm)) return AIR_WM_NONE;
  return wm;
}

/* The minimum of W_p over the partitions still holding the watermark;
 * AIR_WM_END when none does (all at their end or idle: the caller keeps
 * what it sent). */
static int64_t kafka_wm(AirKafka *k, int64_t bound) {
  int64_t now = air_now_ms(), m = AIR_WM_END;
  for (int i = 0; i < k->nparts; i++) {
    const Part *p = &k->parts[i];
    if (p->done || (k->idle_ms >= 0 && now - p->last_ms >= k->idle_ms)) continue;
    int64_t w = minus(p->maxts, bound);
    if (w < m) m = w;
  }
  return m;
}

static void kafka_where(const AirKafka *k, int part, int64_t offset, char *buf, size_t n) {
  if (part < 0 || part >= k->nparts)
    snprintf(buf, n, "kafka");
  else
    snprintf(buf, n, "kafka topic '%s' partition %d offset %lld", k->topics[k->parts[part].topic],
             k->parts[part].id, (long long)offset);
}

/* ---- checkpoints ---------------------------------------------------------
 * A partition's state is its next offset and its largest event time (its
 * watermark); it goes with the partition to the rank that reads it now. */
static void kafka_save(AirKafka *k, AirCkptW *w) {
  air_ckpt_put_i64(w, k->nparts);
  for (int i = 0; i < k->nparts; i++) {
    const Part *p = &k->parts[i];
    int64_t v[5] = {p->j, p->topic, p->id, p->next, p->maxts};
    air_ckpt_put(w, v, sizeof v);
  }
}

/* This rank's partitions from their offsets (after a load or a seek). */
static void reassign(AirKafka *k) {
  rd_kafka_topic_partition_list_t *list = rd_kafka_topic_partition_list_new(k->nparts > 0 ? k->nparts : 1);
  k->ndone = 0;
  for (int i = 0; i < k->nparts; i++) {
    Part *p = &k->parts[i];
    if (p->end >= 0 && p->next >= p->end) p->done = true;
    k->ndone += p->done;
    rd_kafka_topic_partition_list_add(list, k->topics[p->topic], p->id)->offset = p->next;
  }
  rd_kafka_resp_err_t e = k->nparts > 0 ? rd_kafka_assign(k->rk, list) : RD_KAFKA_RESP_ERR_NO_ERROR;
  rd_kafka_topic_partition_list_destroy(list);
  if (e) air_fatal(k->rt, "%s: cannot assign the partitions at the checkpoint's offsets: %s", k->who, rd_kafka_err2str(e));
}

static void kafka_load(AirKafka *k, AirCkptR *r) {
  int64_t n = air_ckpt_get_i64(r);
  for (int64_t i = 0; i < n; i++) {
    int64_t v[5];
    air_ckpt_get(r, v, sizeof v);
    for (int q = 0; q < k->nparts; q++) {
      Part *p = &k->parts[q];
      if (p->j != v[0]) continue;
      if (p->topic != v[1] || p->id != v[2])
        air_fatal(k->rt, "%s: the checkpoint's partitions are not the topics' now (partitions added?)", k->who);
      p->next = v[3];
      p->maxts = v[4];
    }
  }
  k->reassign = true; /* once every file is read: at the first message asked for */
}

static void kafka_seek(AirKafka *k, const int64_t *pos, int n) {
  for (int q = 0; q < k->nparts; q++)
    if (pos[k->parts[q].j % n] == INT64_MAX) k->parts[q].done = true; /* its reader had read it to its end */
  k->reassign = true;
}

const AirKafkaOps air_kafka_ops = {
    .save = kafka_save,
    .load = kafka_load,
    .seek = kafka_seek,
    .open = kafka_open,
    .next = kafka_next,
    .maxts = kafka_maxts,
    .wm = kafka_wm,
    .where = kafka_where,
    .close = kafka_free,
    .lag = measure_lag,
};

/* ---- sink = 'kafka' ------------------------------------------------------
 *
 * The collector writes its rows, as it would to a file, into a FILE made
 * with fopencookie: each line is one message, its value the line without
 * its line end, its key the row's group key (the result columns the query
 * names as key_fields, as written in the line: CSV fields joined by ',', or
 * a JSON object of those members). The producer is idempotent (no
 * duplicates from its own retries) with acks = all; a message librdkafka
 * could not deliver within `timeout` (message.timeout.ms) makes the next
 * write fail, and the run ends with the reason; at the end every message
 * must be delivered within `timeout` too, or the run fails. A full
 * producer queue waits (backpressure), it does not drop.
 *
 * An updating query's lines start with their change (ops): the messages
 * are upserts keyed by the group key, as a compacted topic keeps a table:
 * +I and +U the row without the op, -D a tombstone (no value), -U none. */

typedef struct KSink {
  AirRuntime *rt;
  rd_kafka_t *rk;
  char *topic;
  const AirKafkaSinkDef *def;
  AirLines lines;     /* the line being written */
  char *key;          /* its key */
  size_t kcap;
  atomic_int failed;  /* a delivery failed */
  char why[512];      /* ... why (the first) */
  long long delivered;
} KSink;

static void on_delivery(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque) {
  (void)rk;
  KSink *s = opaque;
  if (m->err) {
    if (!atomic_exchange(&s->failed, 1))
      snprintf(s->why, sizeof s->why, "kafka sink '%s': a message was not delivered: %s", s->topic,
               rd_kafka_err2str(m->err));
  } else {
    s->delivered++;
  }
}

/* The key of one line: fields key_fields of a CSV line (quotes kept), or
 * members of a JSON object line, found by a scan that knows strings. */
static size_t line_key(const KSink *s, const char *p, size_t n, char *out, size_t cap) {
  const AirKafkaSinkDef *d = s->def;
  size_t at = 0, start = d->json ? 1 : 0;
  int field = 0;
  bool quoted = false;
  if (d->json && at < cap) out[at++] = '{';
  int written = 0;
  for (size_t i = start; i <= n; i++) {
    bool end = i == n || (!quoted && p[i] == ',') || (d->json && !quoted && p[i] == '}' && i + 1 == n);
    if (i < n && p[i] == '"') {
      if (d->json) {
        /* a backslash escapes the next byte */
        size_t b = 0;
        while (b < i && p[i - 1 - b] == '\\') b++;
        if (b % 2 == 0) quoted = !quoted;
      } else {
        quoted = !quoted;
      }
    }
    if (!end) continue;
    for (int k = 0; k < d->nkey; k++)
      if (d->key_fields[k] == field) {
        size_t len = i - start;
        if (written++ && at < cap) out[at++] = ',';
        if (at + len <= cap) { /* always: cap is the line's length + 3 */
          memcpy(out + at, p + start, len);
          at += len;
        }
      }
    field++;
    start = i + 1;
    if (d->json && i + 1 == n) break;
  }
  if (d->json && at < cap) out[at++] = '}';
  return at;
}

static void produce_line(KSink *s) {
  size_t n = s->lines.n;
  char *val = s->lines.p;
  bool tombstone = false;
  if (s->def->ops) { /* "+I,..." or {"op":"+I",...}: the change off, the row as the value */
    size_t at = s->def->json ? 7 : 0, skip = s->def->json ? 10 : 3;
    if (n <= skip) return;
    if (val[at] == '-' && val[at + 1] == 'U') return; /* the old row of an update: its +U follows */
    tombstone = val[at] == '-';
    if (s->def->json) val[skip] = '{'; /* the comma after the op becomes the object's brace */
    val += skip;
    n -= skip;
  }
  /* a key is part of its line, and braces: room for all of it */
  if (n + 3 > s->kcap) {
    char *k = realloc(s->key, n + 3);
    if (!k) air_oom("kafka sink key");
    s->key = k;
    s->kcap = n + 3;
  }
  char *key = s->key;
  size_t kn = s->def->nkey > 0 ? line_key(s, val, n, key, s->kcap) : 0;
  for (;;) {
    rd_kafka_resp_err_t e = rd_kafka_producev(
        s->rk, RD_KAFKA_V_TOPIC(s->topic), RD_KAFKA_V_VALUE(tombstone ? NULL : val, tombstone ? 0 : n),
        RD_KAFKA_V_KEY(kn ? key : NULL, kn),
        RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
    if (e == RD_KAFKA_RESP_ERR_NO_ERROR) break;
    if (e != RD_KAFKA_RESP_ERR__QUEUE_FULL) {
      if (!atomic_exchange(&s->failed, 1))
        snprintf(s->why, sizeof s->why, "kafka sink '%s': cannot produce: %s", s->topic, rd_kafka_err2str(e));
      return;
    }
    rd_kafka_poll(s->rk, 100); /* a full queue: wait for deliveries */
    if (atomic_load(&s->failed)) return;
  }
  rd_kafka_poll(s->rk, 0);
}

static void ksink_line(void *ctx, const char *p, size_t n) {
  (void)p;
  (void)n; /* the line is s->lines' own buffer */
  produce_line(ctx);
}

static ssize_t ksink_write(void *cookie, const char *buf, size_t size) {
  KSink *s = cookie;
  air_lines_feed(&s->lines, buf, size, ksink_line, s);
  if (atomic_load(&s->failed)) {
    errno = EIO;
    return -1;
  }
  return (ssize_t)size;
}

static int ksink_close(void *cookie) {
  KSink *s = cookie;
  rd_kafka_destroy(s->rk);
  air_lines_free(&s->lines);
  free(s->key);
  free(s->topic);
  free(s);
  return 0;
}

static void *ksink_open(AirRuntime *rt, const void *def, FILE **out, char *err, size_t nerr) {
  const AirKafkaSinkDef *d = def;
  KSink *s = calloc(1, sizeof *s);
  if (!s) air_oom("kafka sink");
  s->rt = rt;
  s->def = d;
  s->lines.json = d->json;
  s->topic = strdup(d->topic);
  char e2[512], tmo[32];
  snprintf(tmo, sizeof tmo, "%lld", (long long)(d->timeout_ms > 0 ? d->timeout_ms : 30000));
  rd_kafka_conf_t *conf = rd_kafka_conf_new();
  struct {
    const char *k, *v;
  } base[] = {
      {"bootstrap.servers", d->brokers}, {"client.id", "airc"},          {"enable.idempotence", "true"},
      {"acks", "all"},                   {"message.timeout.ms", tmo},   {"log_level", "3"},
  };
  for (size_t i = 0; i < sizeof base / sizeof base[0]; i++)
    if (rd_kafka_conf_set(conf, base[i].k, base[i].v, e2, sizeof e2) != RD_KAFKA_CONF_OK) {
      set_err(err, nerr, "kafka sink '%s': %s", d->topic, e2);
      goto fail;
    }
  for (int i = 0; i < d->nprops; i++)
    if (rd_kafka_conf_set(conf, d->props[2 * i], d->props[2 * i + 1], e2, sizeof e2) != RD_KAFKA_CONF_OK) {
      set_err(err, nerr, "kafka sink '%s': option 'kafka.%s': %s", d->topic, d->props[2 * i], e2);
      goto fail;
    }
  rd_kafka_conf_set_dr_msg_cb(conf, on_delivery);
  rd_kafka_conf_set_opaque(conf, s);
  s->rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, e2, sizeof e2);
  if (!s->rk) {
    set_err(err, nerr, "kafka sink '%s': %s", d->topic, e2);
    goto fail;
  }
  conf = NULL;
  /* the brokers, now: a sink that cannot be reached fails before the run */
  const struct rd_kafka_metadata *md = NULL;
  rd_kafka_resp_err_t e = RD_KAFKA_RESP_ERR__TIMED_OUT;
  int64_t deadline = air_now_ms() + (d->timeout_ms > 0 ? d->timeout_ms : 30000);
  while (air_now_ms() < deadline) {
    int64_t left = deadline - air_now_ms();
    e = rd_kafka_metadata(s->rk, 1, NULL, &md, left > 100 ? (int)left : 100);
    if (e == RD_KAFKA_RESP_ERR_NO_ERROR) break;
  }
  if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
    set_err(err, nerr, "kafka sink '%s': cannot reach the kafka brokers '%s' within %lld ms (option 'timeout'): %s",
            d->topic, d->brokers, (long long)(d->timeout_ms > 0 ? d->timeout_ms : 30000), rd_kafka_err2str(e));
    goto fail;
  }
  rd_kafka_metadata_destroy(md);
  cookie_io_functions_t io = {.write = ksink_write, .close = ksink_close};
  FILE *f = fopencookie(s, "w", io);
  if (!f) {
    set_err(err, nerr, "kafka sink '%s': %s", d->topic, strerror(errno));
    goto fail;
  }
  *out = f;
  return s;
fail:
  if (conf) rd_kafka_conf_destroy(conf);
  if (s->rk) rd_kafka_destroy(s->rk);
  free(s->topic);
  free(s);
  return NULL;
}

/* Every message delivered within the timeout, or why not. The FILE is
 * flushed first; it is closed by the caller. */
static bool ksink_finish(void *sink, FILE *f, char *why, size_t n) {
  KSink *s = sink;
  fflush(f);
  int64_t tmo = s->def->timeout_ms > 0 ? s->def->timeout_ms : 30000;
  rd_kafka_flush(s->rk, (int)tmo);
  int left = rd_kafka_outq_len(s->rk);
  if (atomic_load(&s->failed)) {
    snprintf(why, n, "%s", s->why);
    return false;
  }
  if (left > 0) {
    snprintf(why, n, "kafka sink '%s': %d messages not delivered within %lld ms (option 'timeout')", s->topic, left,
             (long long)tmo);
    return false;
  }
  return true;
}

static const char *ksink_error(const void *sink) {
  const KSink *s = sink;
  return s && s->why[0] ? s->why : "write error";
}

const AirSinkOps air_kafka_sink_ops = {
    .open = ksink_open,
    .finish = ksink_finish,
    .error = ksink_error,
};

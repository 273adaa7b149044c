/* kafka_tool.c - the Kafka bench's helpers (make bench-kafka, bench/kafka_bench.py):
 *
 *   kafka_tool load BROKERS TOPIC PARTITIONS N
 *       N messages "key,v,ts" (key 0..999, ts = i ms) spread round-robin
 *       over the partitions, delivered before it exits.
 *   kafka_tool load-ysb BROKERS TOPIC PARTITIONS N
 *       N YSB ad events as the original benchmark's generator writes them,
 *       one JSON object per message (user_id, page_id, ad_id, ad_type,
 *       event_type, event_time, ip_address), event_time = i ms, ad_id one
 *       of 1000 ads (ysb_ad below), event_type view, click or purchase.
 *   kafka_tool ads
 *       the campaigns as the original benchmark keeps them in Redis, as
 *       redis-cli commands (SET ad_id campaign_id, 10 ads a campaign).
 *   kafka_tool consume BROKERS TOPIC
 *       the ceiling for source = 'kafka': a bare librdkafka consumer of
 *       every partition from its first offset to the end it has now,
 *       touching each value's bytes (a sum), one line of JSON with the
 *       messages and messages/s.
 */
#include <librdkafka/rdkafka.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void conf(rd_kafka_conf_t *c, const char *k, const char *v) {
  char err[256];
  if (rd_kafka_conf_set(c, k, v, err, sizeof err) != RD_KAFKA_CONF_OK) {
    fprintf(stderr, "kafka_tool: %s\n", err);
    exit(1);
  }
}

/* The ids of YSB's 1000 ads and 100 campaigns, UUID-shaped (36 chars). */
static void ysb_ad(char *buf, size_t n, int ad) { snprintf(buf, n, "a0000000-0000-4000-8000-%012d", ad); }
static void ysb_campaign(char *buf, size_t n, int ad) { snprintf(buf, n, "c0000000-0000-4000-8000-%012d", ad / 10); }

static int ads(void) {
  for (int i = 0; i < 1000; i++) {
    char a[40], c[40];
    ysb_ad(a, sizeof a, i);
    ysb_campaign(c, sizeof c, i);
    printf("SET %s %s\n", a, c);
  }
  return 0;
}

/* Message i of a load: SWA's "key,v,ts" or a YSB event. */
static int message(char *line, size_t n, bool ysb, long i, unsigned long long *x) {
  *x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
  if (!ysb) return snprintf(line, n, "%llu,%llu,%ld", (*x >> 33) % 1000, (*x >> 20) % 100, i);
  static const char *const types[] = {"view", "click", "purchase"};
  char ad[40];
  ysb_ad(ad, sizeof ad, (int)((*x >> 33) % 1000));
  unsigned long long u = *x >> 11;
  return snprintf(line, n,
                  "{\"user_id\":\"%08llx-0000-4000-8000-%012llx\",\"page_id\":\"%08llx-0000-4000-8000-%012llx\","
                  "\"ad_id\":\"%s\",\"ad_type\":\"banner\",\"event_type\":\"%s\",\"event_time\":%ld,"
                  "\"ip_address\":\"1.2.3.4\"}",
                  u & 0xffffffffULL, u % 1000003ULL, (u >> 7) & 0xffffffffULL, u % 999983ULL, ad,
                  types[(*x >> 40) % 3], i);
}

static int load(const char *brokers, const char *topic, int parts, long n, bool ysb) {
  char err[256];
  rd_kafka_conf_t *c = rd_kafka_conf_new();
  conf(c, "bootstrap.servers", brokers);
  conf(c, "linger.ms", "20");
  conf(c, "batch.num.messages", "10000");
  conf(c, "queue.buffering.max.messages", "1000000");
  rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, c, err, sizeof err);
  if (!rk) {
    fprintf(stderr, "kafka_tool: %s\n", err);
    return 1;
  }
  unsigned long long x = 7;
  for (long i = 0; i < n; i++) {
    char line[320];
    int len = message(line, sizeof line, ysb, i, &x);
    for (;;) {
      rd_kafka_resp_err_t e = rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_PARTITION((int)(i % parts)),
                                                RD_KAFKA_V_VALUE(line, (size_t)len),
                                                RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
      if (e == RD_KAFKA_RESP_ERR_NO_ERROR) break;
      if (e != RD_KAFKA_RESP_ERR__QUEUE_FULL) {
        fprintf(stderr, "kafka_tool: %s\n", rd_kafka_err2str(e));
        return 1;
      }
      rd_kafka_poll(rk, 10);
    }
    rd_kafka_poll(rk, 0);
  }
  rd_kafka_flush(rk, 60000);
  int left = rd_kafka_outq_len(rk);
  rd_kafka_destroy(rk);
  if (left) fprintf(stderr, "kafka_tool: %d messages not delivered\n", left);
  return left ? 1 : 0;
}

static int consume(const char *brokers, const char *topic) {
  char err[256];
  rd_kafka_conf_t *c = rd_kafka_conf_new();
  conf(c, "bootstrap.servers", brokers);
  conf(c, "group.id", "kafka_tool");
  conf(c, "enable.auto.commit", "false");
  conf(c, "queued.max.messages.kbytes", "16384"); /* as airc sets it */
  rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_CONSUMER, c, err, sizeof err);
  if (!rk) {
    fprintf(stderr, "kafka_tool: %s\n", err);
    return 1;
  }
  rd_kafka_poll_set_consumer(rk);
  rd_kafka_topic_t *rkt = rd_kafka_topic_new(rk, topic, NULL);
  const struct rd_kafka_metadata *md;
  if (rd_kafka_metadata(rk, 0, rkt, &md, 10000) || md->topic_cnt < 1) {
    fprintf(stderr, "kafka_tool: no metadata\n");
    return 1;
  }
  int np = md->topics[0].partition_cnt;
  rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(np);
  long total = 0;
  for (int i = 0; i < np; i++) {
    int32_t p = md->topics[0].partitions[i].id;
    int64_t lo, hi;
    rd_kafka_query_watermark_offsets(rk, topic, p, &lo, &hi, 10000);
    total += (long)(hi - lo);
    rd_kafka_topic_partition_list_add(l, topic, p)->offset = lo;
  }
  rd_kafka_metadata_destroy(md);
  rd_kafka_topic_destroy(rkt);
  double t0 = now_s();
  rd_kafka_assign(rk, l);
  rd_kafka_topic_partition_list_destroy(l);
  rd_kafka_queue_t *q = rd_kafka_queue_get_consumer(rk);
  rd_kafka_message_t *batch[1024];
  long got = 0;
  unsigned long sum = 0;
  while (got < total) {
    /* a short wait: the last, partial batch is not held back a second */
    ssize_t n = rd_kafka_consume_batch_queue(q, 10, batch, 1024);
    for (ssize_t i = 0; i < n; i++) {
      if (!batch[i]->err) {
        got++;
        const unsigned char *b = batch[i]->payload;
        for (size_t k = 0; k < batch[i]->len; k++) sum += b[k];
      }
      rd_kafka_message_destroy(batch[i]);
    }
  }
  double dt = now_s() - t0;
  printf("{\"messages\": %ld, \"seconds\": %.3f, \"messages_per_s\": %.0f, \"sum\": %lu}\n", got, dt,
         (double)got / dt, sum);
  rd_kafka_queue_destroy(q);
  rd_kafka_consumer_close(rk);
  rd_kafka_destroy(rk);
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 6 && strcmp(argv[1], "load") == 0) return load(argv[2], argv[3], atoi(argv[4]), atol(argv[5]), false);
  if (argc == 6 && strcmp(argv[1], "load-ysb") == 0)
    return load(argv[2], argv[3], atoi(argv[4]), atol(argv[5]), true);
  if (argc == 2 && strcmp(argv[1], "ads") == 0) return ads();
  if (argc == 4 && strcmp(argv[1], "consume") == 0) return consume(argv[2], argv[3]);
  fprintf(stderr, "usage: kafka_tool load|load-ysb BROKERS TOPIC PARTITIONS N | consume BROKERS TOPIC | ads\n");
  return 2;
}

/* mock_cluster.c - a Kafka cluster for the tests: librdkafka's mock cluster,
 * which speaks the real Kafka protocol on loopback TCP.
 *
 *   mock_cluster BROKERS TOPIC:PARTITIONS...
 *
 * Starts BROKERS brokers (ids 1..BROKERS) listening on 127.0.0.1, creates
 * the topics, prints the bootstrap list on one line and stays up. Commands
 * on standard input, one per line, each answered with "ok" or "error ...":
 *   down ID      the broker stops answering (rd_kafka_mock_broker_set_down)
 *   up ID        ... and answers again
 *   topic NAME:PARTITIONS   one more topic
 *   produce TOPIC PARTITION FILE   one message per line of FILE, each line
 *                "TIMESTAMP<TAB>VALUE": the message's timestamp (ms) is
 *                set, which kcat cannot do (the event time of a stream's
 *                METADATA FROM 'timestamp' column)
 * End of input (or SIGTERM) stops it. Nothing but loopback is used.
 */
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int make_topic(rd_kafka_mock_cluster_t *mc, const char *spec) {
  char name[256];
  const char *colon = strrchr(spec, ':');
  int parts = colon ? atoi(colon + 1) : 1;
  size_t n = colon ? (size_t)(colon - spec) : strlen(spec);
  if (n == 0 || n >= sizeof name || parts < 1) return -1;
  memcpy(name, spec, n);
  name[n] = '\0';
  return rd_kafka_mock_topic_create(mc, name, parts, 1) == RD_KAFKA_RESP_ERR_NO_ERROR ? 0 : -1;
}

/* produce TOPIC PARTITION FILE: through a producer of the cluster's own. */
static rd_kafka_resp_err_t produce(const char *bootstrap, const char *args) {
  char topic[256], path[1024];
  int part;
  if (sscanf(args, "%255s %d %1023s", topic, &part, path) != 3) return RD_KAFKA_RESP_ERR__INVALID_ARG;
  FILE *f = fopen(path, "r");
  if (!f) return RD_KAFKA_RESP_ERR__FS;
  char err[512];
  rd_kafka_conf_t *conf = rd_kafka_conf_new();
  rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap, err, sizeof err);
  rd_kafka_conf_set(conf, "log_level", "0", err, sizeof err);
  rd_kafka_t *p = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
  if (!p) {
    fclose(f);
    return RD_KAFKA_RESP_ERR__FAIL;
  }
  rd_kafka_resp_err_t e = RD_KAFKA_RESP_ERR_NO_ERROR;
  char line[4096];
  while (!e && fgets(line, sizeof line, f)) {
    line[strcspn(line, "\r\n")] = '\0';
    char *tab = strchr(line, '\t');
    if (!tab) {
      e = RD_KAFKA_RESP_ERR__INVALID_ARG;
      break;
    }
    *tab = '\0';
    long long ts = atoll(line);
    while ((e = rd_kafka_producev(p, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_PARTITION(part),
                                  RD_KAFKA_V_VALUE(tab + 1, strlen(tab + 1)), RD_KAFKA_V_TIMESTAMP(ts),
                                  RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END)) ==
           RD_KAFKA_RESP_ERR__QUEUE_FULL)
      rd_kafka_poll(p, 10);
  }
  fclose(f);
  if (!e) e = rd_kafka_flush(p, 30000);
  rd_kafka_destroy(p);
  return e;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: mock_cluster BROKERS [TOPIC:PARTITIONS...]\n");
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);
  char err[512];
  rd_kafka_conf_t *conf = rd_kafka_conf_new();
  /* the handle only keeps the cluster's books; it talks to nothing */
  if (rd_kafka_conf_set(conf, "bootstrap.servers", "", err, sizeof err) != RD_KAFKA_CONF_OK ||
      rd_kafka_conf_set(conf, "log_level", "0", err, sizeof err) != RD_KAFKA_CONF_OK) {
    fprintf(stderr, "mock_cluster: %s\n", err);
    return 1;
  }
  rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
  if (!rk) {
    fprintf(stderr, "mock_cluster: %s\n", err);
    return 1;
  }
  rd_kafka_mock_cluster_t *mc = rd_kafka_mock_cluster_new(rk, atoi(argv[1]));
  if (!mc) {
    fprintf(stderr, "mock_cluster: cannot start the cluster\n");
    return 1;
  }
  for (int i = 2; i < argc; i++)
    if (make_topic(mc, argv[i]) != 0) {
      fprintf(stderr, "mock_cluster: cannot create topic '%s'\n", argv[i]);
      return 1;
    }
  printf("%s\n", rd_kafka_mock_cluster_bootstraps(mc));
  fflush(stdout);
  char line[1400];
  while (fgets(line, sizeof line, stdin)) {
    line[strcspn(line, "\r\n")] = '\0';
    int id = 0;
    rd_kafka_resp_err_t e = RD_KAFKA_RESP_ERR_NO_ERROR;
    if (sscanf(line, "down %d", &id) == 1)
      e = rd_kafka_mock_broker_set_down(mc, id);
    else if (sscanf(line, "up %d", &id) == 1)
      e = rd_kafka_mock_broker_set_up(mc, id);
    else if (strncmp(line, "produce ", 8) == 0)
      e = produce(rd_kafka_mock_cluster_bootstraps(mc), line + 8);
    else if (strncmp(line, "topic ", 6) == 0)
      e = make_topic(mc, line + 6) == 0 ? RD_KAFKA_RESP_ERR_NO_ERROR : RD_KAFKA_RESP_ERR__INVALID_ARG;
    else
      e = RD_KAFKA_RESP_ERR__INVALID_ARG;
    if (e)
      printf("error %s\n", rd_kafka_err2str(e));
    else
      printf("ok\n");
    fflush(stdout);
  }
  rd_kafka_mock_cluster_destroy(mc);
  rd_kafka_destroy(rk);
  return 0;
}

/* air_optparse.h - the checks of option values that airc (sema_ddl.c, on
 * the query's WITH options) and libair (options.c, on --set overrides at
 * run time) share, with their messages, so that a value is refused with
 * the same words at compile time and at run time. Plain C, no MPI: airc
 * includes it; it is not installed (generated programs do not need it). */
#ifndef AIR_OPTPARSE_H
#define AIR_OPTPARSE_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "air_limits.h"

/* What follows "option 'key' " when a value is refused. */
#define AIR_MSG_EMPTY "must not be empty"
#define AIR_MSG_COUNT "must be a non-negative integer"
#define AIR_MSG_INT "must be an integer"
#define AIR_MSG_BOOL "must be true or false"
#define AIR_MSG_HEADER "must be true, false or 'skip'"
#define AIR_MSG_DURATION "must be a duration with its unit, such as '5 s', '500 ms' or '2 min'"
#define AIR_MSG_TIMEOUT_MIN "must be at least 1 ms"
#define AIR_MSG_HOSTPORT                                                                                         \
  "must be 'host:port' with a port from 1 to 65535 (an IPv6 address in brackets: '[::1]:9000'; no spaces)"
#define AIR_MSG_BROKERS "must be a list of brokers, 'host:port' or 'host:port,host:port' (no spaces)"
#define AIR_MSG_TOPICS "must be a topic name or several, 'a' or 'a,b' (letters, digits, '.', '_', '-')"
#define AIR_MSG_TOPIC "must be one topic name (letters, digits, '.', '_', '-')"
#define AIR_MSG_SINK_TOPIC "of a sink must be one topic name (letters, digits, '.', '_', '-')"
#define AIR_MSG_START                                                                                            \
  "must be 'earliest', 'latest' or offsets per partition, 'partition:offset,...' or "                         \
  "'topic:partition:offset,...' (partitions not named start at the earliest)"
#define AIR_MSG_END                                                                                              \
  "must be 'latest' (stop at the end offsets the run starts with) or 'none' (run until stopped, the default)"
#define AIR_MSG_BAD_ROWS "must be a count (an integer >= 0) or a percentage of the records ('0%' to '100%')"
#define AIR_MSG_START_TOPIC "option 'start' names topic '%.*s', which is not in topic = '%s'" /* printf */
#define AIR_MSG_PROP_NAME "a librdkafka property name is letters, digits, '.', '_' and '-'"

#define AIR_BROKER_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-:[],"
#define AIR_TOPIC_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-,"
#define AIR_PROP_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-"

/* A duration with its unit: '5 s', '500 ms', '2 min'. */
static inline bool air_parse_duration(const char *v, int64_t *ms) {
  char *end;
  errno = 0;
  long long n = strtoll(v, &end, 10);
  while (*end == ' ') end++;
  static const struct {
    const char *u;
    int64_t ms;
  } units[] = {{"ms", 1}, {"s", 1000}, {"sec", 1000}, {"second", 1000}, {"seconds", 1000},
               {"min", 60000}, {"minute", 60000}, {"minutes", 60000}};
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
    if (end != v && v[0] >= '0' && v[0] <= '9' && errno == 0 && strcasecmp(end, units[i].u) == 0 &&
        n <= INT64_MAX / 1000 / 60) {
      *ms = n * units[i].ms;
      return true;
    }
  return false;
}

/* host:port, the port a number from 1 to 65535, an IPv6 host in brackets. */
static inline bool air_parse_hostport(const char *v) {
  const char *colon = strrchr(v, ':');
  char *end = NULL;
  long port = colon ? strtol(colon + 1, &end, 10) : 0;
  bool spaces = strpbrk(v, " \t") != NULL;
  bool bare_v6 = colon && memchr(v, ':', (size_t)(colon - v)) && v[0] != '[';
  return !(!colon || colon == v || !colon[1] || *end || port < 1 || port > 65535 || spaces || bare_v6 ||
           (v[0] == '[' && colon[-1] != ']'));
}

/* A comma-separated list of words made of `allowed`, without blanks. */
static inline bool air_parse_list(const char *v, const char *allowed) {
  size_t n = strlen(v);
  return n > 0 && strspn(v, allowed) == n && v[0] != ',' && v[n - 1] != ',' && !strstr(v, ",,");
}

/* start: earliest, latest, or [topic:]partition:offset,... */
static inline bool air_parse_start(const char *v) {
  if (strcasecmp(v, "earliest") == 0 || strcasecmp(v, "latest") == 0) return true;
  bool ok = *v != '\0';
  for (const char *p = v; ok && *p;) {
    size_t n = strcspn(p, ",");
    /* the last two ':'-separated parts are numbers */
    const char *c2 = NULL, *c1 = NULL;
    for (size_t i = 0; i < n; i++)
      if (p[i] == ':') c1 = c2, c2 = p + i;
    ok = c2 && c2 > (c1 ? c1 + 1 : p) && (size_t)(c2 - p) + 1 < n;
    const char *a = c1 ? c1 + 1 : p;
    for (const char *q = a; ok && q < p + n; q++) ok = q == c2 || (*q >= '0' && *q <= '9');
    if (c1) ok = ok && c1 > p;
    p += n;
    if (*p == ',') {
      p++;
      ok = ok && *p;
    }
  }
  return ok;
}

/* A start that names topics names ones of `topics`: NULL, or the first
 * entry from p on whose topic is not there (the topic's length in *len). */
static inline const char *air_start_stray_topic(const char *start, const char *topics, size_t *len) {
  if (strcmp(start, "earliest") == 0 || strcmp(start, "latest") == 0) return NULL;
  for (const char *p = start; *p;) {
    size_t n = strcspn(p, ",");
    const char *c1 = memchr(p, ':', n), *c2 = c1 ? memchr(c1 + 1, ':', n - (size_t)(c1 + 1 - p)) : NULL;
    if (c2) {
      size_t tn = (size_t)(c1 - p);
      bool known = false;
      for (const char *t = topics; *t;) {
        size_t m = strcspn(t, ",");
        known |= m == tn && strncmp(t, p, tn) == 0;
        t += m + (t[m] == ',');
      }
      if (!known) {
        *len = tn;
        return p;
      }
    }
    p += n + (p[n] == ',');
  }
  return NULL;
}

/* max_bad_rows as 'P%': 0 to 100, digits and a point. */
static inline bool air_parse_pct(const char *v, double *pct) {
  char buf[32], *end;
  size_t n = strlen(v);
  if (n < 2 || n >= sizeof buf || v[n - 1] != '%') return false;
  memcpy(buf, v, n - 1);
  buf[n - 1] = '\0';
  bool digits = buf[0] >= '0' && buf[0] <= '9' && strspn(buf, "0123456789.") == n - 1;
  double p = strtod(buf, &end);
  if (!digits || *end != '\0' || !(p >= 0 && p <= 100)) return false;
  *pct = p;
  return true;
}

/* A decimal integer, optionally negative, nothing around it. */
static inline bool air_parse_int(const char *v, int64_t *out) {
  if (!((v[0] >= '0' && v[0] <= '9') || (v[0] == '-' && v[1] >= '0' && v[1] <= '9'))) return false;
  char *end;
  errno = 0;
  long long n = strtoll(v, &end, 10);
  if (errno || *end) return false;
  *out = n;
  return true;
}

/* A kafka.<property> that airc sets itself: the option to write instead,
 * or NULL. */
static inline const char *air_prop_ours(const char *name) {
  static const char *const ours[][2] = {{"bootstrap.servers", "brokers"}, {"metadata.broker.list", "brokers"},
                                        {"group.id", "group"}, {"enable.auto.commit", "group"}};
  for (size_t i = 0; i < sizeof ours / sizeof ours[0]; i++)
    if (strcasecmp(name, ours[i][0]) == 0) return ours[i][1];
  return NULL;
}

#endif /* AIR_OPTPARSE_H */

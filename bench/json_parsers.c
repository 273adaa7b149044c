/* json_parsers.c - rows/s of the JSON readers airc could use (issue 12:
 * "choose the parser by measurement"), on the same lines, in one thread:
 *
 *   airc     the schema-driven scanner of runtime/csv.c (format = 'json'),
 *            through air_csv_next from a file as a query reads it, then
 *            each field parsed to its column type;
 *   cjson    cJSON_ParseWithLength per line, fields by name, the same types;
 *   jansson  json_loadb per line, the same.
 *
 *   json_parsers [--rows N]     one JSON line on stdout per parser
 *   json_parsers --ysb FILE     airc's scanner alone over YSB's JSON events
 *                               (bench/kafka_bench.py: the parser's ceiling)
 *
 * The lines: {"user": string, "page": int, "dwell": double, "bot": bool,
 * "ts": int}, keys shuffled, every fifth with an unknown nested key. A
 * checksum over the parsed values shows all three read the same rows.
 */
#include "air.h"
#include "ceiling.h"

#include <cjson/cJSON.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* runtime/data_int.h: a reader without a runtime (tests, this program) */
AirCsv *air_csv_open_at(AirRuntime *rt, const AirCsvDef *def, int rank, int world);

typedef struct Sum {
  long rows;
  int64_t ints;
  double dbl;
  size_t bytes;
} Sum;

static void report(const char *name, const Sum *s, double secs) {
  printf("{\"parser\":\"%s\",\"rows\":%ld,\"secs\":%.3f,\"rows_per_s\":%.0f,\"checksum\":\"%lld/%.6g/%zu\"}\n",
         name, s->rows, secs, secs > 0 ? (double)s->rows / secs : 0.0, (long long)s->ints, s->dbl, s->bytes);
}

/* airc's scanner over a file of YSB events (kafka_tool's load-ysb lines),
 * each field parsed to the column type a query gives it. */
static int ysb_file(const char *path) {
  static const char *const cols[] = {"user_id", "page_id", "ad_id", "ad_type", "event_type", "event_time",
                                     "ip_address"};
  AirCsvDef def = {.path = path, .name = "ysb", .cols = cols, .ncols = 7, .time_col = 5, .json = true,
                   .json_kinds = "sssssns"};
  Sum s = {0};
  double t0 = mono_s();
  AirCsv *c = air_csv_open_at(NULL, &def, 0, 1);
  AirField f[8];
  long line;
  int nf;
  while ((nf = air_csv_next(c, f, 8, &line)) != AIR_CSV_END) {
    int64_t ts;
    if (nf != 7 || air_csv_time(c, &ts) != AIR_PARSE_OK) continue;
    s.rows++;
    s.ints += ts;
    for (int i = 0; i < 7; i++)
      if (i != 5) s.bytes += f[i].n;
  }
  air_csv_close(c);
  report("airc-ysb", &s, mono_s() - t0);
  return 0;
}

int main(int argc, char **argv) {
  long rows = 1000000;
  for (int a = 1; a + 1 < argc; a += 2) {
    if (!strcmp(argv[a], "--rows")) rows = atol(argv[a + 1]);
    if (!strcmp(argv[a], "--ysb")) return ysb_file(argv[a + 1]);
  }
  /* the lines */
  size_t cap = (size_t)rows * 160 + 1, len = 0;
  char *text = malloc(cap);
  if (!text) return 1;
  uint64_t r = 12345;
  for (long i = 0; i < rows; i++) {
    r = air_mix64(r + (uint64_t)i);
    char f[5][64];
    snprintf(f[0], sizeof f[0], "\"user\": \"user%03u\"", (unsigned)(r % 1000));
    snprintf(f[1], sizeof f[1], "\"page\": %u", (unsigned)(r >> 20) % 100);
    snprintf(f[2], sizeof f[2], "\"dwell\": %.3f", (double)((r >> 30) % 100000) / 8.0);
    snprintf(f[3], sizeof f[3], "\"bot\": %s", (r >> 40) & 1 ? "true" : "false");
    snprintf(f[4], sizeof f[4], "\"ts\": %ld", 1700000000000L + i);
    int order[5] = {0, 1, 2, 3, 4};
    for (int k = 4; k > 0; k--) {
      int j = (int)((r >> (k * 3)) % (uint64_t)(k + 1)), t = order[k];
      order[k] = order[j];
      order[j] = t;
    }
    len += (size_t)snprintf(text + len, cap - len, "{%s, %s, %s, %s, %s%s}\n", f[order[0]], f[order[1]],
                            f[order[2]], f[order[3]], f[order[4]],
                            i % 5 ? "" : ", \"meta\": {\"tags\": [1, \"two\"], \"ok\": true}");
  }
  char path[] = "/tmp/json_parsers_XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0 || write(fd, text, len) != (ssize_t)len) return 1;
  close(fd);

  /* airc's scanner, as a query reads a file */
  {
    static const char *const cols[] = {"user", "page", "dwell", "bot", "ts"};
    AirCsvDef def = {.path = path, .name = "j", .cols = cols, .ncols = 5, .time_col = 4, .json = true,
                     .json_kinds = "snnbn"};
    Sum s = {0};
    double t0 = mono_s();
    AirCsv *c = air_csv_open_at(NULL, &def, 0, 1);
    AirField f[6];
    long line;
    int nf;
    while ((nf = air_csv_next(c, f, 6, &line)) != AIR_CSV_END) {
      int32_t page;
      double dwell;
      bool bot;
      int64_t ts;
      char user[17];
      if (nf != 5 || !air_parse_i32(f[1], &page) || air_parse_double(f[2], &dwell) != AIR_PARSE_OK ||
          !air_parse_bool(f[3], &bot) || air_csv_time(c, &ts) != AIR_PARSE_OK || f[0].n > 16)
        continue;
      memcpy(user, f[0].p, f[0].n);
      user[f[0].n] = 0;
      s.rows++;
      s.ints += page + bot + ts;
      s.dbl += dwell;
      s.bytes += f[0].n;
    }
    air_csv_close(c);
    report("airc", &s, mono_s() - t0);
  }
  /* cJSON */
  {
    Sum s = {0};
    double t0 = mono_s();
    for (char *p = text, *e = text + len; p < e;) {
      char *nl = memchr(p, '\n', (size_t)(e - p));
      cJSON *o = cJSON_ParseWithLength(p, (size_t)(nl - p));
      p = nl + 1;
      if (!o) continue;
      const cJSON *u = cJSON_GetObjectItemCaseSensitive(o, "user"), *pg = cJSON_GetObjectItemCaseSensitive(o, "page"),
                  *d = cJSON_GetObjectItemCaseSensitive(o, "dwell"), *b = cJSON_GetObjectItemCaseSensitive(o, "bot"),
                  *ts = cJSON_GetObjectItemCaseSensitive(o, "ts");
      if (cJSON_IsString(u) && cJSON_IsNumber(pg) && cJSON_IsNumber(d) && cJSON_IsBool(b) && cJSON_IsNumber(ts)) {
        s.rows++;
        s.ints += (int64_t)pg->valuedouble + cJSON_IsTrue(b) + (int64_t)ts->valuedouble;
        s.dbl += d->valuedouble;
        s.bytes += strlen(u->valuestring);
      }
      cJSON_Delete(o);
    }
    report("cjson", &s, mono_s() - t0);
  }
  /* jansson */
  {
    Sum s = {0};
    double t0 = mono_s();
    for (char *p = text, *e = text + len; p < e;) {
      char *nl = memchr(p, '\n', (size_t)(e - p));
      json_error_t err;
      json_t *o = json_loadb(p, (size_t)(nl - p), 0, &err);
      p = nl + 1;
      if (!o) continue;
      json_t *u = json_object_get(o, "user"), *pg = json_object_get(o, "page"), *d = json_object_get(o, "dwell"),
             *b = json_object_get(o, "bot"), *ts = json_object_get(o, "ts");
      if (json_is_string(u) && json_is_integer(pg) && json_is_number(d) && json_is_boolean(b) && json_is_integer(ts)) {
        s.rows++;
        s.ints += json_integer_value(pg) + json_is_true(b) + json_integer_value(ts);
        s.dbl += json_number_value(d);
        s.bytes += json_string_length(u);
      }
      json_decref(o);
    }
    report("jansson", &s, mono_s() - t0);
  }
  unlink(path);
  free(text);
  return 0;
}

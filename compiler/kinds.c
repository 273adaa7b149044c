/* kinds.c - the tables of kinds: one row per source kind, sink kind,
 * aggregate function and operator (SQLite's one FuncDef per SQL function,
 * Redis's one ConnectionType per transport).
 *
 * Every phase asks a kind's row, never which kind it has. To add one:
 *   source kind  a row in source_kinds (its options, whether it fills a
 *                TABLE, one producer per thread or per rank, its time
 *                policy, its template and cut), the hooks the row names
 *                (a column check in sema_ddl.c, emitters in cg_*.c), its
 *                template in codegen_templates/ and runtime file, tests,
 *                docs/language.md;
 *   sink kind    a row in sink_kinds (its options, library, whether it
 *                writes `path`, a header; a sink that is no file names its
 *                runtime AirSinkOps and the emitter of its definition in
 *                cg_vertices.c), its runtime file, tests, docs;
 *   aggregate    an AggKind, a row in agg_defs (result type rule and its
 *                four emitters in cg_expr.c), tests, docs;
 *   operator     an OperatorKind and its name in op_names.
 * An option is an OptionKey and a row in option_keys; the kinds that take
 * it say so in their opts. The row's run-time type makes it overridable
 * with --set (AIR_OPT_FIXED and its reason: refused); the code that uses
 * the value reads it with air_opt_* (docs/design.md, "Run-time options").
 */
#include "airc.h"

#include <strings.h>

bool airc_ts_iso = true;

#define FOR_SRC (1u << REL_SOURCE)
#define FOR_TAB (1u << REL_TABLE)
#define FOR_SINK (1u << REL_SINK)

/* Why --set refuses an option that is part of the compiled plan. */
#define FIXED_KIND(what) "option '" what "' cannot be changed at run time: " \
  "the kind of " what " decides the code airc generated for it (change the query and compile again)"

const OptionKeyDef option_keys[OPT_COUNT] = {
    [OPT_SOURCE] = {"source", FOR_SRC | FOR_TAB, AIR_OPT_FIXED, NULL, FIXED_KIND("source")},
    [OPT_PATH] = {"path", FOR_SRC | FOR_TAB | FOR_SINK, AIR_OPT_PATH, NULL, NULL},
    [OPT_HEADER] = {"header", FOR_SRC | FOR_TAB, AIR_OPT_HEADER, "false", NULL},
    [OPT_RATE] = {"rate", FOR_SRC, AIR_OPT_COUNT, "0", NULL},
    [OPT_SEED] = {"seed", FOR_SRC, AIR_OPT_INT, NULL, NULL},
    [OPT_LIMIT] = {"limit", FOR_SRC, AIR_OPT_COUNT, "0", NULL},
    [OPT_SINK] = {"sink", FOR_SINK, AIR_OPT_FIXED, NULL, FIXED_KIND("sink")},
    [OPT_MAX_BAD_ROWS] = {"max_bad_rows", FOR_SRC | FOR_TAB, AIR_OPT_BAD_ROWS, NULL, NULL},
    [OPT_FOLLOW] = {"follow", FOR_SRC, AIR_OPT_BOOL, "false", NULL},
    [OPT_LISTEN] = {"listen", FOR_SRC, AIR_OPT_HOSTPORT, NULL, NULL},
    [OPT_CONNECT] = {"connect", FOR_SRC | FOR_SINK, AIR_OPT_HOSTPORT, NULL, NULL},
    [OPT_FORMAT] = {"format", FOR_SRC | FOR_TAB | FOR_SINK, AIR_OPT_FIXED, NULL,
                    "option 'format' cannot be changed at run time: airc generated the code that reads or "
                    "writes each field for it (change the query and compile again)"},
    [OPT_BROKERS] = {"brokers", FOR_SRC | FOR_SINK, AIR_OPT_BROKERS, NULL, NULL},
    [OPT_TOPIC] = {"topic", FOR_SRC | FOR_SINK, AIR_OPT_TOPICS, NULL, NULL}, /* a sink's: AIR_OPT_TOPIC */
    [OPT_GROUP] = {"group", FOR_SRC, AIR_OPT_NAME, NULL, NULL},
    [OPT_START] = {"start", FOR_SRC, AIR_OPT_START, "earliest", NULL},
    [OPT_END] = {"end", FOR_SRC, AIR_OPT_END, "none", NULL},
    [OPT_IDLE_TIMEOUT] = {"idle_timeout", FOR_SRC, AIR_OPT_DURATION, NULL, NULL},
    [OPT_TIMEOUT] = {"timeout", FOR_SRC | FOR_TAB | FOR_SINK, AIR_OPT_TIMEOUT, "30 s", NULL},
    [OPT_KAFKA_PROPS] = {"kafka.*", FOR_SRC | FOR_SINK, AIR_OPT_PROPS, NULL, NULL},
    [OPT_TS_FORMAT] = {"timestamp_format", FOR_SINK, AIR_OPT_FIXED, "iso",
                       "option 'timestamp_format' cannot be changed at run time: airc generated the code that "
                       "writes each field for it (change the query and compile again)"},
    [OPT_ADDRESS] = {"address", FOR_TAB | FOR_SINK, AIR_OPT_HOSTPORT, "127.0.0.1:6379", NULL},
    [OPT_PATTERN] = {"pattern", FOR_TAB, AIR_OPT_NAME, NULL, NULL},
    [OPT_KEY_PREFIX] = {"key_prefix", FOR_TAB, AIR_OPT_NAME, NULL, NULL},
    [OPT_LAYOUT] = {"layout", FOR_TAB, AIR_OPT_FIXED, NULL,
                    "option 'layout' cannot be changed at run time: airc checked the table's columns against it "
                    "(change the query and compile again)"},
    [OPT_PREFIX] = {"prefix", FOR_SINK, AIR_OPT_TEXT, NULL, NULL},
    [OPT_DB] = {"db", FOR_SINK, AIR_OPT_COUNT, "0", NULL},
    [OPT_PASSWORD] = {"password", FOR_SINK, AIR_OPT_NAME, NULL, NULL},
};

/* ---- sources ---------------------------------------------------------- */

static bool no_limit(const Relation *r) { return !r->has_limit; }
static bool followed(const Relation *r) { return r->follow; }
static bool always(const Relation *r) {
  (void)r;
  return true;
}
static bool no_end(const Relation *r) { return !r->until_end; }

const SourceKindDef source_kinds[] = {
    {
        .name = "ysb",
        .desc = "ysb generator",
        .table_desc = "ysb campaign table (1000 ads, 100 campaigns)",
        .table_brief = "ysb campaigns",
        .opts = OPT_BIT(OPT_RATE) | OPT_BIT(OPT_SEED) | OPT_BIT(OPT_LIMIT),
        .per_thread = true,
        .time = TIME_GENERATED,
        .tpl = "source_gen.c.tpl",
        .cut = "air_gen_cut(g, &cut)",
        .reader = "AirGen",
        .ckpt = "air_gen",
        .check_stream = sema_check_ysb_stream,
        .check_table = sema_check_ysb_table,
        .emit_row = cg_gen_row,
        .holes = cg_gen_holes,
        .emit_table = cg_ysb_table,
        .unbounded = no_limit,
    },
    {
        .name = "datagen",
        .desc = "datagen generator",
        .opts = OPT_BIT(OPT_RATE) | OPT_BIT(OPT_SEED) | OPT_BIT(OPT_LIMIT),
        .per_thread = true,
        .generated_by = true,
        .time = TIME_GENERATED,
        .tpl = "source_gen.c.tpl",
        .cut = "air_gen_cut(g, &cut)",
        .reader = "AirGen",
        .ckpt = "air_gen",
        .check_stream = sema_check_datagen_stream,
        .emit_row = cg_gen_row,
        .holes = cg_gen_holes,
        .unbounded = no_limit,
    },
    {
        .name = "csv",
        .desc = "csv file",
        .table_desc = "csv file",
        .table_brief = "csv file",
        .opts = OPT_BIT(OPT_PATH) | OPT_BIT(OPT_HEADER) | OPT_BIT(OPT_MAX_BAD_ROWS) | OPT_BIT(OPT_RATE) |
                OPT_BIT(OPT_FOLLOW) | OPT_BIT(OPT_FORMAT),
        .required = OPT_BIT(OPT_PATH),
        .all_columns = true,
        .time = TIME_SCANNED,
        .tpl = "source_csv.c.tpl",
        .cut = "air_csv_cut(csv, &cut)",
        .reader = "AirCsv",
        .ckpt = "air_csv",
        .emit_global = cg_csv_global,
        .emit_row = cg_csv_row,
        .nulls = true,
        .holes = cg_csv_holes,
        .emit_table = cg_csv_table,
        .unbounded = followed,
    },
    {
        .name = "stdin",
        .desc = "standard input (csv records), read on rank 0",
        .opts = OPT_BIT(OPT_HEADER) | OPT_BIT(OPT_MAX_BAD_ROWS) | OPT_BIT(OPT_RATE) | OPT_BIT(OPT_FORMAT),
        .all_columns = true,
        .time = TIME_SCANNED,
        .tpl = "source_csv.c.tpl",
        .cut = "air_csv_cut(csv, &cut)",
        .reader = "AirCsv",
        .emit_global = cg_stdin_global,
        .emit_row = cg_csv_row,
        .nulls = true,
        .holes = cg_csv_holes,
        .unbounded = always,
    },
    {
        .name = "tcp",
        .desc = "tcp socket (csv lines), read on rank 0",
        .opts = OPT_BIT(OPT_LISTEN) | OPT_BIT(OPT_CONNECT) | OPT_BIT(OPT_MAX_BAD_ROWS) | OPT_BIT(OPT_RATE) |
                OPT_BIT(OPT_FORMAT),
        .all_columns = true,
        .time = TIME_SCANNED,
        .tpl = "source_csv.c.tpl",
        .cut = "air_csv_cut(csv, &cut)",
        .reader = "AirCsv",
        .check_stream = sema_check_tcp_stream,
        .emit_global = cg_tcp_global,
        .emit_row = cg_csv_row,
        .nulls = true,
        .holes = cg_csv_holes,
        .unbounded = always,
    },
    {
        .name = "kafka",
        .desc = "kafka topic (csv or json messages), partition j read on rank j mod N",
        .opts = OPT_BIT(OPT_BROKERS) | OPT_BIT(OPT_TOPIC) | OPT_BIT(OPT_GROUP) | OPT_BIT(OPT_START) |
                OPT_BIT(OPT_END) | OPT_BIT(OPT_IDLE_TIMEOUT) | OPT_BIT(OPT_TIMEOUT) | OPT_BIT(OPT_KAFKA_PROPS) |
                OPT_BIT(OPT_MAX_BAD_ROWS) | OPT_BIT(OPT_FORMAT),
        .required = OPT_BIT(OPT_BROKERS) | OPT_BIT(OPT_TOPIC),
        .lib = "-lrdkafka",
        .message_ts = true,
        .all_columns = true,
        .time = TIME_SCANNED,
        .tpl = "source_csv.c.tpl",
        .cut = "air_csv_cut(csv, &cut)",
        .reader = "AirCsv",
        .ckpt = "air_csv",
        .check_stream = sema_check_kafka_stream,
        .emit_global = cg_kafka_global,
        .emit_row = cg_csv_row,
        .nulls = true,
        .holes = cg_csv_holes,
        .unbounded = no_end,
    },
    {
        .name = "redis",
        .desc = "redis keys",
        .table_desc = "redis keys (SCAN, read on rank 0, sent to every rank)",
        .table_brief = "redis keys",
        .table_only = true,
        .opts = OPT_BIT(OPT_ADDRESS) | OPT_BIT(OPT_PATTERN) | OPT_BIT(OPT_KEY_PREFIX) | OPT_BIT(OPT_LAYOUT) |
                OPT_BIT(OPT_TIMEOUT) | OPT_BIT(OPT_MAX_BAD_ROWS),
        .required = OPT_BIT(OPT_ADDRESS),
        .lib = "-lhiredis",
        .check_table = sema_check_redis_table,
        .emit_table = cg_redis_table,
    },
};
const int nsource_kinds = (int)(sizeof source_kinds / sizeof source_kinds[0]);

const SourceKindDef *source_kind_lookup(const char *name) {
  for (int i = 0; i < nsource_kinds; i++)
    if (strcasecmp(name, source_kinds[i].name) == 0) return &source_kinds[i];
  return NULL;
}

/* ---- sinks ------------------------------------------------------------ */

const SinkKindDef sink_kinds[] = {
    {.name = "csv",
     .opts = OPT_BIT(OPT_PATH) | OPT_BIT(OPT_FORMAT) | OPT_BIT(OPT_TS_FORMAT),
     .required = OPT_BIT(OPT_PATH),
     .file = true,
     .header = true},
    {.name = "stdout", .opts = OPT_BIT(OPT_FORMAT) | OPT_BIT(OPT_TS_FORMAT), .header = true},
    {.name = "kafka",
     .opts = OPT_BIT(OPT_BROKERS) | OPT_BIT(OPT_TOPIC) | OPT_BIT(OPT_FORMAT) | OPT_BIT(OPT_TIMEOUT) |
             OPT_BIT(OPT_KAFKA_PROPS) | OPT_BIT(OPT_TS_FORMAT),
     .required = OPT_BIT(OPT_BROKERS) | OPT_BIT(OPT_TOPIC),
     .lib = "-lrdkafka",
     .ops = "air_kafka_sink_ops",
     .emit_def = cg_kafka_sink_def},
    {.name = "redis",
     .opts = OPT_BIT(OPT_ADDRESS) | OPT_BIT(OPT_PREFIX) | OPT_BIT(OPT_TIMEOUT) | OPT_BIT(OPT_DB) |
             OPT_BIT(OPT_PASSWORD) | OPT_BIT(OPT_TS_FORMAT),
     .lib = "-lhiredis",
     .ops = "air_redis_sink_ops",
     .check_insert = sema_check_redis_insert,
     .emit_def = cg_redis_sink_def},
    {.name = "tcp",
     .opts = OPT_BIT(OPT_CONNECT) | OPT_BIT(OPT_FORMAT) | OPT_BIT(OPT_TIMEOUT) | OPT_BIT(OPT_TS_FORMAT),
     .required = OPT_BIT(OPT_CONNECT),
     .header = true,
     .ops = "air_tcp_sink_ops",
     .emit_def = cg_tcp_sink_def},
};
const int nsink_kinds = (int)(sizeof sink_kinds / sizeof sink_kinds[0]);

const SinkKindDef *sink_kind_lookup(const char *name) {
  for (int i = 0; i < nsink_kinds; i++)
    if (strcasecmp(name, sink_kinds[i].name) == 0) return &sink_kinds[i];
  return NULL;
}

bool relation_unbounded(const Relation *r) {
  if (!r) return false;
  if (r->kind == REL_SOURCE) return r->source && r->source->unbounded && r->source->unbounded(r);
  if (r->kind != REL_DERIVED || !r->def || !r->def->select) return false;
  const Select *sel = r->def->select;
  for (int i = 0; i < sel->nfrom; i++)
    if (relation_unbounded(sel->from[i].rel)) return true;
  return false;
}

const char *sink_target(const Relation *r) {
  return r->path ? r->path : r->topics ? r->topics : r->address ? r->address : r->tcp_connect ? r->tcp_connect : "";
}

/* ---- aggregates ------------------------------------------------------- */

static Type ty(TypeKind k) { return (Type){.kind = k, .len = 0}; }
static bool numeric(Type t) { return t.kind == TY_INT || t.kind == TY_BIGINT || t.kind == TY_DOUBLE; }

static Type count_type(Type arg) {
  (void)arg;
  return ty(TY_BIGINT);
}
/* SUM of integers is BIGINT (wrapping, as Flink), of DOUBLEs an exact sum rounded once */
static Type sum_type(Type arg) { return !numeric(arg) ? ty(TY_ERROR) : arg.kind == TY_DOUBLE ? arg : ty(TY_BIGINT); }
static Type avg_type(Type arg) { return numeric(arg) ? ty(TY_DOUBLE) : ty(TY_ERROR); }
static Type minmax_type(Type arg) {
  return numeric(arg) || arg.kind == TY_TIMESTAMP || arg.kind == TY_DATE || arg.kind == TY_VARCHAR ? arg : ty(TY_ERROR);
}

const AggDef agg_defs[AGG_LAST + 1] = {
    [AGG_COUNT_STAR] = {"COUNT", true, true, count_type, cg_count_field, cg_count_update, cg_count_merge, cg_plain_value},
    [AGG_COUNT] = {"COUNT", false, true, count_type, cg_count_field, cg_count_update, cg_count_merge, cg_plain_value},
    [AGG_SUM] = {"SUM", false, true, sum_type, cg_sum_field, cg_sum_update, cg_sum_merge, cg_sum_value},
    [AGG_MIN] = {"MIN", false, false, minmax_type, cg_minmax_field, cg_minmax_update, cg_minmax_merge, cg_plain_value},
    [AGG_MAX] = {"MAX", false, false, minmax_type, cg_minmax_field, cg_minmax_update, cg_minmax_merge, cg_plain_value},
    [AGG_AVG] = {"AVG", false, true, avg_type, cg_avg_field, cg_avg_update, cg_avg_merge, cg_avg_value},
    [AGG_VAR_POP] = {"VAR_POP", false, false, avg_type, cg_var_field, cg_var_update, cg_var_merge, cg_var_value},
    [AGG_VAR_SAMP] = {"VAR_SAMP", false, false, avg_type, cg_var_field, cg_var_update, cg_var_merge, cg_var_value},
    [AGG_VARIANCE] = {"VARIANCE", false, false, avg_type, cg_var_field, cg_var_update, cg_var_merge, cg_var_value},
    [AGG_STDDEV_POP] = {"STDDEV_POP", false, false, avg_type, cg_var_field, cg_var_update, cg_var_merge, cg_var_value},
    [AGG_STDDEV_SAMP] = {"STDDEV_SAMP", false, false, avg_type, cg_var_field, cg_var_update, cg_var_merge, cg_var_value},
    [AGG_STDDEV] = {"STDDEV", false, false, avg_type, cg_var_field, cg_var_update, cg_var_merge, cg_var_value},
    [AGG_FIRST_VALUE] = {"FIRST_VALUE", false, false, minmax_type, cg_firstlast_field, cg_firstlast_update,
                         cg_firstlast_merge, cg_plain_value},
    [AGG_LAST_VALUE] = {"LAST_VALUE", false, false, minmax_type, cg_firstlast_field, cg_firstlast_update,
                        cg_firstlast_merge, cg_plain_value},
};

/* ---- scalar functions -------------------------------------------------- */

static bool integral(Type t) { return t.kind == TY_INT || t.kind == TY_BIGINT; }

/* True when every one of the n arguments is ok; else the first that is
 * not in *bad (counted from `first`) and what it must be in *want. */
static bool want_args(const Type *a, int n, int first, bool (*ok)(Type), const char *what, int *bad,
                      const char **want) {
  for (int i = 0; i < n; i++)
    if (!ok(a[i])) {
      *bad = first + i;
      *want = what;
      return false;
    }
  return true;
}
static bool is_varchar(Type t) { return t.kind == TY_VARCHAR; }

/* res when the arguments before `split` are ok1 and the rest ok2. */
static Type two_kinds(const Type *a, int n, int split, bool (*ok1)(Type), const char *what1, bool (*ok2)(Type),
                      const char *what2, Type res, int *bad, const char **want) {
  if (!want_args(a, split, 0, ok1, what1, bad, want) || !want_args(a + split, n - split, split, ok2, what2, bad, want))
    return ty(TY_ERROR);
  return res;
}
/* The first argument's type when it is ok and the others are integers. */
static Type first_then_ints(const Type *a, int n, bool (*ok)(Type), const char *what, int *bad, const char **want) {
  return two_kinds(a, n, 1, ok, what, integral, "an integer", a[0], bad, want);
}
/* ABS, ROUND, FLOOR, CEIL: the type of the (numeric) first argument; ROUND's
 * second is an integer */
static Type same_num_type(const Type *a, int n, int *bad, const char **want) {
  return first_then_ints(a, n, numeric, "a numeric", bad, want);
}
/* MOD of integers is BIGINT (INT when both are INT), else DOUBLE */
static Type mod_type(const Type *a, int n, int *bad, const char **want) {
  if (!want_args(a, n, 0, numeric, "a numeric", bad, want)) return ty(TY_ERROR);
  if (a[0].kind == TY_DOUBLE || a[1].kind == TY_DOUBLE) return ty(TY_DOUBLE);
  return a[0].kind == TY_INT && a[1].kind == TY_INT ? ty(TY_INT) : ty(TY_BIGINT);
}
/* POWER, SQRT, LN, EXP: DOUBLE */
static Type double_type(const Type *a, int n, int *bad, const char **want) {
  return want_args(a, n, 0, numeric, "a numeric", bad, want) ? ty(TY_DOUBLE) : ty(TY_ERROR);
}
static Type length_type(const Type *a, int n, int *bad, const char **want) {
  return want_args(a, n, 0, is_varchar, "a VARCHAR", bad, want) ? ty(TY_INT) : ty(TY_ERROR);
}
/* UPPER, LOWER, TRIM: as long as the argument */
static Type same_str_type(const Type *a, int n, int *bad, const char **want) {
  return want_args(a, n, 0, is_varchar, "a VARCHAR", bad, want) ? a[0] : ty(TY_ERROR);
}
/* SUBSTRING(s, start[, length]): as long as s */
static Type substr_type(const Type *a, int n, int *bad, const char **want) {
  return first_then_ints(a, n, is_varchar, "a VARCHAR", bad, want);
}
/* SPLIT_INDEX(s, delimiter, index): a piece of s */
static Type split_type(const Type *a, int n, int *bad, const char **want) {
  return two_kinds(a, n, 2, is_varchar, "a VARCHAR", integral, "an integer", a[0], bad, want);
}
static Type varchar_of(long len, int *bad, const char **want) {
  if (len > 65535) { /* VARCHAR's longest */
    *bad = -1;
    *want = "its result could be longer than 65535 bytes, the longest VARCHAR";
    return ty(TY_ERROR);
  }
  return (Type){.kind = TY_VARCHAR, .len = (int)len};
}
/* REPLACE(s, from, to): each replaced part is at least one byte of s */
static Type replace_type(const Type *a, int n, int *bad, const char **want) {
  if (!want_args(a, n, 0, is_varchar, "a VARCHAR", bad, want)) return ty(TY_ERROR);
  return varchar_of(a[2].len <= 1 ? a[0].len : (long)a[0].len * a[2].len, bad, want);
}
/* CONCAT and ||: as long as all the arguments together */
static Type concat_type(const Type *a, int n, int *bad, const char **want) {
  if (!want_args(a, n, 0, is_varchar, "a VARCHAR", bad, want)) return ty(TY_ERROR);
  long len = 0;
  for (int i = 0; i < n; i++) len += a[i].len;
  return varchar_of(len, bad, want);
}
/* a TIMESTAMP, or a DATE (its midnight) */
static bool is_time(Type t) { return t.kind == TY_TIMESTAMP || t.kind == TY_DATE; }
/* YEAR(ts) ... SECOND(ts): a field of the UTC date and time, BIGINT */
static Type time_field_type(const Type *a, int n, int *bad, const char **want) {
  return want_args(a, n, 0, is_time, "a TIMESTAMP or DATE", bad, want) ? ty(TY_BIGINT) : ty(TY_ERROR);
}
/* DATE_FORMAT(ts, format): no longer than the format */
static Type date_format_type(const Type *a, int n, int *bad, const char **want) {
  return two_kinds(a, n, 1, is_time, "a TIMESTAMP or DATE", is_varchar, "a VARCHAR", a[1], bad, want);
}
static Type to_timestamp_type(const Type *a, int n, int *bad, const char **want) {
  return want_args(a, n, 0, is_varchar, "a VARCHAR", bad, want) ? ty(TY_TIMESTAMP) : ty(TY_ERROR);
}
/* REGEXP_EXTRACT(s, pattern[, group]): a part of s */
static Type regexp_extract_type(const Type *a, int n, int *bad, const char **want) {
  return two_kinds(a, n, 2, is_varchar, "a VARCHAR", integral, "an integer", a[0], bad, want);
}
/* LOCATE(sub, s[, from]) and POSITION(sub IN s): INT, the 1-based place */
static Type locate_type(const Type *a, int n, int *bad, const char **want) {
  return two_kinds(a, n, 2, is_varchar, "a VARCHAR", integral, "an integer", ty(TY_INT), bad, want);
}
static Type now_type(const Type *a, int n, int *bad, const char **want) {
  (void)a, (void)n, (void)bad, (void)want;
  return ty(TY_TIMESTAMP);
}
/* NULLIF(a, b): a's type, b comparable with it */
static Type nullif_type(const Type *a, int n, int *bad, const char **want) {
  (void)n;
  if (a[0].kind == TY_NULL) {
    *bad = 0, *want = "a typed";
    return ty(TY_ERROR);
  }
  if (!comparable(a[0], a[1])) {
    *bad = 1, *want = "a comparable";
    return ty(TY_ERROR);
  }
  return a[0];
}
static Type like_type(const Type *a, int n, int *bad, const char **want) {
  return want_args(a, n, 0, is_varchar, "a VARCHAR", bad, want) ? ty(TY_BOOL) : ty(TY_ERROR);
}

const FuncDef func_defs[FN_LAST + 1] = {
    [FN_ABS] = {"ABS", NULL, 1, 1, same_num_type, cg_fn_abs, false},
    [FN_LEAST] = {"LEAST", NULL, 2, -1, NULL, cg_fn_minmax, false},
    [FN_GREATEST] = {"GREATEST", NULL, 2, -1, NULL, cg_fn_minmax, false},
    [FN_LENGTH] = {"LENGTH", "CHAR_LENGTH", 1, 1, length_type, cg_fn_length, false},
    [FN_MOD] = {"MOD", NULL, 2, 2, mod_type, cg_fn_math, false, .own_null = true},
    [FN_ROUND] = {"ROUND", NULL, 1, 2, same_num_type, cg_fn_math, false},
    [FN_FLOOR] = {"FLOOR", NULL, 1, 1, same_num_type, cg_fn_math, false},
    [FN_CEIL] = {"CEIL", "CEILING", 1, 1, same_num_type, cg_fn_math, false},
    [FN_POWER] = {"POWER", "POW", 2, 2, double_type, cg_fn_math, false},
    [FN_SQRT] = {"SQRT", NULL, 1, 1, double_type, cg_fn_math, false},
    [FN_LN] = {"LN", NULL, 1, 1, double_type, cg_fn_math, false},
    [FN_EXP] = {"EXP", NULL, 1, 1, double_type, cg_fn_math, false},
    [FN_UPPER] = {"UPPER", NULL, 1, 1, same_str_type, cg_fn_string, false},
    [FN_LOWER] = {"LOWER", NULL, 1, 1, same_str_type, cg_fn_string, false},
    [FN_TRIM] = {"TRIM", NULL, 1, 1, same_str_type, cg_fn_string, false},
    [FN_SUBSTRING] = {"SUBSTRING", "SUBSTR", 2, 3, substr_type, cg_fn_string, false},
    [FN_REPLACE] = {"REPLACE", NULL, 3, 3, replace_type, cg_fn_string, false},
    [FN_CONCAT] = {"CONCAT", NULL, 1, -1, concat_type, cg_fn_string, false},
    [FN_SPLIT_INDEX] = {"SPLIT_INDEX", NULL, 3, 3, split_type, cg_fn_string, false, .own_null = true},
    [FN_LIKE] = {"LIKE", NULL, 2, 2, like_type, cg_fn_string, true},
    [FN_YEAR] = {"YEAR", NULL, 1, 1, time_field_type, cg_fn_time, false},
    [FN_MONTH] = {"MONTH", NULL, 1, 1, time_field_type, cg_fn_time, false},
    [FN_DAY] = {"DAYOFMONTH", "DAY", 1, 1, time_field_type, cg_fn_time, false},
    [FN_HOUR] = {"HOUR", NULL, 1, 1, time_field_type, cg_fn_time, false},
    [FN_MINUTE] = {"MINUTE", NULL, 1, 1, time_field_type, cg_fn_time, false},
    [FN_SECOND] = {"SECOND", NULL, 1, 1, time_field_type, cg_fn_time, false},
    [FN_DATE_FORMAT] = {"DATE_FORMAT", NULL, 2, 2, date_format_type, cg_fn_time, false},
    [FN_TO_TIMESTAMP] = {"TO_TIMESTAMP", NULL, 1, 1, to_timestamp_type, cg_fn_time, false, .own_null = true},
    [FN_REGEXP_LIKE] = {"REGEXP_LIKE", "REGEXP", 2, 2, like_type, cg_fn_regexp, false},
    [FN_REGEXP_EXTRACT] = {"REGEXP_EXTRACT", NULL, 2, 3, regexp_extract_type, cg_fn_regexp, false, .own_null = true},
    [FN_LOCATE] = {"LOCATE", NULL, 2, 3, locate_type, cg_fn_string, false},
    [FN_NOW] = {"CURRENT_TIMESTAMP", "NOW", 0, 0, now_type, cg_fn_time, false},
    [FN_COALESCE] = {"COALESCE", "IFNULL", 1, -1, NULL, cg_fn_null, false, true},
    [FN_NULLIF] = {"NULLIF", NULL, 2, 2, nullif_type, cg_fn_null, false, true},
};

FuncKind func_lookup(const char *name) {
  for (int k = 1; k <= FN_LAST; k++)
    if (strcasecmp(name, func_defs[k].name) == 0 || (func_defs[k].alias && strcasecmp(name, func_defs[k].alias) == 0))
      return (FuncKind)k;
  return FN_NONE;
}

AggKind agg_lookup(const char *name, bool star) {
  for (int k = 0; k <= AGG_LAST; k++)
    if (agg_defs[k].name && agg_defs[k].star == star && strcasecmp(name, agg_defs[k].name) == 0)
      return (AggKind)k;
  return AGG_NONE;
}

/* ---- operators -------------------------------------------------------- */

static const char *const op_names[] = {
    [OP_SOURCE] = "Source",
    [OP_MAP] = "Map",
    [OP_FILTER] = "Filter",
    [OP_STATIC_JOIN] = "StaticJoin",
    [OP_REDUCE] = "Reduce",
    [OP_AGGREGATION] = "Aggregation",
    [OP_JOIN] = "Join",
    [OP_SINK] = "Sink",
};

const char *op_name(OperatorKind k) {
  return (unsigned)k < sizeof op_names / sizeof op_names[0] && op_names[k] ? op_names[k] : "?";
}

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
        .emit_global = cg_csv_global,
        .emit_row = cg_csv_row,
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
        .emit_global = cg_stdin_global,
        .emit_row = cg_csv_row,
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
        .check_stream = sema_check_tcp_stream,
        .emit_global = cg_tcp_global,
        .emit_row = cg_csv_row,
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
        .check_stream = sema_check_kafka_stream,
        .emit_global = cg_kafka_global,
        .emit_row = cg_csv_row,
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
     .opts = OPT_BIT(OPT_PATH) | OPT_BIT(OPT_FORMAT),
     .required = OPT_BIT(OPT_PATH),
     .file = true,
     .header = true},
    {.name = "stdout", .opts = OPT_BIT(OPT_FORMAT), .header = true},
    {.name = "kafka",
     .opts = OPT_BIT(OPT_BROKERS) | OPT_BIT(OPT_TOPIC) | OPT_BIT(OPT_FORMAT) | OPT_BIT(OPT_TIMEOUT) |
             OPT_BIT(OPT_KAFKA_PROPS),
     .required = OPT_BIT(OPT_BROKERS) | OPT_BIT(OPT_TOPIC),
     .lib = "-lrdkafka",
     .ops = "air_kafka_sink_ops",
     .emit_def = cg_kafka_sink_def},
    {.name = "redis",
     .opts = OPT_BIT(OPT_ADDRESS) | OPT_BIT(OPT_PREFIX) | OPT_BIT(OPT_TIMEOUT) | OPT_BIT(OPT_DB) |
             OPT_BIT(OPT_PASSWORD),
     .lib = "-lhiredis",
     .ops = "air_redis_sink_ops",
     .check_insert = sema_check_redis_insert,
     .emit_def = cg_redis_sink_def},
    {.name = "tcp",
     .opts = OPT_BIT(OPT_CONNECT) | OPT_BIT(OPT_FORMAT) | OPT_BIT(OPT_TIMEOUT),
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

static Type ty(TypeKind k) { return (Type){k, 0}; }
static bool numeric(Type t) { return t.kind == TY_INT || t.kind == TY_BIGINT || t.kind == TY_DOUBLE; }

static Type count_type(Type arg) {
  (void)arg;
  return ty(TY_BIGINT);
}
/* SUM of integers is BIGINT (wrapping, as Flink), of DOUBLEs an exact sum rounded once */
static Type sum_type(Type arg) { return !numeric(arg) ? ty(TY_ERROR) : arg.kind == TY_DOUBLE ? arg : ty(TY_BIGINT); }
static Type avg_type(Type arg) { return numeric(arg) ? ty(TY_DOUBLE) : ty(TY_ERROR); }
static Type minmax_type(Type arg) { return numeric(arg) || arg.kind == TY_TIMESTAMP ? arg : ty(TY_ERROR); }

const AggDef agg_defs[AGG_LAST + 1] = {
    [AGG_COUNT_STAR] = {"COUNT", true, count_type, cg_count_field, cg_count_update, cg_count_merge, cg_plain_value},
    [AGG_COUNT] = {"COUNT", false, count_type, cg_count_field, cg_count_update, cg_count_merge, cg_plain_value},
    [AGG_SUM] = {"SUM", false, sum_type, cg_sum_field, cg_sum_update, cg_sum_merge, cg_sum_value},
    [AGG_MIN] = {"MIN", false, minmax_type, cg_minmax_field, cg_minmax_update, cg_minmax_merge, cg_plain_value},
    [AGG_MAX] = {"MAX", false, minmax_type, cg_minmax_field, cg_minmax_update, cg_minmax_merge, cg_plain_value},
    [AGG_AVG] = {"AVG", false, avg_type, cg_avg_field, cg_avg_update, cg_avg_merge, cg_avg_value},
};

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

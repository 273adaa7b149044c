/* sema_ddl.c - CREATE STREAM/TABLE/SINK: WITH options through the kind
 * tables (kinds.c), columns, generators, watermarks. */
#include "sema_int.h"
#include "air_optparse.h" /* the value checks and messages the runtime's --set shares */
#include <errno.h>

/* ---------------------------------------------------------------------
 * WITH (...) options
 * --------------------------------------------------------------------- */

static void literal_type(Expr *e) {
  init_ann(e);
  switch (e->kind) {
  case EX_INT: e->type = mk_type(TY_BIGINT); break;
  case EX_DOUBLE: e->type = mk_type(TY_DOUBLE); break;
  case EX_STRING: e->type = mk_varchar((int)e->slen); break;
  case EX_BOOL: e->type = mk_type(TY_BOOL); break;
  default: break;
  }
}

/* A NUL-terminated copy of a string option, or NULL after an error. */
static const char *string_opt(Sema *s, Option *o) {
  Expr *v = o->value;
  if (v->kind != EX_STRING) {
    diag_error(s->d, v->loc, "option '%s' must be a string", o->key);
    return NULL;
  }
  if (memchr(v->sval, '\0', v->slen)) {
    diag_error(s->d, v->loc, "option '%s' must not contain a NUL byte", o->key);
    return NULL;
  }
  return arena_strndup(s->arena, v->sval, v->slen);
}

static bool int_opt(Sema *s, Option *o, bool nonneg, int64_t *out) {
  if (!const_int(o->value, out) || (nonneg && *out < 0)) {
    diag_error(s->d, o->value->loc, "option '%s' %s", o->key, nonneg ? AIR_MSG_COUNT : AIR_MSG_INT);
    return false;
  }
  return true;
}

/* max_bad_rows = N (bad rows of the source in all, N >= 0) or 'P%' (a
 * percentage of its records, 0 to 100, decimals allowed). */
static void max_bad_rows_opt(Sema *s, Option *o, Relation *r) {
  Expr *v = o->value;
  if (v->kind == EX_STRING) {
    char buf[32];
    if (v->slen < sizeof buf && !memchr(v->sval, '\0', v->slen)) {
      memcpy(buf, v->sval, v->slen);
      buf[v->slen] = '\0';
      if (air_parse_pct(buf, &r->max_bad_pct)) return;
    }
  } else if (const_int(v, &r->max_bad_rows) && r->max_bad_rows >= 0) {
    return;
  }
  r->max_bad_rows = -1;
  diag_error(s->d, v->loc, "option 'max_bad_rows' %s", AIR_MSG_BAD_ROWS);
}

/* Which kinds a relation may name: a stream's sources, a table's, sinks. */
enum { KN_STREAM, KN_TABLE, KN_SINK };

/* The name of kind i of the set, or NULL when it is not in the set. */
static const char *kind_name_at(int which, int i) {
  if (which == KN_SINK) return i < nsink_kinds ? sink_kinds[i].name : NULL;
  if (i >= nsource_kinds || (which == KN_TABLE && !source_kinds[i].table_desc) ||
      (which == KN_STREAM && source_kinds[i].table_only))
    return NULL;
  return source_kinds[i].name;
}

static unsigned kind_opts_at(int which, int i) {
  return which == KN_SINK ? sink_kinds[i].opts : source_kinds[i].opts;
}

static int kind_count(int which) { return which == KN_SINK ? nsink_kinds : nsource_kinds; }

/* The kinds of the set taking every option of opts (all of them for 0),
 * as "'a', 'b' or 'c'". */
static const char *kind_names(Sema *s, int which, unsigned opts) {
  const char *names[32];
  int n = 0;
  for (int i = 0; i < kind_count(which) && n < 32; i++)
    if (kind_name_at(which, i) && (kind_opts_at(which, i) & opts) == opts) names[n++] = kind_name_at(which, i);
  char *out = "";
  for (int i = 0; i < n; i++)
    out = arena_printf(s->arena, "%s%s'%s'", out, i == 0 ? "" : i == n - 1 ? " or " : ", ", names[i]);
  return out;
}

static void unknown_kind(Sema *s, SrcLoc loc, const char *v, int which) {
  static const char *const what[] = {[KN_STREAM] = "source kind", [KN_TABLE] = "table source",
                                     [KN_SINK] = "sink kind"};
  diag_error(s->d, loc, "unknown %s '%s' (expected %s)", what[which], v, kind_names(s, which, 0));
  Names ns = {0};
  for (int i = 0; i < kind_count(which); i++)
    if (kind_name_at(which, i)) names_add(s->arena, &ns, kind_name_at(which, i));
  suggest_note(s, loc, v, &ns);
}

/* The options of a known kind (`by`: the option naming it): those it needs
 * are given, those given apply to it. */
static void kind_options(Sema *s, Option **slot, int by, const char *kind, unsigned opts,
                         unsigned required, int which) {
  for (int k = 0; k < OPT_COUNT; k++) {
    if (k == by) continue;
    if ((required & OPT_BIT(k)) && !slot[k])
      diag_error(s->d, slot[by]->loc, "%s = '%s' needs a '%s' option", option_keys[by].key, kind,
                 option_keys[k].key);
    if (!slot[k] || (opts & OPT_BIT(k))) continue;
    const char *takers = kind_names(s, which, OPT_BIT(k));
    if (*takers)
      diag_error(s->d, slot[k]->loc, "option '%s' applies only to %s = %s", slot[k]->key,
                 option_keys[by].key, takers);
    else
      diag_error(s->d, slot[k]->loc, "option '%s' does not apply to %s = '%s'", slot[k]->key,
                 option_keys[by].key, kind);
  }
}

/* One kafka.<property> option: its value as librdkafka's text. */
static void kafka_prop(Sema *s, Relation *r, Option *o) {
  const char *name = o->key + 6, *v = NULL;
  Expr *e = o->value;
  if (e->kind == EX_STRING)
    v = string_opt(s, o);
  else if (e->kind == EX_INT)
    v = arena_printf(s->arena, "%lld", (long long)e->ival);
  else if (e->kind == EX_BOOL)
    v = e->ival ? "true" : "false";
  else
    diag_error(s->d, e->loc, "option '%s' must be a string, an integer or true/false", o->key);
  if (!v) return;
  if (strspn(name, AIR_PROP_CHARS) != strlen(name)) {
    diag_error(s->d, o->loc, "option '%s': %s", o->key, AIR_MSG_PROP_NAME);
    return;
  }
  for (int i = 0; i < r->nprops; i++)
    if (strcasecmp(r->props[2 * i], name) == 0) {
      diag_error(s->d, o->loc, "option '%s' is given twice", o->key);
      return;
    }
  const char *ours = air_prop_ours(name);
  if (ours) {
    diag_error(s->d, o->loc, "option '%s' is set by airc: write %s = '...'", o->key, ours);
    return;
  }
  const char **p = arena_alloc(s->arena, sizeof(char *) * (size_t)(2 * r->nprops + 2));
  if (r->nprops) memcpy(p, r->props, sizeof(char *) * (size_t)(2 * r->nprops));
  p[2 * r->nprops] = name;
  p[2 * r->nprops + 1] = v;
  r->props = p;
  r->nprops++;
}

/* A duration option: '5 s', '500 ms', '2 min' (a unit is needed). */
static bool duration_opt(Sema *s, Option *o, int64_t *ms) {
  Expr *v = o->value;
  char buf[48];
  if (v->kind == EX_STRING && v->slen < sizeof buf && !memchr(v->sval, '\0', v->slen)) {
    memcpy(buf, v->sval, v->slen);
    buf[v->slen] = '\0';
    if (air_parse_duration(buf, ms)) return true;
  }
  diag_error(s->d, v->loc, "option '%s' %s", o->key, AIR_MSG_DURATION);
  return false;
}

/* brokers = 'host:port,host:port' and topic = 'a,b': lists without blanks */
static const char *list_opt(Sema *s, Option *o, const char *allowed, const char *what) {
  const char *v = string_opt(s, o);
  if (!v) return NULL;
  if (!air_parse_list(v, allowed)) {
    diag_error(s->d, o->value->loc, "option '%s' %s", o->key, what);
    return NULL;
  }
  return v;
}

/* start = 'earliest' | 'latest' | '[topic:]partition:offset,...' */
static const char *start_opt(Sema *s, Option *o) {
  const char *v = string_opt(s, o);
  if (!v) return NULL;
  if (strcasecmp(v, "earliest") == 0) return "earliest";
  if (strcasecmp(v, "latest") == 0) return "latest";
  if (air_parse_start(v)) return v;
  diag_error(s->d, o->value->loc, "option 'start' %s", AIR_MSG_START);
  return NULL;
}

/* An option's value as the program's option table carries it: the text the
 * runtime parses as it parses a --set value. */
static const char *option_text(Sema *s, const Option *o) {
  Expr *v = o->value;
  int64_t n;
  if (v->kind == EX_STRING) return memchr(v->sval, '\0', v->slen) ? NULL : arena_strndup(s->arena, v->sval, v->slen);
  if (v->kind == EX_BOOL) return v->ival ? "true" : "false";
  if (const_int(v, &n)) return arena_printf(s->arena, "%lld", (long long)n);
  return NULL;
}

/* Each option of r as --set sees it at run time (codegen writes the table):
 * its compiled text or default, its type, and why --set refuses it, in the
 * words the compiler uses for the same option in the query. */
/* The refusal of option k for relations of r's kind and source or sink
 * kind: the same text for all of them, made once. */
static const char **why_slot(Sema *s, const Relation *r, int k) {
  int nk = nsource_kinds > nsink_kinds ? nsource_kinds : nsink_kinds;
  if (!s->why_cache) {
    size_t n = (size_t)3 * (size_t)nk * OPT_COUNT;
    s->why_cache = arena_alloc(s->arena, sizeof(char *) * n);
    memset(s->why_cache, 0, sizeof(char *) * n);
  }
  int which = r->kind == REL_SINK ? 0 : r->kind == REL_TABLE ? 1 : 2;
  int kind = r->kind == REL_SINK ? (int)(r->sink - sink_kinds) : (int)(r->source - source_kinds);
  return &s->why_cache[((size_t)which * (size_t)nk + (size_t)kind) * OPT_COUNT + (size_t)k];
}

static void record_options(Sema *s, Relation *r, Option **slot) {
  bool sink = r->kind == REL_SINK;
  int by = sink ? OPT_SINK : OPT_SOURCE, which = sink ? KN_SINK : r->kind == REL_TABLE ? KN_TABLE : KN_STREAM;
  unsigned opts = sink ? r->sink->opts : r->source->opts;
  const char *kind = sink ? r->sink->name : r->source->name;
  r->opt_text = arena_alloc(s->arena, sizeof(char *) * OPT_COUNT);
  r->opt_why = arena_alloc(s->arena, sizeof(char *) * OPT_COUNT);
  r->opt_type = arena_alloc(s->arena, sizeof(AirOptType) * OPT_COUNT);
  for (int k = 0; k < OPT_COUNT; k++) {
    const OptionKeyDef *d = &option_keys[k];
    AirOptType t = sink && k == OPT_TOPIC ? AIR_OPT_TOPIC : d->type;
    const char *why = NULL, **cached = why_slot(s, r, k);
    if (!(d->rels & (1u << r->kind))) {
      t = AIR_OPT_NA;
      if (!*cached) *cached = arena_printf(s->arena, "option '%s' does not apply to a %s", d->key, rel_kind_name(r));
      why = *cached;
    } else if (k == by || t == AIR_OPT_FIXED) {
      t = AIR_OPT_FIXED;
      why = d->why;
    } else if (!(opts & OPT_BIT(k))) {
      t = AIR_OPT_NA;
      if (!*cached) {
        const char *takers = kind_names(s, which, OPT_BIT(k));
        *cached = *takers ? arena_printf(s->arena, "option '%s' applies only to %s = %s", d->key,
                                         option_keys[by].key, takers)
                          : arena_printf(s->arena, "option '%s' does not apply to %s = '%s'", d->key,
                                         option_keys[by].key, kind);
      }
      why = *cached;
    } else if (k == OPT_HEADER && r->json) {
      t = AIR_OPT_NA;
      why = "option 'header' does not apply to format = 'json' (keys name the fields)";
    }
    r->opt_type[k] = t;
    r->opt_why[k] = why;
    r->opt_text[k] = slot[k] && k != OPT_KAFKA_PROPS ? option_text(s, slot[k]) : d->dflt;
  }
}

/* host:port, the port a number from 1 to 65535 (listen, connect, address) */
static const char *host_port_opt(Sema *s, Option *o, const char *key) {
  const char *v = string_opt(s, o);
  if (!v) return NULL;
  /* host:port, the port a number from 1 to 65535, an IPv6 address in brackets */
  if (!air_parse_hostport(v)) {
    diag_error(s->d, o->value->loc, "option '%s' %s", key, AIR_MSG_HOSTPORT);
    return NULL;
  }
  return v;
}

static void check_options(Sema *s, Stmt *st, Relation *r) {
  Option *slot[OPT_COUNT] = {0};
  for (Option *o = st->opts; o; o = o->next) {
    if (o->value)
      literal_type(o->value);
    int k = -1;
    for (int i = 0; i < OPT_COUNT; i++)
      if (strcasecmp(o->key, option_keys[i].key) == 0)
        k = i;
    if (strncasecmp(o->key, "kafka.", 6) == 0 && o->key[6]) {
      /* kafka.<property>: librdkafka's, passed through (it checks them when the run starts) */
      if (o->value) kafka_prop(s, r, o);
      if (!slot[OPT_KAFKA_PROPS]) slot[OPT_KAFKA_PROPS] = o;
      continue;
    }
    if (k == OPT_KAFKA_PROPS) k = -1;
    if (k < 0) {
      diag_error(s->d, o->loc, "unknown option '%s'", o->key);
      if (strcasecmp(o->key, "connector") == 0) { /* Flink SQL's: the kind is airc's source or sink option */
        diag_note(s->d, o->loc, "airc names the kind with %s (docs/language.md, section 2)",
                  r->kind == REL_SINK ? "sink = 'csv', 'stdout', 'kafka', 'redis' or 'tcp'"
                                      : "source = 'csv', 'kafka', 'stdin', 'tcp', 'datagen', ...");
        continue;
      }
      Names ns = {0};
      for (int i = 0; i < OPT_COUNT; i++)
        if (option_keys[i].rels & (1u << r->kind))
          names_add(s->arena, &ns, option_keys[i].key);
      suggest_note(s, o->loc, o->key, &ns);
      continue;
    }
    if (!(option_keys[k].rels & (1u << r->kind))) {
      diag_error(s->d, o->loc, "option '%s' does not apply to a %s", o->key, rel_kind_name(r));
      continue;
    }
    if (slot[k]) {
      diag_error(s->d, o->loc, "option '%s' is given twice", o->key);
      diag_note(s->d, slot[k]->loc, "first given here");
      continue;
    }
    if (!o->value)
      continue;
    slot[k] = o;
  }

  Option *o;
  if ((o = slot[OPT_SOURCE])) {
    const char *v = string_opt(s, o);
    const SourceKindDef *k = v ? source_kind_lookup(v) : NULL;
    if (k && (r->kind == REL_TABLE ? k->table_desc != NULL : !k->table_only))
      r->source = k;
    else if (k && r->kind == REL_TABLE)
      diag_error(s->d, o->value->loc, "source '%s' cannot fill a TABLE (table sources: %s)", k->name,
                 kind_names(s, KN_TABLE, 0));
    else if (k)
      diag_error(s->d, o->value->loc, "source '%s' fills a TABLE only, not a STREAM (stream sources: %s)",
                 k->name, kind_names(s, KN_STREAM, 0));
    else if (v)
      unknown_kind(s, o->value->loc, v, r->kind == REL_TABLE ? KN_TABLE : KN_STREAM);
  }
  if ((o = slot[OPT_SINK])) {
    const char *v = string_opt(s, o);
    const SinkKindDef *k = v ? sink_kind_lookup(v) : NULL;
    if (k)
      r->sink = k;
    else if (v)
      unknown_kind(s, o->value->loc, v, KN_SINK);
  }
  if ((o = slot[OPT_PATH])) {
    r->path = string_opt(s, o);
    r->path_loc = o->value->loc;
    if (r->path && !r->path[0])
      diag_error(s->d, o->value->loc, "option 'path' %s", AIR_MSG_EMPTY);
  }
  if ((o = slot[OPT_HEADER])) {
    Expr *v = o->value;
    if (v->kind == EX_BOOL || (v->kind == EX_INT && (v->ival == 0 || v->ival == 1)))
      r->header = v->ival != 0;
    else if (v->kind == EX_STRING && v->slen == 4 && strncasecmp(v->sval, "skip", 4) == 0)
      r->header = r->header_skip = true;
    else
      diag_error(s->d, v->loc, "option 'header' %s", AIR_MSG_HEADER);
  }
  for (int k = OPT_LISTEN; k <= OPT_CONNECT; k++) {
    const char *v = (o = slot[k]) ? host_port_opt(s, o, option_keys[k].key) : NULL;
    if (v && k == OPT_LISTEN)
      r->tcp_listen = v;
    else if (v)
      r->tcp_connect = v;
  }
  if ((o = slot[OPT_ADDRESS]))
    r->address = host_port_opt(s, o, "address");
  if ((o = slot[OPT_PATTERN])) {
    r->pattern = string_opt(s, o);
    if (r->pattern && !r->pattern[0]) diag_error(s->d, o->value->loc, "option 'pattern' must not be empty");
  }
  if ((o = slot[OPT_KEY_PREFIX])) {
    r->key_prefix = string_opt(s, o);
    if (r->key_prefix && !r->key_prefix[0])
      diag_error(s->d, o->value->loc, "option 'key_prefix' must not be empty");
    if (slot[OPT_PATTERN])
      diag_error(s->d, o->loc, "options 'pattern' and 'key_prefix' exclude each other: 'pattern' selects "
                 "whole keys, 'key_prefix' the keys starting with it, which the key column holds without it");
  }
  if ((o = slot[OPT_LAYOUT])) {
    const char *v = string_opt(s, o);
    if (v && strcasecmp(v, "hash") == 0)
      r->redis_hash = true;
    else if (v && strcasecmp(v, "string") != 0)
      diag_error(s->d, o->value->loc, "option 'layout' must be 'string' (a key's value is the other column) "
                 "or 'hash' (a hash's fields are the other columns)");
  }
  if ((o = slot[OPT_PREFIX]))
    r->prefix = string_opt(s, o);
  if ((o = slot[OPT_PASSWORD])) {
    r->password = string_opt(s, o);
    if (r->password && !r->password[0]) diag_error(s->d, o->value->loc, "option 'password' %s", AIR_MSG_EMPTY);
  }
  if ((o = slot[OPT_DB]) && int_opt(s, o, true, &r->db) && r->db > 1000000)
    diag_error(s->d, o->value->loc, "option 'db' must be a database number from 0 to 1000000");
  if ((o = slot[OPT_FORMAT])) {
    const char *v = string_opt(s, o);
    if (v && strcasecmp(v, "json") == 0)
      r->json = true;
    else if (v && strcasecmp(v, "csv") != 0)
      diag_error(s->d, o->value->loc, "option 'format' must be 'csv' or 'json'");
    if (r->json && slot[OPT_HEADER])
      diag_error(s->d, slot[OPT_HEADER]->loc, "option 'header' does not apply to format = 'json' (keys name "
                 "the fields)");
  }
  if (r->sink) r->ts_iso = airc_ts_iso;
  if ((o = slot[OPT_TS_FORMAT])) {
    const char *v = string_opt(s, o);
    if (v && strcasecmp(v, "iso") == 0)
      r->ts_iso = true;
    else if (v && strcasecmp(v, "epoch_ms") == 0)
      r->ts_iso = false;
    else if (v)
      diag_error(s->d, o->value->loc, "option 'timestamp_format' must be 'iso' (the default) or 'epoch_ms'");
  }
  if ((o = slot[OPT_FOLLOW])) {
    Expr *v = o->value;
    if (v->kind == EX_BOOL || (v->kind == EX_INT && (v->ival == 0 || v->ival == 1)))
      r->follow = v->ival != 0;
    else if (v->kind == EX_STRING && (strcasecmp(v->sval, "true") == 0 || strcasecmp(v->sval, "false") == 0))
      r->follow = strcasecmp(v->sval, "true") == 0; /* Flink SQL quotes every option value */
    else
      diag_error(s->d, v->loc, "option 'follow' %s", AIR_MSG_BOOL);
  }
  if ((o = slot[OPT_BROKERS]))
    r->brokers = list_opt(s, o, AIR_BROKER_CHARS, AIR_MSG_BROKERS);
  if ((o = slot[OPT_TOPIC]) && r->kind == REL_SINK)
    r->topics = list_opt(s, o, AIR_TOPIC_CHARS, AIR_MSG_TOPIC);
  else if (o)
    r->topics = list_opt(s, o, AIR_TOPIC_CHARS, AIR_MSG_TOPICS);
  if (r->kind == REL_SINK && r->topics && strchr(r->topics, ',')) {
    diag_error(s->d, o->value->loc, "option 'topic' %s", AIR_MSG_SINK_TOPIC);
    r->topics = NULL;
  }
  if ((o = slot[OPT_GROUP])) {
    r->group = string_opt(s, o);
    if (r->group && !r->group[0]) diag_error(s->d, o->value->loc, "option 'group' %s", AIR_MSG_EMPTY);
  }
  if ((o = slot[OPT_START]))
    r->start = start_opt(s, o);
  if ((o = slot[OPT_END])) {
    const char *v = string_opt(s, o);
    if (v && strcasecmp(v, "latest") == 0)
      r->until_end = true;
    else if (v && strcasecmp(v, "none") != 0)
      diag_error(s->d, o->value->loc, "option 'end' %s", AIR_MSG_END);
  }
  r->idle_ms = -1;
  if ((o = slot[OPT_IDLE_TIMEOUT]))
    duration_opt(s, o, &r->idle_ms);
  r->timeout_ms = 30000;
  if ((o = slot[OPT_TIMEOUT]) && duration_opt(s, o, &r->timeout_ms) && r->timeout_ms < 1)
    diag_error(s->d, o->value->loc, "option 'timeout' %s", AIR_MSG_TIMEOUT_MIN);
  if ((o = slot[OPT_MAX_BAD_ROWS]))
    max_bad_rows_opt(s, o, r);
  if ((o = slot[OPT_RATE]))
    int_opt(s, o, true, &r->rate);
  if ((o = slot[OPT_SEED]))
    r->has_seed = int_opt(s, o, false, &r->seed);
  if ((o = slot[OPT_LIMIT]))
    r->has_limit = int_opt(s, o, true, &r->limit);

  if (r->kind == REL_SINK ? r->sink != NULL : r->source != NULL)
    record_options(s, r, slot);

  /* which options each kind needs, and which make no sense for it */
  if (r->kind == REL_SINK) {
    if (!slot[OPT_SINK]) {
      diag_error(s->d, st->name_loc, "sink '%s' needs a 'sink' option (sink = %s)", r->name,
                 kind_names(s, KN_SINK, 0));
      return;
    }
    if (r->sink)
      kind_options(s, slot, OPT_SINK, r->sink->name, r->sink->opts, r->sink->required, KN_SINK);
    return;
  }
  if (!slot[OPT_SOURCE]) {
    diag_error(s->d, st->name_loc, "%s '%s' needs a 'source' option (%s)", rel_kind_name(r),
               r->name, kind_names(s, r->kind == REL_TABLE ? KN_TABLE : KN_STREAM, 0));
    return;
  }
  if (r->source)
    kind_options(s, slot, OPT_SOURCE, r->source->name, r->source->opts, r->source->required,
                 r->kind == REL_TABLE ? KN_TABLE : KN_STREAM);
}

/* ---------------------------------------------------------------------
 * Columns of sources and tables
 * --------------------------------------------------------------------- */

static void build_columns(Sema *s, Stmt *st, Relation *r) {
  int n = 0;
  for (ColumnDef *cd = st->cols; cd; cd = cd->next)
    n++;
  r->cols = arena_alloc(s->arena, sizeof(Column) * (size_t)(n ? n : 1));
  for (ColumnDef *cd = st->cols; cd; cd = cd->next) {
    int old = find_col(r, cd->name);
    if (old >= 0) {
      diag_error(s->d, cd->loc, "duplicate column '%s'", cd->name);
      diag_note(s->d, r->cols[old].loc, "'%s' was first declared here", cd->name);
      continue;
    }
    if (cd->type.kind == TY_VARCHAR && cd->type.len < 1)
      diag_error(s->d, cd->type_loc, "VARCHAR length must be at least 1");
    Column *c = &r->cols[r->ncols++];
    c->name = cd->name;
    c->type = cd->type;
    c->loc = cd->loc;
    c->ysb_field = -1;
    c->gen.kind = cd->proctime ? GEN_NOW : GEN_NONE; /* a generator's: the ingestion time */
    c->proc_ts = cd->proctime;
  }
}

static ColumnDef *coldef_of(Stmt *st, const Column *c) {
  for (ColumnDef *cd = st->cols; cd; cd = cd->next)
    if (cd->loc.line == c->loc.line && cd->loc.col == c->loc.col && strcmp(cd->name, c->name) == 0)
      return cd;
  return NULL;
}

/* Which columns may hold NULL: those of a kind whose fields can be NULL
 * (SourceKindDef.nulls), but NOT NULL ones, the event time and a table's
 * key, whose empty fields make the row bad. */
static void settle_nullable(Stmt *st, Relation *r) {
  for (int i = 0; i < r->ncols; i++) {
    Column *c = &r->cols[i];
    const ColumnDef *cd = coldef_of(st, c);
    c->type.nullable = r->source && r->source->nulls && !(cd && cd->not_null) && i != r->time_col &&
                       i != r->key_col && i != r->meta_col;
  }
}

/* The ysb generator's fields, in AIR_YSB_* order, with their widest values. */
static const struct {
  const char *name;
  TypeKind kind;
  int len;
} ysb_schema[] = {
    {"user_id", TY_VARCHAR, 36}, {"page_id", TY_VARCHAR, 36},   {"ad_id", TY_VARCHAR, 36},
    {"ad_type", TY_VARCHAR, 16}, {"event_type", TY_VARCHAR, 9}, {"ip", TY_VARCHAR, 15},
    {"ts", TY_TIMESTAMP, 0},
};

static bool check_schema_type(Sema *s, ColumnDef *cd, TypeKind kind, int len, const char *what) {
  char b1[32], b2[32];
  if (cd->type.kind == kind && (kind != TY_VARCHAR || cd->type.len >= len))
    return true;
  if (kind == TY_VARCHAR)
    diag_error(s->d, cd->type_loc, "%s column '%s' must be VARCHAR(%d) or longer, not %s", what,
               cd->name, len, tyname(cd->type, b1));
  else
    diag_error(s->d, cd->type_loc, "%s column '%s' must be %s, not %s", what, cd->name,
               tyname(mk_type(kind), b2), tyname(cd->type, b1));
  return false;
}

void sema_check_ysb_stream(Sema *s, Stmt *st, Relation *r) {
  for (int i = 0; i < r->ncols; i++) {
    Column *c = &r->cols[i];
    ColumnDef *cd = coldef_of(st, c);
    int f = -1;
    for (size_t k = 0; k < sizeof ysb_schema / sizeof ysb_schema[0]; k++)
      if (strcmp(ysb_schema[k].name, c->name) == 0)
        f = (int)k;
    if (f < 0) {
      diag_error(s->d, c->loc,
                 "column '%s' is not in the ysb schema "
                 "(user_id, page_id, ad_id, ad_type, event_type, ip, ts)",
                 c->name);
      Names ns = {0};
      for (size_t k = 0; k < sizeof ysb_schema / sizeof ysb_schema[0]; k++)
        names_add(s->arena, &ns, ysb_schema[k].name);
      suggest_note(s, c->loc, c->name, &ns);
      continue;
    }
    c->ysb_field = f;
    if (cd)
      check_schema_type(s, cd, ysb_schema[f].kind, ysb_schema[f].len, "ysb");
  }
}

void sema_check_ysb_table(Sema *s, Stmt *st, Relation *r) {
  for (ColumnDef *cd = st->cols; cd; cd = cd->next) {
    if (strcmp(cd->name, "ad_id") == 0 || strcmp(cd->name, "campaign_id") == 0)
      check_schema_type(s, cd, TY_VARCHAR, 36, "ysb table");
    else {
      diag_error(s->d, cd->loc, "column '%s' is not in the ysb campaign table (ad_id, campaign_id)",
                 cd->name);
      static const char *const known[] = {"ad_id", "campaign_id"};
      suggest_from_list(s, cd->loc, cd->name, known, 2);
    }
  }
  if (r->key_col >= 0 && strcmp(r->cols[r->key_col].name, "ad_id") != 0)
    diag_error(s->d, st->pkey_loc, "the ysb campaign table's PRIMARY KEY must be ad_id");
}

/* GENERATED BY for one datagen column. */
static void check_gen(Sema *s, Column *c, ColumnDef *cd) {
  Diag *d = s->d;
  Expr *g = cd->gen;
  char b[32];
  if (!g) {
    if (c->type.kind != TY_TIMESTAMP)
      diag_error(d, cd->loc,
                 "column '%s' of a datagen stream needs GENERATED BY "
                 "(sequence, uniform, choice or uuid)",
                 c->name);
    return;
  }
  init_ann(g);
  g->type = c->type;
  if (g->kind != EX_CALL) {
    diag_error(d, g->loc, "GENERATED BY needs a generator call such as uniform(0, 9)");
    return;
  }
  int nargs = list_len(g->args);
  const char *fn = g->name;
  GenSpec *gs = &c->gen;
  Type t = c->type;
  for (Expr *a = g->args; a; a = a->next)
    literal_type(a);

  if (strcasecmp(fn, "sequence") == 0 || strcasecmp(fn, "uniform") == 0) {
    bool seq = strcasecmp(fn, "sequence") == 0;
    if (seq ? nargs > 2 : nargs != 2) {
      diag_error(d, g->loc, "%s() takes %s, got %d", fn,
                 seq ? "at most two arguments" : "two arguments", nargs);
      return;
    }
    int64_t v[2] = {0, 1};
    int i = 0;
    for (Expr *a = g->args; a; a = a->next, i++) {
      if (!const_int(a, &v[i])) {
        diag_error(d, a->loc, "arguments of %s() must be integer literals", fn);
        return;
      }
    }
    bool fits = seq ? (is_sql_int(t) || t.kind == TY_TIMESTAMP) : is_num(t);
    if (!fits) {
      diag_error(d, g->loc, "%s() cannot fill a %s column", fn, tyname(t, b));
      return;
    }
    if (seq && v[1] == 0) {
      diag_error(d, g->args->next->loc, "sequence() step must not be 0");
      return;
    }
    if (seq && t.kind == TY_TIMESTAMP && (v[0] < AIR_TS_MIN || v[0] > AIR_TS_MAX)) {
      diag_error(d, g->args->loc,
                 "sequence() start %lld is outside the TIMESTAMP range (years 1 to 9999: %lld "
                 "to %lld ms)", (long long)v[0], (long long)AIR_TS_MIN, (long long)AIR_TS_MAX);
      return;
    }
    if (!seq && v[0] > v[1]) {
      diag_error(d, g->loc, "uniform(lo, hi) needs lo <= hi");
      return;
    }
    if (!seq && t.kind == TY_INT && (v[0] < INT32_MIN || v[1] > INT32_MAX)) {
      diag_error(d, g->loc, "uniform() bounds do not fit in INT");
      return;
    }
    gs->kind = seq ? GEN_SEQUENCE : GEN_UNIFORM;
    gs->a = v[0];
    gs->b = v[1];
  } else if (strcasecmp(fn, "choice") == 0) {
    if (nargs < 1) {
      diag_error(d, g->loc, "choice() takes at least one argument");
      return;
    }
    if (t.kind != TY_VARCHAR) {
      diag_error(d, g->loc, "choice() cannot fill a %s column", tyname(t, b));
      return;
    }
    gs->choices = arena_alloc(s->arena, sizeof(char *) * (size_t)nargs);
    gs->choice_lens = arena_alloc(s->arena, sizeof(size_t) * (size_t)nargs);
    for (Expr *a = g->args; a; a = a->next) {
      if (a->kind != EX_STRING) {
        diag_error(d, a->loc, "arguments of choice() must be string literals");
        return;
      }
      if (a->slen > (size_t)t.len) {
        diag_error(d, a->loc, "choice '%.*s' is longer than the column's %s", (int)a->slen,
                   a->sval, tyname(t, b));
        return;
      }
      gs->choices[gs->nchoices] = a->sval;
      gs->choice_lens[gs->nchoices++] = a->slen;
    }
    gs->kind = GEN_CHOICE;
  } else if (strcasecmp(fn, "uuid") == 0 || strcasecmp(fn, "now") == 0) {
    bool uuid = strcasecmp(fn, "uuid") == 0;
    if (nargs != 0) {
      diag_error(d, g->loc, "%s() takes no arguments, got %d", fn, nargs);
      return;
    }
    if (uuid ? (t.kind != TY_VARCHAR || t.len < 36) : t.kind != TY_TIMESTAMP) {
      diag_error(d, g->loc, "%s() cannot fill a %s column (it needs %s)", fn, tyname(t, b),
                 uuid ? "VARCHAR(36) or longer" : "TIMESTAMP");
      return;
    }
    gs->kind = uuid ? GEN_UUID : GEN_NOW;
  } else {
    diag_error(d, g->loc, "unknown generator '%s' (expected sequence, uniform, choice, uuid or now)",
               fn);
    static const char *const known[] = {"sequence", "uniform", "choice", "uuid", "now"};
    suggest_from_list(s, g->loc, fn, known, (int)(sizeof known / sizeof known[0]));
  }
}

/* A kafka stream: a start that names topics names the stream's own. */
void sema_check_kafka_stream(Sema *s, Stmt *st, Relation *r) {
  if (!r->start || !r->topics) return;
  for (Option *o = st->opts; o; o = o->next) {
    if (strcasecmp(o->key, "start") != 0) continue;
    size_t tn;
    for (const char *p = r->start; (p = air_start_stray_topic(p, r->topics, &tn)); p += strcspn(p, ",") + (p[strcspn(p, ",")] == ','))
      diag_error(s->d, o->value->loc, AIR_MSG_START_TOPIC, (int)tn, p, r->topics);
  }
}

/* A redis table: layout 'string' is the key and its value (two columns);
 * layout 'hash' the key and fields named as the other columns. */
void sema_check_redis_table(Sema *s, Stmt *st, Relation *r) {
  if (!r->redis_hash && r->ncols != 2)
    diag_error(s->d, st->name_loc, "table '%s': layout = 'string' reads a key and its value, so it has two "
               "columns (the PRIMARY KEY holds the key, the other the value); for more, store hashes and "
               "give layout = 'hash'", r->name);
  if (r->redis_hash && r->ncols < 2)
    diag_error(s->d, st->name_loc, "table '%s': layout = 'hash' reads fields named as the columns besides the "
               "PRIMARY KEY, so it needs at least one", r->name);
}

/* A tcp stream listens or connects, not both. */
void sema_check_tcp_stream(Sema *s, Stmt *st, Relation *r) {
  bool l = false, c = false;
  for (Option *o = st->opts; o; o = o->next) {
    l |= strcasecmp(o->key, "listen") == 0;
    c |= strcasecmp(o->key, "connect") == 0;
  }
  if (l == c)
    diag_error(s->d, st->name_loc, "stream '%s': source = 'tcp' needs either listen = 'host:port' "
               "(senders connect to it) or connect = 'host:port' (it connects to a server)%s",
               r->name, l ? ", not both" : "");
  else if (r->opt_type) {
    /* --set may change the address, not whether it listens or connects */
    int other = l ? OPT_CONNECT : OPT_LISTEN;
    r->opt_type[other] = AIR_OPT_NA;
    r->opt_why[other] = arena_printf(s->arena, "stream '%s': source = 'tcp' needs either listen = 'host:port' "
                                     "(senders connect to it) or connect = 'host:port' (it connects to a server), "
                                     "not both", r->name);
  }
}

/* The datagen kind's columns: each is GENERATED BY one of the generators. */
void sema_check_datagen_stream(Sema *s, Stmt *st, Relation *r) {
  for (int i = 0; i < r->ncols; i++) {
    ColumnDef *cd = coldef_of(st, &r->cols[i]);
    if (cd)
      check_gen(s, &r->cols[i], cd);
  }
}

/* The source kinds whose columns take GENERATED BY, as "'a' or 'b'". */
static const char *generating_kinds(Sema *s) {
  char *out = "";
  int n = 0;
  for (int i = 0; i < nsource_kinds; i++)
    if (source_kinds[i].generated_by)
      out = arena_printf(s->arena, "%s%s'%s'", out, n++ ? " or " : "", source_kinds[i].name);
  return out;
}

/* The source kinds whose messages have a timestamp, as "'a' or 'b'". */
static const char *message_ts_kinds(Sema *s) {
  char *out = "";
  int n = 0;
  for (int i = 0; i < nsource_kinds; i++)
    if (source_kinds[i].message_ts)
      out = arena_printf(s->arena, "%s%s'%s'", out, n++ ? " or " : "", source_kinds[i].name);
  return out;
}

/* col TIMESTAMP METADATA [FROM 'timestamp'] [VIRTUAL]: the message's
 * timestamp (Flink SQL's kafka connector), not a field of the value. */
static void check_metadata(Sema *s, Relation *r, ColumnDef *cd) {
  const char *key = *cd->meta_key ? cd->meta_key : cd->name;
  char b[32];
  int c = find_col(r, cd->name);
  if (r->source && !r->source->message_ts) {
    diag_error(s->d, cd->meta_loc, "METADATA columns need source = %s (the message's timestamp); source = "
               "'%s' has no metadata", message_ts_kinds(s), r->source->name);
    return;
  }
  if (strcasecmp(key, "timestamp") != 0) {
    diag_error(s->d, cd->meta_loc, "unknown METADATA key '%s' (a kafka message gives 'timestamp')", key);
    static const char *const known[] = {"timestamp"};
    suggest_from_list(s, cd->meta_loc, key, known, 1);
    return;
  }
  if (cd->type.kind != TY_TIMESTAMP) {
    diag_error(s->d, cd->type_loc, "METADATA FROM 'timestamp' column '%s' must be TIMESTAMP, not %s", cd->name,
               tyname(cd->type, b));
    return;
  }
  if (r->meta_col >= 0) {
    diag_error(s->d, cd->meta_loc, "stream '%s' has two METADATA FROM 'timestamp' columns", r->name);
    return;
  }
  if (c >= 0) {
    r->meta_col = c;
    r->cols[c].meta_ts = true;
  }
}

/* `p AS PROCTIME()`: the stream's time is the wall-clock time each row is
 * read (Flink's processing time), a column with no field in the record; its
 * watermark is the clock. One time per stream: no WATERMARK beside it. */
static void check_proctime(Sema *s, Stmt *st, Relation *r, ColumnDef *cd) {
  int c = find_col(r, cd->name);
  if (c < 0 || r->cols[c].loc.line != cd->loc.line || r->cols[c].loc.col != cd->loc.col) return; /* a duplicate */
  if (r->proc_col >= 0) {
    diag_error(s->d, cd->loc, "stream '%s' has two PROCTIME() columns", r->name);
    return;
  }
  if (r->meta_col >= 0) {
    diag_error(s->d, cd->loc, "stream '%s' takes its time from the message's timestamp (METADATA) already; "
               "a PROCTIME() column would be a second time", r->name);
    return;
  }
  if (st->wm) {
    diag_error(s->d, st->wm->loc, "stream '%s' has a PROCTIME() column, so its time is the processing time; "
               "a WATERMARK names an event time, and a stream has one time in airc (declare a second stream over "
               "the same source for the other)", r->name);
    return;
  }
  r->proc_col = c;
  r->time_col = c;
}

/* WATERMARK FOR col AS col [- INTERVAL ...] */
static void check_watermark(Sema *s, Stmt *st, Relation *r) {
  WatermarkDef *wm = st->wm;
  char b[32];
  int c = find_col(r, wm->column);
  if (c < 0) {
    diag_error(s->d, wm->loc, "unknown column '%s' in WATERMARK FOR", wm->column);
    Names ns = {0};
    for (int i = 0; i < r->ncols; i++)
      names_add(s->arena, &ns, r->cols[i].name);
    suggest_note(s, wm->loc, wm->column, &ns);
    return;
  }
  if (r->cols[c].type.kind != TY_TIMESTAMP) {
    diag_error(s->d, wm->loc, "WATERMARK column '%s' must be TIMESTAMP, not %s", wm->column,
               tyname(r->cols[c].type, b));
    return;
  }
  r->time_col = c;
  r->has_watermark = true;
  Expr *e = wm->expr, *col = NULL, *iv = NULL;
  if (e && e->kind == EX_COLUMN) {
    col = e;
  } else if (e && e->kind == EX_BINARY && e->op == OP_SUB && e->lhs->kind == EX_COLUMN &&
             e->rhs->kind == EX_INTERVAL) {
    col = e->lhs;
    iv = e->rhs;
  }
  bool ok = col && strcmp(col->name, wm->column) == 0 &&
            (!col->qual || strcmp(col->qual, r->name) == 0) && (!iv || iv->ival >= 0);
  if (ok && iv && iv->ival > AIRC_MAX_SPAN_MS) {
    diag_error(s->d, iv->loc,
               "WATERMARK bound of %lld ms is longer than the TIMESTAMP range (years 1 to "
               "9999, %lld ms)", (long long)iv->ival, (long long)AIRC_MAX_SPAN_MS);
    return;
  }
  if (!ok) {
    diag_error(s->d, e ? e->loc : wm->loc, "WATERMARK FOR %s must be 'AS %s' or 'AS %s - INTERVAL ...'",
               wm->column, wm->column, wm->column);
    return;
  }
  init_ann(e);
  e->type = mk_type(TY_TIMESTAMP);
  init_ann(col);
  col->type = mk_type(TY_TIMESTAMP);
  col->from_idx = 0;
  col->col_idx = c;
  if (iv) {
    init_ann(iv);
    iv->type = mk_type(TY_INTERVAL);
  }
  wm->bound_ms = iv ? iv->ival : 0;
  r->wm_bound_ms = wm->bound_ms;
}

void check_source(Sema *s, Stmt *st) {
  bool fresh = check_new_name(s, st);
  Relation *r = new_relation(s, st, REL_SOURCE);
  build_columns(s, st, r);
  check_options(s, st, r);
  if (st->pkey)
    diag_error(s->d, st->pkey_loc, "PRIMARY KEY is only allowed in CREATE TABLE");

  if (r->source && !r->source->generated_by) {
    for (ColumnDef *cd = st->cols; cd; cd = cd->next)
      if (cd->gen)
        diag_error(s->d, cd->gen->loc, "GENERATED BY needs source = %s", generating_kinds(s));
  }
  if (r->source && r->source->check_stream)
    r->source->check_stream(s, st, r);
  for (ColumnDef *cd = st->cols; cd; cd = cd->next)
    if (cd->meta_key) check_metadata(s, r, cd);
  for (ColumnDef *cd = st->cols; cd; cd = cd->next)
    if (cd->proctime) check_proctime(s, st, r, cd);

  if (r->proc_col >= 0) {
    /* the processing time (check_proctime) */
  } else if (st->wm) {
    check_watermark(s, st, r);
  } else {
    int nts = 0;
    for (int i = 0; i < r->ncols; i++) {
      if (r->cols[i].type.kind == TY_TIMESTAMP) {
        if (!nts)
          r->time_col = i;
        nts++;
      }
    }
    /* a schema's time column of the wrong type was reported already */
    bool schema_ts = false;
    for (int i = 0; i < r->ncols; i++)
      schema_ts |= r->cols[i].ysb_field == AIR_YSB_TS;
    if (nts == 0 && !schema_ts)
      diag_error(s->d, st->name_loc, "stream '%s' has no TIMESTAMP column for its event time",
                 r->name);
    else if (nts > 1)
      diag_error(s->d, st->name_loc,
                 "stream '%s' has several TIMESTAMP columns; name its event time with "
                 "WATERMARK FOR",
                 r->name);
  }
  if (r->meta_col >= 0 && r->time_col >= 0 && r->time_col != r->meta_col)
    diag_error(s->d, r->cols[r->meta_col].loc, "the METADATA FROM 'timestamp' column '%s' must be the "
               "stream's event time (WATERMARK FOR %s AS ...), the only column the message's timestamp fills",
               r->cols[r->meta_col].name, r->cols[r->meta_col].name);
  if (r->time_col >= 0 && r->source && r->source->time == TIME_GENERATED)
    r->ingestion_time = r->cols[r->time_col].gen.kind != GEN_SEQUENCE;
  settle_nullable(st, r);
  if (fresh)
    catalog_add(s, r);
}

void check_table(Sema *s, Stmt *st) {
  bool fresh = check_new_name(s, st);
  Relation *r = new_relation(s, st, REL_TABLE);
  build_columns(s, st, r);
  check_options(s, st, r);
  if (st->wm)
    diag_error(s->d, st->wm->loc, "a TABLE has no event time, so no WATERMARK");
  for (ColumnDef *cd = st->cols; cd; cd = cd->next) {
    if (cd->gen)
      diag_error(s->d, cd->gen->loc, "GENERATED BY is not allowed in a TABLE");
    if (cd->meta_key)
      diag_error(s->d, cd->meta_loc, "METADATA columns are for a STREAM's messages, not a TABLE");
    if (cd->proctime)
      diag_error(s->d, cd->loc, "a TABLE has no time, so no PROCTIME() column");
  }
  if (!st->pkey) {
    diag_error(s->d, st->name_loc, "table '%s' needs a PRIMARY KEY", r->name);
  } else {
    r->key_col = find_col(r, st->pkey);
    if (r->key_col < 0) {
      diag_error(s->d, st->pkey_loc, "PRIMARY KEY column '%s' is not a column of table '%s'",
                 st->pkey, r->name);
      Names ns = {0};
      for (int i = 0; i < r->ncols; i++)
        names_add(s->arena, &ns, r->cols[i].name);
      suggest_note(s, st->pkey_loc, st->pkey, &ns);
    }
  }
  if (r->source && r->source->check_table)
    r->source->check_table(s, st, r);
  /* a table without a usable key would make every later JOIN fail too */
  if (r->key_col < 0)
    mark_broken(s, r);
  settle_nullable(st, r);
  if (fresh)
    catalog_add(s, r);
}

void check_sink(Sema *s, Stmt *st) {
  bool fresh = check_new_name(s, st);
  Relation *r = new_relation(s, st, REL_SINK);
  r->cols = arena_alloc(s->arena, sizeof(Column));
  check_options(s, st, r);
  if (fresh)
    catalog_add(s, r);
}

/* sink = 'redis': a hash per window and group key, so the query has a
 * window and selects every GROUP BY key (else two groups' rows would
 * overwrite one hash). */
void sema_check_redis_insert(Sema *s, const Stmt *ins, const Relation *r) {
  const Select *sel = ins->select;
  if (!sel->window) {
    diag_error(s->d, ins->name_loc, "sink '%s' (sink = 'redis') writes one hash per window and group key, and "
               "this query has no WINDOW", r->name);
    return;
  }
  int k = 0;
  for (const Expr *g = sel->group_by; g; g = g->next, k++) {
    bool selected = false;
    for (int i = 0; i < sel->nout; i++)
      selected |= sel->out[i].expr && sel->out[i].expr->key_idx == k;
    if (!selected)
      diag_error(s->d, g->loc, "sink '%s' (sink = 'redis') keys each hash by the GROUP BY keys: select '%s' too",
                 r->name, g->text);
  }
}

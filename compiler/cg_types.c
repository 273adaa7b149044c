/* cg_types.c - C for each query's structs (rows, keys, accumulators,
 * partials, results), csv field parsing, and tables loaded whole. */
#include "codegen_int.h"

static void json_key(FILE *o, const char *n);

/* ---- per-chain structs --------------------------------------------------- */

/* The comparison that orders result rows by a value of type t: NULL after
 * every value (the VARCHAR and DOUBLE NULLs already sort last; the integer
 * ones, the smallest of their types, need telling). */
const char *order_fn(Type t) {
  switch (t.kind) {
  case TY_VARCHAR: return "strcmp";
  case TY_DOUBLE: return t.nullable ? "q_order_f64n" : "q_order_f64";
  case TY_INT: return t.nullable ? "q_order_i32n" : "q_cmp_i64";
  case TY_BOOL: return "q_cmp_i64";
  default: return t.nullable ? "q_order_i64n" : "q_cmp_i64";
  }
}

/* ... of an ORDER BY item: its NULLS FIRST or NULLS LAST (DESC swaps the
 * arguments, so NULL goes first there with a function putting it last). */
const char *order_item_fn(Type t, const OrderItem *oi) {
  bool low = (oi->nulls == NULLS_FIRST && !oi->desc) || (oi->nulls == NULLS_LAST && oi->desc);
  if (!low || !t.nullable) return order_fn(t);
  switch (t.kind) {
  case TY_VARCHAR: return "q_order_strnl";
  case TY_DOUBLE: return "q_order_f64nl";
  case TY_INT: return "q_order_i32nl";
  case TY_BOOL: return "q_order_boolnl";
  default: return "q_order_i64nl";
  }
}

Type join_key_type(const Select *s) {
  Type l = s->join_lkey->type, r = s->join_rkey->type;
  bool n = l.nullable || r.nullable;
  if (l.kind == TY_VARCHAR) return (Type){.kind = TY_VARCHAR, .len = l.len > r.len ? l.len : r.len, .nullable = n};
  if (l.kind == TY_DOUBLE || r.kind == TY_DOUBLE) return (Type){.kind = TY_DOUBLE, .nullable = n};
  if (l.kind == TY_BOOL) return (Type){.kind = TY_BOOL, .nullable = n};
  return (Type){.kind = TY_BIGINT, .nullable = n};
}

/* A Top-N of a window's rows (Select.topn_rows): a row as the accumulator
 * keeps it (its output columns and time), and the order within a partition
 * that cmp_O gives on rank 0 (the ranking, every column, the time), so that
 * the first n kept on each rank hold the partition's first n. */
static void emit_topn_row(FILE *o, const Chain *ch) {
  const Select *s = ch->sel;
  int c = ch->index;
  fprintf(o, "typedef struct TR%d { /* a row of a Top-N's accumulator */\n  int64_t ts;\n", c);
  for (int i = 0; i < s->nout; i++) {
    char nm[16];
    snprintf(nm, sizeof nm, "o%d", i);
    field_decl(o, s->out[i].type, nm, s->out[i].name);
  }
  fprintf(o, "} TR%d;\n", c);
  fprintf(o, "static int cmp_TR%d(const void *pa, const void *pb) {\n  const TR%d *a = pa, *b = pb;\n  int r;\n", c, c);
  int k = 0;
  for (const OrderItem *oi = s->order_by; oi; oi = oi->next, k++) {
    if (k < s->limit_part) continue; /* the partition: equal */
    int i = oi->out;
    const char *fn = order_item_fn(s->out[i].type, oi);
    if (oi->desc) fprintf(o, "  if ((r = %s(b->o%d, a->o%d)) != 0) return r; /* DESC */\n", fn, i, i);
    else fprintf(o, "  if ((r = %s(a->o%d, b->o%d)) != 0) return r;\n", fn, i, i);
  }
  for (int i = 0; i < s->nout; i++)
    fprintf(o, "  if ((r = %s(a->o%d, b->o%d)) != 0) return r;\n", order_fn(s->out[i].type), i, i);
  fprintf(o, "  return q_cmp_i64(a->ts, b->ts);\n}\n");
}

static void emit_r_struct(Gen *g, const Chain *ch, const char *name, int only_from) {
  FILE *o = g->types.f;
  const Select *s = ch->sel;
  fprintf(o, "typedef struct %s { /* a row between pipelines */\n", name);
  fprintf(o, "  int64_t ts; /* event time, ms */\n");
  fprintf(o, "  int64_t wstart, wend; /* the window of a joined row, ms */\n");
  fprintf(o, "  int64_t srcwm; /* its source's watermark when it was read: windows ending by then are closed to it */\n");
  if (s->retract || (s->join_retracts && only_from < 0)) /* (an outer regular join's: after the join) */
    fprintf(o, "  int64_t op; /* AIR_OP_*: the row is added (+I, +U) or taken back (-U, -D) */\n");
  for (int f = 0; f < s->nfrom; f++) {
    if (only_from >= 0 && f != only_from) continue;
    const Relation *r = s->from[f].rel;
    for (int i = 0; i < r->ncols; i++) {
      if (!ch->used[f][i]) continue;
      char nm[32];
      snprintf(nm, sizeof nm, "f%dc%d", f, i);
      field_decl(o, r->cols[i].type, nm, r->cols[i].name);
    }
  }
  fprintf(o, "} %s;\n", name);
}

/* A stream-stream join's row of one side as its window keeps it: the event
 * time and the columns of that side the query reads (the row that arrived
 * also had the window bounds, its watermark and, on the left, room for the
 * right side's columns). */
static void emit_join_row_struct(Gen *g, const Chain *ch, const char *name, int side) {
  FILE *o = g->types.f;
  const Relation *r = ch->sel->from[side].rel;
  fprintf(o, "typedef struct %s { /* a %s row a join window keeps */\n", name, side ? "right" : "left");
  fprintf(o, "  int64_t ts; /* event time, ms */\n");
  for (int i = 0; i < r->ncols; i++) {
    if (!ch->used[side][i]) continue;
    char nm[32];
    snprintf(nm, sizeof nm, "f%dc%d", side, i);
    field_decl(o, r->cols[i].type, nm, r->cols[i].name);
  }
  fprintf(o, "} %s;\n", name);
}

void emit_chain_types(Gen *g, const Chain *ch) {
  FILE *o = g->types.f;
  const Select *s = ch->sel;
  int c = ch->index;
  fprintf(o, "/* ");
  c_comment(o, ch->label);
  fprintf(o, " (line %d) */\n", ch->stmt->loc.line);
  if (ch->join_at >= 0) {
    fprintf(o, "typedef struct K%d { /* join key */\n", c);
    field_decl(o, join_key_type(s), "k0", s->join_lkey->text);
    fprintf(o, "} K%d;\n", c);
  } else if (ch->windowed) {
    fprintf(o, "typedef struct K%d { /* group key */\n", c);
    if (s->nkeys == 0) fprintf(o, "  char none; /* a Reduce has no key */\n");
    for (int i = 0; i < s->nkeys; i++) {
      char nm[32];
      snprintf(nm, sizeof nm, "k%d", i);
      field_decl(o, s->keys[i]->type, nm, s->keys[i]->text);
    }
    fprintf(o, "} K%d;\n", c);
    if (s->topn_rows) emit_topn_row(o, ch);
    fprintf(o, "typedef struct A%d { /* accumulators */\n", c);
    fprintf(o, "  int64_t maxts; /* event time: the latest contributing row's */\n");
    if (s->updating) fprintf(o, "  int64_t rows; /* rows added less rows taken back: none left, the key is gone */\n");
    for (int j = 0; j < s->naggs; j++) {
      agg_defs[s->aggs[j]->agg].field(o, s->aggs[j], j);
    }
    if (s->topn_rows)
      fprintf(o, "  uint32_t ntop; /* rows in top */\n  TR%d top[%lld]; /* the partition's first rows, in cmp_TR%d's order */\n",
              c, (long long)s->limit, c);
    fprintf(o, "} A%d;\n", c);
    fprintf(o, "typedef struct P%d { /* a per-rank partial aggregate */\n", c);
    if (chain_slice_ms(ch))
      fprintf(o, "  int64_t wstart; /* slice start, or window start when whole, ms */\n"
                 "  int64_t whole; /* 1: rows of this window alone (behind the watermark), 0: of a slice */\n");
    else
      fprintf(o, "  int64_t wstart; /* window start, ms */\n");
    fprintf(o, "  K%d key;\n  A%d acc;\n} P%d;\n", c, c, c);
  }
  if (ch->join_at >= 0 || ch->windowed) {
    /* one hash per key type: a single integer key is mixed, not hashed as bytes */
    Type k0 = ch->join_at >= 0 ? join_key_type(s) : s->nkeys == 1 ? s->keys[0]->type : (Type){.kind = TY_VARCHAR, .len = 0};
    fprintf(o, "static inline uint64_t hash_K%d(const K%d *k) {\n", c, c);
    if (k0.kind == TY_INT || k0.kind == TY_BIGINT || k0.kind == TY_TIMESTAMP || k0.kind == TY_DATE)
      fprintf(o, "  return air_hash_u64((uint64_t)k->k0);\n}\n");
    else
      fprintf(o, "  return air_hash_bytes(k, sizeof *k);\n}\n");
  }
  /* rows between pipelines */
  char nm[16];
  snprintf(nm, sizeof nm, "R%d", c);
  emit_r_struct(g, ch, nm, -1);
  if (ch->join_at >= 0) {
    snprintf(nm, sizeof nm, "RA%d", c);
    emit_r_struct(g, ch, nm, 0);
    snprintf(nm, sizeof nm, "RB%d", c);
    emit_r_struct(g, ch, nm, 1);
    /* a window's rows of each side with their join key and its hash, in
     * arrival order; the right side is hashed when the window closes */
    snprintf(nm, sizeof nm, "JLR%d", c);
    emit_join_row_struct(g, ch, nm, 0);
    snprintf(nm, sizeof nm, "JRR%d", c);
    emit_join_row_struct(g, ch, nm, 1);
    /* an outer interval join marks the rows that met one (padded if not) */
    char mk[160];
    snprintf(mk, sizeof mk, "%s%s",
             join_keeps_srcwm(ch) ? "  int64_t srcwm; /* its source's watermark when read */\n" : "",
             ch->sel->interval_join && (ch->sel->left_join || ch->sel->right_join)
                 ? "  uint8_t matched; /* 1 once a pair of it was sent */\n" : "");
    fprintf(o, "typedef struct JL%d { /* a left row */\n  uint64_t h; /* hash_K%d(&key), first: air_join_index reads it */\n"
               "  K%d key;\n  JLR%d row;\n%s} JL%d;\n", c, c, c, c, mk, c);
    fprintf(o, "typedef struct JR%d { /* a right row */\n  uint64_t h;\n  K%d key;\n  JRR%d row;\n%s} JR%d;\n", c, c, c,
            mk, c);
    fprintf(o, "typedef struct J%d { /* a join window's rows */\n  AirVec left; /* JL%d rows */\n  AirVec right; /* JR%d rows */\n} J%d;\n",
            c, c, c, c);
    fprintf(o, "static void save_J%d(AirCkptW *w, const void *p) { /* checkpoints */\n"
               "  const J%d *j = p;\n  air_vec_save(w, &j->left, sizeof(JL%d));\n"
               "  air_vec_save(w, &j->right, sizeof(JR%d));\n}\n", c, c, c, c);
    fprintf(o, "static void load_J%d(AirCkptR *r, void *p) {\n  J%d *j = p;\n"
               "  air_vec_load(r, &j->left, sizeof(JL%d));\n  air_vec_load(r, &j->right, sizeof(JR%d));\n}\n",
            c, c, c, c);
  }
  /* the result row: to the collector, or to the readers of a derived stream */
  fprintf(o, "typedef struct O%d { /* a result row */\n", c);
  fprintf(o, "  int64_t wend; /* window end, ms */\n  int64_t ts; /* event time, ms */\n");
  fprintf(o, "  int64_t srcwm; /* for a derived stream's readers: windows ending by then are closed to it */\n");
  if (select_changes(s)) fprintf(o, "  int64_t op; /* AIR_OP_*: +I, -U, +U or -D */\n");
  if (ch->windowed && ch->join_at < 0)
    for (int i = 0; i < s->nkeys; i++) {
      snprintf(nm, sizeof nm, "k%d", i);
      field_decl(o, s->keys[i]->type, nm, s->keys[i]->text);
    }
  for (int i = 0; i < s->nout; i++) {
    snprintf(nm, sizeof nm, "o%d", i);
    field_decl(o, s->out[i].type, nm, s->out[i].name);
  }
  fprintf(o, "} O%d;\n", c);
  if (s->updating) /* an updating query's running state of one key (cg_rows.c's emit_updates) */
    fprintf(o, "typedef struct C%d { /* a key's running aggregates */\n  A%d acc;\n  O%d last; /* its row as last written */\n"
               "  int64_t shown; /* 1: last is in the result (written, not deleted since) */\n} C%d;\n", c, c, c, c);
  if (s->updating && s->ttl_ms) /* a sweep of the keys idle for state_ttl (t[0]: the cut, t[1]: counted) */
    fprintf(o, "static bool keep_C%d(const void *v, void *cx) {\n  const C%d *c = v;\n  int64_t *t = cx;\n"
               "  if (c->acc.rows == 0 && !c->shown) return false; /* nothing left: no key */\n"
               "  if (c->acc.maxts > t[0]) return true;\n  t[1]++;\n  return false;\n}\n", c, c);

  if (!ch->derived) {
    /* result order and format for the collector */
    fprintf(o, "static int cmp_O%d(const void *pa, const void *pb) {\n", c);
    fprintf(o, "  const O%d *a = pa, *b = pb;\n  int r;\n", c);
    fprintf(o, "  if ((r = q_cmp_i64(a->wend, b->wend)) != 0) return r;\n");
    /* ORDER BY first, within the window; the usual order breaks its ties */
    for (const OrderItem *oi = s->order_by; oi; oi = oi->next) {
      Type t = s->out[oi->out].type;
      const char *fn = order_item_fn(t, oi);
      if (oi->desc)
        fprintf(o, "  if ((r = %s(b->o%d, a->o%d)) != 0) return r; /* DESC */\n", fn, oi->out, oi->out);
      else
        fprintf(o, "  if ((r = %s(a->o%d, b->o%d)) != 0) return r;\n", fn, oi->out, oi->out);
    }
    for (int pass = 0; pass < 2; pass++) {
      int n = pass == 0 ? (ch->windowed && ch->join_at < 0 ? s->nkeys : 0) : s->nout;
      for (int i = 0; i < n; i++) {
        Type t = pass == 0 ? s->keys[i]->type : s->out[i].type;
        char f = pass == 0 ? 'k' : 'o';
        fprintf(o, "  if ((r = %s(a->%c%d, b->%c%d)) != 0) return r;\n", order_fn(t), f, i, f, i);
      }
      if (pass == 0 && select_changes(s)) /* a key's -U before its +U */
        fprintf(o, "  if ((r = q_cmp_i64(a->op, b->op)) != 0) return r;\n");
    }
    fprintf(o, "  return q_cmp_i64(a->ts, b->ts);\n}\n");
    if (s->limit_part > 0) { /* ROW_NUMBER()'s partition: the first ORDER BY items, equal */
      fprintf(o, "static int part_O%d(const void *pa, const void *pb) {\n  const O%d *a = pa, *b = pb;\n", c, c);
      fprintf(o, "  return a->wend == b->wend");
      int k = 0;
      for (const OrderItem *oi = s->order_by; oi && k < s->limit_part; oi = oi->next, k++)
        fprintf(o, " && %s(a->o%d, b->o%d) == 0", order_fn(s->out[oi->out].type), oi->out, oi->out);
      fprintf(o, ";\n}\n");
    }
    if (s->rank_where) { /* a Top-N's conditions beside rownum <= n: on the rows written, numbered */
      static const Select none; /* no join: the columns are the row's, never padded */
      Ctx cx = {.sel = &none, .home = {HOME_DERIVED, HOME_NONE}, .implicit_ts = {-1, -1}};
      Buf cond; /* written first: a long IN list's set or a LIKE's regex goes to o (g_in_decls) before it */
      buf_open(&cond);
      for (const Expr *w = s->rank_where; w; w = w->next) {
        if (w != s->rank_where) fprintf(cond.f, " &&\n         ");
        emit_cond(cond.f, w, &cx);
      }
      char *text = buf_take(&cond);
      fprintf(o, "static bool keep_O%d(const void *row) {\n  const O%d *r = row;\n  return %s;\n}\n", c, c, text);
      free(text);
    }
    if (sorts_window_keys(ch)) {
      /* the group keys as cmp_O orders them: a closed window's table is
       * sorted with it, so its rows reach the collector in order */
      fprintf(o, "static inline int cmp_K%d(const void *pa, const void *pb) {\n", c);
      fprintf(o, "  const K%d *a = pa, *b = pb;\n  int r;\n", c);
      for (int i = 0; i < s->nkeys; i++) {
        Type t = s->keys[i]->type;
        fprintf(o, "  if ((r = %s(a->k%d, b->k%d)) != 0) return r;\n", order_fn(t), i, i);
      }
      fprintf(o, "  return 0;\n}\n");
    }
    /* one line into memory at p (the collector's block): the bound on its
     * bytes is LINE_MAX_O, from each column's longest text */
    fprintf(o, "static char *fmt_O%d(char *p, const void *row) {\n  const O%d *r = row;\n", c, c);
    const Relation *sink = ch->ops[ch->nops - 1].rel;
    bool json = sink && sink->json;
    size_t max = 1; /* '\n' */
    const bool opcol = select_changes(s) && s->emit != EMIT_FINAL;
    if (opcol) { /* the change first: Flink's +I, -U, +U, -D */
      if (json) fprintf(o, "  memcpy(p, \"{\\\"op\\\":\\\"\", 7);\n  p += 7;\n");
      fprintf(o, "  memcpy(p, air_op_name(r->op), 2);\n  p += 2;\n");
      fprintf(o, "  *p++ = '%s';\n", json ? "\\\"" : ",");
      max += json ? 10 : 3;
    }
    for (int i = 0; i < s->nout; i++) {
      Type t = s->out[i].type;
      if (json) {
        /* the literal before the value: "{" or "," and the key, as C text */
        Buf k;
        buf_open(&k);
        fputs(i || opcol ? "," : "{", k.f);
        json_key(k.f, s->out[i].name);
        fputc(':', k.f);
        char *ks = buf_take(&k);
        size_t kn = strlen(ks);
        fprintf(o, "  memcpy(p, ");
        c_str(o, ks);
        fprintf(o, ", %zu);\n  p += %zu;\n", kn, kn);
        free(ks);
        max += kn;
      } else if (i) { /* (the op column wrote its own) */
        fprintf(o, "  *p++ = ',';\n");
        max += 1;
      }
      if (t.nullable) { /* NULL: an empty field, JSON's null */
        fprintf(o, "  if (%s(r->o%d)) {\n", null_test(t), i);
        if (json) fprintf(o, "    memcpy(p, \"null\", 4);\n    p += 4;\n");
        fprintf(o, "  } else\n");
        max += 4;
      }
      switch (t.kind) {
      case TY_VARCHAR:
        fprintf(o, "  p = %s(p, r->o%d);\n", json ? "air_put_json_str" : "air_put_str", i);
        max += (size_t)(json ? 6 : 2) * (size_t)t.len + 2;
        break;
      case TY_DOUBLE:
        fprintf(o, "  p = %s(p, r->o%d);\n", json ? "air_put_json_double" : "air_put_double", i);
        max += 24; /* AIR_PUT_DOUBLE_MAX */
        break;
      case TY_BOOL:
        fprintf(o, "  p = air_put_bool(p, r->o%d);\n", i);
        max += 5;
        break;
      case TY_DATE: /* yyyy-MM-dd, a string in JSON */
        fprintf(o, "  p = air_put_date(p, r->o%d, %s);\n", i, json ? "true" : "false");
        max += 20; /* AIR_PUT_DATE_MAX */
        break;
      case TY_TIMESTAMP:
        if (sink ? sink->ts_iso : airc_ts_iso) {
          fprintf(o, "  p = air_put_ts_iso(p, r->o%d, %s);\n", i, json ? "true" : "false");
          max += 25; /* AIR_PUT_TS_ISO_MAX */
          break;
        }
        /* fall through */
      default:
        fprintf(o, "  p = air_put_i64(p, (int64_t)r->o%d);\n", i);
        max += 20; /* AIR_PUT_I64_MAX */
        break;
      }
    }
    if (json) {
      fprintf(o, "  *p++ = '}';\n");
      max += 1;
    }
    fprintf(o, "  *p++ = '\\n';\n  return p;\n}\n");
    fprintf(o, "enum { LINE_MAX_O%d = %zu }; /* fmt_O%d's longest line */\n", c, max, c);
  }
  fprintf(o, "\n");
}

/* A result column's name as a JSON key, escaped as air_write_json_str. */
static void json_key(FILE *o, const char *n) {
  fputc('"', o);
  for (const unsigned char *p = (const unsigned char *)n; *p; p++) {
    if (*p == '"' || *p == '\\') fprintf(o, "\\%c", *p);
    else if (*p < 0x20) fprintf(o, "\\u%04x", *p);
    else fputc(*p, o);
  }
  fputc('"', o);
}

/* The CSV header: column names, quoted where CSV needs it. */
char *csv_header(const Select *s) {
  Buf b;
  buf_open(&b);
  if (select_changes(s) && s->emit != EMIT_FINAL) fputs("op,", b.f); /* fmt_O's change column */
  for (int i = 0; i < s->nout; i++) {
    const char *n = s->out[i].name;
    if (i) fputc(',', b.f);
    bool q = strpbrk(n, ",\"\r\n") != NULL || n[0] == ' ' || (n[0] && n[strlen(n) - 1] == ' ');
    if (!q) {
      fputs(n, b.f);
      continue;
    }
    fputc('"', b.f);
    for (; *n; n++) {
      if (*n == '"') fputc('"', b.f);
      fputc(*n, b.f);
    }
    fputc('"', b.f);
  }
  return buf_take(&b);
}
/* ---- sources and tables ---------------------------------------------------- */

bool source_col_used(const Plan *pl, const Relation *r, int col) {
  if (r->source->all_columns) return true; /* e.g. csv: every field is parsed and checked */
  for (int c = 0; c < pl->nchains; c++) {
    if (pl->chains[c].source == r && pl->chains[c].used[0][col]) return true;
    if (pl->chains[c].source1 == r && pl->chains[c].used[1][col]) return true;
  }
  return false;
}

void emit_source_struct(Gen *g, const Relation *r) {
  FILE *o = g->types.f;
  fprintf(o, "typedef struct S%d { /* a row of ", r->index);
  c_comment(o, r->name);
  fprintf(o, ": the columns the queries read */\n");
  int n = 0;
  for (int i = 0; i < r->ncols; i++) {
    if (!source_col_used(g->pl, r, i)) continue;
    char nm[32];
    snprintf(nm, sizeof nm, "c%d", i);
    field_decl(o, r->cols[i].type, nm, r->cols[i].name);
    n++;
  }
  if (!n) fprintf(o, "  char none; /* no column is read */\n");
  fprintf(o, "} S%d;\n\n", r->index);
}

/* How a csv field of each column type is parsed, and what a refused one is
 * called after "column x: ". Parsers of AirParse tell why they refused. */
static const struct {
  const char *fn;      /* the parser */
  bool why;            /* it returns an AirParse, else a bool */
  const char *invalid; /* AIR_PARSE_INVALID (and a false bool); %s: the type */
  const char *range;   /* AIR_PARSE_RANGE; %s: the type */
} csv_parsers[] = {
    [TY_BOOL] = {"air_parse_bool", false, "not a valid %s", NULL},
    [TY_INT] = {"air_parse_i32", false, "not a valid %s", NULL},
    [TY_BIGINT] = {"air_parse_i64", false, "not a valid %s", NULL},
    [TY_DOUBLE] = {"air_parse_double", true, "not a valid %s", "%s out of range"},
    [TY_TIMESTAMP] = {"air_parse_ts", true, "not a valid %s", "%s out of range (years 1 to 9999)"},
    [TY_DATE] = {"air_parse_date", true, "not a valid %s (yyyy-MM-dd)", "%s out of range (years 1 to 9999)"},
    [TY_VARCHAR] = {"air_parse_str", true, "holds a NUL byte", "longer than %s"},
};

/* The literal "column <name>: <why>" with why from fmt and the type. */
static void emit_field_msg(FILE *o, const Column *c, const char *fmt) {
  char tn[64];
  type_name(c->type, tn, sizeof tn);
  Buf m;
  buf_open(&m);
  fprintf(m.f, "column %s: ", c->name);
  fprintf(m.f, fmt, tn);
  char *msg = buf_take(&m);
  c_str(o, msg);
  free(msg);
}

/* Parse the fields f[] of a record into `var` (a struct with c<i> fields):
 * column i from f[field[i]] (field NULL: f[i]); a bad field skips the
 * record with `skip` after `bad` (the call that counts a bad row, opened:
 * "air_csv_bad_row(csv, line, ") and its reason. A stream's event time
 * comes from the reader `csv`, which parsed it already for the watermark. */
static void emit_fields_parse(FILE *o, const Relation *r, const char *var, const char *indent, const char *csv,
                              const char *bad, const char *skip, const int *field) {
  bool why = false;
  for (int i = 0; i < r->ncols; i++) why |= csv_parsers[r->cols[i].type.kind].why;
  if (why) fprintf(o, "%sAirParse pe;\n", indent);
  for (int i = 0; i < r->ncols; i++) {
    const Column *c = &r->cols[i];
    const char *fn = csv_parsers[c->type.kind].fn;
    char dst[64], len[24] = "";
    int fi = field ? field[i] : i;
    snprintf(dst, sizeof dst, "%s%s.c%d", c->type.kind == TY_VARCHAR ? "" : "&", var, i);
    if (c->type.kind == TY_VARCHAR) snprintf(len, sizeof len, ", %d", c->type.len);
    if (c->type.kind == TY_BOOL && c->type.nullable) fn = "air_parse_bool8"; /* into an int8_t */
    src_line(o, c->loc.line);
    bool time = r->kind == REL_SOURCE && i == r->time_col;
    if (time && i == r->proc_col) { /* the reader's clock: no field to test */
      fprintf(o, "%sair_csv_time(%s, %s);\n", indent, csv, dst);
      continue;
    }
    if (c->type.nullable) { /* an empty field (null in JSON) is NULL; one line, for -g */
      fprintf(o, "%sif (f[%d].p == air_null_field) ", indent, fi);
      if (c->type.kind == TY_VARCHAR)
        fprintf(o, "{ memset(%s.c%d, 0, sizeof %s.c%d); %s.c%d[0] = (char)0xff; } else\n", var, i, var, i, var, i);
      else
        fprintf(o, "%s.c%d = %s; else\n", var, i, null_value(c->type));
      src_line(o, c->loc.line);
    } else if (r->source && r->source->nulls) {
      fprintf(o, "%sif (f[%d].p == air_null_field) {\n", indent, fi);
      src_line(o, c->loc.line);
      fprintf(o, "%s  %s", indent, bad);
      const char *why = time                                      ? "the event time cannot be NULL"
                        : r->kind == REL_TABLE && i == r->key_col ? "the PRIMARY KEY cannot be NULL"
                                                                  : "it is NOT NULL";
      char m[96];
      snprintf(m, sizeof m, "%s, and %s", r->json ? "null or missing" : "empty (NULL)", why);
      emit_field_msg(o, c, m);
      fprintf(o, ");\n");
      c_line(o);
      fprintf(o, "%s  %s;\n%s}\n", indent, skip, indent);
      src_line(o, c->loc.line);
    }
    if (time) {
      fprintf(o, "%sif ((pe = air_csv_time(%s, %s)) != AIR_PARSE_OK) {\n", indent, csv, dst);
      src_line(o, c->loc.line);
      fprintf(o, "%s  %spe == AIR_PARSE_RANGE ? ", indent, bad);
      emit_field_msg(o, c, csv_parsers[c->type.kind].range);
      fprintf(o, " : ");
      emit_field_msg(o, c, csv_parsers[c->type.kind].invalid);
    } else if (!csv_parsers[c->type.kind].why) {
      fprintf(o, "%sif (!%s(f[%d], %s%s)) {\n", indent, fn, fi, dst, len);
      src_line(o, c->loc.line);
      fprintf(o, "%s  %s", indent, bad);
      emit_field_msg(o, c, csv_parsers[c->type.kind].invalid);
    } else {
      fprintf(o, "%sif ((pe = %s(f[%d], %s%s)) != AIR_PARSE_OK) {\n", indent, fn, fi, dst, len);
      src_line(o, c->loc.line);
      fprintf(o, "%s  %spe == AIR_PARSE_RANGE ? ", indent, bad);
      emit_field_msg(o, c, csv_parsers[c->type.kind].range);
      fprintf(o, " : ");
      emit_field_msg(o, c, csv_parsers[c->type.kind].invalid);
    }
    fprintf(o, ");\n");
    c_line(o);
    fprintf(o, "%s  %s;\n%s}\n", indent, skip, indent);
  }
}

/* Parse every field of a csv record (fields f[], line `line`) into `var`;
 * a METADATA column (the message's timestamp) has no field, the columns
 * after it take the field before theirs. */
void emit_csv_parse(FILE *o, const Relation *r, const char *var, const char *indent,
                           const char *csv, const char *skip) {
  char bad[64];
  snprintf(bad, sizeof bad, "air_csv_bad_row(%s, line, ", csv);
  int *field = NULL;
  const int nf = nofield_col(r);
  if (nf >= 0) {
    field = malloc(sizeof(int) * (size_t)r->ncols);
    if (!field) abort();
    for (int i = 0; i < r->ncols; i++) field[i] = i < nf ? i : i - 1;
  }
  emit_fields_parse(o, r, var, indent, csv, bad, skip, field);
  free(field);
}

/* The fields of a record: the columns but a METADATA or PROCTIME one. */
int csv_fields(const Relation *r) { return r->ncols - (nofield_col(r) >= 0); }

/* `lhs = air_csv_open(g_rt, &def)` with the declaration of a csv source or
 * table in a static AirCsvDef, in a block of its own at indent `ind`; path:
 * the C expression of its path. What the query fixes is written into the
 * def, the options --set may change are read from the runtime (opt_read). */
void emit_csv_open(FILE *o, const Relation *r, const char *path, bool single, const char *lhs, const char *ind) {
  fprintf(o, "%s{\n%s  static const char *const cols[] = {", ind, ind);
  for (int i = 0, n = 0; i < r->ncols; i++) {
    if (i == nofield_col(r)) continue; /* the message's timestamp, or the processing time: no field */
    if (n++) fprintf(o, ", ");
    c_str(o, r->cols[i].name);
  }
  fprintf(o, "};\n");
  bool kafka = r->kind == REL_SOURCE && r->brokers;
  if (kafka) {
    /* source = 'kafka': the consumer's settings (kafka.c) */
    fprintf(o, "%s  static const char *const kprops[] = {", ind);
    for (int i = 0; i < 2 * r->nprops; i++) {
      if (i) fprintf(o, ", ");
      c_str(o, r->props[i]);
    }
    fprintf(o, "%s};\n%s  static AirKafkaDef kdef = {.ops = &air_kafka_ops};\n", r->nprops ? "" : "NULL", ind);
    opt_read(o, ind, "kdef.brokers", "air_opt_str", r, OPT_BROKERS);
    opt_read(o, ind, "kdef.topics", "air_opt_str", r, OPT_TOPIC);
    opt_read(o, ind, "kdef.group", "air_opt_str", r, OPT_GROUP);
    opt_read(o, ind, "kdef.start", "air_opt_str", r, OPT_START);
    opt_read(o, ind, "kdef.until_end", "0 != air_opt_i64", r, OPT_END);
    opt_read(o, ind, "kdef.idle_ms", "air_opt_i64", r, OPT_IDLE_TIMEOUT);
    opt_read(o, ind, "kdef.timeout_ms", "air_opt_i64", r, OPT_TIMEOUT);
    fprintf(o, "%s  air_opt_props(g_rt, %d, kprops, %d, &kdef.props, &kdef.nprops);\n", ind,
            opt_row(r, OPT_KAFKA_PROPS), r->nprops);
  }
  fprintf(o, "%s  static AirCsvDef def = {\n%s      .name = ", ind, ind);
  c_str(o, r->name);
  fprintf(o, ",\n%s      .table = %s,\n", ind, r->kind == REL_TABLE ? "true" : "false");
  if (single) fprintf(o, "%s      .single = true,\n", ind);
  if (r->json) {
    /* per column, the JSON kind of value it takes */
    fprintf(o, "%s      .json = true,\n%s      .json_kinds = \"", ind, ind);
    for (int i = 0; i < r->ncols; i++) {
      TypeKind k = r->cols[i].type.kind;
      if (i != nofield_col(r)) fputc(k == TY_VARCHAR || k == TY_DATE ? 's' : k == TY_BOOL ? 'b' : k == TY_TIMESTAMP ? 't' : 'n', o);
    }
    fprintf(o, "\",\n");
  }
  if (kafka) fprintf(o, "%s      .kafka = &kdef,\n", ind);
  fprintf(o, "%s      .cols = cols,\n%s      .ncols = %d,\n", ind, ind, csv_fields(r));
  if (r->meta_col >= 0) fprintf(o, "%s      .time_from_message = true,\n", ind);
  if (r->proc_col >= 0) fprintf(o, "%s      .proc_time = true,\n", ind);
  fprintf(o, "%s      .time_col = %d,\n%s      .wm_bound_ms = INT64_C(%" PRId64 "),\n", ind,
          r->kind == REL_SOURCE && nofield_col(r) < 0 ? r->time_col : -1, ind, r->wm_bound_ms);
  fprintf(o, "%s  };\n%s  def.path = %s;\n", ind, ind, path);
  opt_read(o, ind, "def.tcp_listen", "air_opt_str", r, OPT_LISTEN);
  opt_read(o, ind, "def.tcp_connect", "air_opt_str", r, OPT_CONNECT);
  /* a followed file grows under one reader: rank 0's, as standard input */
  if (opt_read(o, ind, "def.follow", "0 != air_opt_i64", r, OPT_FOLLOW))
    fprintf(o, "%s  def.single = def.single || def.follow;\n", ind);
  opt_read(o, ind, "def.header", "(AirCsvHeader)air_opt_i64", r, OPT_HEADER);
  opt_read(o, ind, "def.rate", "air_opt_i64", r, OPT_RATE);
  if (opt_read(o, ind, "def.bad_limit", "(AirBadLimit)air_opt_i64", r, OPT_MAX_BAD_ROWS))
    opt_read(o, ind, "def.bad_max", "air_opt_f64", r, OPT_MAX_BAD_ROWS);
  fprintf(o, "%s  %s = air_csv_open(g_rt, &def);\n%s}\n", ind, lhs, ind);
}

void emit_table(Gen *g, const Relation *r) {
  FILE *o = g->types.f;
  Type kt = r->cols[r->key_col].type;
  fprintf(o, "typedef struct T%d { /* a row of table ", r->index);
  c_comment(o, r->name);
  fprintf(o, " */\n");
  for (int i = 0; i < r->ncols; i++) {
    char nm[32];
    snprintf(nm, sizeof nm, "c%d", i);
    field_decl(o, r->cols[i].type, nm, r->cols[i].name);
  }
  for (int i = 0; i < r->ncols; i++)
    if (r->cols[i].type.kind == TY_VARCHAR)
      fprintf(o, "  uint64_t h%d; /* air_hash_bytes of c%d, made once at load */\n", i, i);
  fprintf(o, "} T%d;\n", r->index);
  fprintf(o, "typedef struct TK%d { /* its key */\n", r->index);
  if (kt.kind == TY_VARCHAR)
    fprintf(o, "  char k[%d];\n", kt.len + 1);
  else
    fprintf(o, "  %s k;\n", kt.kind == TY_INT ? "int64_t" : ctype(kt));
  fprintf(o, "} TK%d;\n", r->index);
  fprintf(o, "static AirHash *tab%d; /* key -> row, loaded on every rank */\n\n", r->index);

  FILE *f = g->funcs.f;
  fprintf(f, "/* Load table ");
  c_comment(f, r->name);
  fprintf(f, " whole into memory (the paper's StaticJoin map). */\n");
  fprintf(f, "static void tab%d_insert(T%d *row, const char *where, long line) {\n", r->index, r->index);
  for (int i = 0; i < r->ncols; i++)
    if (r->cols[i].type.kind == TY_VARCHAR)
      fprintf(f, "  row->h%d = air_hash_bytes(row->c%d, sizeof row->c%d);\n", i, i, i);
  fprintf(f, "  TK%d tk;\n  memset(&tk, 0, sizeof tk);\n", r->index);
  if (kt.kind == TY_VARCHAR)
    fprintf(f, "  memcpy(tk.k, row->c%d, sizeof tk.k);\n", r->key_col);
  else if (kt.kind == TY_DOUBLE)
    fprintf(f, "  tk.k = q_f64_key(row->c%d);\n", r->key_col);
  else
    fprintf(f, "  tk.k = row->c%d;\n", r->key_col);
  fprintf(f, "  bool is_new;\n  T%d *slot = air_hash_upsert(tab%d, &tk, air_hash_bytes(&tk, sizeof tk), &is_new);\n",
          r->index, r->index);
  /* line 0: where names the row alone (a redis key) */
  fprintf(f, "  if (!is_new && line > 0) air_fatal(g_rt, \"table %%s: duplicate key at %%s:%%ld\", ");
  c_str(f, r->name);
  fprintf(f, ", where, line);\n  if (!is_new) air_fatal(g_rt, \"table %%s: duplicate key at %%s\", ");
  c_str(f, r->name);
  fprintf(f, ", where);\n  *slot = *row;\n}\n\n");
  fprintf(f, "static void load_tab%d(void) {\n", r->index);
  fprintf(f, "  tab%d = air_hash_new(sizeof(TK%d), sizeof(T%d), 2048);\n", r->index, r->index, r->index);
  r->source->emit_table(g, r);
  fprintf(f, "}\n\n");
}

/* The ysb kind's campaign table: every ad and its campaign (air.h). */
void cg_ysb_table(Gen *g, const Relation *r) {
  FILE *f = g->funcs.f;
  int ad = -1, camp = -1;
  for (int i = 0; i < r->ncols; i++) {
    if (strcmp(r->cols[i].name, "ad_id") == 0) ad = i;
    if (strcmp(r->cols[i].name, "campaign_id") == 0) camp = i;
  }
  fprintf(f, "  for (int k = 0; k < AIR_YSB_ADS; k++) {\n    static T%d row;\n    char uuid[37];\n", r->index);
  fprintf(f, "    memset(&row, 0, sizeof row);\n");
  if (ad >= 0)
    fprintf(f, "    air_ysb_ad_uuid(k, uuid);\n    q_strcpy(row.c%d, sizeof row.c%d, uuid);\n", ad, ad);
  if (camp >= 0)
    fprintf(f, "    air_ysb_campaign_uuid(k / (AIR_YSB_ADS / AIR_YSB_CAMPAIGNS), uuid);\n"
               "    q_strcpy(row.c%d, sizeof row.c%d, uuid);\n", camp, camp);
  fprintf(f, "    tab%d_insert(&row, \"ysb campaign table\", k + 1);\n  }\n", r->index);
}

/* The csv kind's table: every record of the file, checked. */
void cg_csv_table(Gen *g, const Relation *r) {
  FILE *f = g->funcs.f;
  fprintf(f, "  AirCsv *csv;\n");
  char path[48];
  snprintf(path, sizeof path, "air_opt_str(g_rt, %d)", opt_row(r, OPT_PATH));
  emit_csv_open(f, r, path, false, "csv", "  ");
  /* sized for the file at once: growing a table of millions of rows
   * rehashed it a dozen times, and each new table took its page faults */
  fprintf(f, "  const size_t hint = air_csv_rows_hint(csv);\n");
  fprintf(f, "  if (hint > 2048) {\n");
  fprintf(f, "    air_hash_free(tab%d);\n    tab%d = air_hash_new(sizeof(TK%d), sizeof(T%d), hint);\n  }\n", r->index,
          r->index, r->index, r->index);
  fprintf(f, "  AirField f[%d];\n  long line = 0;\n  int nf;\n", r->ncols + 1);
  fprintf(f, "  while ((nf = air_csv_next(csv, f, %d, &line)) != AIR_CSV_END) {\n", r->ncols + 1);
  fprintf(f, "    if (nf != %d) {\n      air_csv_bad_row(csv, line, nf == AIR_CSV_BAD_QUOTING ? air_csv_bad_why(csv) : \"expected %d fields\");\n      continue;\n    }\n",
          r->ncols, r->ncols);
  fprintf(f, "    static T%d row; /* may be large: not on the main thread's stack */\n    memset(&row, 0, sizeof row);\n", r->index);
  emit_csv_parse(f, r, "row", "    ", "csv", "continue");
  fprintf(f, "    tab%d_insert(&row, air_csv_path(csv), line);\n  }\n  air_csv_close(csv);\n", r->index);
}

/* The redis kind's table: the keys rank 0 read (SCAN), sent to every rank
 * (redis_table.c); record field 0 is the key, 1.. the value (layout
 * 'string') or the fields named after the other columns (layout 'hash'). */
void cg_redis_table(Gen *g, const Relation *r) {
  FILE *f = g->funcs.f;
  int *field = malloc(sizeof(int) * (size_t)r->ncols);
  if (!field) abort();
  fprintf(f, "  static const char *const fields[] = {");
  int n = 0;
  for (int i = 0; i < r->ncols; i++) {
    if (i == r->key_col) {
      field[i] = 0;
      continue;
    }
    field[i] = ++n;
    if (n > 1) fprintf(f, ", ");
    c_str(f, r->cols[i].name);
  }
  fprintf(f, "%s};\n", n ? "" : "NULL");
  fprintf(f, "  static AirRedisTableDef def = {\n      .name = ");
  c_str(f, r->name);
  fprintf(f, ",\n      .hash = %s,\n      .fields = fields,\n      .nfields = %d,\n  };\n", r->redis_hash ? "true" : "false",
          n);
  opt_read(f, "", "def.address", "air_opt_str", r, OPT_ADDRESS);
  opt_read(f, "", "def.pattern", "air_opt_str", r, OPT_PATTERN);
  opt_read(f, "", "def.key_prefix", "air_opt_str", r, OPT_KEY_PREFIX);
  opt_read(f, "", "def.timeout_ms", "air_opt_i64", r, OPT_TIMEOUT);
  if (opt_read(f, "", "def.bad_limit", "(AirBadLimit)air_opt_i64", r, OPT_MAX_BAD_ROWS))
    opt_read(f, "", "def.bad_max", "air_opt_f64", r, OPT_MAX_BAD_ROWS);
  fprintf(f, "  AirRedisTable *rd = air_redis_table_open(g_rt, &def);\n");
  fprintf(f, "  AirField f[%d];\n  while (air_redis_table_next(rd, f)) {\n", n + 1);
  fprintf(f, "    static T%d row; /* may be large: not on the main thread's stack */\n    memset(&row, 0, sizeof row);\n",
          r->index);
  emit_fields_parse(f, r, "row", "    ", NULL, "air_redis_table_bad_row(rd, ", "continue", field);
  free(field);
  fprintf(f, "    tab%d_insert(&row, air_redis_table_where(rd), 0);\n  }\n  air_redis_table_close(rd);\n", r->index);
}

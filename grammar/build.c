/* build.c - the AST nodes the grammar's actions (airq.y) make, their
 * source spans and texts, and the parser's located errors. Plain C: the
 * grammar file holds the grammar, its error messages and parse_program.
 */
#include "airq.tab.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *const airq_type_words[8] = {"BOOLEAN", "INT",       "INTEGER", "BIGINT",
                                        "DOUBLE",  "TIMESTAMP", "DATE",    "STRING"};
const char *const airq_unit_words[12] = {"MILLISECOND", "MILLISECONDS", "SECOND", "SECONDS", "MINUTE", "MINUTES",
                                         "HOUR",        "HOURS",        "DAY",    "DAYS",    "WEEK",   "WEEKS"};

enum { MAX_ERRORS = 50,   /* the parser stops after this many */
       TEXT_MAX = 65536 }; /* longest Expr.text kept whole */


/* The expression's source text with comments dropped and each run of
 * white space made one space: "COUNT( * )" stays as written, but
 * "a  +\n b" becomes "a + b". */
const char *build_text(ParseState *ps, const AirqLoc *l) {
  const char *s = ps->d->text;
  size_t from = l->first_off, to = l->last_off;
  if (!s || to <= from || to > ps->d->text_len)
    return arena_strdup(ps->arena, "");
  size_t n = to - from;
  bool cut = false;
  if (n > TEXT_MAX) {
    n = TEXT_MAX;
    cut = true;
  }
  char *out = arena_alloc(ps->arena, n + 4);
  size_t o = 0;
  bool space = false;
  for (size_t i = from; i < from + n;) {
    char c = s[i];
    if (c == '\'' || c == '"') {
      /* a literal or quoted identifier is copied as is ('' stays '') */
      if (space && o > 0)
        out[o++] = ' ';
      space = false;
      out[o++] = s[i++];
      while (i < from + n) {
        out[o++] = s[i];
        if (s[i++] == c) {
          if (i < from + n && s[i] == c)
            out[o++] = s[i++];
          else
            break;
        }
      }
    } else if (c == '-' && i + 1 < from + n && s[i + 1] == '-') {
      while (i < from + n && s[i] != '\n')
        i++;
      space = true;
    } else if (c == '/' && i + 1 < from + n && s[i + 1] == '*') {
      i += 2;
      while (i + 1 < from + n && !(s[i] == '*' && s[i + 1] == '/'))
        i++;
      i += 2;
      space = true;
    } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
      space = true;
      i++;
    } else {
      if (space && o > 0)
        out[o++] = ' ';
      space = false;
      out[o++] = s[i++];
    }
  }
  if (cut) {
    memcpy(out + o, "...", 3);
    o += 3;
  }
  out[o] = '\0';
  return out;
}

Expr *build_node(ParseState *ps, ExprKind kind, const AirqLoc *l) {
  Expr *e = new_expr(ps->arena, kind, airq_srcloc(l));
  e->text = build_text(ps, l);
  return e;
}

static void deepest(void *d, Expr *child) {
  if (child->depth > *(int *)d)
    *(int *)d = child->depth;
}

/* Sets e->depth from its children (and a subquery's expressions: later
 * phases recurse into them too); reports and fails past AST_MAX_DEPTH. */
Expr *build_deepen(ParseState *ps, Expr *e) {
  int d = 0;
  expr_each_child(e, deepest, &d);
  if (e->sub) {
    for (SelectItem *it = e->sub->items; it; it = it->next) deepest(&d, it->expr);
    if (e->sub->where) deepest(&d, e->sub->where);
  }
  e->depth = d + 1;
  if (e->depth > AST_MAX_DEPTH) {
    AirqLoc at = {e->loc.line, e->loc.col, e->loc.line, e->loc.col + e->loc.len,
                  e->loc.len, 0, 0};
    airq_error_at(ps, &at, "expression nested too deeply (more than %d levels)",
                  AST_MAX_DEPTH);
    return NULL;
  }
  return e;
}

Expr *build_binary(ParseState *ps, const AirqLoc *l, OpKind op, Expr *a, Expr *b) {
  Expr *e = build_node(ps, EX_BINARY, l);
  e->op = op;
  e->lhs = a;
  e->rhs = b;
  return build_deepen(ps, e);
}

Expr *build_extract(ParseState *ps, const AirqLoc *l, const char *fn, const AirqLoc *fl, const char *unit,
                    const AirqLoc *ul, Expr *e) {
  static const char *const units[] = {"YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND"};
  if (strcasecmp(fn, "EXTRACT") != 0) {
    airq_error_at(ps, fl, "only EXTRACT takes 'unit FROM expression'; %s is no such function", fn);
    return NULL;
  }
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
    if (strcasecmp(unit, units[i]) != 0) continue;
    Expr *c = build_node(ps, EX_CALL, l);
    c->name = units[i];
    c->name_loc = airq_srcloc(fl);
    e->next = NULL;
    c->args = e;
    return build_deepen(ps, c);
  }
  airq_error_at(ps, ul, "EXTRACT takes YEAR, MONTH, DAY, HOUR, MINUTE or SECOND, not %s", unit);
  return NULL;
}

Expr *build_position(ParseState *ps, const AirqLoc *l, const char *fn, const AirqLoc *fl, Expr *sub, Expr *s) {
  if (strcasecmp(fn, "POSITION") != 0) {
    airq_error_at(ps, fl, "only POSITION takes 'substring IN string'; %s is no such function", fn);
    return NULL;
  }
  Expr *e = build_call2(ps, l, "LOCATE", sub, s);
  if (e) e->name_loc = airq_srcloc(fl);
  return e;
}

void build_no_subquery(ParseState *ps, const AirqLoc *l, const char *what) {
  airq_error_at(ps, l, "%s: subqueries in expressions are 'x [NOT] IN (SELECT column FROM table [WHERE ...])', "
                "over a static TABLE", what ? what : "a subquery is not a value");
}

Expr *build_in_select(ParseState *ps, const AirqLoc *l, Expr *x, Select *sub, bool negate) {
  Expr *e = build_node(ps, EX_IN_SELECT, l);
  e->lhs = x;
  e->sub = sub;
  e = build_deepen(ps, e);
  return e && negate ? build_unary(ps, l, OP_NOT, e) : e;
}

Expr *build_call2(ParseState *ps, const AirqLoc *l, const char *name, Expr *a, Expr *b) {
  Expr *e = build_node(ps, EX_CALL, l);
  e->name = name;
  e->name_loc = airq_srcloc(l);
  a->next = b;
  b->next = NULL;
  e->args = a;
  return build_deepen(ps, e);
}

Expr *build_unary(ParseState *ps, const AirqLoc *l, OpKind op, Expr *a) {
  /* -literal is a literal: option values and generator bounds stay simple */
  if (op == OP_NEG && (a->kind == EX_INT || a->kind == EX_DOUBLE) && a->depth == 1 &&
      !(a->kind == EX_INT && a->ival == INT64_MIN)) {
    Expr *e = build_node(ps, a->kind, l);
    e->ival = -a->ival;
    e->dval = -a->dval;
    return e;
  }
  Expr *e = build_node(ps, EX_UNARY, l);
  e->op = op;
  e->lhs = a;
  return build_deepen(ps, e);
}

Expr *build_int(ParseState *ps, const AirqLoc *l, const char *digits) {
  int64_t v = 0;
  for (const char *p = digits; *p; p++) {
    int dgt = *p - '0';
    if (v > (INT64_MAX - dgt) / 10) {
      airq_error_at(ps, l, "integer literal %s is too large (the largest is %" PRId64 ")",
                    digits, INT64_MAX);
      return NULL;
    }
    v = v * 10 + dgt;
  }
  Expr *e = build_node(ps, EX_INT, l);
  e->ival = v;
  return e;
}

Expr *build_double(ParseState *ps, const AirqLoc *l, const char *text) {
  errno = 0;
  double v = strtod(text, NULL);
  if (isinf(v)) {
    airq_error_at(ps, l, "number %s is too large for DOUBLE", text);
    return NULL;
  }
  Expr *e = build_node(ps, EX_DOUBLE, l);
  e->dval = v;
  return e;
}

Expr *build_typed_literal(ParseState *ps, const AirqLoc *l, const char *type, const AirqLoc *tl, const char *text,
                          const AirqLoc *sl) {
  if (strcasecmp(type, "DATE") != 0) {
    airq_error_at(ps, tl, "%s '...' is no literal: DATE 'yyyy-MM-dd' is the typed literal airc takes%s", type,
                  strcasecmp(type, "TIMESTAMP") == 0 ? " (a TIMESTAMP: TO_TIMESTAMP('...'))" : "");
    return NULL;
  }
  int64_t v[3] = {0, 0, 0};
  static const int at[3] = {0, 5, 8}, width[3] = {4, 2, 2};
  bool ok = strlen(text) == 10 && text[4] == '-' && text[7] == '-';
  for (int k = 0; k < 3 && ok; k++)
    for (int i = at[k]; i < at[k] + width[k] && ok; i++) {
      ok = text[i] >= '0' && text[i] <= '9';
      v[k] = v[k] * 10 + (text[i] - '0');
    }
  if (!ok || !air_date_exists(v[0], v[1], v[2])) {
    airq_error_at(ps, sl, "DATE '%.40s' is no date: write DATE 'yyyy-MM-dd', a day of years 1 to 9999", text);
    return NULL;
  }
  Expr *e = build_node(ps, EX_DATE, l);
  e->ival = air_days_from_civil(v[0], v[1], v[2]) * AIR_DAY_MS;
  return e;
}

Expr *build_current_date(ParseState *ps, const AirqLoc *l) {
  Expr *now = build_node(ps, EX_CALL, l);
  now->name = "CURRENT_TIMESTAMP";
  now->name_loc = airq_srcloc(l);
  Expr *e = build_node(ps, EX_CAST, l);
  e->lhs = now;
  e->cast_to = (Type){.kind = TY_DATE, .len = 0};
  return build_deepen(ps, e);
}

Expr *build_string(ParseState *ps, const AirqLoc *l, const char *s) {
  Expr *e = build_node(ps, EX_STRING, l);
  e->sval = s;
  e->slen = strlen(s);
  return e;
}

/* "SECONDS" -> 1000; the scanner only returns UNIT for the known words */
int64_t build_unit_ms(const char *u) {
  static const struct { const char *name; int64_t ms; } units[] = {
      {"MILLISECOND", 1}, {"SECOND", 1000}, {"MINUTE", 60000}, {"HOUR", 3600000}, {"DAY", 86400000},
      {"WEEK", 604800000}};
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
    size_t n = strlen(units[i].name);
    if (strncasecmp(u, units[i].name, n) == 0 &&
        (u[n] == '\0' || ((u[n] == 's' || u[n] == 'S') && u[n + 1] == '\0')))
      return units[i].ms;
  }
  return 0;
}

/* INTERVAL '10' SECOND, INTERVAL 10 SECONDS, 10 SECONDS: the count is a
 * non-negative integer, as digits or as a string of digits. */
Expr *build_interval(ParseState *ps, const AirqLoc *l, const AirqLoc *nl,
                     const char *count, bool quoted, const char *unit) {
  int64_t ms = build_unit_ms(unit), v = 0;
  bool ok = count[0] != '\0';
  for (const char *p = count; *p && ok; p++)
    ok = *p >= '0' && *p <= '9';
  if (!ok) {
    airq_error_at(ps, nl, "invalid interval '%s': expected a whole number", count);
    return NULL;
  }
  for (const char *p = count; *p; p++) {
    int dgt = *p - '0';
    if (v > (INT64_MAX / ms - dgt) / 10) {
      airq_error_at(ps, nl, "interval %s%s%s %s is too large", quoted ? "'" : "", count,
                    quoted ? "'" : "", unit);
      return NULL;
    }
    v = v * 10 + dgt;
  }
  Expr *e = build_node(ps, EX_INTERVAL, l);
  e->ival = v * ms;
  return e;
}

/* state_ttl = '1 hour' (Flink's configuration spells durations as text):
 * a whole number, spaces, and a unit (MILLISECOND .. WEEK, plural or not,
 * or ms, s, min, h, d). */
Expr *build_duration_text(ParseState *ps, const AirqLoc *l, const char *text) {
  static const struct { const char *name; const char *unit; } shorts[] = {
      {"ms", "MILLISECOND"}, {"s", "SECOND"}, {"sec", "SECOND"}, {"min", "MINUTE"}, {"h", "HOUR"}, {"d", "DAY"}};
  char count[32];
  size_t n = 0;
  while (text[n] >= '0' && text[n] <= '9' && n + 1 < sizeof count) {
    count[n] = text[n];
    n++;
  }
  count[n] = '\0';
  const char *u = text + n;
  while (*u == ' ') u++;
  for (size_t i = 0; i < sizeof shorts / sizeof *shorts; i++)
    if (strcasecmp(u, shorts[i].name) == 0) u = shorts[i].unit;
  if (n == 0 || !build_unit_ms(u)) {
    airq_error_at(ps, l, "'%s' is not a duration: write 1 HOUR, INTERVAL '1' HOUR or '1 hour'", text);
    return NULL;
  }
  return build_interval(ps, l, l, count, true, u);
}

/* A type by its name (its digits, TIMESTAMP(3)'s, or NULL): STRING and
 * VARCHAR without a length are VARCHAR(AIRQ_STRING_LEN), TIMESTAMP_LTZ is
 * TIMESTAMP, DECIMAL and NUMERIC are refused with a pointer to DOUBLE. */
bool build_type(ParseState *ps, const AirqLoc *l, const char *name, const char *digits, const AirqLoc *dl,
                Type *t) {
  static const struct { const char *name; TypeKind kind; } types[] = {
      {"BOOLEAN", TY_BOOL},   {"INT", TY_INT},        {"INTEGER", TY_INT},           {"BIGINT", TY_BIGINT},
      {"DOUBLE", TY_DOUBLE},  {"TIMESTAMP", TY_TIMESTAMP}, {"TIMESTAMP_LTZ", TY_TIMESTAMP},
      {"DATE", TY_DATE},      {"STRING", TY_VARCHAR}};
  if (strcasecmp(name, "DECIMAL") == 0 || strcasecmp(name, "NUMERIC") == 0) {
    airq_error_at(ps, l, "%s is not supported: use DOUBLE (SUM of DOUBLEs is exact, and written as "
                         "the nearest DOUBLE to the exact sum)", name);
    return false;
  }
  *t = (Type){.kind = TY_ERROR};
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
    if (strcasecmp(name, types[i].name) == 0)
      t->kind = types[i].kind;
  if (t->kind == TY_VARCHAR)
    t->len = AIRQ_STRING_LEN;
  if (digits && t->kind == TY_TIMESTAMP) {
    if (strcmp(digits, "3") != 0) {
      airq_error_at(ps, dl, "a TIMESTAMP holds milliseconds: write TIMESTAMP(3) or TIMESTAMP, not %s(%s)",
                    name, digits);
      return false;
    }
  } else if (digits) {
    airq_error_at(ps, dl, "%s takes no length or precision", name);
    return false;
  }
  return true;
}

enum { VARCHAR_MAX = 65535 };

bool build_varchar(ParseState *ps, const AirqLoc *l, const char *digits, Type *t) {
  long long n = 0;
  for (const char *p = digits; *p && n <= VARCHAR_MAX; p++)
    n = n * 10 + (*p - '0');
  if (n < 1 || n > VARCHAR_MAX) {
    airq_error_at(ps, l, "VARCHAR length must be between 1 and %d", VARCHAR_MAX);
    return false;
  }
  t->kind = TY_VARCHAR;
  t->len = (int)n;
  return true;
}

Stmt *build_stmt(ParseState *ps, StmtKind kind, const AirqLoc *l, const char *name,
                 const AirqLoc *nl) {
  Stmt *s = arena_alloc(ps->arena, sizeof(Stmt));
  s->kind = kind;
  s->loc = airq_srcloc(l);
  s->name = name;
  if (nl)
    s->name_loc = airq_srcloc(nl);
  return s;
}

void build_add_stmt(ParseState *ps, Stmt *s) {
  for (Stmt *q = ps->sub_head, *next; q; q = next) {
    next = q->next;
    q->next = NULL;
    q->owner = s;
    *ps->tail = q;
    ps->tail = &q->next;
  }
  build_drop_subqueries(ps);
  *ps->tail = s;
  ps->tail = &s->next;
}

void build_drop_subqueries(ParseState *ps) {
  ps->sub_head = NULL;
  ps->sub_tail = &ps->sub_head;
}

Stmt *build_subquery(ParseState *ps, const char *name, const AirqLoc *nl, Select *sel) {
  Stmt *q = build_stmt(ps, ST_CREATE_STREAM_AS, nl, name, nl);
  q->select = sel;
  if (!ps->sub_tail) ps->sub_tail = &ps->sub_head;
  *ps->sub_tail = q;
  ps->sub_tail = &q->next;
  return q;
}

FromItem build_from_subquery(ParseState *ps, const AirqLoc *l, Select *sel, const char *alias, const AirqLoc *al) {
  if (sel->nfrom == 1 && sel->from[0].tvf && sel->window == sel->from[0].tvf && sel->items && !sel->items->next &&
      sel->items->expr->kind == EX_STAR && !sel->items->expr->qual && !sel->where && !sel->group_by &&
      !sel->having && !sel->order_by && !sel->limit) {
    /* (SELECT * FROM TABLE(TUMBLE(...))) L, as Flink's window joins are
     * written: the window TVF itself, named L */
    FromItem f = sel->from[0];
    if (alias) {
      f.alias = alias;
      f.alias_loc = airq_srcloc(al);
    }
    return f;
  }
  if (!alias) {
    char buf[32];
    snprintf(buf, sizeof buf, "subquery_%d", ++ps->nsub);
    char *name = arena_alloc(ps->arena, strlen(buf) + 1);
    memcpy(name, buf, strlen(buf) + 1);
    alias = name;
    al = l;
  }
  build_subquery(ps, alias, al, sel)->subquery = true;
  return build_from(alias, al, NULL, NULL);
}

/* A PRIMARY KEY (written at `at`) on column `key`: one, in a CREATE TABLE. */
static bool take_pkey(ParseState *ps, Stmt *s, const AirqLoc *at, const char *key, SrcLoc key_loc) {
  bool ok = true;
  if (s->kind != ST_CREATE_TABLE) {
    airq_error_at(ps, at, "PRIMARY KEY is only allowed in CREATE TABLE");
    ok = false;
  } else if (s->pkey) {
    airq_error_at(ps, at, "only one PRIMARY KEY is allowed");
    ok = false;
  }
  s->pkey = key;
  s->pkey_loc = key_loc;
  return ok;
}

/* Splits a column list into columns, watermark and key, and checks that
 * the statement allows what it holds. */
bool build_take_elems(ParseState *ps, Stmt *s, Elem *els) {
  bool ok = true, table = s->kind == ST_CREATE_TABLE;
  const char *what = table ? "CREATE TABLE" : "CREATE STREAM";
  ColumnDef **tail = &s->cols;
  for (Elem *e = els; e; e = e->next) {
    AirqLoc at = {e->loc.line, e->loc.col, e->loc.line, e->loc.col + e->loc.len,
                  e->loc.len, 0, 0};
    switch (e->kind) {
    case EL_COLUMN:
      *tail = e->col;
      tail = &e->col->next;
      if (e->col->pkey) /* `k VARCHAR(8) PRIMARY KEY`: PRIMARY KEY (k) */
        ok &= take_pkey(ps, s, &at, e->col->name, e->col->loc);
      break;
    case EL_WATERMARK:
      if (table) {
        airq_error_at(ps, &at, "WATERMARK is not allowed in CREATE TABLE (a table with event time, "
                               "Flink's source table, is a CREATE STREAM here)");
        ok = false;
      } else if (s->wm) {
        airq_error_at(ps, &at, "only one WATERMARK clause is allowed");
        ok = false;
      }
      s->wm = e->wm;
      break;
    case EL_PKEY:
      ok &= take_pkey(ps, s, &at, e->key, e->key_loc);
      break;
    }
  }
  if (ok && !s->cols) {
    AirqLoc at = {s->name_loc.line, s->name_loc.col, 0, 0, s->name_loc.len, 0, 0};
    airq_error_at(ps, &at, "%s '%s' declares no columns", what, s->name);
    ok = false;
  }
  if (ok && table && !s->pkey) {
    AirqLoc at = {s->name_loc.line, s->name_loc.col, 0, 0, s->name_loc.len, 0, 0};
    airq_error_at(ps, &at, "CREATE TABLE '%s' needs a PRIMARY KEY", s->name);
    ok = false;
  }
  return ok;
}

FromItem build_from(const char *name, const AirqLoc *nl, const char *alias,
                    const AirqLoc *al) {
  FromItem f = {0};
  f.name = name;
  f.loc = airq_srcloc(nl);
  f.alias = alias;
  if (alias)
    f.alias_loc = airq_srcloc(al);
  return f;
}

/* FROM TABLE(fn(TABLE stream, DESCRIPTOR(time), durations...)) [alias]:
 * Flink SQL's window table-valued functions, the stream with a window
 * (TUMBLE size; HOP slide, size; SESSION gap); CUMULATE and offsets are
 * refused. The window becomes the query's (build_tvf_window). */
bool build_tvf(ParseState *ps, FromItem *f, const char *fn, const AirqLoc *fl, const char *stream,
               const AirqLoc *sl, const char *desc, const AirqLoc *dl, const char *time, const AirqLoc *tl,
               Expr *durs, const char *alias, const AirqLoc *al) {
  static const struct { const char *name; WindowKind kind; int nargs; const char *form; } fns[] = {
      {"TUMBLE", WIN_TUMBLING, 1, "TUMBLE(TABLE s, DESCRIPTOR(ts), size)"},
      {"HOP", WIN_HOPPING, 2, "HOP(TABLE s, DESCRIPTOR(ts), slide, size)"},
      {"SESSION", WIN_SESSION, 1, "SESSION(TABLE s, DESCRIPTOR(ts), gap)"},
  };
  int k = -1, n = 0;
  for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
    if (strcasecmp(fn, fns[i].name) == 0) k = (int)i;
  if (k < 0) {
    if (strcasecmp(fn, "CUMULATE") == 0)
      airq_error_at(ps, fl, "CUMULATE windows are not supported (TUMBLE, HOP and SESSION are)");
    else {
      airq_error_at(ps, fl, "unknown window function '%s' (expected TUMBLE, HOP or SESSION)", fn);
      static const char *const names[] = {"TUMBLE", "HOP", "SESSION"};
      const char *best = diag_suggest(fn, names, 3);
      if (best && !ps->stop)
        diag_note(ps->d, airq_srcloc(fl), "did you mean '%s'?", best);
    }
    return false;
  }
  if (strcasecmp(desc, "DESCRIPTOR") != 0) {
    airq_error_at(ps, dl, "expected DESCRIPTOR(time column), as in %s", fns[k].form);
    return false;
  }
  for (Expr *d = durs; d; d = d->next) n++;
  if (n != fns[k].nargs) {
    AirqLoc at = *fl;
    if (n > fns[k].nargs) {
      Expr *d = durs;
      for (int i = 0; i < fns[k].nargs; i++) d = d->next;
      at = (AirqLoc){d->loc.line, d->loc.col, d->loc.line, d->loc.col + d->loc.len, d->loc.len, 0, 0};
    }
    airq_error_at(ps, &at, "%s takes %d interval%s: %s%s", fns[k].name, fns[k].nargs, fns[k].nargs == 1 ? "" : "s",
                  fns[k].form, n > fns[k].nargs ? " (a window offset is not supported)" : "");
    return false;
  }
  *f = build_from(stream, sl, alias, al);
  WindowSpec *w = arena_alloc(ps->arena, sizeof(WindowSpec));
  w->kind = fns[k].kind;
  w->loc = airq_srcloc(fl);
  if (w->kind == WIN_SESSION) {
    w->gap = durs;
  } else if (w->kind == WIN_HOPPING) {
    w->advance = durs;
    w->size = durs->next;
  } else {
    w->size = durs;
  }
  for (Expr *d = durs; d; d = d->next) d->next = NULL; /* no longer a list */
  f->tvf = w;
  f->tvf_time = time;
  f->tvf_time_loc = airq_srcloc(tl);
  return true;
}

/* Whether e is WINDOW_START, WINDOW_END or WINDOW_TIME. */
static bool window_column(const Expr *e) {
  return e->kind == EX_WINDOW_START || e->kind == EX_WINDOW_END ||
         (e->kind == EX_BINARY && e->op == OP_SUB && e->lhs->kind == EX_WINDOW_END && e->rhs->kind == EX_INTERVAL &&
          e->text && strcasecmp(e->text, "WINDOW_TIME") == 0);
}

/* t.window_start, t.window_end or t.window_time of a window TVF t of sel's
 * FROM (by its alias, else its stream's name). */
static bool tvf_window_column(const Select *sel, const Expr *e) {
  if (e->kind != EX_COLUMN || !e->qual || !e->name ||
      (strcasecmp(e->name, "window_start") != 0 && strcasecmp(e->name, "window_end") != 0 &&
       strcasecmp(e->name, "window_time") != 0))
    return false;
  for (int i = 0; i < sel->nfrom; i++) {
    const FromItem *f = &sel->from[i];
    if (f->tvf && strcmp(f->alias ? f->alias : f->name, e->qual) == 0) return true;
  }
  return false;
}

/* The window of a query whose FROM is a window TVF; and in a windowed
 * query, GROUP BY window_start, window_end (as Flink's window aggregations
 * are written) groups by the window, which it does anyway: they are
 * dropped from the keys. */
bool build_tvf_window(ParseState *ps, Select *sel) {
  WindowSpec *tvf = sel->from[0].tvf;
  if (sel->nfrom == 2 && sel->from[1].tvf) {
    WindowSpec *b = sel->from[1].tvf;
    if (!tvf || tvf->kind != b->kind || (tvf->size && tvf->size->ival != b->size->ival) ||
        (tvf->advance && tvf->advance->ival != b->advance->ival) || (tvf->gap && tvf->gap->ival != b->gap->ival)) {
      AirqLoc at = {b->loc.line, b->loc.col, b->loc.line, b->loc.col + b->loc.len, b->loc.len, 0, 0};
      airq_error_at(ps, &at, "both sides of a window join take the same window TVF");
      return false;
    }
  }
  if (tvf && sel->window) {
    AirqLoc at = {sel->window->loc.line, sel->window->loc.col, sel->window->loc.line,
                  sel->window->loc.col + sel->window->loc.len, sel->window->loc.len, 0, 0};
    airq_error_at(ps, &at, "the window is given twice: by the window TVF in FROM and by WINDOW");
    return false;
  }
  if (tvf) sel->window = tvf;
  if (!sel->window) return true;
  Expr **p = &sel->group_by;
  while (*p) {
    if (window_column(*p) || tvf_window_column(sel, *p))
      *p = (*p)->next;
    else
      p = &(*p)->next;
  }
  return true;
}

/* WINDOW_TIME: Flink's time of a window's results, WINDOW_END - 1 ms. */
Expr *build_window_time(ParseState *ps, const AirqLoc *l) {
  Expr *end = build_node(ps, EX_WINDOW_END, l), *ms = build_node(ps, EX_INTERVAL, l);
  ms->ival = 1;
  return build_binary(ps, l, OP_SUB, end, ms); /* its text: WINDOW_TIME as written */
}

/* EMIT FINAL (what airc does) or EMIT CHANGES (refused). */
int build_emit(ParseState *ps, const AirqLoc *l, const char *word, bool duration) {
  int mode = strcasecmp(word, "FINAL") == 0     ? EMIT_FINAL
             : strcasecmp(word, "CHANGES") == 0 ? EMIT_CHANGES
             : strcasecmp(word, "EVERY") == 0   ? EMIT_EVERY
                                                : EMIT_NONE;
  if (mode == EMIT_NONE) {
    airq_error_at(ps, l, "expected FINAL, CHANGES or EVERY after EMIT");
    return 0;
  }
  if (mode == EMIT_EVERY && !duration) {
    airq_error_at(ps, l, "EMIT EVERY needs an interval: EMIT EVERY 10 SECONDS");
    return 0;
  }
  if (mode != EMIT_EVERY && duration) {
    airq_error_at(ps, l, "only EMIT EVERY takes an interval");
    return 0;
  }
  return mode;
}

void build_suggest_unit(ParseState *ps, const AirqLoc *loc, const char *word) {
  const char *best =
      diag_suggest(word, airq_unit_words, (int)(sizeof airq_unit_words / sizeof *airq_unit_words));
  if (best && !ps->stop)
    diag_note(ps->d, airq_srcloc(loc), "did you mean '%s'?", best);
}

/* ---- source spans and located errors ------------------------------------ */

SrcLoc airq_srcloc(const AirqLoc *l) {
  SrcLoc s;
  s.line = l->first_line;
  s.col = l->first_column;
  if (l->last_line == l->first_line && l->last_column > l->first_column)
    s.len = l->last_column - l->first_column;
  else
    s.len = l->first_len;
  if (s.len < 1)
    s.len = 1;
  return s;
}

void airq_error_at(ParseState *ps, const AirqLoc *loc, const char *fmt, ...) {
  if (ps->stop)
    return;
  if (ps->nreported >= MAX_ERRORS) {
    ps->stop = true;
    diag_fatal_noloc(ps->d, "too many errors, stopping");
    return;
  }
  ps->nreported++;
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  diag_error(ps->d, airq_srcloc(loc), "%s", buf);
}

/* ---- aggregates over DISTINCT values ------------------------------------
 *
 * SELECT keys, COUNT(DISTINCT x), agg(y) ... GROUP BY keys WINDOW w is
 * planned as two aggregations of plain accumulators, which every part of
 * the engine already merges exactly (partials across ranks, slices,
 * exchanges), so no accumulator holds a set:
 *
 *   inner (a derived stream distinct_N): GROUP BY keys, x WINDOW w, one row
 *     per window, group and distinct value: the keys as __g<i>, x as __dx,
 *     each other aggregate's partial as __p<j> (AVG: a SUM __p<j> and a
 *     COUNT __n<j>), a DISTINCT aggregate's FILTER as a count __f<j> of
 *     the rows it held for, and ts = WINDOW_END - 1 ms;
 *   outer: GROUP BY __g... WINDOW TUMBLING (SIZE advance) over it: the
 *     rows of one inner window fall in one outer window, which ends where
 *     the inner one does when the size is a multiple of the advance;
 *     COUNT(DISTINCT x) is COUNT(__dx) (NULL skipped, as SQL's), SUM and
 *     AVG over __dx, a partial's combination (COUNT and SUM: SUM, MIN and
 *     MAX: themselves, AVG: SUM(__p) / SUM(__n)), WINDOW_START
 *     WINDOW_END - size.
 *
 * The rewrite is syntactic, before names are resolved: a GROUP BY key is
 * matched by the form of its expression (a column by its name). One
 * DISTINCT argument per query; not in SESSION windows. */

#define APPEND_ITEM(list, item)                                             \
  do {                                                                      \
    if ((list).tail)                                                        \
      (list).tail->next = (item);                                           \
    else                                                                    \
      (list).head = (item);                                                 \
    (list).tail = (item);                                                   \
  } while (0)

typedef struct Distinct {
  ParseState *ps;
  Select *sel;        /* the query as written */
  const Expr *x;      /* the (first) DISTINCT argument */
  const Expr *xs[8];  /* the DISTINCT arguments, each once (same_form), in order of first appearance */
  int nx;
  ItemList inner;     /* the inner query's select list */
  int np;             /* partials so far */
  int64_t size;       /* the window's size, ms (WINDOW_START of the outer) */
  const Expr *seen[64]; /* the aggregates given partials, by partial index (shared when alike) */
  const Expr *dseen[64]; /* the DISTINCT aggregates with FILTER given a count __f<j>, ... */
  int dj[64], nd;        /* ... and that j (shared when alike) */
  bool bad;           /* an error was reported */
  Select *inner_sel;  /* split_query's first step */
} Distinct;

/* Same form: a column by its name (and qualifier when both have one). */
static bool same_form(const Expr *a, const Expr *b) {
  if (!a || !b) return a == b;
  if (a->kind != b->kind) return false;
  if (a->kind == EX_COLUMN)
    return strcmp(a->name, b->name) == 0 && (!a->qual || !b->qual || strcmp(a->qual, b->qual) == 0);
  if (a->kind == EX_CALL && (strcasecmp(a->name, b->name) != 0 || a->distinct != b->distinct)) return false;
  if ((a->kind == EX_UNARY || a->kind == EX_BINARY) && a->op != b->op) return false;
  if ((a->kind == EX_INT || a->kind == EX_BOOL || a->kind == EX_INTERVAL || a->kind == EX_DATE || a->kind == EX_IS_NULL) &&
      a->ival != b->ival)
    return false;
  if (a->kind == EX_DOUBLE && a->dval != b->dval) return false;
  if (a->kind == EX_STRING && (a->slen != b->slen || memcmp(a->sval, b->sval, a->slen) != 0)) return false;
  if (a->kind == EX_CAST && (a->cast_to.kind != b->cast_to.kind || a->cast_to.len != b->cast_to.len)) return false;
  if (a->kind == EX_IN_SELECT && a->sub != b->sub && /* the same set: the same table, item and WHERE */
      (strcmp(a->sub->from[0].name, b->sub->from[0].name) != 0 || !same_form(a->sub->items->expr, b->sub->items->expr) ||
       !same_form(a->sub->where, b->sub->where)))
    return false;
  if (!same_form(a->lhs, b->lhs) || !same_form(a->rhs, b->rhs) || !same_form(a->third, b->third) ||
      !same_form(a->else_, b->else_) || !same_form(a->filter, b->filter))
    return false;
  const Expr *p = a->args, *q = b->args;
  for (; p && q; p = p->next, q = q->next)
    if (!same_form(p, q)) return false;
  return !p && !q;
}

/* A deep copy of e, each node that map (when given) replaces by its own. */
typedef Expr *(*ExprMap)(void *ctx, const Expr *e);
static Expr *copy_map(ParseState *ps, const Expr *e, ExprMap map, void *ctx) {
  if (!e) return NULL;
  Expr *c = map ? map(ctx, e) : NULL;
  if (c) return c;
  c = arena_alloc(ps->arena, sizeof(Expr));
  *c = *e;
  c->next = NULL;
  c->lhs = copy_map(ps, e->lhs, map, ctx);
  c->rhs = copy_map(ps, e->rhs, map, ctx);
  c->third = copy_map(ps, e->third, map, ctx);
  c->else_ = copy_map(ps, e->else_, map, ctx);
  c->filter = copy_map(ps, e->filter, map, ctx);
  Expr **t = &c->args;
  for (const Expr *a = e->args; a; a = a->next) {
    *t = copy_map(ps, a, map, ctx);
    t = &(*t)->next;
  }
  return c;
}
static Expr *copy_expr(ParseState *ps, const Expr *e) { return copy_map(ps, e, NULL, NULL); }

/* A node of the rewrite, located and named (its text) as `at`. */
static Expr *dnode(Distinct *d, ExprKind kind, const Expr *at) {
  Expr *e = new_expr(d->ps->arena, kind, at->loc);
  e->text = at->text;
  e->depth = at->depth;
  return e;
}
static Expr *dcol(Distinct *d, const char *name, const Expr *at) {
  Expr *e = dnode(d, EX_COLUMN, at);
  e->name = name;
  return e;
}
static Expr *dcall(Distinct *d, const char *fn, Expr *arg, const Expr *at) {
  Expr *e = dnode(d, EX_CALL, at);
  e->name = fn;
  e->name_loc = at->name_loc;
  e->args = arg;
  return e;
}
static const char *dname(Distinct *d, const char *prefix, int j) {
  char buf[32];
  snprintf(buf, sizeof buf, "%s%d", prefix, j);
  char *s = arena_alloc(d->ps->arena, strlen(buf) + 1);
  memcpy(s, buf, strlen(buf) + 1);
  return s;
}
static void inner_item(Distinct *d, Expr *e, const char *name) {
  SelectItem *it = arena_alloc(d->ps->arena, sizeof(SelectItem));
  it->expr = e;
  it->alias = name;
  it->alias_loc = e->loc;
  APPEND_ITEM(d->inner, it);
}
/* "FN(<e's text>)", for --explain */
static const char *dtext(Distinct *d, const char *fn, const Expr *e) {
  const char *t = e ? e->text : "*";
  size_t n = strlen(fn) + strlen(t) + 3;
  char *s = arena_alloc(d->ps->arena, n);
  snprintf(s, n, "%s(%s)", fn, t);
  return s;
}

static void derror(Distinct *d, SrcLoc l, const char *msg, const char *arg) {
  AirqLoc at = {l.line, l.col, l.line, l.col + l.len, l.len, 0, 0};
  airq_error_at(d->ps, &at, msg, arg);
  d->bad = true;
}

/* The aggregate a call's name names (agg_defs), whatever its arguments; or AGG_NONE. */
static AggKind agg_named(const char *n) {
  AggKind k = agg_lookup(n, false);
  return k != AGG_NONE ? k : agg_lookup(n, true);
}

/* Whether partials of k combine in a second aggregation: COUNT, SUM, AVG,
 * MIN, MAX (agg_defs' rows up to AGG_AVG). */
static bool combines(AggKind k) { return k != AGG_NONE && k <= AGG_AVG; }

/* The index of DISTINCT argument x among d->xs, or -1. */
static int distinct_arg(const Distinct *d, const Expr *x) {
  for (int i = 0; i < d->nx; i++)
    if (same_form(d->xs[i], x)) return i;
  return -1;
}

/* The DISTINCT calls of e (not inside aggregates): their arguments in d->xs. */
static void find_distinct(Distinct *d, const Expr *e, int *n) {
  if (!e) return;
  if (e->kind == EX_CALL && e->distinct) {
    (*n)++;
    if (!combines(agg_named(e->name)) || !e->args || e->args->next || e->args->kind == EX_STAR) {
      derror(d, e->loc, "DISTINCT is taken by COUNT, SUM, AVG, MIN and MAX of one argument, not by %s", e->name);
      return;
    }
    if (distinct_arg(d, e->args) >= 0) return;
    if (d->nx == (int)(sizeof d->xs / sizeof *d->xs)) {
      derror(d, e->args->loc, "aggregates over DISTINCT values of more than %s different arguments in one query "
                              "are not supported", "8");
      return;
    }
    d->xs[d->nx++] = e->args;
    if (!d->x) d->x = e->args;
    return;
  }
  find_distinct(d, e->lhs, n);
  find_distinct(d, e->rhs, n);
  find_distinct(d, e->third, n);
  find_distinct(d, e->else_, n);
  for (const Expr *a = e->args; a; a = a->next) find_distinct(d, a, n);
}

/* WINDOW_START of the second aggregation, whose windows are one advance
 * long: WINDOW_END - size of the first's; NULL for any other e. */
static Expr *window_start_of(Distinct *d, const Expr *e) {
  if (e->kind != EX_WINDOW_START || d->size == d->sel->window->advance_ms) return NULL;
  Expr *r = dnode(d, EX_BINARY, e), *end = dnode(d, EX_WINDOW_END, e), *iv = dnode(d, EX_INTERVAL, e);
  iv->ival = d->size;
  r->op = OP_SUB;
  r->lhs = end;
  r->rhs = iv;
  return r;
}

/* With several DISTINCT arguments x0, x1, ... the inner query takes each
 * row once per argument (Select.expand): copy i groups by x_i alone (the
 * key __dx<i> is x_i in copy i, NULL in the others), so agg(DISTINCT x_i)
 * of the outer query is agg(__dx<i>), over the non-NULL values of one copy.
 * The other partials count each row once, in copy 0. */

/* copy = i (EX_BRANCH = i) */
static Expr *copy_is(Distinct *d, int i, const Expr *at) {
  Expr *eq = dnode(d, EX_BINARY, at), *b = dnode(d, EX_BRANCH, at), *n = dnode(d, EX_INT, at);
  char buf[32];
  snprintf(buf, sizeof buf, "copy = %d", i);
  eq->text = arena_strdup(d->ps->arena, buf);
  b->text = "copy";
  n->ival = i;
  n->text = eq->text + 7;
  eq->op = OP_EQ;
  eq->lhs = b;
  eq->rhs = n;
  return eq;
}

/* An inner partial's FILTER: f (a copy; NULL: none), and with several
 * DISTINCT arguments only the rows of copy i. */
static Expr *copy_filter(Distinct *d, const Expr *f, int i) {
  Expr *c = f ? copy_expr(d->ps, f) : NULL;
  if (d->nx < 2) return c;
  Expr *is = copy_is(d, i, f ? f : d->xs[0]);
  if (!c) return is;
  Expr *and = dnode(d, EX_BINARY, c);
  size_t n = strlen(c->text ? c->text : "?") + strlen(is->text) + 8;
  char *t = arena_alloc(d->ps->arena, n);
  snprintf(t, n, "(%s) AND %s", c->text ? c->text : "?", is->text);
  and->text = t;
  and->op = OP_AND;
  and->lhs = c;
  and->rhs = is;
  return and;
}

/* The inner query's key __dx<i>: CASE WHEN copy = i THEN x_i END. */
static Expr *copy_key(Distinct *d, int i) {
  const Expr *x = d->xs[i];
  Expr *c = dnode(d, EX_CASE, x), *w = dnode(d, EX_WHEN, x);
  char buf[32];
  snprintf(buf, sizeof buf, " in copy %d", i);
  size_t n = strlen(x->text ? x->text : "?") + strlen(buf) + 1;
  char *t = arena_alloc(d->ps->arena, n);
  snprintf(t, n, "%s%s", x->text ? x->text : "?", buf);
  c->text = t;
  w->lhs = copy_is(d, i, x);
  w->rhs = copy_expr(d->ps, x);
  c->args = w;
  return c;
}

/* e of the outer query: the aggregate calls through the inner query, the
 * GROUP BY keys as the inner's columns; NULL after an error. */
static Expr *outer_expr(Distinct *d, Expr *e) {
  if (!e || d->bad) return e;
  Select *s = d->sel;
  int i = 0;
  for (Expr *k = s->group_by; k; k = k->next, i++)
    if (e->kind != EX_INT && e->kind != EX_STRING && same_form(e, k)) return dcol(d, dname(d, "__g", i), e);
  if (e->kind == EX_CALL && e->distinct) { /* agg(DISTINCT x) [FILTER f]: agg(__dx) [FILTER __f > 0] */
    int xi = distinct_arg(d, e->args);
    Expr *r = dcall(d, e->name, dcol(d, d->nx > 1 ? dname(d, "__dx", xi) : "__dx", e->args), e);
    if (e->filter) {
      int k = 0, j;
      while (k < d->nd && !same_form(d->dseen[k], e)) k++;
      if (k < d->nd) {
        j = d->dj[k]; /* the same agg(DISTINCT x) FILTER (...) again (ORDER BY, HAVING) */
      } else {
        if (d->nd == (int)(sizeof d->dseen / sizeof *d->dseen) ||
            d->np == (int)(sizeof d->seen / sizeof *d->seen)) {
          derror(d, e->loc, "too many aggregates beside one over DISTINCT values (%s)", "at most 64");
          return e;
        }
        j = d->np++;
        d->dseen[d->nd] = e;
        d->dj[d->nd++] = j;
        Expr *cnt = dcall(d, "COUNT", dnode(d, EX_STAR, e), e);
        cnt->filter = copy_filter(d, e->filter, xi); /* the rows of x's copy */
        cnt->text = "COUNT(*)"; /* and its FILTER, as --explain shows it */
        inner_item(d, cnt, dname(d, "__f", j));
      }
      Expr *gt = dnode(d, EX_BINARY, e->filter), *zero = dnode(d, EX_INT, e->filter);
      gt->op = OP_GT;
      gt->lhs = dcol(d, dname(d, "__f", j), e->filter);
      gt->rhs = zero;
      r->filter = gt;
    }
    return r;
  }
  if (e->kind == EX_CALL && agg_named(e->name) != AGG_NONE && !combines(agg_named(e->name))) {
    derror(d, e->loc, "%s beside an aggregate over DISTINCT values is not supported (COUNT, SUM, AVG, MIN and "
                      "MAX are): compute it in a query of its own", e->name);
    return e;
  }
  if (e->kind == EX_CALL && combines(agg_named(e->name)) && e->args) { /* agg(y): a partial in the inner query */
    bool avg = strcasecmp(e->name, "AVG") == 0, count = strcasecmp(e->name, "COUNT") == 0;
    int j = 0;
    while (j < d->np && !(d->seen[j] && same_form(d->seen[j], e))) j++;
    if (j == d->np) { /* a new one */
      if (d->np == (int)(sizeof d->seen / sizeof *d->seen)) {
        derror(d, e->loc, "too many aggregates beside one over DISTINCT values (%s)", "at most 64");
        return e;
      }
      d->seen[d->np++] = e;
      Expr *part = copy_expr(d->ps, e);
      part->filter = copy_filter(d, e->filter, 0); /* each row once: its first copy */
      if (avg) {
        part->name = "SUM";
        part->text = dtext(d, "SUM", e->args);
      }
      inner_item(d, part, dname(d, "__p", j));
      if (avg) {
        Expr *n = copy_expr(d->ps, e);
        n->filter = part->filter;
        n->name = "COUNT";
        n->text = dtext(d, "COUNT", e->args);
        inner_item(d, n, dname(d, "__n", j));
      }
    }
    Expr *r = dcall(d, count || avg ? "SUM" : e->name, dcol(d, dname(d, "__p", j), e), e);
    if (!avg) return r;
    r->text = dtext(d, "SUM", e->args);
    Expr *cast = dnode(d, EX_CAST, e), *div = dnode(d, EX_BINARY, e), *nz = dnode(d, EX_CALL, e);
    cast->lhs = r;
    cast->cast_to = (Type){.kind = TY_DOUBLE};
    nz->name = "NULLIF";
    nz->args = dcall(d, "SUM", dcol(d, dname(d, "__n", j), e), e);
    nz->args->text = dtext(d, "COUNT", e->args);
    nz->args->next = dnode(d, EX_INT, e);
    div->op = OP_DIV;
    div->lhs = cast;
    div->rhs = nz;
    return div;
  }
  if (e->kind == EX_COLUMN) {
    derror(d, e->loc, "column '%s' must appear in GROUP BY or be used in an aggregate", e->name);
    return e;
  }
  Expr *ws = window_start_of(d, e);
  if (ws) return ws;
  e->lhs = outer_expr(d, e->lhs);
  e->rhs = outer_expr(d, e->rhs);
  e->third = outer_expr(d, e->third);
  e->else_ = outer_expr(d, e->else_);
  Expr **t = &e->args;
  for (Expr *a = e->args; a; a = a->next) {
    Expr *next = a->next, *r = outer_expr(d, a);
    r->next = next;
    *t = r;
    t = &r->next;
  }
  return e;
}

/* The name a select item's column has as written (out_name in sema). */
static const char *written_name(const SelectItem *it) {
  if (it->alias) return it->alias;
  if (it->expr->kind == EX_COLUMN) return it->expr->name;
  return it->expr->text ? it->expr->text : "?column?";
}

/* Whether d->sel's window fits the two steps (its size a multiple of its
 * advance, which the second step's TUMBLING windows are long); d->size and
 * the window's size_ms and advance_ms set. */
static bool two_step_window(Distinct *d) {
  WindowSpec *w = d->sel->window;
  d->size = w->size->ival;
  w->size_ms = d->size;
  w->advance_ms = w->advance ? w->advance->ival : d->size;
  return w->advance_ms > 0 && d->size % w->advance_ms == 0;
}

/* The second step's columns keep the names written. */
static void keep_written_names(Select *sel) {
  for (SelectItem *it = sel->items; it; it = it->next)
    if (!it->alias && it->expr->kind != EX_STAR) {
      it->alias = written_name(it);
      it->alias_loc = it->expr->loc;
    }
}

/* The first step: d->sel with d->inner's columns (then ts, the window's
 * last millisecond, located at `at`), GROUP BY keys, made a derived stream
 * prefix_N of this statement (located at `where`); and the second: a copy
 * of d->sel reading it (no join, no WHERE) per TUMBLING window of the
 * first's advance (two_step_window). */
static Select *split_query(Distinct *d, const char *prefix, SrcLoc where, const Expr *at, Expr *keys) {
  ParseState *ps = d->ps;
  const Select *sel = d->sel;
  const bool updating = !sel->window; /* (then the first step's changes carry their own time) */
  if (!updating) {
    Expr *ts = dnode(d, EX_BINARY, at), *end = dnode(d, EX_WINDOW_END, at), *ms = dnode(d, EX_INTERVAL, at);
    ms->ival = 1;
    ts->op = OP_SUB;
    ts->lhs = end;
    ts->rhs = ms;
    ts->text = "WINDOW_END - INTERVAL '1' MILLISECOND";
    inner_item(d, ts, "ts");
  }
  Select *in = arena_alloc(ps->arena, sizeof(Select));
  *in = *sel;
  in->emit = EMIT_NONE; /* the second step's */
  in->emit_every = NULL;
  in->items = d->inner.head;
  in->group_by = keys;
  in->having = NULL;
  in->order_by = NULL;
  in->limit = 0;
  char buf[48];
  snprintf(buf, sizeof buf, "%s_%d", prefix, ++ps->nrewrite);
  char *name = arena_alloc(ps->arena, strlen(buf) + 1);
  memcpy(name, buf, strlen(buf) + 1);
  AirqLoc al = {where.line, where.col, where.line, where.col + where.len, where.len, 0, 0};
  build_subquery(ps, name, &al, in)->subquery = true;
  d->inner_sel = in;
  Select *out = arena_alloc(ps->arena, sizeof(Select));
  *out = *sel;
  memset(out->from, 0, sizeof out->from);
  out->from[0] = build_from(name, &al, NULL, NULL);
  out->nfrom = 1;
  out->join_on = NULL;
  out->comma_join = out->left_join = out->right_join = out->table_join = false;
  out->where = NULL;
  if (updating && strcmp(prefix, "joined") == 0) {
    /* a join's pairs, aggregated without a WINDOW: an updating query over
     * them; the join emits no changes of its own (its state_ttl is the
     * join's: an interval join of [-d, d]) */
    in->emit = EMIT_NONE;
    in->emit_every = NULL;
    if (sel->emit == EMIT_FINAL) out->state_ttl = NULL; /* (a table written once keeps its keys) */
    return out;
  }
  if (updating) {
    /* an updating query: the first step emits as the query does, and the
     * second takes its changes back and adds them (EMIT FINAL: the first
     * step's changes every hour, the second's table once, at the end) */
    if (sel->emit == EMIT_FINAL) {
      in->emit = EMIT_EVERY;
      in->emit_every = dnode(d, EX_INTERVAL, at);
      in->emit_every->ival = 3600000;
    }
    return out;
  }
  const WindowSpec *w = sel->window;
  WindowSpec *ow = arena_alloc(ps->arena, sizeof(WindowSpec));
  ow->kind = WIN_TUMBLING;
  ow->loc = w->loc;
  ow->size = dnode(d, EX_INTERVAL, w->advance ? w->advance : w->size);
  ow->size->ival = w->advance_ms;
  out->window = ow;
  return out;
}

/* ORDER BY's name of an output column (its alias, or the column it is). */
static bool output_name(const Select *sel, const Expr *e) {
  if (e->kind != EX_COLUMN || e->qual) return false;
  for (const SelectItem *it = sel->items; it; it = it->next)
    if (it->expr->kind != EX_STAR && strcmp(written_name(it), e->name) == 0) return true;
  return false;
}

/* A MIN or MAX call in e, or NULL: over the first step's changes of an
 * updating query it would have to take a value back. */
static const Expr *find_min_max(const Expr *e) {
  if (!e) return NULL;
  if (e->kind == EX_CALL && (agg_named(e->name) == AGG_MIN || agg_named(e->name) == AGG_MAX)) return e;
  const Expr *kids[] = {e->lhs, e->rhs, e->third, e->else_, e->filter};
  for (size_t i = 0; i < sizeof kids / sizeof *kids; i++) {
    const Expr *f = find_min_max(kids[i]);
    if (f) return f;
  }
  for (const Expr *a = e->args; a; a = a->next) {
    const Expr *f = find_min_max(a);
    if (f) return f;
  }
  return NULL;
}

Select *build_distinct(ParseState *ps, Select *sel) {
  Distinct d = {.ps = ps, .sel = sel};
  int n = 0;
  for (SelectItem *it = sel->items; it; it = it->next) find_distinct(&d, it->expr, &n);
  find_distinct(&d, sel->having, &n);
  for (OrderItem *o = sel->order_by; o; o = o->next) find_distinct(&d, o->expr, &n);
  if (n == 0 || d.bad) return d.bad ? NULL : sel;
  const Expr *first = d.x;
  WindowSpec *w = sel->window;
  if (w && w->kind == WIN_SESSION) {
    derror(&d, first->loc, "an aggregate over DISTINCT values in a SESSION window is not supported (%s)",
           "TUMBLING and HOPPING windows take it");
    return NULL;
  }
  if (w && w->grace) { /* its second step would be a window over the first's changelog */
    derror(&d, first->loc, "an aggregate over DISTINCT values in a window with a GRACE PERIOD is not supported "
           "(%s)", "drop DISTINCT or the GRACE PERIOD");
    return NULL;
  }
  const Expr *mm = NULL;
  for (SelectItem *it = sel->items; it && !w && !mm; it = it->next) mm = find_min_max(it->expr);
  if (!w && !mm) mm = find_min_max(sel->having);
  if (mm) { /* an updating query: its second step takes the first's changes back */
    derror(&d, mm->loc, "MIN or MAX in an updating query (GROUP BY without WINDOW) with an aggregate over "
           "DISTINCT values is not supported (%s)", "COUNT, SUM and AVG are; or give the query a WINDOW");
    return NULL;
  }
  if (w && !two_step_window(&d)) {
    derror(&d, first->loc, "an aggregate over DISTINCT values needs a window whose size is a multiple of %s",
           "its advance");
    return NULL;
  }
  keep_written_names(sel);
  /* inner: the keys, the DISTINCT argument, the partials, the time */
  int i = 0;
  for (Expr *k = sel->group_by; k; k = k->next, i++) inner_item(&d, copy_expr(ps, k), dname(&d, "__g", i));
  if (d.nx == 1)
    inner_item(&d, copy_expr(ps, d.x), "__dx");
  else
    for (int x = 0; x < d.nx; x++) inner_item(&d, copy_key(&d, x), dname(&d, "__dx", x));
  for (SelectItem *it = sel->items; it; it = it->next) it->expr = outer_expr(&d, it->expr);
  sel->having = outer_expr(&d, sel->having);
  for (OrderItem *o = sel->order_by; o; o = o->next)
    if (!output_name(sel, o->expr)) o->expr = outer_expr(&d, o->expr);
  if (d.bad) return NULL;
  Expr *keys = NULL, **t = &keys; /* the keys, then x (or each copy's) */
  for (const Expr *k = sel->group_by; k; k = k->next) {
    *t = copy_expr(ps, k);
    t = &(*t)->next;
  }
  for (int x = 0; x < d.nx; x++) {
    *t = d.nx == 1 ? copy_expr(ps, d.x) : copy_key(&d, x);
    t = &(*t)->next;
  }
  Select *out = split_query(&d, "distinct", first->loc, first, keys);
  if (d.nx > 1) d.inner_sel->expand = d.nx;
  Expr **g = &out->group_by;
  *g = NULL;
  i = 0;
  for (Expr *k = sel->group_by; k; k = k->next, i++) {
    *g = dcol(&d, dname(&d, "__g", i), k);
    g = &(*g)->next;
  }
  return out;
}

/* ---- aggregates over a join of two streams --------------------------------
 *
 * SELECT k, agg(a.x * b.y) FROM a JOIN b ON ... GROUP BY k WINDOW w is the
 * aggregate over a derived stream joined_N of the window's pairs, planned
 * as the DISTINCT rewrite plans its second step: joined_N is the join with
 * the columns the aggregation reads (__c<i>) and ts = WINDOW_END - 1 ms,
 * and the query aggregates it per TUMBLING window of the advance (the size
 * a multiple of it). Without a WINDOW (a regular or an interval join)
 * joined_N has no ts column: its time is the pair's (sema), and the query
 * is an updating aggregation of it. A join with a TABLE aggregates directly (it needs no
 * window of pairs), as does any query this does not fit (sema explains),
 * or whose FROM names no stream declared before it. */

typedef struct JoinAgg {
  Distinct d;          /* the node builders' state */
  const Expr *cols[128]; /* the column references read after the join, by __c index */
  int ncols;
  bool aggs;           /* an aggregate call was seen */
} JoinAgg;

static void join_agg_scan(JoinAgg *j, const Expr *e) {
  if (!e) return;
  if (e->kind == EX_CALL && agg_named(e->name) != AGG_NONE) j->aggs = true;
  if (e->kind == EX_COLUMN) {
    for (int i = 0; i < j->ncols; i++)
      if (same_form(j->cols[i], e)) return;
    if (j->ncols == (int)(sizeof j->cols / sizeof *j->cols)) {
      derror(&j->d, e->loc, "too many columns read after a join of two streams (%s)", "at most 128");
      return;
    }
    j->cols[j->ncols++] = e;
    return;
  }
  join_agg_scan(j, e->lhs);
  join_agg_scan(j, e->rhs);
  join_agg_scan(j, e->third);
  join_agg_scan(j, e->else_);
  join_agg_scan(j, e->filter);
  for (const Expr *a = e->args; a; a = a->next) join_agg_scan(j, a);
}

/* e over the derived stream: its column references as __c<i>, WINDOW_START
 * as WINDOW_END - size (a copy; e is left as it is). */
static Expr *join_agg_map(void *ctx, const Expr *e) {
  JoinAgg *j = ctx;
  if (e->kind == EX_COLUMN)
    for (int i = 0; i < j->ncols; i++)
      if (same_form(j->cols[i], e)) return dcol(&j->d, dname(&j->d, "__c", i), e);
  return window_start_of(&j->d, e);
}
static Expr *join_agg_expr(JoinAgg *j, const Expr *e) { return copy_map(j->d.ps, e, join_agg_map, j); }

/* Whether name is a stream declared before, or a WITH query or subquery
 * of this statement (a TABLE, or a name not declared, is not). */
static bool declared_stream(ParseState *ps, const char *name) {
  for (const Stmt *q = ps->sub_head; q; q = q->next)
    if (q->name && strcmp(q->name, name) == 0) return true;
  bool stream = false;
  for (const Stmt *q = ps->head; q; q = q->next)
    if (q->name && strcmp(q->name, name) == 0)
      stream = q->kind == ST_CREATE_STREAM || q->kind == ST_CREATE_STREAM_AS;
  return stream;
}

/* Whether e calls an aggregate. */
static bool has_aggregate(const Expr *e) {
  if (!e) return false;
  if (e->kind == EX_CALL && agg_named(e->name) != AGG_NONE) return true;
  if (has_aggregate(e->lhs) || has_aggregate(e->rhs) || has_aggregate(e->third) || has_aggregate(e->else_) ||
      has_aggregate(e->filter))
    return true;
  for (const Expr *a = e->args; a; a = a->next)
    if (has_aggregate(a)) return true;
  return false;
}

Select *build_join_agg(ParseState *ps, Select *sel) {
  WindowSpec *w = sel->window;
  if (sel->nfrom != 2 || (w && w->kind == WIN_SESSION)) return sel;
  bool aggs = sel->group_by != NULL; /* (before declared_stream, whose scan of every statement costs) */
  for (const SelectItem *it = sel->items; it && !aggs; it = it->next) aggs = has_aggregate(it->expr);
  if (!aggs && !w) return sel; /* a join's pairs, no window: nothing to split */
  if (!declared_stream(ps, sel->from[0].name) || !declared_stream(ps, sel->from[1].name)) return sel;
  JoinAgg *j = arena_alloc(ps->arena, sizeof(JoinAgg));
  j->d.ps = ps;
  j->d.sel = sel;
  for (SelectItem *it = sel->items; it; it = it->next) join_agg_scan(j, it->expr);
  for (Expr *k = sel->group_by; k; k = k->next) join_agg_scan(j, k);
  join_agg_scan(j, sel->having);
  for (OrderItem *o = sel->order_by; o; o = o->next)
    if (!output_name(sel, o->expr)) join_agg_scan(j, o->expr);
  if (j->d.bad) return NULL;
  if (!j->aggs && !sel->group_by) return sel; /* the join's pairs themselves */
  const Expr *at = sel->items ? sel->items->expr : sel->from[0].tvf ? sel->from[0].tvf->size : NULL;
  if (!at || (w && !two_step_window(&j->d))) return sel; /* sema says what to write */
  keep_written_names(sel);
  /* the join: the columns read after it, and the time */
  for (int i = 0; i < j->ncols; i++) inner_item(&j->d, copy_expr(ps, j->cols[i]), dname(&j->d, "__c", i));
  Select *out = split_query(&j->d, "joined", sel->from[1].loc, at, NULL);
  for (SelectItem *it = out->items = NULL, *src = sel->items, **t = &out->items; src; src = src->next) {
    it = arena_alloc(ps->arena, sizeof(SelectItem));
    *it = *src;
    it->next = NULL;
    it->expr = join_agg_expr(j, src->expr);
    *t = it;
    t = &it->next;
  }
  Expr **g = &out->group_by;
  *g = NULL;
  for (Expr *k = sel->group_by; k; k = k->next) {
    *g = join_agg_expr(j, k);
    g = &(*g)->next;
  }
  out->having = join_agg_expr(j, sel->having);
  OrderItem **ot = &out->order_by;
  *ot = NULL;
  for (OrderItem *o = sel->order_by; o; o = o->next) {
    OrderItem *c = arena_alloc(ps->arena, sizeof(OrderItem));
    *c = *o;
    c->next = NULL;
    c->expr = output_name(sel, o->expr) ? o->expr : join_agg_expr(j, o->expr);
    *ot = c;
    ot = &c->next;
  }
  return out;
}

/* ---- Flink SQL's Top-N: ROW_NUMBER() OVER (...) ---------------------------
 *
 *   SELECT * | cols FROM (
 *     SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end [, k ...]
 *                                  ORDER BY x [DESC], ...) AS rownum
 *     FROM (windowed query)) [AS t]
 *   WHERE rownum <= n        (or rownum < n, rownum = 1) [AND c ...]
 *
 * or FROM TABLE(TUMBLE(TABLE s, ...)) [WHERE c] in place of the windowed
 * query (Flink's form over a window TVF): the windowed query is then that
 * one, its `*` s's columns and window_start, window_end, window_time
 * (tvf_ranked).
 *
 * is the windowed query with ORDER BY k ..., x ... and LIMIT n per
 * partition (Select.limit_part: the leading k's), its rows numbered by the
 * collector (EX_ROW_NUMBER): each window's rows are sorted on rank 0 and cut
 * there, so the cost is the window's aggregation and a sort of its results.
 * The conditions c hold for the numbered rows (Select.rank_where): the
 * collector drops those they are false for after numbering them.
 * Other uses of OVER are refused by sema. */

static Stmt *sub_stmt(ParseState *ps, const char *name) {
  for (Stmt *q = ps->sub_head; q; q = q->next)
    if (q->name && strcmp(q->name, name) == 0) return q;
  return NULL;
}

static void drop_sub(ParseState *ps, Stmt *s) {
  for (Stmt **p = &ps->sub_head; *p; p = &(*p)->next)
    if (*p == s) {
      *p = s->next;
      if (!*p) ps->sub_tail = p;
      return;
    }
}

static bool rn_error(ParseState *ps, SrcLoc l, const char *what) {
  AirqLoc at = {l.line, l.col, l.line, l.col + l.len, l.len, 0, 0};
  airq_error_at(ps, &at, "%s; Flink's Top-N form is SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY "
                         "window_start, window_end ORDER BY x DESC) AS rownum FROM TABLE(TUMBLE(...)) or "
                         "(windowed query)) WHERE rownum <= n",
                what);
  return false;
}

/* WHERE rownum <= n AND c ...: the first conjunct bounding the row number
 * (rownum <= n, rownum < n, rownum = 1), and the others, linked by next. */
typedef struct RankWhere {
  const char *rn;     /* the row number's name */
  const Expr *bound;  /* rownum <= n, or NULL */
  int64_t n;          /* the rows it keeps (0: not a bound) */
  Expr *other, **tail;
} RankWhere;

static void split_rank_where(Expr *w, RankWhere *rw) {
  if (!w) return;
  if (!rw->tail) rw->tail = &rw->other;
  if (w->kind == EX_BINARY && w->op == OP_AND) {
    split_rank_where(w->lhs, rw);
    split_rank_where(w->rhs, rw);
    return;
  }
  if (!rw->bound && w->kind == EX_BINARY && w->lhs->kind == EX_COLUMN && !w->lhs->qual &&
      strcmp(w->lhs->name, rw->rn) == 0 && w->rhs->kind == EX_INT) {
    int64_t n = w->op == OP_LE ? w->rhs->ival : w->op == OP_LT ? w->rhs->ival - 1 : w->op == OP_EQ && w->rhs->ival == 1;
    if (n >= 1) {
      rw->bound = w;
      rw->n = n;
      return;
    }
  }
  w->next = NULL; /* a condition is in no list */
  *rw->tail = w;
  rw->tail = &w->next;
}

/* The ranked query's column named name; window_start, window_end and
 * window_time written as those words match whatever their case. */
static const SelectItem *ranked_col(const Select *base, const char *name, bool word) {
  const SelectItem *b = base->items;
  while (b && (word ? strcasecmp(written_name(b), name) : strcmp(written_name(b), name)) != 0) b = b->next;
  return b;
}

/* Each column the other conditions name: a picked one (as OVER's). */
typedef struct RankCols {
  ParseState *ps;
  const Select *sel, *base;
  const char *rn;
  const SelectItem **src;
  int nsrc;
  bool ok;
} RankCols;

static bool rank_col(void *ctx, const Expr *e) {
  RankCols *rc = ctx;
  if (!rc->ok) return false;
  if (e->kind == EX_IN_SELECT) {
    rc->ok = rn_error(rc->ps, e->loc, "IN (SELECT ...) is not taken in the conditions beside rownum <= n");
    return false;
  }
  bool word = window_column(e);
  if (e->kind != EX_COLUMN && !word) return true;
  const FromItem *f = &rc->sel->from[0];
  if (e->kind == EX_COLUMN && e->qual && strcmp(e->qual, f->alias ? f->alias : f->name) != 0) {
    AirqLoc at = {e->loc.line, e->loc.col, e->loc.line, e->loc.col + e->loc.len, e->loc.len, 0, 0};
    airq_error_at(rc->ps, &at, "unknown stream or alias '%s': the conditions beside rownum <= n read the rows "
                               "numbered in the FROM", e->qual);
    rc->ok = false;
    return false;
  }
  if (e->kind == EX_COLUMN) ((Expr *)e)->qual = NULL; /* the one FROM item's */
  const char *name = word ? e->text : e->name;
  const SelectItem *b = NULL;
  if (strcmp(name, rc->rn) != 0) b = ranked_col(rc->base, name, word);
  int pos = -1;
  for (int k = 0; k < rc->nsrc && pos < 0 && (b || strcmp(name, rc->rn) == 0); k++)
    if (rc->src[k] == b) pos = k;
  if (pos < 0) {
    SrcLoc l = e->kind == EX_COLUMN ? e->name_loc : e->loc;
    AirqLoc at = {l.line, l.col, l.line, l.col + l.len, l.len, 0, 0};
    if (!b && strcmp(name, rc->rn) != 0)
      airq_error_at(rc->ps, &at, "unknown column '%s': the ranked query writes no column of that name", name);
    else
      airq_error_at(rc->ps, &at, "the conditions beside rownum <= n filter the rows written, after they are "
                                 "numbered: pick '%s' among the columns of the query over ROW_NUMBER()", name);
    rc->ok = false;
  } else if (word && b) { /* the picked column, by its name there (WINDOW_TIME: window_time) */
    Expr *c = (Expr *)e;
    c->kind = EX_COLUMN;
    c->name = written_name(b);
    c->name_loc = c->loc;
    c->lhs = c->rhs = NULL;
  }
  return false; /* a column: no children */
}

/* window_start or window_end, as the pseudo-column or a column so named */
static bool window_word(const Expr *e) {
  return e->kind == EX_WINDOW_START || e->kind == EX_WINDOW_END ||
         (e->kind == EX_COLUMN && (strcasecmp(e->name, "window_start") == 0 || strcasecmp(e->name, "window_end") == 0));
}

/* A new output item of the rows a window TVF gives: e named name. */
static void tvf_item(ParseState *ps, ItemList *l, Expr *e, const char *name, const char *alias) {
  e->text = name;
  e->depth = e->lhs ? 2 : 1;
  SelectItem *it = arena_alloc(ps->arena, sizeof(SelectItem));
  it->expr = e;
  it->alias = alias;
  it->alias_loc = e->loc;
  APPEND_ITEM(*l, it);
}

/* The columns `*` gives in SELECT *, ROW_NUMBER() OVER (...) FROM
 * TABLE(TUMBLE(TABLE s, ...)): s's columns in their order (a stream
 * declared before with its columns, a WITH query or derived stream whose
 * select list names them all, and its implicit ts after them when the
 * DESCRIPTOR names ts and no output is so named: sema refuses a DESCRIPTOR
 * that is not the event time), then window_start, window_end and
 * window_time, as Flink's window TVFs add them; false (reported) when s's
 * columns are not known here. */
static bool tvf_star(ParseState *ps, const FromItem *f, ItemList *l) {
  const Select *q = NULL;
  const ColumnDef *cols = NULL;
  bool found = false, named = false; /* named: by some statement before */
  const Stmt *w = NULL; /* a WITH query (a FROM subquery is named by no TVF) */
  for (const Stmt *s = ps->sub_head; s && !w; s = s->next)
    if (s->name && !s->subquery && strcmp(s->name, f->name) == 0) w = s;
  if (w) {
    q = w->select;
    found = named = true;
  } else {
    for (const Stmt *s = ps->head; s; s = s->next) {
      if (!s->name || strcmp(s->name, f->name) != 0) continue;
      named = true;
      if (s->kind != ST_CREATE_STREAM && s->kind != ST_CREATE_STREAM_AS && s->kind != ST_CREATE_TABLE) continue;
      found = s->kind != ST_CREATE_TABLE; /* the last one declared */
      q = s->kind == ST_CREATE_STREAM_AS ? s->select : NULL;
      cols = s->kind == ST_CREATE_STREAM ? s->cols : NULL;
    }
  }
  for (const SelectItem *it = q ? q->items : NULL; it; it = it->next)
    if (it->expr->kind == EX_STAR) {
      found = false;
      break;
    }
  AirqLoc at = {f->loc.line, f->loc.col, f->loc.line, f->loc.col + f->loc.len, f->loc.len, 0, 0};
  if (!found && !named) {
    airq_error_at(ps, &at, "unknown stream '%s': a window TVF's table is a stream declared before, or a WITH "
                           "query", f->name);
    return false;
  }
  if (!found || (!q && !cols)) {
    airq_error_at(ps, &at, "SELECT *, ROW_NUMBER() over a window TVF takes the columns of '%s' from a stream "
                           "declared before with its columns, or from a WITH query or derived stream that names "
                           "each of them (no *); else name the window's rows in a subquery: FROM (SELECT a, b, "
                           "window_start, window_end FROM TABLE(TUMBLE(...)))",
                  f->name);
    return false;
  }
  for (const ColumnDef *c = cols; c; c = c->next) {
    Expr *e = new_expr(ps->arena, EX_COLUMN, f->loc);
    e->name = c->name;
    tvf_item(ps, l, e, c->name, NULL);
  }
  bool time = false; /* a query's event time among its outputs (else the implicit ts after them) */
  for (const SelectItem *it = q ? q->items : NULL; it; it = it->next) {
    Expr *e = new_expr(ps->arena, EX_COLUMN, f->loc);
    e->name = written_name(it);
    tvf_item(ps, l, e, e->name, NULL);
    time |= f->tvf_time && strcmp(e->name, f->tvf_time) == 0;
  }
  if (q && !time && f->tvf_time && strcmp(f->tvf_time, "ts") == 0) { /* DESCRIPTOR(ts): the implicit ts */
    Expr *e = new_expr(ps->arena, EX_COLUMN, f->loc);
    e->name = "ts";
    tvf_item(ps, l, e, e->name, NULL);
  }
  tvf_item(ps, l, new_expr(ps->arena, EX_WINDOW_START, f->loc), "window_start", "window_start");
  tvf_item(ps, l, new_expr(ps->arena, EX_WINDOW_END, f->loc), "window_end", "window_end");
  Expr *t = new_expr(ps->arena, EX_BINARY, f->loc); /* WINDOW_TIME: WINDOW_END - 1 ms */
  t->op = OP_SUB;
  t->lhs = new_expr(ps->arena, EX_WINDOW_END, f->loc);
  t->lhs->text = "window_end";
  t->lhs->depth = 1;
  t->rhs = new_expr(ps->arena, EX_INTERVAL, f->loc);
  t->rhs->ival = 1;
  t->rhs->text = "1 ms";
  t->rhs->depth = 1;
  tvf_item(ps, l, t, "window_time", "window_time");
  return true;
}

/* SELECT *, ROW_NUMBER() OVER (...) AS rownum FROM TABLE(TUMBLE(...)):
 * the windowed query it ranks, as if written in a subquery (Flink's window
 * Top-N straight over a window TVF): mid's items, `*` the TVF's rows'
 * columns (tvf_star), but the row number; NULL (reported) when not so. */
static Select *tvf_ranked(ParseState *ps, const Select *mid, const SelectItem *rn) {
  if (mid->group_by || mid->having || mid->order_by || mid->limit) {
    rn_error(ps, mid->loc, "this ROW_NUMBER() query is not the Top-N form");
    return NULL;
  }
  ItemList items = {0};
  for (SelectItem *it = mid->items; it; it = it->next) {
    if (it == rn) continue;
    if (it->expr->kind == EX_STAR && !it->expr->qual) {
      if (!tvf_star(ps, &mid->from[0], &items)) return NULL;
      continue;
    }
    SelectItem *c = arena_alloc(ps->arena, sizeof(SelectItem));
    *c = *it;
    c->next = NULL;
    APPEND_ITEM(items, c);
  }
  if (!items.head) {
    rn_error(ps, mid->loc, "this ROW_NUMBER() query is not the Top-N form");
    return NULL;
  }
  Select *base = arena_alloc(ps->arena, sizeof(Select));
  *base = *mid;
  base->items = items.head;
  return base;
}

Select *build_row_number(ParseState *ps, Select *sel) {
  if (sel->nfrom != 1 || sel->from[0].tvf) return sel;
  Stmt *s2 = sub_stmt(ps, sel->from[0].name);
  if (!s2) return sel;
  Select *mid = s2->select;
  SelectItem *rn = NULL;
  bool star = false, other = false;
  for (SelectItem *it = mid->items; it; it = it->next) {
    if (it->expr->kind == EX_CALL && it->expr->over)
      rn = rn ? rn : it;
    else if (it->expr->kind == EX_STAR && !it->expr->qual)
      star = true;
    else
      other = true;
  }
  if (!rn) return sel;
  const Expr *call = rn->expr;
  if (strcasecmp(call->name, "ROW_NUMBER") != 0)
    return rn_error(ps, call->loc, "only ROW_NUMBER() is taken with OVER") ? sel : NULL;
  if (!rn->alias) return rn_error(ps, call->loc, "ROW_NUMBER() needs a name (AS rownum)") ? sel : NULL;
  Stmt *s1 = NULL;
  Select *base;
  if (mid->nfrom == 1 && mid->from[0].tvf) { /* Flink's form: over the window TVF's rows */
    if (!(base = tvf_ranked(ps, mid, rn))) return NULL;
  } else {
    if (!star || other || mid->nfrom != 1 || mid->where || mid->group_by || mid->window || mid->having ||
        mid->order_by || mid->limit)
      return rn_error(ps, mid->loc, "this ROW_NUMBER() query is not the Top-N form") ? sel : NULL;
    s1 = sub_stmt(ps, mid->from[0].name);
    base = s1 ? s1->select : NULL;
    if (!base || !base->window || base->order_by || base->limit)
      return rn_error(ps, mid->from[0].loc, "ROW_NUMBER() ranks the rows of a windowed query written in its FROM")
                 ? sel : NULL;
  }
  /* PARTITION BY: the window and keys */
  int nwin = 0, nkeys = 0;
  for (const Expr *p = call->over_part; p; p = p->next) {
    if (window_word(p)) nwin++;
    else if (p->kind == EX_COLUMN && !p->qual) nkeys++;
    else return rn_error(ps, p->loc, "PARTITION BY names output columns of the ranked query") ? sel : NULL;
  }
  if (nwin < 2)
    return rn_error(ps, call->loc, "the partition is per window: PARTITION BY window_start, window_end") ? sel
                                                                                                      : NULL;
  /* WHERE rownum <= n, and other conditions (AND) on the numbered rows */
  RankWhere rw = {.rn = rn->alias};
  split_rank_where(sel->where, &rw);
  const Expr *w = rw.bound;
  int64_t n = rw.n;
  if (n < 1)
    return rn_error(ps, w ? w->loc : sel->where ? sel->where->loc : sel->loc,
                    "the query over ROW_NUMBER() keeps the first rows: WHERE rownum <= n")
               ? sel : NULL;
  if (sel->group_by || sel->window || sel->having || sel->order_by || sel->limit)
    return rn_error(ps, sel->loc, "the query over ROW_NUMBER() only picks columns") ? sel : NULL;
  if (base->window->kind == WIN_SESSION)
    return rn_error(ps, call->loc, "ROW_NUMBER() over SESSION windows is not supported (sessions of several keys "
                                   "may end together)") ? sel : NULL;
  for (SelectItem *b = base->items; b; b = b->next)
    if (strcmp(written_name(b), rn->alias) == 0)
      return rn_error(ps, rn->alias_loc, "the row number's name is a column of the ranked query already") ? sel
                                                                                                         : NULL;
  /* the windowed query, its columns as the outer query picks them; src[i]:
   * the ranked query's column the i-th picked one is (NULL: the number) */
  int nbase = 0, npick = 0;
  for (SelectItem *b = base->items; b; b = b->next) nbase++;
  for (SelectItem *it = sel->items; it; it = it->next) npick++;
  const SelectItem **src = arena_alloc(ps->arena, sizeof *src * (size_t)(nbase + 1) * (size_t)npick);
  int nsrc = 0;
  Select *r = arena_alloc(ps->arena, sizeof(Select));
  *r = *base;
  ItemList items = {0};
  Distinct d = {.ps = ps};
  for (SelectItem *it = sel->items; it; it = it->next) {
    const Expr *e = it->expr;
    bool all = e->kind == EX_STAR && !e->qual;
    for (SelectItem *b = base->items; b && all; b = b->next) {
      SelectItem *c = arena_alloc(ps->arena, sizeof(SelectItem));
      *c = *b;
      c->next = NULL;
      c->alias = written_name(b);
      APPEND_ITEM(items, c);
      src[nsrc++] = b;
    }
    if (all || e->kind == EX_STAR) {
      if (!all) return rn_error(ps, e->loc, "the query over ROW_NUMBER() picks * or columns by name") ? sel : NULL;
      SelectItem *c = arena_alloc(ps->arena, sizeof(SelectItem));
      c->expr = dnode(&d, EX_ROW_NUMBER, call);
      c->alias = rn->alias;
      c->alias_loc = rn->alias_loc;
      APPEND_ITEM(items, c);
      src[nsrc++] = NULL;
      continue;
    }
    bool word = window_column(e);
    if (e->kind != EX_COLUMN && !word)
      return rn_error(ps, e->loc, "the query over ROW_NUMBER() picks columns by name") ? sel : NULL;
    const char *name = e->kind == EX_COLUMN ? e->name : e->text; /* window_end: the column so named */
    SelectItem *c = arena_alloc(ps->arena, sizeof(SelectItem));
    const SelectItem *from = NULL;
    if (strcmp(name, rn->alias) == 0) {
      c->expr = dnode(&d, EX_ROW_NUMBER, call);
    } else {
      SelectItem *b = (SelectItem *)ranked_col(base, name, word);
      if (!b) {
        AirqLoc at = {e->loc.line, e->loc.col, e->loc.line, e->loc.col + e->loc.len, e->loc.len, 0, 0};
        airq_error_at(ps, &at, "unknown column '%s': the ranked query writes no column of that name", name);
        return NULL;
      }
      *c = *b;
      c->next = NULL;
      from = b;
    }
    c->alias = it->alias ? it->alias : name;
    c->alias_loc = it->alias ? it->alias_loc : e->loc;
    APPEND_ITEM(items, c);
    src[nsrc++] = from;
  }
  r->items = items.head;
  /* the other conditions: over the picked columns, by the names the
   * ranked query gives them (rownum: the number) */
  if (rw.other) {
    for (const SelectItem *b = base->items; b; b = b->next)
      if (b->expr->kind == EX_STAR)
        return rn_error(ps, b->expr->loc, "the conditions beside rownum <= n read the ranked query's columns by "
                                          "name: list them instead of *") ? sel : NULL;
    const char **names = arena_alloc(ps->arena, sizeof *names * (size_t)(nsrc ? nsrc : 1));
    for (int k = 0; k < nsrc; k++) names[k] = src[k] ? written_name(src[k]) : rn->alias;
    RankCols rc = {.ps = ps, .sel = sel, .base = base, .rn = rn->alias, .src = src, .nsrc = nsrc, .ok = true};
    for (const Expr *c = rw.other; c && rc.ok; c = c->next) expr_walk(c, rank_col, &rc);
    if (!rc.ok) return NULL;
    r->rank_where = rw.other;
    r->rank_names = names;
  }
  /* ORDER BY the partition's keys, then the ranking's order, each by its
   * position among the picked columns (their names may be others now);
   * LIMIT n each */
  OrderItem *head = NULL, **t = &head;
  const Expr *part = call->over_part;
  const OrderItem *oi = call->over_order;
  for (;;) {
    const Expr *e;
    bool desc = false;
    OrderNulls nulls = NULLS_DEFAULT;
    if (part) {
      e = part;
      part = part->next;
      if (window_word(e)) continue;
    } else if (oi) {
      e = oi->expr;
      desc = oi->desc;
      nulls = oi->nulls;
      oi = oi->next;
    } else {
      break;
    }
    if (e->kind != EX_COLUMN || e->qual)
      return rn_error(ps, e->loc, "OVER (...) names columns of the ranked query") ? sel : NULL;
    const SelectItem *b = base->items;
    while (b && strcmp(written_name(b), e->name) != 0) b = b->next;
    int pos = -1;
    for (int k = 0; k < nsrc && b && pos < 0; k++)
      if (src[k] == b) pos = k;
    if (pos < 0) {
      AirqLoc at = {e->loc.line, e->loc.col, e->loc.line, e->loc.col + e->loc.len, e->loc.len, 0, 0};
      airq_error_at(ps, &at, b ? "ROW_NUMBER() ranks by '%s': pick it among the columns of the query over it"
                               : "unknown column '%s': the ranked query writes no column of that name",
                    e->name);
      return NULL;
    }
    OrderItem *o = arena_alloc(ps->arena, sizeof(OrderItem));
    o->expr = dnode(&d, EX_INT, e);
    o->expr->ival = pos + 1;
    o->desc = desc;
    o->nulls = nulls;
    o->out = -1;
    *t = o;
    t = &o->next;
  }
  r->order_by = head;
  r->limit = n;
  r->limit_loc = w->loc;
  r->limit_part = nkeys;
  r->top_n = true;
  r->loc = sel->loc;
  drop_sub(ps, s2);
  if (s1) drop_sub(ps, s1);
  return r;
}

/* cg_expr.c - C for expressions: operators, conversions, comparisons,
 * functions, IN sets, and the aggregates' emitters (agg_defs in kinds.c). */
#include "codegen_int.h"

/* ---- expressions --------------------------------------------------------- */

/* A column reference of FROM item f, column c, as C. */
void colref(char *buf, size_t n, const Ctx *cx, int f, int c) {
  if (cx->implicit_ts[f] >= 0 && c == cx->implicit_ts[f])
    snprintf(buf, n, "%s", cx->ts_ref[f]);
  else
    switch (cx->home[f]) {
    case HOME_NONE: snprintf(buf, n, "0"); break;
    case HOME_SOURCE: snprintf(buf, n, "s.c%d", c); break;
    case HOME_DERIVED: snprintf(buf, n, "r->o%d", c); break;
    case HOME_EDGE: snprintf(buf, n, "r->f%dc%d", f, c); break;
    case HOME_TABLE:
      if (cx->sel && cx->sel->left_join) /* no match: the table's columns are NULL */
        snprintf(buf, n, "(t ? t->c%d : %s)", c, null_value(cx->sel->from[1].rel->cols[c].type));
      else
        snprintf(buf, n, "t->c%d", c);
      break;
    case HOME_JOIN_LEFT:
    case HOME_JOIN_RIGHT: {
      const char *row = f ? "rr" : "l";
      if (join_padded(cx->sel, f)) /* an outer join's padded row: its side is NULL */
        snprintf(buf, n, "(%s ? %s->f%dc%d : %s)", row, row, f, c, null_value(cx->sel->from[f].rel->cols[c].type));
      else
        snprintf(buf, n, "%s->f%dc%d", row, f, c);
      break;
    }
    }
}

void emit_expr(FILE *out, const Expr *e, const Ctx *cx);

/* ---- NULL (docs/design.md "NULL") -------------------------------------------
 * A nullable value holds its type's sentinel (air_query.h AIR_NULL_*). An
 * operator or function that is NULL when an operand is ("strict") is
 * written as (operands' NULL tests ? NULL : the operation), the tests
 * reaching down through strict operands to the leaves (columns, keys,
 * aggregates, and the expressions that make NULLs of their own), so that
 * a + b + c tests a, b and c once. Inside such an operation its strict
 * operands are known not to be NULL (g_null_checked) and test nothing. */
static bool g_null_checked;

const char *null_value(Type t) {
  switch (t.kind) {
  case TY_VARCHAR: return "AIR_NULL_STR";
  case TY_DOUBLE: return "air_null_f64()";
  case TY_BOOL: return "AIR_NULL_BOOL";
  case TY_INT: return "AIR_NULL_I32";
  default: return "AIR_NULL_I64";
  }
}

const char *null_test(Type t) {
  switch (t.kind) {
  case TY_VARCHAR: return "q_isnull_str";
  case TY_DOUBLE: return "q_isnull_f64";
  case TY_BOOL: return "q_isnull_bool";
  case TY_INT: return "q_isnull_i32";
  default: return "q_isnull_i64";
  }
}

static bool int_div(const Expr *e) {
  return e->kind == EX_BINARY && (e->op == OP_DIV || e->op == OP_MOD) && e->type.kind != TY_DOUBLE;
}

/* NULL operand, NULL result; its emitter may take its operands as values. */
static bool strict_node(const Expr *e) {
  switch (e->kind) {
  case EX_UNARY: return true;
  case EX_BINARY: return e->op != OP_AND && e->op != OP_OR && !int_div(e);
  case EX_IN:
  case EX_BETWEEN:
    for (const Expr *a = e->kind == EX_IN ? e->args : e->rhs; a; a = e->kind == EX_IN ? a->next : a == e->rhs ? e->third : NULL)
      if (a->type.nullable) return false;
    return true;
  case EX_CAST: return !(e->lhs->type.kind == TY_VARCHAR && e->cast_to.kind != TY_VARCHAR);
  case EX_CALL: return e->agg == AGG_NONE && e->func != FN_NONE && !func_defs[e->func].nulls;
  default: return false;
  }
}

/* ... and may be NULL with no operand NULL (its NULL test reads its value). */
static bool own_null(const Expr *e) {
  return e->kind == EX_CALL && e->func != FN_NONE && func_defs[e->func].own_null && e->type.kind != TY_DOUBLE;
}

static void null_child(void *ctx, Expr *c);

typedef struct NullCond {
  FILE *out;
  const Ctx *cx;
  bool any;
} NullCond;

/* A C condition: e is NULL. */
void emit_null_cond(FILE *out, const Expr *e, const Ctx *cx) {
  if (!e->type.nullable) {
    fputs("0", out);
    return;
  }
  bool key = cx->post && e->key_idx >= 0 && e->key_idx < cx->sel->nkeys && !(e->kind == EX_CALL && e->agg != AGG_NONE);
  if (!key && strict_node(e) && !own_null(e)) {
    NullCond nc = {out, cx, false};
    fputc('(', out);
    expr_each_child(e, null_child, &nc);
    fputs(nc.any ? ")" : "0)", out);
    return;
  }
  fprintf(out, "%s(", null_test(e->type));
  bool saved = g_null_checked;
  g_null_checked = false;
  emit_expr(out, e, cx);
  g_null_checked = saved;
  fputc(')', out);
}

static void null_child(void *ctx, Expr *c) {
  NullCond *nc = ctx;
  if (!c->type.nullable) return;
  if (nc->any) fputs(" || ", nc->out);
  nc->any = true;
  emit_null_cond(nc->out, c, nc->cx);
}

/* A condition (WHERE, HAVING, WHEN, FILTER, ON): true, not NULL or false. */
void emit_cond(FILE *out, const Expr *e, const Ctx *cx) {
  if (!e->type.nullable) {
    emit_expr(out, e, cx);
    return;
  }
  fputc('(', out);
  emit_expr(out, e, cx);
  fputs(" == 1)", out);
}

/* The value of e converted to type t (numeric promotion for operators). */
void emit_as(FILE *out, const Expr *e, Type t, const Ctx *cx) {
  if (e->type.kind == t.kind || t.kind == TY_VARCHAR || t.kind == TY_BOOL) {
    emit_expr(out, e, cx);
    return;
  }
  if (e->type.nullable && !g_null_checked && (e->type.kind == TY_INT || t.kind == TY_DOUBLE)) {
    /* a NULL stays NULL in the wider type */
    fputs(e->type.kind == TY_INT ? (t.kind == TY_DOUBLE ? "q_n_i32_f64(" : "q_n_i32_i64(") : "q_n_i64_f64(", out);
    emit_expr(out, e, cx);
    fputc(')', out);
    return;
  }
  fprintf(out, "((%s)", ctype(t));
  emit_expr(out, e, cx);
  fputc(')', out);
}

static Type common_numeric(Type a, Type b) {
  if (a.kind == TY_DOUBLE || b.kind == TY_DOUBLE) return (Type){.kind = TY_DOUBLE, .len = 0};
  if (a.kind == TY_INT && b.kind == TY_INT) return (Type){.kind = TY_INT, .len = 0};
  return (Type){.kind = TY_BIGINT, .len = 0};
}

static const char *cmp_op(OpKind op) {
  switch (op) {
  case OP_EQ: return "==";
  case OP_NE: return "!=";
  case OP_LT: return "<";
  case OP_LE: return "<=";
  case OP_GT: return ">";
  case OP_GE: return ">=";
  default: return "==";
  }
}

/* Is e a NUL-padded char array of len + 1 bytes in this context (a column,
 * or a group key after aggregation)? */
bool is_padded_array(const Expr *e, const Ctx *cx) {
  if (e->type.kind != TY_VARCHAR) return false;
  if (e->kind == EX_COLUMN && cx->sel && join_padded(cx->sel, e->from_idx) &&
      (cx->home[e->from_idx] == HOME_TABLE || cx->home[e->from_idx] == HOME_JOIN_LEFT ||
       cx->home[e->from_idx] == HOME_JOIN_RIGHT))
    return false; /* the joined row's, or a NULL literal */
  if (cx->post) return e->key_idx >= 0 && !(e->kind == EX_CALL && e->agg != AGG_NONE) && e->kind != EX_STRING;
  return e->kind == EX_COLUMN;
}

/* fn(l, r) with both operands converted to t. */
static void emit_call2(FILE *out, const char *fn, const Expr *l, const Expr *r, Type t, const Ctx *cx) {
  fprintf(out, "%s(", fn);
  emit_as(out, l, t, cx);
  fprintf(out, ", ");
  emit_as(out, r, t, cx);
  fputc(')', out);
}

static void emit_compare(FILE *out, const Expr *l, OpKind op, const Expr *r, const Ctx *cx) {
  if (l->type.kind == TY_VARCHAR && (op == OP_EQ || op == OP_NE)) {
    /* column = 'literal': one fixed-size memcmp, NUL included, since the
     * column is NUL-padded */
    const Expr *col = l, *lit = r;
    if (col->kind == EX_STRING) col = r, lit = l;
    if (lit->kind == EX_STRING && is_padded_array(col, cx) && lit->slen <= (size_t)col->type.len &&
        !memchr(lit->sval, 0, lit->slen)) {
      fprintf(out, "(memcmp(");
      emit_expr(out, col, cx);
      fprintf(out, ", \"");
      c_escape_str(out, lit->sval, lit->slen);
      fprintf(out, "\", %zu) %s 0)", lit->slen + 1, op == OP_EQ ? "==" : "!=");
      return;
    }
  }
  if (l->type.kind == TY_VARCHAR) {
    fprintf(out, "(strcmp(");
    emit_expr(out, l, cx);
    fprintf(out, ", ");
    emit_expr(out, r, cx);
    fprintf(out, ") %s 0)", cmp_op(op));
    return;
  }
  Type t = l->type.kind == TY_BOOL ? l->type : common_numeric(l->type, r->type);
  if (t.kind == TY_DOUBLE) {
    /* NaN = NaN, NaN above every number, -0 = 0 (program.c.tpl) */
    fputc('(', out);
    emit_call2(out, "q_cmp_f64", l, r, t, cx);
    fprintf(out, " %s 0)", cmp_op(op));
    return;
  }
  fputc('(', out);
  emit_as(out, l, t, cx);
  fprintf(out, " %s ", cmp_op(op));
  emit_as(out, r, t, cx);
  fputc(')', out);
}

/* ---- IN lists of many constants ------------------------------------------
 * x IN (c1, ..., cn) with IN_SET_MIN or more constant values becomes a
 * binary search in a sorted static array, written once per IN expression
 * to the program's file-scope declarations (g_in_decls, set by
 * codegen_emit; the same expression may be emitted by several stages). */
enum { IN_SET_MIN = 16 };
typedef struct InSet {
  TypeKind kind; /* TY_BIGINT, TY_DOUBLE or TY_VARCHAR: how values compare */
  int n;         /* constants in the set */
} InSet;
FILE *g_in_decls;
const Expr **g_in_exprs;
int g_in_n, g_in_cap;

/* A literal, possibly negated: its value as a double or int64. */
static bool num_const(const Expr *a, bool *dbl, int64_t *i, double *d) {
  bool neg = false;
  if (a->kind == EX_UNARY && a->op == OP_NEG) {
    neg = true;
    a = a->lhs;
  }
  if (a->kind == EX_INT) {
    if (neg && a->ival == INT64_MIN) return false;
    *dbl = false;
    *i = neg ? -a->ival : a->ival;
    *d = (double)*i;
    return true;
  }
  if (a->kind == EX_DOUBLE) {
    *dbl = true;
    *d = neg ? -a->dval : a->dval;
    return true;
  }
  return false;
}

/* Is list entry a a constant the set of kind k holds? */
static bool in_const(const Expr *a, TypeKind k) {
  bool dbl;
  int64_t i;
  double d;
  if (k == TY_VARCHAR) return a->kind == EX_STRING && !memchr(a->sval, 0, a->slen);
  return num_const(a, &dbl, &i, &d) && (k == TY_DOUBLE || !dbl);
}

static bool in_set(const Expr *e, InSet *set) {
  TypeKind subj = e->lhs->type.kind;
  if (subj == TY_VARCHAR) {
    set->kind = TY_VARCHAR;
  } else if (subj == TY_INT || subj == TY_BIGINT || subj == TY_TIMESTAMP || subj == TY_DOUBLE) {
    /* compared as emit_compare compares each pair: a DOUBLE subject with
     * every number as DOUBLE; an integer one with the integer constants
     * (DOUBLE constants stay in the chain, compared as DOUBLE) */
    set->kind = subj == TY_DOUBLE ? TY_DOUBLE : TY_BIGINT;
  } else {
    return false;
  }
  set->n = 0;
  for (const Expr *a = e->args; a; a = a->next)
    if (in_const(a, set->kind)) set->n++;
  return set->n >= IN_SET_MIN && g_in_decls;
}

static int cmp_i64(const void *x, const void *y) {
  int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
  return (a > b) - (a < b);
}
static int cmp_f64(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b); /* literals: no NaN; -0 and 0 are equal, as in q_cmp_f64 */
}
static int cmp_cstr(const void *x, const void *y) {
  return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static void emit_literal_double(FILE *out, double d);

/* e's id among the expressions with file-scope declarations (IN sets,
 * compiled patterns); *fresh when e is new, and its declaration is then
 * the caller's to write (once, however many stages emit e). */
static int decl_id(const Expr *e, bool *fresh) {
  *fresh = false;
  for (int i = 0; i < g_in_n; i++)
    if (g_in_exprs[i] == e) return i;
  if (g_in_n == g_in_cap) {
    g_in_cap = g_in_cap ? 2 * g_in_cap : 8;
    g_in_exprs = realloc(g_in_exprs, sizeof *g_in_exprs * (size_t)g_in_cap);
    if (!g_in_exprs) abort();
  }
  *fresh = true;
  g_in_exprs[g_in_n] = e;
  return g_in_n++;
}

/* Writes the sorted array of e's constants once; its id. */
static int in_set_emit(const Expr *e, const InSet *set) {
  bool fresh;
  int id = decl_id(e, &fresh);
  if (!fresh) return id;
  FILE *o = g_in_decls;
  size_t w = set->kind == TY_VARCHAR ? sizeof(char *) : 8;
  void *v = malloc(w * (size_t)set->n);
  if (!v) abort();
  int n = 0;
  for (const Expr *a = e->args; a; a = a->next) {
    if (!in_const(a, set->kind)) continue;
    bool dbl;
    int64_t i = 0;
    double d;
    if (set->kind == TY_VARCHAR)
      ((const char **)v)[n++] = a->sval;
    else if (num_const(a, &dbl, &i, &d) && set->kind == TY_DOUBLE)
      ((double *)v)[n++] = d;
    else
      ((int64_t *)v)[n++] = i;
  }
  qsort(v, (size_t)n, w, set->kind == TY_VARCHAR ? cmp_cstr : set->kind == TY_DOUBLE ? cmp_f64 : cmp_i64);
  fprintf(o, "static const %s q_inset%d[%d] = { /* an IN list, sorted */\n",
          set->kind == TY_VARCHAR ? "char *const" : set->kind == TY_DOUBLE ? "double" : "int64_t", id, n);
  for (int k = 0; k < n; k++) {
    fputs(k % 8 ? " " : "  ", o);
    if (set->kind == TY_VARCHAR) {
      const char *sv = ((const char **)v)[k];
      fputc('"', o);
      c_escape_str(o, sv, strlen(sv));
      fputc('"', o);
    } else if (set->kind == TY_DOUBLE) {
      emit_literal_double(o, ((double *)v)[k]);
    } else {
      int64_t x = ((int64_t *)v)[k];
      if (x == INT64_MIN) fputs("INT64_MIN", o);
      else fprintf(o, "INT64_C(%" PRId64 ")", x);
    }
    fputs(k + 1 < n ? (k % 8 == 7 ? ",\n" : ",") : "\n", o);
  }
  fputs("};\n", o);
  free(v);
  return id;
}

static void emit_literal_double(FILE *out, double d) {
  if (isinf(d)) {
    fprintf(out, d > 0 ? "((double)INFINITY)" : "(-(double)INFINITY)");
    return;
  }
  char buf[64];
  snprintf(buf, sizeof buf, "%.17g", d);
  fputs(buf, out);
  if (!strpbrk(buf, ".eEn")) fputs(".0", out);
}

static void emit_int_literal(FILE *out, int64_t v, Type t) {
  if (v == INT64_MIN)
    fprintf(out, "INT64_MIN");
  else if (t.kind == TY_INT)
    fprintf(out, "((int32_t)%" PRId64 ")", v);
  else
    fprintf(out, "INT64_C(%" PRId64 ")", v);
}

static void emit_arith(FILE *out, const Expr *e, const Ctx *cx) {
  Type t = e->type;
  if (t.kind == TY_DOUBLE) {
    const char *o = e->op == OP_ADD ? "+" : e->op == OP_SUB ? "-" : e->op == OP_MUL ? "*" : "/";
    if (e->op == OP_MOD || e->op == OP_DIV) {
      emit_call2(out, e->op == OP_MOD ? "fmod" : "q_div_f64", e->lhs, e->rhs, t, cx);
      return;
    }
    fputc('(', out);
    emit_as(out, e->lhs, t, cx);
    fprintf(out, " %s ", o);
    emit_as(out, e->rhs, t, cx);
    fputc(')', out);
    return;
  }
  bool narrow = is_int32(t);
  const char *st = narrow ? "int32_t" : "int64_t";
  const char *ut = narrow ? "uint32_t" : "uint64_t";
  Type opt = narrow ? (Type){.kind = TY_INT, .len = 0} : (Type){.kind = TY_BIGINT, .len = 0};
  if (e->op == OP_DIV || e->op == OP_MOD) { /* by zero: NULL when it may be NULL, else 0 (counted) */
    char fn[16];
    snprintf(fn, sizeof fn, "q_%s_%s%s", e->op == OP_DIV ? "div" : "mod", narrow ? "i32" : "i64",
             e->type.nullable ? "n" : "");
    emit_call2(out, fn, e->lhs, e->rhs, opt, cx);
    return;
  }
  const char *o = e->op == OP_ADD ? "+" : e->op == OP_SUB ? "-" : "*";
  /* two's complement wrap-around: unsigned arithmetic, then back */
  fprintf(out, "((%s)((%s)", st, ut);
  emit_as(out, e->lhs, opt, cx);
  fprintf(out, " %s (%s)", o, ut);
  emit_as(out, e->rhs, opt, cx);
  fprintf(out, "))");
}

static void emit_cast(FILE *out, const Expr *e, const Ctx *cx) {
  Type from = e->lhs->type, to = e->cast_to;
  if (to.kind == TY_VARCHAR) {
    /* a compound literal buffer lives until the end of the enclosing block */
    int cap = to.len + 1 > 32 ? to.len + 1 : 32;
    switch (from.kind) {
    case TY_VARCHAR: fprintf(out, "q_str_cut((char[%d]){0}, %d, ", cap, to.len); break;
    case TY_DOUBLE: fprintf(out, "q_f64_str((char[%d]){0}, %d, ", cap, to.len); break;
    case TY_DATE: fprintf(out, "q_date_str((char[%d]){0}, %d, ", cap, to.len); break;
    case TY_TIMESTAMP: fprintf(out, "q_ts_str((char[%d]){0}, %d, ", cap, to.len); break;
    case TY_BOOL: fprintf(out, "q_str_cut((char[%d]){0}, %d, (", cap, to.len); break;
    default: fprintf(out, "q_i64_str((char[%d]){0}, %d, (int64_t)", cap, to.len); break;
    }
    emit_expr(out, e->lhs, cx);
    fputs(from.kind == TY_BOOL ? ") ? \"true\" : \"false\")" : ")", out);
    return;
  }
  if (from.kind == TY_VARCHAR) { /* text that is no value: NULL, counted */
    switch (to.kind) {
    case TY_DOUBLE: fputs("q_str_f64n(", out); break;
    case TY_BOOL: fputs("q_str_booln(", out); break;
    case TY_INT: fputs("q_str_i32n(", out); break;
    case TY_TIMESTAMP: fputs("q_str_tsn(", out); break;
    case TY_DATE: fputs("q_str_daten(", out); break;
    default: fputs("q_str_i64n(", out); break;
    }
    emit_expr(out, e->lhs, cx);
    fputc(')', out);
    return;
  }
  if (to.kind == TY_DATE && from.kind == TY_TIMESTAMP) { /* its day's midnight; a DATE is a TIMESTAMP as is */
    fputs("q_ts_date(", out);
    emit_expr(out, e->lhs, cx);
    fputc(')', out);
    return;
  }
  if (to.kind == TY_BOOL) {
    fputc('(', out);
    emit_expr(out, e->lhs, cx);
    fprintf(out, " != 0)");
    return;
  }
  if (from.kind == TY_DOUBLE && (to.kind == TY_INT || is_i64(to))) {
    fprintf(out, "%s(", to.kind == TY_INT ? "q_f64_to_i32" : "q_f64_to_i64");
    emit_expr(out, e->lhs, cx);
    fputc(')', out);
    return;
  }
  fprintf(out, "((%s)", ctype(to));
  emit_expr(out, e->lhs, cx);
  fputc(')', out);
}

/* SUM or AVG over DOUBLE values keeps an exact sum (AirXsum). */
bool exact_sum(const Expr *a) { return a->args->type.kind == TY_DOUBLE; }

/* ---- aggregates: the emitters agg_defs (kinds.c) names ----------------- */

/* An aggregate that may be NULL (its argument may be, or FILTER may pass
 * no row) counts the values it took in a<j>n, 0 being NULL: accumulators
 * start zeroed, so a fresh one is NULL, and partials merge by adding. */
static void null_if_none(FILE *out, const Expr *a, int j, const Ctx *cx) {
  if (a->type.nullable) fprintf(out, "(%s->a%dn == 0 ? %s : ", cx->acc, j, null_value(a->type));
}

void cg_plain_value(FILE *out, const Expr *a, int j, const Ctx *cx) {
  null_if_none(out, a, j, cx);
  fprintf(out, "%s->a%d%s", cx->acc, j, a->type.nullable ? ")" : "");
}

void cg_sum_value(FILE *out, const Expr *a, int j, const Ctx *cx) {
  null_if_none(out, a, j, cx);
  if (exact_sum(a))
    fprintf(out, "air_xsum_value(&%s->a%d)", cx->acc, j);
  else
    fprintf(out, "%s->a%d", cx->acc, j);
  if (a->type.nullable) fputc(')', out);
}

void cg_avg_value(FILE *out, const Expr *a, int j, const Ctx *cx) {
  null_if_none(out, a, j, cx);
  if (exact_sum(a))
    fprintf(out, "(air_xsum_value(&%s->a%ds) / (double)%s->a%dn)", cx->acc, j, cx->acc, j);
  else
    fprintf(out, "((double)%s->a%ds / (double)%s->a%dn)", cx->acc, j, cx->acc, j);
  if (a->type.nullable) fputc(')', out);
}

/* `{ T v = <x>;`: a block holding an aggregate's argument as v */
static void value_decl(FILE *o, const Expr *x, const Ctx *cx, const char *ind) {
  if (x->type.kind == TY_VARCHAR)
    fprintf(o, "%s{\n%s  const char *v = ", ind, ind);
  else
    fprintf(o, "%s{\n%s  %s v = ", ind, ind, ctype(x->type));
  emit_expr(o, x, cx);
  fputs(";\n", o);
}

/* `{ T v = <argument>; if (v is not NULL) {` around an update whose
 * argument may be NULL (the update then reads v); closed by arg_end. */
static bool arg_begin(FILE *o, const Expr *a, const Ctx *cx, const char *ind) {
  const Expr *x = a->args;
  if (!x->type.nullable) return false;
  value_decl(o, x, cx, ind);
  fprintf(o, "%s  if (!%s(v)) {\n", ind, null_test(x->type));
  return true;
}
/* ... or `{ T v = <argument>; {` when it cannot be NULL; closed by arg_end(true) */
static void arg_open(FILE *o, const Expr *a, const Ctx *cx, const char *ind) {
  if (arg_begin(o, a, cx, ind)) return;
  value_decl(o, a->args, cx, ind);
  fprintf(o, "%s  {\n", ind);
}
static void arg_end(FILE *o, bool open, const char *ind) {
  if (open) fprintf(o, "%s  }\n%s}\n", ind, ind);
}

/* The condition under which value `v` replaces MIN or MAX accumulator j:
 * DOUBLEs in the total order of q_order_f64 (NaN above every number, -0
 * below +0), so that the result does not depend on the order of the rows. */
static void min_max_cond(char *buf, size_t n, const Expr *a, const char *v, int j) {
  bool dbl = a->args->type.kind == TY_DOUBLE;
  const char *op = a->agg == AGG_MIN || a->agg == AGG_FIRST_VALUE ? "<" : ">";
  if (dbl)
    snprintf(buf, n, "q_order_f64(%s, acc->a%d) %s 0", v, j, op);
  else if (a->args->type.kind == TY_VARCHAR) /* by bytes, as comparisons order strings */
    snprintf(buf, n, "strcmp(%s, acc->a%d) %s 0", v, j, op);
  else
    snprintf(buf, n, "%s %s acc->a%d", v, op, j);
}

/* The accumulator members of aggregate j: "  TYPE a<j>;", its text as a comment. */
static void acc_member(FILE *o, const char *ctyp, int j, const char *suffix, const char *what, const Expr *a) {
  fprintf(o, "  %s a%d%s; /* %s", ctyp, j, suffix, what);
  c_comment(o, a->text);
  fprintf(o, " */\n");
}

void cg_count_field(FILE *o, const Expr *a, int j) { acc_member(o, "int64_t", j, "", "", a); }

void cg_sum_field(FILE *o, const Expr *a, int j) {
  acc_member(o, exact_sum(a) ? "AirXsum" : "int64_t", j, "", "", a);
  if (a->type.nullable) acc_member(o, "int64_t", j, "n", "values in ", a);
}

void cg_avg_field(FILE *o, const Expr *a, int j) {
  acc_member(o, exact_sum(a) ? "AirXsum" : "int64_t", j, "s", "sum of ", a);
  acc_member(o, "int64_t", j, "n", "", a);
}

/* acc->a<j> = v: a VARCHAR's bytes into its inline array */
static void min_max_set(char *buf, size_t n, const Expr *a, const char *v, int j) {
  if (a->args->type.kind == TY_VARCHAR)
    snprintf(buf, n, "q_strcpy(acc->a%d, sizeof acc->a%d, %s)", j, j, v);
  else
    snprintf(buf, n, "acc->a%d = %s", j, v);
}

void cg_minmax_field(FILE *o, const Expr *a, int j) {
  if (a->args->type.kind == TY_VARCHAR) { /* the string inline: plain data, copied as bytes */
    char arr[32];
    snprintf(arr, sizeof arr, "[%d]", a->args->type.len + 1);
    acc_member(o, "char", j, arr, "", a);
  } else {
    acc_member(o, ctype(a->args->type), j, "", "", a);
  }
  if (a->type.nullable) acc_member(o, "int64_t", j, "n", "values in ", a);
}

void cg_count_update(FILE *o, const Expr *a, int j, const Ctx *cx, const char *ind) {
  if (a->agg == AGG_COUNT && a->args->type.nullable) { /* COUNT(x): the rows x is not NULL in */
    fprintf(o, "%sif (!", ind);
    emit_null_cond(o, a->args, cx);
    if (cx->weight) fprintf(o, ") acc->a%d += %s;\n", j, cx->weight);
    else fprintf(o, ") acc->a%d++;\n", j);
    return;
  }
  if (cx->weight) fprintf(o, "%sacc->a%d += %s;\n", ind, j, cx->weight);
  else fprintf(o, "%sacc->a%d++;\n", ind, j);
}

/* acc->a<j><suffix> += the argument (v when arg_begin took it): exactly for
 * DOUBLEs, wrapping for integers; a<j>n counts it when the sum may be NULL */
static void sum_update(FILE *o, const Expr *a, int j, const Ctx *cx, const char *ind, const char *suffix) {
  bool open = arg_begin(o, a, cx, ind);
  char in[160];
  snprintf(in, sizeof in, "%s%s", ind, open ? "    " : "");
  if (exact_sum(a))
    fprintf(o, "%sair_xsum_add(&acc->a%d%s, ", in, j, suffix);
  else
    fprintf(o, "%sacc->a%d%s = (int64_t)((uint64_t)acc->a%d%s + (uint64_t)(int64_t)", in, j, suffix, j, suffix);
  if (cx->weight) fputs("(", o); /* a row taken back: minus its value */
  if (open) fputs("v", o);
  else emit_expr(o, a->args, cx);
  if (cx->weight) fprintf(o, ") * %s", cx->weight);
  fprintf(o, ");\n");
  if ((a->type.nullable || *suffix) && cx->weight) fprintf(o, "%sacc->a%dn += %s;\n", in, j, cx->weight);
  else if (a->type.nullable || *suffix) fprintf(o, "%sacc->a%dn++;\n", in, j);
  arg_end(o, open, ind);
}

void cg_sum_update(FILE *o, const Expr *a, int j, const Ctx *cx, const char *ind) { sum_update(o, a, j, cx, ind, ""); }

void cg_avg_update(FILE *o, const Expr *a, int j, const Ctx *cx, const char *ind) { sum_update(o, a, j, cx, ind, "s"); }

void cg_minmax_update(FILE *o, const Expr *a, int j, const Ctx *cx, const char *ind) {
  char cond[96], set[96];
  min_max_cond(cond, sizeof cond, a, "v", j);
  min_max_set(set, sizeof set, a, "v", j);
  if (a->type.nullable) { /* the first value, or a smaller (larger) one */
    arg_open(o, a, cx, ind);
    fprintf(o, "%s    if (acc->a%dn++ == 0 || %s) %s;\n", ind, j, cond, set);
    arg_end(o, true, ind);
    return;
  }
  value_decl(o, a->args, cx, ind);
  fprintf(o, "%s  if (is_new || %s) %s;\n%s}\n", ind, cond, set, ind);
}

/* VAR_*, STDDEV_*: the exact sums of the values and of their squares and
 * the count (air_var_add); NULL below one value (the sample forms: two). */
void cg_var_field(FILE *o, const Expr *a, int j) {
  acc_member(o, "AirXsum", j, "s", "sum of ", a);
  acc_member(o, "AirXsum", j, "q", "sum of squares of ", a);
  acc_member(o, "int64_t", j, "n", "values in ", a);
}

void cg_var_update(FILE *o, const Expr *a, int j, const Ctx *cx, const char *ind) {
  bool open = arg_begin(o, a, cx, ind);
  char in[160];
  snprintf(in, sizeof in, "%s%s", ind, open ? "    " : "");
  fprintf(o, "%sair_var_add(&acc->a%ds, &acc->a%dq, (double)", in, j, j);
  if (open) fputs("v", o);
  else emit_expr(o, a->args, cx);
  fprintf(o, ");\n%sacc->a%dn++;\n", in, j);
  arg_end(o, open, ind);
}

void cg_var_merge(FILE *o, const Expr *a, int j, const char *ind) {
  (void)a;
  fprintf(o, "%sair_xsum_merge(&acc->a%ds, &p->a%ds);\n", ind, j, j);
  fprintf(o, "%sair_xsum_merge(&acc->a%dq, &p->a%dq);\n", ind, j, j);
  fprintf(o, "%sacc->a%dn += p->a%dn;\n", ind, j, j);
}

void cg_var_value(FILE *out, const Expr *a, int j, const Ctx *cx) {
  bool samp = a->agg == AGG_VAR_SAMP || a->agg == AGG_VARIANCE || a->agg == AGG_STDDEV_SAMP || a->agg == AGG_STDDEV;
  bool root = a->agg >= AGG_STDDEV_POP;
  fprintf(out, "(%s->a%dn < %d ? air_null_f64() : air_var_value(&%s->a%ds, &%s->a%dq, %s->a%dn, %s, %s))", cx->acc,
          j, samp ? 2 : 1, cx->acc, j, cx->acc, j, cx->acc, j, samp ? "true" : "false", root ? "true" : "false");
}

/* FIRST_VALUE, LAST_VALUE: the value of the row of the earliest (latest)
 * event time, a<j>t; rows of equal times ordered by value as MIN (MAX)
 * orders them, so the result does not depend on the order rows arrive in
 * (any number of ranks gives it). NULL values are skipped, as by MIN. */
void cg_firstlast_field(FILE *o, const Expr *a, int j) {
  cg_minmax_field(o, a, j);
  acc_member(o, "int64_t", j, "t", "event time of ", a);
}

/* the condition that value v of time t replaces acc's: earlier (later), or as early and smaller */
static void first_last_cond(char *buf, size_t n, const Expr *a, const char *v, const char *t, int j) {
  char vc[96];
  min_max_cond(vc, sizeof vc, a, v, j);
  snprintf(buf, n, "%s %s acc->a%dt || (%s == acc->a%dt && %s)", t, a->agg == AGG_FIRST_VALUE ? "<" : ">", j, t, j,
           vc);
}

void cg_firstlast_update(FILE *o, const Expr *a, int j, const Ctx *cx, const char *ind) {
  char cond[256], set[96];
  first_last_cond(cond, sizeof cond, a, "v", cx->row_ts, j);
  min_max_set(set, sizeof set, a, "v", j);
  arg_open(o, a, cx, ind);
  char first[48];
  snprintf(first, sizeof first, a->type.nullable ? "acc->a%dn++ == 0" : "is_new", j);
  fprintf(o, "%s    if (%s || %s) {\n", ind, first, cond);
  fprintf(o, "%s      %s;\n%s      acc->a%dt = %s;\n%s    }\n", ind, set, ind, j, cx->row_ts, ind);
  arg_end(o, true, ind);
}

void cg_firstlast_merge(FILE *o, const Expr *a, int j, const char *ind) {
  char val[32], t[32], cond[256], set[96];
  snprintf(val, sizeof val, "p->a%d", j);
  snprintf(t, sizeof t, "p->a%dt", j);
  first_last_cond(cond, sizeof cond, a, val, t, j);
  min_max_set(set, sizeof set, a, val, j);
  if (a->type.nullable) {
    fprintf(o, "%sif (p->a%dn && (acc->a%dn == 0 || %s)) {\n", ind, j, j, cond);
    fprintf(o, "%s  %s;\n%s  acc->a%dt = p->a%dt;\n%s}\n", ind, set, ind, j, j, ind);
    fprintf(o, "%sacc->a%dn += p->a%dn;\n", ind, j, j);
    return;
  }
  fprintf(o, "%sif (is_new || %s) {\n%s  %s;\n%s  acc->a%dt = p->a%dt;\n%s}\n", ind, cond, ind, set, ind, j, j,
          ind);
}

void cg_count_merge(FILE *o, const Expr *a, int j, const char *ind) {
  (void)a;
  fprintf(o, "%sacc->a%d += p->a%d;\n", ind, j, j);
}

static void sum_merge(FILE *o, const Expr *a, int j, const char *ind, const char *suffix) {
  if (exact_sum(a))
    fprintf(o, "%sair_xsum_merge(&acc->a%d%s, &p->a%d%s);\n", ind, j, suffix, j, suffix);
  else
    fprintf(o, "%sacc->a%d%s = (int64_t)((uint64_t)acc->a%d%s + (uint64_t)p->a%d%s);\n", ind, j, suffix, j,
            suffix, j, suffix);
}

void cg_sum_merge(FILE *o, const Expr *a, int j, const char *ind) {
  sum_merge(o, a, j, ind, "");
  if (a->type.nullable) fprintf(o, "%sacc->a%dn += p->a%dn;\n", ind, j, j);
}

void cg_avg_merge(FILE *o, const Expr *a, int j, const char *ind) {
  sum_merge(o, a, j, ind, "s");
  fprintf(o, "%sacc->a%dn += p->a%dn;\n", ind, j, j);
}

void cg_minmax_merge(FILE *o, const Expr *a, int j, const char *ind) {
  char val[32], cond[96], set[96];
  snprintf(val, sizeof val, "p->a%d", j);
  min_max_cond(cond, sizeof cond, a, val, j);
  min_max_set(set, sizeof set, a, val, j);
  if (a->type.nullable) {
    fprintf(o, "%sif (p->a%dn && (acc->a%dn == 0 || %s)) %s;\n", ind, j, j, cond, set);
    fprintf(o, "%sacc->a%dn += p->a%dn;\n", ind, j, j);
    return;
  }
  fprintf(o, "%sif (is_new || %s) %s;\n", ind, cond, set);
}

static void emit_agg_value(FILE *out, const Expr *e, const Ctx *cx) {
  agg_defs[e->agg].value(out, e, e->agg_idx, cx);
}

static void emit_plain(FILE *out, const Expr *e, const Ctx *cx);

void emit_expr(FILE *out, const Expr *e, const Ctx *cx) {
  /* after aggregation an expression that is a group key reads the key (an
   * aggregate call never is one; a scalar function's call may be) */
  if (cx->post && e->key_idx >= 0 && e->key_idx < cx->sel->nkeys && !(e->kind == EX_CALL && e->agg != AGG_NONE) &&
      e->kind != EX_INT && e->kind != EX_DOUBLE && e->kind != EX_STRING && e->kind != EX_BOOL && e->kind != EX_NULL) {
    fprintf(out, "%s->k%d", cx->key, e->key_idx);
    return;
  }
  bool checked = g_null_checked;
  if (e->kind == EX_UNARY && e->op == OP_NOT && e->type.nullable && e->lhs->kind == EX_IN_SELECT) {
    fputs("q_not3(", out); /* NOT IN (SELECT ...): one lookup, not one for the NULL test and one more */
    emit_expr(out, e->lhs, cx);
    fputc(')', out);
    return;
  }
  if (!e->type.nullable || !strict_node(e)) {
    g_null_checked = false;
    emit_plain(out, e, cx);
  } else if (checked) { /* an operation around it tested its operands */
    emit_plain(out, e, cx);
  } else {
    NullCond nc = {out, cx, false};
    fputs("((", out);
    expr_each_child(e, null_child, &nc);
    fprintf(out, "%s) ? %s : ", nc.any ? "" : "0", null_value(e->type));
    g_null_checked = true;
    emit_plain(out, e, cx);
    fputc(')', out);
  }
  g_null_checked = checked;
}

/* x IN (...) or x BETWEEN a AND b with NULLs among the values: the
 * comparisons, each three-valued, under OR (IN) or AND (BETWEEN). */
static void emit_membership3(FILE *out, const Expr *e, const Ctx *cx) {
  Expr cmp = {.kind = EX_BINARY, .type = {.kind = TY_BOOL, .nullable = true}, .lhs = e->lhs};
  const Expr *vals[2] = {e->rhs, e->third};
  const Expr *v = e->kind == EX_IN ? e->args : vals[0];
  int n = 0;
  while (v) {
    const Expr *next = e->kind == EX_IN ? v->next : v == vals[0] ? vals[1] : NULL;
    if (next) fputs(e->kind == EX_IN ? "q_or3(" : "q_and3(", out);
    cmp.op = e->kind == EX_IN ? OP_EQ : v == vals[0] ? OP_GE : OP_LE;
    cmp.rhs = (Expr *)v;
    emit_expr(out, &cmp, cx);
    if (next) {
      fputs(", ", out);
      n++;
    }
    v = next;
  }
  for (; n > 0; n--) fputc(')', out);
}

/* ---- x IN (SELECT item FROM table [WHERE cond]) ----------------------------
 * A hash set of the item's values over the table's rows that cond holds
 * for (QSubSet, air_query.h), made once per expression by q_sub<id>_make,
 * which setup calls after the tables are loaded and before any row flows;
 * each row's test is one lookup. Keys compare as the IN list's values
 * would: as DOUBLE when either side is one, strings by their bytes, the
 * rest as BIGINT. */
FILE *g_in_setup;

static Type in_select_key(const Expr *e) {
  Type x = e->lhs->type, v = e->sub->items->expr->type;
  if (x.kind == TY_VARCHAR) return v;
  return (Type){.kind = x.kind == TY_DOUBLE || v.kind == TY_DOUBLE ? TY_DOUBLE : TY_BIGINT, .len = 0};
}

static const char *in_select_fn(Type k) {
  return k.kind == TY_VARCHAR ? "str" : k.kind == TY_DOUBLE ? "f64" : "i64";
}

/* value of e as a key of type k (its NULL tested already) */
static void emit_in_key(FILE *out, const Expr *e, Type k, const Ctx *cx) {
  bool saved = g_null_checked;
  g_null_checked = true;
  if (k.kind == TY_VARCHAR) emit_expr(out, e, cx);
  else emit_as(out, e, k, cx);
  g_null_checked = saved;
}

/* Writes e's set and its maker once; its id. */
static int in_select_emit(const Expr *e) {
  bool fresh;
  int id = decl_id(e, &fresh);
  if (!fresh) return id;
  const Select *sub = e->sub;
  const Relation *r = sub->from[0].rel;
  const Expr *item = sub->items->expr;
  Type k = in_select_key(e);
  Ctx cx = {.sel = sub, .home = {HOME_TABLE, HOME_NONE}, .implicit_ts = {-1, -1}};
  Buf b; /* the maker may write the sets its WHERE reads first */
  buf_open(&b);
  FILE *o = b.f;
  fprintf(o, "/* ");
  c_comment(o, e->text);
  fprintf(o, ": the set, made once */\nstatic QSubSet q_sub%d;\nstatic void q_sub%d_make(void) {\n", id, id);
  fprintf(o, "  q_subset_init(&q_sub%d, %d, air_hash_count(tab%d));\n", id, k.kind == TY_VARCHAR ? k.len + 1 : 8,
          r->index);
  fprintf(o, "  size_t pos = 0;\n  const void *key;\n  void *val;\n");
  fprintf(o, "  q_uncounted = air_rank(g_rt) != 0; /* every rank makes it: rank 0 counts */\n");
  fprintf(o, "  while (air_hash_next(tab%d, &pos, &key, &val)) {\n    const T%d *t = val;\n", r->index, r->index);
  if (sub->where) {
    fprintf(o, "    if (!");
    emit_cond(o, sub->where, &cx);
    fprintf(o, ") continue;\n");
  }
  if (item->type.nullable) {
    fprintf(o, "    if (");
    emit_null_cond(o, item, &cx);
    fprintf(o, ") {\n      q_sub%d.nulls = true;\n      continue;\n    }\n", id);
  }
  fprintf(o, "    q_subset_add_%s(&q_sub%d, ", in_select_fn(k), id);
  emit_in_key(o, item, k, &cx);
  fprintf(o, ");\n  }\n  q_uncounted = false;\n}\n\n");
  char *text = buf_take(&b);
  fputs(text, g_in_decls);
  free(text);
  fprintf(g_in_setup, "  q_sub%d_make();\n", id);
  return id;
}

static void emit_in_select(FILE *out, const Expr *e, const Ctx *cx) {
  int id = in_select_emit(e);
  Type k = in_select_key(e);
  if (!e->type.nullable) {
    fprintf(out, "q_subset_has_%s(&q_sub%d, ", in_select_fn(k), id);
    emit_in_key(out, e->lhs, k, cx);
    fputc(')', out);
    return;
  }
  fprintf(out, "q_subset3(&q_sub%d, ", id);
  emit_null_cond(out, e->lhs, cx);
  fprintf(out, " ? AIR_NULL_BOOL : q_subset_has_%s(&q_sub%d, ", in_select_fn(k), id);
  emit_in_key(out, e->lhs, k, cx);
  fputs("))", out);
}

static void emit_plain(FILE *out, const Expr *e, const Ctx *cx) {
  switch (e->kind) {
  case EX_NULL: fputs(null_value(e->type), out); return;
  case EX_ROW_NUMBER: fputs("INT64_C(0) /* numbered by the collector */", out); return;
  case EX_BRANCH: fputs("xi", out); return; /* the row's copy (Select.expand, emit_ops) */
  case EX_IS_NULL:
    fputs(e->ival ? "(!" : "(", out);
    emit_null_cond(out, e->lhs, cx);
    fputc(')', out);
    return;
  case EX_INT: emit_int_literal(out, e->ival, e->type); return;
  case EX_INTERVAL:
  case EX_DATE: emit_int_literal(out, e->ival, (Type){.kind = TY_BIGINT, .len = 0}); return;
  case EX_DOUBLE: emit_literal_double(out, e->dval); return;
  case EX_BOOL: fputs(e->ival ? "true" : "false", out); return;
  case EX_STRING:
    fputc('"', out);
    c_escape_str(out, e->sval, e->slen);
    fputc('"', out);
    return;
  case EX_COLUMN:
    if (cx->post) {
      fputs("0 /* column outside GROUP BY */", out);
      return;
    }
    {
      char buf[96];
      colref(buf, sizeof buf, cx, e->from_idx, e->col_idx);
      fputs(buf, out);
    }
    return;
  case EX_WINDOW_START: fputs(cx->post ? "wstart" : cx->wstart ? cx->wstart : "0", out); return;
  case EX_WINDOW_END: fputs(cx->post ? "wend" : cx->wend ? cx->wend : "0", out); return;
  case EX_UNARY:
    if (e->op == OP_NOT) {
      fputs("(int8_t)(!", out);
      emit_expr(out, e->lhs, cx);
      fputc(')', out);
    } else if (e->type.kind == TY_DOUBLE) {
      fputs("(-", out);
      emit_expr(out, e->lhs, cx);
      fputc(')', out);
    } else {
      bool narrow = is_int32(e->type);
      fprintf(out, "((%s)(0 - (%s)", narrow ? "int32_t" : "int64_t", narrow ? "uint32_t" : "uint64_t");
      emit_expr(out, e->lhs, cx);
      fputs("))", out);
    }
    return;
  case EX_BINARY:
    switch (e->op) {
    case OP_AND:
    case OP_OR:
      if (e->type.nullable) {
        fputs(e->op == OP_AND ? "q_and3(" : "q_or3(", out);
        emit_expr(out, e->lhs, cx);
        fputs(", ", out);
        emit_expr(out, e->rhs, cx);
        fputc(')', out);
        return;
      }
      fputc('(', out);
      emit_expr(out, e->lhs, cx);
      fputs(e->op == OP_AND ? " && " : " || ", out);
      emit_expr(out, e->rhs, cx);
      fputc(')', out);
      return;
    case OP_EQ: case OP_NE: case OP_LT: case OP_LE: case OP_GT: case OP_GE:
      emit_compare(out, e->lhs, e->op, e->rhs, cx);
      return;
    default: emit_arith(out, e, cx); return;
    }
  case EX_IN: {
    if (!strict_node(e)) {
      emit_membership3(out, e, cx);
      return;
    }
    /* many constants: one binary search in a sorted file-scope array (a
     * chain of 500k comparisons took gcc down); the rest compared in turn */
    InSet set;
    bool use_set = in_set(e, &set);
    fputc('(', out);
    bool first = true;
    if (use_set) {
      int id = in_set_emit(e, &set);
      fprintf(out, "%s(", set.kind == TY_DOUBLE ? "q_in_f64" : set.kind == TY_VARCHAR ? "q_in_str" : "q_in_i64");
      if (set.kind == TY_VARCHAR)
        emit_expr(out, e->lhs, cx);
      else
        emit_as(out, e->lhs, (Type){.kind = set.kind, .len = 0}, cx);
      fprintf(out, ", q_inset%d, %d)", id, set.n);
      first = false;
    }
    for (const Expr *a = e->args; a; a = a->next) {
      if (use_set && in_const(a, set.kind)) continue;
      if (!first) fputs(" || ", out);
      first = false;
      emit_compare(out, e->lhs, OP_EQ, a, cx);
    }
    if (first) fputs("false", out);
    fputc(')', out);
    return;
  }
  case EX_IN_SELECT: emit_in_select(out, e, cx); return;
  case EX_BETWEEN:
    if (!strict_node(e)) {
      emit_membership3(out, e, cx);
      return;
    }
    fputc('(', out);
    emit_compare(out, e->lhs, OP_GE, e->rhs, cx);
    fputs(" && ", out);
    emit_compare(out, e->lhs, OP_LE, e->third, cx);
    fputc(')', out);
    return;
  case EX_CASE:
    fputc('(', out);
    for (const Expr *w = e->args; w; w = w->next) {
      emit_cond(out, w->lhs, cx);
      fputs(" ? ", out);
      emit_as(out, w->rhs, e->type, cx);
      fputs(" : ", out);
    }
    if (e->else_)
      emit_as(out, e->else_, e->type, cx);
    else
      fputs(null_value(e->type), out);
    fputc(')', out);
    return;
  case EX_CAST: emit_cast(out, e, cx); return;
  case EX_CALL:
    if (e->agg != AGG_NONE) {
      emit_agg_value(out, e, cx);
      return;
    }
    if (e->func != FN_NONE) {
      func_defs[e->func].emit(out, e, cx);
      return;
    }
    fputs("0", out);
    return;
  case EX_STAR:
  case EX_WHEN: fputs("0", out); return;
  }
}

/* dst = value of e (of type t): strings are copied NUL-padded. */
void emit_assign(FILE *out, const char *indent, const char *dst, const Expr *e, Type t,
                        const Ctx *cx) {
  if (t.kind == TY_VARCHAR && e->type.kind == TY_VARCHAR && e->type.len == t.len && is_padded_array(e, cx)) {
    /* same-size NUL-padded arrays: a fixed-size copy */
    fprintf(out, "%smemcpy(%s, ", indent, dst);
    emit_expr(out, e, cx);
    fprintf(out, ", sizeof %s);\n", dst);
  } else if (t.kind == TY_VARCHAR) {
    fprintf(out, "%sq_strcpy(%s, sizeof %s, ", indent, dst, dst);
    emit_expr(out, e, cx);
    fprintf(out, ");\n");
  } else {
    fprintf(out, "%s%s = ", indent, dst);
    emit_as(out, e, t, cx);
    fprintf(out, ";\n");
  }
}

/* ---- scalar functions (kinds.c's func_defs) -------------------------------- */

static const Expr *arg_at(const Expr *e, int i) {
  const Expr *a = e->args;
  while (a && i-- > 0) a = a->next;
  return a;
}

void cg_fn_length(FILE *out, const Expr *e, const Ctx *cx) {
  fputs("((int32_t)strlen(", out);
  emit_expr(out, e->args, cx);
  fputs("))", out);
}

void cg_fn_abs(FILE *out, const Expr *e, const Ctx *cx) {
  if (e->type.kind == TY_DOUBLE) fputs("fabs(", out);
  else fputs(is_int32(e->type) ? "q_abs_i32(" : "q_abs_i64(", out);
  emit_expr(out, e->args, cx);
  fputc(')', out);
}

/* a chain of two-argument helpers: DOUBLE, VARCHAR (a pointer to the least
 * or greatest argument, copied by whoever stores it), and the integer
 * types, BOOLEAN and TIMESTAMP as BIGINT */
void cg_fn_minmax(FILE *out, const Expr *e, const Ctx *cx) {
  bool dbl = e->type.kind == TY_DOUBLE, str = e->type.kind == TY_VARCHAR;
  bool least = e->func == FN_LEAST;
  const char *fn = dbl ? (least ? "q_min_f64" : "q_max_f64")
                 : str ? (least ? "q_min_str" : "q_max_str")
                       : (least ? "q_min_i64" : "q_max_i64");
  Type t = dbl ? (Type){.kind = TY_DOUBLE, .len = 0} : (Type){.kind = TY_BIGINT, .len = 0};
  bool cast = !dbl && !str;
  int n = 0;
  for (const Expr *a = e->args; a; a = a->next) n++;
  if (cast) fprintf(out, "((%s)", ctype(e->type));
  for (int i = 0; i < n - 1; i++) fprintf(out, "%s(", fn);
  int i = 0;
  for (const Expr *a = e->args; a; a = a->next, i++) {
    if (str)
      emit_expr(out, a, cx);
    else
      emit_as(out, a, t, cx);
    if (i > 0) fputc(')', out);
    if (a->next) fputs(", ", out);
  }
  if (cast) fputc(')', out);
}

/* MOD, ROUND, FLOOR, CEIL, POWER, SQRT, LN, EXP (air_query.h's q_* and libm) */
void cg_fn_math(FILE *out, const Expr *e, const Ctx *cx) {
  const Expr *a = e->args, *b = a->next;
  const Type dbl = {.kind = TY_DOUBLE}, i64 = {.kind = TY_BIGINT};
  bool is_dbl = e->type.kind == TY_DOUBLE;
  switch (e->func) {
  case FN_MOD:
    fputs(is_dbl ? "q_mod_f64(" : is_int32(e->type) ? "q_mod_i32n(" : "q_mod_i64n(", out);
    emit_as(out, a, e->type, cx);
    fputs(", ", out);
    emit_as(out, b, e->type, cx);
    fputc(')', out);
    return;
  case FN_ROUND:
    fprintf(out, "((%s)%s(", ctype(e->type), is_dbl ? "q_round_f64" : "q_round_i64");
    emit_as(out, a, is_dbl ? dbl : i64, cx);
    fputs(", ", out);
    if (b) emit_as(out, b, i64, cx);
    else fputs("0", out);
    fputs("))", out);
    return;
  case FN_FLOOR:
  case FN_CEIL:
    if (!is_dbl) { /* an integer is its own floor and ceiling */
      fputc('(', out);
      emit_expr(out, a, cx);
      fputc(')', out);
      return;
    }
    fputs(e->func == FN_FLOOR ? "floor(" : "ceil(", out);
    emit_expr(out, a, cx);
    fputc(')', out);
    return;
  default: {
    const char *fn = e->func == FN_POWER ? "pow(" : e->func == FN_SQRT ? "sqrt(" : e->func == FN_LN ? "log(" : "exp(";
    fputs(fn, out);
    for (const Expr *x = a; x; x = x->next) {
      emit_as(out, x, dbl, cx);
      if (x->next) fputs(", ", out);
    }
    fputc(')', out);
    return;
  }
  }
}

/* String functions write into a buffer of the result's VARCHAR(n) + 1 bytes,
 * a compound literal that lives as long as the block around the expression
 * (as CAST's): the result type bounds every result, so nothing is allocated. */
void cg_fn_string(FILE *out, const Expr *e, const Ctx *cx) {
  const Expr *a = e->args;
  const Type i64 = {.kind = TY_BIGINT};
  int cap = e->type.len + 1;
  switch (e->func) {
  case FN_UPPER:
  case FN_LOWER:
  case FN_TRIM:
    fprintf(out, "%s((char[%d]){0}, ", e->func == FN_UPPER ? "q_upper" : e->func == FN_LOWER ? "q_lower" : "q_trim",
            cap);
    emit_expr(out, a, cx);
    fputc(')', out);
    return;
  case FN_SUBSTRING:
    fprintf(out, "q_substr((char[%d]){0}, ", cap);
    emit_expr(out, a, cx);
    fputs(", ", out);
    emit_as(out, arg_at(e, 1), i64, cx);
    if (arg_at(e, 2)) {
      fputs(", ", out);
      emit_as(out, arg_at(e, 2), i64, cx);
      fputs(", true)", out);
    } else {
      fputs(", 0, false)", out);
    }
    return;
  case FN_REPLACE:
    fprintf(out, "q_replace((char[%d]){0}, %d, ", cap, cap);
    for (const Expr *x = a; x; x = x->next) {
      emit_expr(out, x, cx);
      fputs(x->next ? ", " : ")", out);
    }
    return;
  case FN_CONCAT: {
    /* pairwise, each step into a buffer as long as its prefix */
    int n = 0, len = 0;
    for (const Expr *x = a; x; x = x->next) n++;
    if (n == 1) {
      emit_expr(out, a, cx);
      return;
    }
    int lens[n];
    int i = 0;
    for (const Expr *x = a; x; x = x->next) lens[i++] = x->type.len;
    len = lens[0];
    for (i = 1; i < n; i++) {
      len += lens[i];
      lens[i] = len;
    }
    for (i = n - 1; i >= 1; i--) fprintf(out, "q_concat((char[%d]){0}, ", lens[i] + 1);
    i = 0;
    for (const Expr *x = a; x; x = x->next, i++) {
      emit_expr(out, x, cx);
      if (i > 0) fputc(')', out);
      if (x->next) fputs(", ", out);
    }
    return;
  }
  case FN_SPLIT_INDEX:
    fprintf(out, "q_split_index((char[%d]){0}, ", cap);
    emit_expr(out, a, cx);
    fputs(", ", out);
    emit_expr(out, arg_at(e, 1), cx);
    fputs(", ", out);
    emit_as(out, arg_at(e, 2), i64, cx);
    fputc(')', out);
    return;
  case FN_LOCATE:
  case FN_LIKE: /* fn(a, b) and LOCATE's start */
    fputs(e->func == FN_LIKE ? "q_like(" : "q_locate(", out);
    emit_expr(out, a, cx);
    fputs(", ", out);
    emit_expr(out, a->next, cx);
    if (e->func == FN_LOCATE) {
      fputs(", ", out);
      if (arg_at(e, 2)) emit_as(out, arg_at(e, 2), i64, cx);
      else fputs("1", out);
    }
    fputc(')', out);
    return;
  default: fputs("\"\"", out); return;
  }
}

/* YEAR ... SECOND, DATE_FORMAT, TO_TIMESTAMP (UTC; air_query.h) */
void cg_fn_time(FILE *out, const Expr *e, const Ctx *cx) {
  static const char *const field[] = {[FN_YEAR] = "0", [FN_MONTH] = "1", [FN_DAY] = "2",
                                      [FN_HOUR] = "3", [FN_MINUTE] = "4", [FN_SECOND] = "5"};
  switch (e->func) {
  case FN_DATE_FORMAT:
    fprintf(out, "q_date_format((char[%d]){0}, ", e->type.len + 1);
    emit_expr(out, e->args, cx);
    fputs(", ", out);
    emit_expr(out, e->args->next, cx);
    fputc(')', out);
    return;
  case FN_NOW: fputs("air_now_ms()", out); return;
  case FN_TO_TIMESTAMP:
    fputs("q_to_timestamp(", out);
    emit_expr(out, e->args, cx);
    fputc(')', out);
    return;
  default:
    fprintf(out, "q_time_field(");
    emit_expr(out, e->args, cx);
    fprintf(out, ", %s)", field[e->func]);
    return;
  }
}

/* REGEXP_LIKE, REGEXP_EXTRACT: the pattern, a literal (sema checked it
 * with regcomp), is compiled once at the program's start into a
 * file-scope regex_t (a constructor written beside the IN sets, once per
 * expression however many stages emit it); regexec may share it between
 * threads. */
void cg_fn_regexp(FILE *out, const Expr *e, const Ctx *cx) {
  const Expr *pat = e->args->next;
  bool fresh;
  int id = decl_id(e, &fresh);
  if (fresh) {
    fprintf(g_in_decls, "static regex_t q_re%d;\n__attribute__((constructor)) static void q_re%d_init(void) {\n"
                        "  q_regcomp(&q_re%d, \"", id, id, id);
    c_escape_str(g_in_decls, pat->sval, pat->slen);
    fprintf(g_in_decls, "\");\n}\n");
  }
  if (e->func == FN_REGEXP_LIKE) {
    fprintf(out, "q_regexp_like(&q_re%d, ", id);
    emit_expr(out, e->args, cx);
    fputc(')', out);
    return;
  }
  fprintf(out, "q_regexp_extract((char[%d]){0}, &q_re%d, ", e->type.len + 1, id);
  emit_expr(out, e->args, cx);
  fputs(", ", out);
  if (pat->next) emit_as(out, pat->next, (Type){.kind = TY_BIGINT, .len = 0}, cx);
  else fputs("0", out);
  fputc(')', out);
}

/* COALESCE: the first argument that is not NULL; NULLIF(a, b): NULL when
 * a = b, else a. Each argument is read for its test and again for its
 * value (an argument is NULL, or counts an error, the same both times). */
void cg_fn_null(FILE *out, const Expr *e, const Ctx *cx) {
  const Expr *a = e->args;
  if (e->func == FN_NULLIF) {
    fputs("((!", out);
    emit_null_cond(out, a, cx);
    fputs(" && !", out);
    emit_null_cond(out, a->next, cx);
    fputs(" && ", out);
    emit_compare(out, a, OP_EQ, a->next, cx);
    fprintf(out, ") ? %s : ", null_value(e->type));
    emit_as(out, a, e->type, cx);
    fputc(')', out);
    return;
  }
  fputc('(', out);
  for (; a->next; a = a->next) {
    fputs("!", out);
    emit_null_cond(out, a, cx);
    fputs(" ? ", out);
    emit_as(out, a, e->type, cx);
    fputs(" : ", out);
  }
  emit_as(out, a, e->type, cx);
  fputc(')', out);
}

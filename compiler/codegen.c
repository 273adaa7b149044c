/* codegen.c - C from the physical plan.
 *
 * The program is program.c.tpl with its holes filled: typed row structs that
 * hold only the columns the queries read, one loop per source in which every
 * fused pipeline reading that source runs row by row, and one function pair
 * (batch, watermark) per pipeline that runs on its own vertex.
 *
 * Names in the generated C are made from indices (S0, c3, K1, ...), never
 * from the query's identifiers, and every string from the query goes through
 * c_escape_str, so no query text can become C code.
 */
#include "airc.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- small output buffers ------------------------------------------------ */

typedef struct Buf {
  char *p;  /* text (malloc'd by open_memstream) */
  size_t n; /* length */
  FILE *f;  /* write end */
} Buf;

static void buf_open(Buf *b) {
  b->p = NULL;
  b->n = 0;
  b->f = open_memstream(&b->p, &b->n);
  if (!b->f) {
    perror("airc: open_memstream");
    exit(1);
  }
}

/* Close and return the text; the caller frees it. */
static char *buf_take(Buf *b) {
  fclose(b->f);
  b->f = NULL;
  return b->p;
}

/* ---- escaping ------------------------------------------------------------ */

void c_escape_str(FILE *out, const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    /* Only letters, digits and a few harmless characters pass as they are;
     * everything else (quotes, backslash, '?' of trigraphs, '%', '*', '/',
     * control and non-ASCII bytes) becomes a three-digit octal escape. */
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
        c == ' ' || c == '_' || c == '-' || c == '.' || c == ',' || c == ':' || c == ';' ||
        c == '(' || c == ')' || c == '=' || c == '<' || c == '>' || c == '+' || c == '!' ||
        c == '[' || c == ']' || c == '@' || c == '#' || c == '&' || c == '|' || c == '~' ||
        c == '^' || c == '{' || c == '}' || c == '$')
      fputc(c, out);
    else
      fprintf(out, "\\%03o", c);
  }
}

static void c_str(FILE *out, const char *s) {
  fputc('"', out);
  c_escape_str(out, s, strlen(s));
  fputc('"', out);
}

/* Text from the query inside a C comment, as written (COUNT(*) stays
 * COUNT(*)): only what could end or nest the comment is broken, "* /" and
 * "/ *", and control and non-ASCII bytes become '_'. A text ending in '/',
 * '*', '\\' or '?' gets a space, so the caller's " * /" cannot pair with it
 * (nor a trigraph ??/ splice a line). */
static void c_comment(FILE *out, const char *s) {
  int prev = ' ';
  for (; s && *s; s++) {
    int c = (unsigned char)*s;
    if (c < 0x20 || c >= 0x7f) c = '_';
    if ((prev == '/' && c == '*') || (prev == '*' && c == '/')) fputc(' ', out);
    fputc(c, out);
    prev = c;
  }
  if (prev == '/' || prev == '*' || prev == '\\' || prev == '?') fputc(' ', out);
}

/* airc -g: #line directives map the C of each Filter, output, key,
 * aggregate and csv field to its line in the query, so gdb, addr2line and
 * the C compiler's messages point there. */
static const CodegenOptions *g_opt; /* this run's options (never NULL while emitting) */
#define C_LINE_MARK "#line @C@" /* a line codegen_emit numbers: back to the C file */

/* The lines that follow are the query's line `line`. */
static void src_line(FILE *o, int line) {
  if (!g_opt->debug || line <= 0) return;
  fprintf(o, "#line %d \"", line);
  c_escape_str(o, g_opt->query_path, strlen(g_opt->query_path));
  fprintf(o, "\"\n");
}

/* The lines that follow are the C file's own again. */
static void c_line(FILE *o) {
  if (g_opt->debug) fprintf(o, "%s\n", C_LINE_MARK);
}

/* The query text an expression comes from, as a comment line. */
static void text_comment(FILE *o, const char *ind, const char *what, const Expr *e) {
  fprintf(o, "%s/* %s", ind, what);
  c_comment(o, e->text);
  fprintf(o, " */\n");
}

/* ---- types --------------------------------------------------------------- */

static const char *ctype(Type t) {
  switch (t.kind) {
  case TY_BOOL: return "bool";
  case TY_INT: return "int32_t";
  case TY_DOUBLE: return "double";
  case TY_VARCHAR: return "char";
  default: return "int64_t";
  }
}

/* A struct field declaration "T name;" or "char name[n + 1];". */
static void field_decl(FILE *out, Type t, const char *name, const char *comment) {
  if (t.kind == TY_VARCHAR)
    fprintf(out, "  char %s[%d]; /* ", name, t.len + 1);
  else
    fprintf(out, "  %s %s; /* ", ctype(t), name);
  c_comment(out, comment);
  fprintf(out, " */\n");
}

/* dst = ind followed by two more spaces (indentation one level deeper). */
static void indent_more(char *dst, size_t n, const char *ind) {
  size_t l = strlen(ind);
  if (l + 3 > n) l = n - 3;
  memmove(dst, ind, l);
  memcpy(dst + l, "  ", 3);
}

static bool is_int32(Type t) { return t.kind == TY_INT; }
static bool is_i64(Type t) {
  return t.kind == TY_BIGINT || t.kind == TY_TIMESTAMP || t.kind == TY_INTERVAL;
}

/* ---- expressions --------------------------------------------------------- */

/* Where an expression's inputs live. */
/* Where the columns of a FROM item live in the code being written. */
typedef enum {
  HOME_NONE,       /* not here: a reference reads as 0 */
  HOME_SOURCE,     /* the source loop's row: s.c<i> */
  HOME_DERIVED,    /* a derived stream's result row: r->o<i> */
  HOME_EDGE,       /* a row between pipelines: r->f<f>c<i> */
  HOME_TABLE,      /* the row a StaticJoin found: t->c<i> */
  HOME_JOIN_LEFT,  /* a join's left row: l->f0c<i> */
  HOME_JOIN_RIGHT, /* a join's right row: rr->f1c<i> */
} ColHome;

struct Ctx {
  const Select *sel;
  bool post;                /* after aggregation: keys, aggregates, window bounds */
  ColHome home[2];          /* where each FROM item's columns are */
  int implicit_ts[2];       /* a derived stream's implicit ts column index, or -1 */
  const char *ts_ref[2];    /* ... and where it lives */
  const char *key;          /* post: the key struct pointer */
  const char *acc;          /* post: the accumulator pointer */
  const char *wstart, *wend; /* window bounds in scope (NULL: none) */
};

/* A column reference of FROM item f, column c, as C. */
static void colref(char *buf, size_t n, const Ctx *cx, int f, int c) {
  if (cx->implicit_ts[f] >= 0 && c == cx->implicit_ts[f])
    snprintf(buf, n, "%s", cx->ts_ref[f]);
  else
    switch (cx->home[f]) {
    case HOME_NONE: snprintf(buf, n, "0"); break;
    case HOME_SOURCE: snprintf(buf, n, "s.c%d", c); break;
    case HOME_DERIVED: snprintf(buf, n, "r->o%d", c); break;
    case HOME_EDGE: snprintf(buf, n, "r->f%dc%d", f, c); break;
    case HOME_TABLE: snprintf(buf, n, "t->c%d", c); break;
    case HOME_JOIN_LEFT: snprintf(buf, n, "l->f0c%d", c); break;
    case HOME_JOIN_RIGHT: snprintf(buf, n, "rr->f1c%d", c); break;
    }
}

static void emit_expr(FILE *out, const Expr *e, const Ctx *cx);

/* The value of e converted to type t (numeric promotion for operators). */
static void emit_as(FILE *out, const Expr *e, Type t, const Ctx *cx) {
  if (e->type.kind == t.kind || t.kind == TY_VARCHAR || t.kind == TY_BOOL) {
    emit_expr(out, e, cx);
    return;
  }
  fprintf(out, "((%s)", ctype(t));
  emit_expr(out, e, cx);
  fputc(')', out);
}

static Type common_numeric(Type a, Type b) {
  if (a.kind == TY_DOUBLE || b.kind == TY_DOUBLE) return (Type){TY_DOUBLE, 0};
  if (a.kind == TY_INT && b.kind == TY_INT) return (Type){TY_INT, 0};
  return (Type){TY_BIGINT, 0};
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
static bool is_padded_array(const Expr *e, const Ctx *cx) {
  if (e->type.kind != TY_VARCHAR) return false;
  if (cx->post) return e->key_idx >= 0 && e->kind != EX_CALL && e->kind != EX_STRING;
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
static FILE *g_in_decls;
static const Expr **g_in_exprs; /* the IN expressions written so far, by id */
static int g_in_n, g_in_cap;

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

/* Writes the sorted array of e's constants once; its id. */
static int in_set_emit(const Expr *e, const InSet *set) {
  for (int i = 0; i < g_in_n; i++)
    if (g_in_exprs[i] == e) return i;
  if (g_in_n == g_in_cap) {
    g_in_cap = g_in_cap ? 2 * g_in_cap : 8;
    g_in_exprs = realloc(g_in_exprs, sizeof *g_in_exprs * (size_t)g_in_cap);
    if (!g_in_exprs) abort();
  }
  int id = g_in_n;
  g_in_exprs[g_in_n++] = e;
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
  Type opt = narrow ? (Type){TY_INT, 0} : (Type){TY_BIGINT, 0};
  if (e->op == OP_DIV || e->op == OP_MOD) {
    char fn[16];
    snprintf(fn, sizeof fn, "q_%s_%s", e->op == OP_DIV ? "div" : "mod", narrow ? "i32" : "i64");
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
    case TY_BOOL: fprintf(out, "q_str_cut((char[%d]){0}, %d, (", cap, to.len); break;
    default: fprintf(out, "q_i64_str((char[%d]){0}, %d, (int64_t)", cap, to.len); break;
    }
    emit_expr(out, e->lhs, cx);
    fputs(from.kind == TY_BOOL ? ") ? \"true\" : \"false\")" : ")", out);
    return;
  }
  if (from.kind == TY_VARCHAR) {
    switch (to.kind) {
    case TY_DOUBLE: fputs("q_str_f64(", out); break;
    case TY_BOOL: fputs("q_str_bool(", out); break;
    case TY_INT: fputs("(int32_t)q_str_i64(", out); break;
    default: fputs("q_str_i64(", out); break;
    }
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

static void emit_default(FILE *out, Type t) {
  switch (t.kind) {
  case TY_VARCHAR: fputs("\"\"", out); break;
  case TY_BOOL: fputs("false", out); break;
  case TY_DOUBLE: fputs("0.0", out); break;
  default: fprintf(out, "((%s)0)", ctype(t)); break;
  }
}

/* SUM or AVG over DOUBLE values keeps an exact sum (AirXsum). */
static bool exact_sum(const Expr *a) { return a->args->type.kind == TY_DOUBLE; }

/* ---- aggregates: the emitters agg_defs (kinds.c) names ----------------- */

void cg_plain_value(FILE *out, const Expr *a, int j, const Ctx *cx) {
  (void)a;
  fprintf(out, "%s->a%d", cx->acc, j);
}

void cg_sum_value(FILE *out, const Expr *a, int j, const Ctx *cx) {
  if (exact_sum(a))
    fprintf(out, "air_xsum_value(&%s->a%d)", cx->acc, j);
  else
    fprintf(out, "%s->a%d", cx->acc, j);
}

void cg_avg_value(FILE *out, const Expr *a, int j, const Ctx *cx) {
  if (exact_sum(a))
    fprintf(out, "(air_xsum_value(&%s->a%ds) / (double)%s->a%dn)", cx->acc, j, cx->acc, j);
  else
    fprintf(out, "((double)%s->a%ds / (double)%s->a%dn)", cx->acc, j, cx->acc, j);
}

static void emit_agg_value(FILE *out, const Expr *e, const Ctx *cx) {
  agg_defs[e->agg].value(out, e, e->agg_idx, cx);
}

static void emit_expr(FILE *out, const Expr *e, const Ctx *cx) {
  if (cx->post && e->key_idx >= 0 && e->key_idx < cx->sel->nkeys && e->kind != EX_CALL &&
      e->kind != EX_INT && e->kind != EX_DOUBLE && e->kind != EX_STRING && e->kind != EX_BOOL) {
    fprintf(out, "%s->k%d", cx->key, e->key_idx);
    return;
  }
  switch (e->kind) {
  case EX_INT: emit_int_literal(out, e->ival, e->type); return;
  case EX_INTERVAL: emit_int_literal(out, e->ival, (Type){TY_BIGINT, 0}); return;
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
      fputs("(!", out);
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
        emit_as(out, e->lhs, (Type){set.kind, 0}, cx);
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
  case EX_BETWEEN:
    fputc('(', out);
    emit_compare(out, e->lhs, OP_GE, e->rhs, cx);
    fputs(" && ", out);
    emit_compare(out, e->lhs, OP_LE, e->third, cx);
    fputc(')', out);
    return;
  case EX_CASE:
    fputc('(', out);
    for (const Expr *w = e->args; w; w = w->next) {
      emit_expr(out, w->lhs, cx);
      fputs(" ? ", out);
      emit_as(out, w->rhs, e->type, cx);
      fputs(" : ", out);
    }
    if (e->else_)
      emit_as(out, e->else_, e->type, cx);
    else
      emit_default(out, e->type);
    fputc(')', out);
    return;
  case EX_CAST: emit_cast(out, e, cx); return;
  case EX_CALL:
    if (e->agg != AGG_NONE) {
      emit_agg_value(out, e, cx);
      return;
    }
    switch (e->func) {
    case FN_LENGTH:
      fputs("((int32_t)strlen(", out);
      emit_expr(out, e->args, cx);
      fputs("))", out);
      return;
    case FN_ABS:
      if (e->type.kind == TY_DOUBLE) fputs("fabs(", out);
      else fputs(is_int32(e->type) ? "q_abs_i32(" : "q_abs_i64(", out);
      emit_expr(out, e->args, cx);
      fputc(')', out);
      return;
    case FN_LEAST:
    case FN_GREATEST: {
      /* a chain of two-argument helpers: DOUBLE, VARCHAR (a pointer to the
       * least or greatest argument, copied by whoever stores it), and the
       * integer types, BOOLEAN and TIMESTAMP as BIGINT */
      bool dbl = e->type.kind == TY_DOUBLE, str = e->type.kind == TY_VARCHAR;
      bool least = e->func == FN_LEAST;
      const char *fn = dbl ? (least ? "q_min_f64" : "q_max_f64")
                     : str ? (least ? "q_min_str" : "q_max_str")
                           : (least ? "q_min_i64" : "q_max_i64");
      Type t = dbl ? (Type){TY_DOUBLE, 0} : (Type){TY_BIGINT, 0};
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
      return;
    }
    case FN_NONE: break;
    }
    fputs("0", out);
    return;
  case EX_STAR:
  case EX_WHEN: fputs("0", out); return;
  }
}

/* dst = value of e (of type t): strings are copied NUL-padded. */
static void emit_assign(FILE *out, const char *indent, const char *dst, const Expr *e, Type t,
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

/* ---- the generator state ------------------------------------------------- */

typedef struct Gen {
  const Physical *ph;
  const Plan *pl;
  Diag *d;
  Buf types;      /* struct definitions and tables */
  Buf funcs;      /* vertex functions */
  Buf setup;      /* main()'s body */
  bool ok;
} Gen;


static const Operator *stage_ops(const Stage *st) { return st->leg ? st->chain->ops1 : st->chain->ops; }
static const Operator *stage_op(const Stage *st, int i) { return &stage_ops(st)[i]; }
static bool is_sink_stage(const Stage *st) { return stage_op(st, st->first)->kind == OP_SINK; }
static bool is_join_stage(const Stage *st) {
  return st->leg == 0 && st->chain->join_at >= 0 && st->first == st->chain->join_at;
}
/* The relation a stage's Source reads (leg 0: from[0], leg 1: from[1]). */
static const Relation *leg_source(const Stage *st) { return st->leg ? st->chain->source1 : st->chain->source; }
static bool in_source_loop(const Stage *st) { return st->edge < 0; }
static const Chain *derived_chain(const Plan *pl, const Relation *r) {
  for (int c = 0; c < pl->nchains; c++)
    if (pl->chains[c].derived == r) return &pl->chains[c];
  return NULL;
}

/* The C row type on edge e. */
static void edge_row_type(const Physical *ph, int e, char *buf, size_t n) {
  const PEdge *ed = &ph->edges[e];
  const Stage *to = &ph->stages[ed->to];
  const Stage *from = &ph->stages[ed->from];
  switch (edge_payload(ph, ed)) {
  case PAY_PARTIALS: snprintf(buf, n, "P%d", to->chain->index); break;
  case PAY_RESULTS: snprintf(buf, n, "O%d", from->chain->index); break;
  case PAY_RIGHT_ROWS: snprintf(buf, n, "RB%d", to->chain->index); break;
  case PAY_ROWS: snprintf(buf, n, "R%d", to->chain->index); break;
  }
}

/* Columns available to a stage's rows: from item f at its input. */
static void stage_ctx(const Gen *g, const Stage *st, Ctx *cx, bool in_loop) {
  const Chain *ch = st->chain;
  memset(cx, 0, sizeof *cx);
  cx->sel = ch->sel;
  cx->implicit_ts[0] = cx->implicit_ts[1] = -1;
  int f = st->leg;
  const Relation *src = leg_source(st);
  if (st->first == 0) {
    /* the leg's first pipeline: source rows, or a derived stream's rows */
    if (in_loop) {
      cx->home[f] = HOME_SOURCE;
    } else {
      cx->home[f] = HOME_DERIVED;
      if (src->ncols == derived_chain(g->pl, src)->sel->nout + 1) {
        cx->implicit_ts[f] = src->ncols - 1;
        cx->ts_ref[f] = "r->ts";
      }
    }
    return;
  }
  /* rows between non-fused operators */
  cx->home[f] = HOME_EDGE;
  if (f == 0 && ch->sel->nfrom == 2) {
    int j = -1;
    for (int i = 0; i < ch->nops; i++)
      if (ch->ops[i].kind == OP_STATIC_JOIN || ch->ops[i].kind == OP_JOIN) j = i;
    if (j >= 0 && j < st->first) cx->home[1] = HOME_EDGE;
  }
  if (ch->join_at >= 0 && st->first > ch->join_at) {
    cx->wstart = "r->wstart";
    cx->wend = "r->wend";
  }
}

/* ---- per-chain structs --------------------------------------------------- */

static Type join_key_type(const Select *s) {
  Type l = s->join_lkey->type, r = s->join_rkey->type;
  if (l.kind == TY_VARCHAR) return (Type){TY_VARCHAR, l.len > r.len ? l.len : r.len};
  if (l.kind == TY_DOUBLE || r.kind == TY_DOUBLE) return (Type){TY_DOUBLE, 0};
  if (l.kind == TY_BOOL) return l;
  return (Type){TY_BIGINT, 0};
}

static void emit_r_struct(Gen *g, const Chain *ch, const char *name, int only_from) {
  FILE *o = g->types.f;
  const Select *s = ch->sel;
  fprintf(o, "typedef struct %s { /* a row between pipelines */\n", name);
  fprintf(o, "  int64_t ts; /* event time, ms */\n");
  fprintf(o, "  int64_t wstart, wend; /* the window of a joined row, ms */\n");
  fprintf(o, "  int64_t srcwm; /* its source's watermark when it was read: windows ending by then are closed to it */\n");
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

static void emit_chain_types(Gen *g, const Chain *ch) {
  FILE *o = g->types.f;
  const Select *s = ch->sel;
  int c = ch->index;
  fprintf(o, "/* query %d (line %d) */\n", c + 1, ch->stmt->loc.line);
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
    fprintf(o, "typedef struct A%d { /* accumulators */\n", c);
    fprintf(o, "  int64_t maxts; /* event time: the latest contributing row's */\n");
    for (int j = 0; j < s->naggs; j++) {
      agg_defs[s->aggs[j]->agg].field(o, s->aggs[j], j);
    }
    fprintf(o, "} A%d;\n", c);
    fprintf(o, "typedef struct P%d { /* a per-rank partial aggregate */\n", c);
    fprintf(o, "  int64_t wstart; /* window start, ms */\n  K%d key;\n  A%d acc;\n} P%d;\n", c, c, c);
  }
  if (ch->join_at >= 0 || ch->windowed) {
    /* one hash per key type: a single integer key is mixed, not hashed as bytes */
    Type k0 = ch->join_at >= 0 ? join_key_type(s) : s->nkeys == 1 ? s->keys[0]->type : (Type){TY_VARCHAR, 0};
    fprintf(o, "static inline uint64_t hash_K%d(const K%d *k) {\n", c, c);
    if (k0.kind == TY_INT || k0.kind == TY_BIGINT || k0.kind == TY_TIMESTAMP)
      fprintf(o, "  return air_hash_u64((uint64_t)k->k0);\n}\n");
    else
      fprintf(o, "  return air_hash_bytes(k, sizeof *k);\n}\n");
  }
  /* rows between pipelines */
  char nm[16];
  snprintf(nm, sizeof nm, "R%d", c);
  emit_r_struct(g, ch, nm, -1);
  if (ch->join_at >= 0) {
    snprintf(nm, sizeof nm, "RB%d", c);
    emit_r_struct(g, ch, nm, 1);
    fprintf(o, "typedef struct J%d { /* a join window's rows of one key */\n", c);
    fprintf(o, "  int64_t maxts; /* unused */\n  AirVec left; /* R%d rows */\n  AirVec right; /* RB%d rows */\n} J%d;\n",
            c, c, c);
  }
  /* the result row: to the collector, or to the readers of a derived stream */
  fprintf(o, "typedef struct O%d { /* a result row */\n", c);
  fprintf(o, "  int64_t wend; /* window end, ms */\n  int64_t ts; /* event time, ms */\n");
  fprintf(o, "  int64_t srcwm; /* for a derived stream's readers: windows ending by then are closed to it */\n");
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

  if (!ch->derived) {
    /* result order and format for the collector */
    fprintf(o, "static int cmp_O%d(const void *pa, const void *pb) {\n", c);
    fprintf(o, "  const O%d *a = pa, *b = pb;\n  int r;\n", c);
    fprintf(o, "  if ((r = q_cmp_i64(a->wend, b->wend)) != 0) return r;\n");
    for (int pass = 0; pass < 2; pass++) {
      int n = pass == 0 ? (ch->windowed && ch->join_at < 0 ? s->nkeys : 0) : s->nout;
      for (int i = 0; i < n; i++) {
        Type t = pass == 0 ? s->keys[i]->type : s->out[i].type;
        char f = pass == 0 ? 'k' : 'o';
        if (t.kind == TY_VARCHAR)
          fprintf(o, "  if ((r = strcmp(a->%c%d, b->%c%d)) != 0) return r;\n", f, i, f, i);
        else if (t.kind == TY_DOUBLE)
          fprintf(o, "  if ((r = q_order_f64(a->%c%d, b->%c%d)) != 0) return r;\n", f, i, f, i);
        else
          fprintf(o, "  if ((r = q_cmp_i64(a->%c%d, b->%c%d)) != 0) return r;\n", f, i, f, i);
      }
    }
    fprintf(o, "  return q_cmp_i64(a->ts, b->ts);\n}\n");
    fprintf(o, "static void fmt_O%d(FILE *f, const void *row) {\n  const O%d *r = row;\n", c, c);
    for (int i = 0; i < s->nout; i++) {
      if (i) fprintf(o, "  fputc(',', f);\n");
      switch (s->out[i].type.kind) {
      case TY_VARCHAR: fprintf(o, "  air_write_str(f, r->o%d);\n", i); break;
      case TY_DOUBLE: fprintf(o, "  air_write_double(f, r->o%d);\n", i); break;
      case TY_BOOL: fprintf(o, "  air_write_bool(f, r->o%d);\n", i); break;
      default: fprintf(o, "  air_write_i64(f, (int64_t)r->o%d);\n", i); break;
      }
    }
    fprintf(o, "  fputc('\\n', f);\n}\n");
  }
  fprintf(o, "\n");
}

/* The CSV header: column names, quoted where CSV needs it. */
static char *csv_header(const Select *s) {
  Buf b;
  buf_open(&b);
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

static bool source_col_used(const Plan *pl, const Relation *r, int col) {
  if (r->source->all_columns) return true; /* e.g. csv: every field is parsed and checked */
  for (int c = 0; c < pl->nchains; c++) {
    if (pl->chains[c].source == r && pl->chains[c].used[0][col]) return true;
    if (pl->chains[c].source1 == r && pl->chains[c].used[1][col]) return true;
  }
  return false;
}

static void emit_source_struct(Gen *g, const Relation *r) {
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

/* Parse every field of a csv record into `var` (a struct with c<i> fields);
 * a bad field skips the record with `skip`. A stream's event time comes
 * from the reader, which parsed it already for the watermark. */
static void emit_csv_parse(FILE *o, const Relation *r, const char *var, const char *indent,
                           const char *csv, const char *skip) {
  bool why = false;
  for (int i = 0; i < r->ncols; i++) why |= csv_parsers[r->cols[i].type.kind].why;
  if (why) fprintf(o, "%sAirParse pe;\n", indent);
  for (int i = 0; i < r->ncols; i++) {
    const Column *c = &r->cols[i];
    const char *fn = csv_parsers[c->type.kind].fn;
    char dst[64], len[24] = "";
    snprintf(dst, sizeof dst, "%s%s.c%d", c->type.kind == TY_VARCHAR ? "" : "&", var, i);
    if (c->type.kind == TY_VARCHAR) snprintf(len, sizeof len, ", %d", c->type.len);
    src_line(o, c->loc.line);
    if (r->kind == REL_SOURCE && i == r->time_col) {
      fprintf(o, "%sif ((pe = air_csv_time(%s, %s)) != AIR_PARSE_OK) {\n", indent, csv, dst);
      src_line(o, c->loc.line);
      fprintf(o, "%s  air_csv_bad_row(%s, line, pe == AIR_PARSE_RANGE ? ", indent, csv);
      emit_field_msg(o, c, csv_parsers[c->type.kind].range);
      fprintf(o, " : ");
      emit_field_msg(o, c, csv_parsers[c->type.kind].invalid);
    } else if (!csv_parsers[c->type.kind].why) {
      fprintf(o, "%sif (!%s(f[%d], %s%s)) {\n", indent, fn, i, dst, len);
      src_line(o, c->loc.line);
      fprintf(o, "%s  air_csv_bad_row(%s, line, ", indent, csv);
      emit_field_msg(o, c, csv_parsers[c->type.kind].invalid);
    } else {
      fprintf(o, "%sif ((pe = %s(f[%d], %s%s)) != AIR_PARSE_OK) {\n", indent, fn, i, dst, len);
      src_line(o, c->loc.line);
      fprintf(o, "%s  air_csv_bad_row(%s, line, pe == AIR_PARSE_RANGE ? ", indent, csv);
      emit_field_msg(o, c, csv_parsers[c->type.kind].range);
      fprintf(o, " : ");
      emit_field_msg(o, c, csv_parsers[c->type.kind].invalid);
    }
    fprintf(o, ");\n");
    c_line(o);
    fprintf(o, "%s  %s;\n%s}\n", indent, skip, indent);
  }
}

/* `lhs = air_csv_open(g_rt, &def)` with the declaration of a csv source or
 * table in a static AirCsvDef, in a block of its own at indent `ind`. */
static void emit_csv_open(FILE *o, const Relation *r, const char *lhs, const char *ind) {
  fprintf(o, "%s{\n%s  static const char *const cols[] = {", ind, ind);
  for (int i = 0; i < r->ncols; i++) {
    if (i) fprintf(o, ", ");
    c_str(o, r->cols[i].name);
  }
  fprintf(o, "};\n%s  static const AirCsvDef def = {\n%s      .path = ", ind, ind);
  c_str(o, r->path ? r->path : "");
  fprintf(o, ",\n%s      .name = ", ind);
  c_str(o, r->name);
  fprintf(o, ",\n%s      .table = %s,\n", ind, r->kind == REL_TABLE ? "true" : "false");
  fprintf(o, "%s      .header = %s,\n", ind,
          !r->header ? "AIR_CSV_NO_HEADER" : r->header_skip ? "AIR_CSV_HEADER_SKIP" : "AIR_CSV_HEADER");
  fprintf(o, "%s      .cols = cols,\n%s      .ncols = %d,\n", ind, ind, r->ncols);
  fprintf(o, "%s      .time_col = %d,\n%s      .wm_bound_ms = INT64_C(%" PRId64 "),\n", ind,
          r->kind == REL_SOURCE ? r->time_col : -1, ind, r->wm_bound_ms);
  fprintf(o, "%s      .rate = INT64_C(%" PRId64 "),\n", ind, r->rate);
  if (r->max_bad_rows >= 0)
    fprintf(o, "%s      .bad_limit = AIR_BAD_COUNT,\n%s      .bad_max = %" PRId64 ".0,\n", ind, ind,
            r->max_bad_rows);
  else if (r->max_bad_pct >= 0)
    fprintf(o, "%s      .bad_limit = AIR_BAD_PCT,\n%s      .bad_max = %.17g,\n", ind, ind,
            r->max_bad_pct);
  fprintf(o, "%s  };\n%s  %s = air_csv_open(g_rt, &def);\n%s}\n", ind, ind, lhs, ind);
}

static void emit_table(Gen *g, const Relation *r) {
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
  fprintf(f, "  if (!is_new) air_fatal(g_rt, \"table %%s: duplicate key at %%s:%%ld\", ");
  c_str(f, r->name);
  fprintf(f, ", where, line);\n  *slot = *row;\n}\n\n");
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
  emit_csv_open(f, r, "csv", "  ");
  fprintf(f, "  AirField f[%d];\n  long line = 0;\n  int nf;\n", r->ncols + 1);
  fprintf(f, "  while ((nf = air_csv_next(csv, f, %d, &line)) != AIR_CSV_END) {\n", r->ncols + 1);
  fprintf(f, "    if (nf != %d) {\n      air_csv_bad_row(csv, line, nf == AIR_CSV_BAD_QUOTING ? \"bad quoting\" : \"expected %d fields\");\n      continue;\n    }\n",
          r->ncols, r->ncols);
  fprintf(f, "    static T%d row; /* may be large: not on the main thread's stack */\n    memset(&row, 0, sizeof row);\n", r->index);
  emit_csv_parse(f, r, "row", "    ", "csv", "continue");
  fprintf(f, "    tab%d_insert(&row, air_csv_path(csv), line);\n  }\n  air_csv_close(csv);\n", r->index);
}

/* ---- pipelines ------------------------------------------------------------- */

/* What the row-by-row code of a pipeline needs to know. */
typedef struct SegEnv {
  const char *cnt;     /* counter prefix: "st." in sources, "" in stages */
  const char *wm;      /* the watermark a late row is behind */
  const char *outs;    /* printf format of the port of edge %d */
  const char *win;     /* the window or session state (aggregating pipelines) */
  const char *ts;      /* the row's event time */
  const char *late_fill; /* generators: columns made only for rows passing the first Filter */
  bool dense;          /* the window state is an AirDense (dense_key) */
  Ctx cx;              /* where columns live */
} SegEnv;

/* dst = key value e of type t: a DOUBLE key is normalized (q_f64_key). */
static void emit_key_assign(FILE *o, const char *ind, const char *dst, const Expr *e, Type t, const Ctx *cx) {
  if (t.kind != TY_DOUBLE) {
    emit_assign(o, ind, dst, e, t, cx);
    return;
  }
  fprintf(o, "%s%s = q_f64_key(", ind, dst);
  emit_as(o, e, t, cx);
  fprintf(o, ");\n");
}

static void emit_key_build(FILE *o, const Chain *ch, const Ctx *cx, const char *ind) {
  const Select *s = ch->sel;
  fprintf(o, "%sK%d key;\n%smemset(&key, 0, sizeof key);\n", ind, ch->index, ind);
  for (int i = 0; i < s->nkeys; i++) {
    char dst[32];
    snprintf(dst, sizeof dst, "key.k%d", i);
    text_comment(o, ind, "GROUP BY ", s->keys[i]);
    src_line(o, s->keys[i]->loc.line);
    emit_key_assign(o, ind, dst, s->keys[i], s->keys[i]->type, cx);
    c_line(o);
  }
}

/* The join key of input `side` into key.k0. */
static void emit_join_key(FILE *o, const Chain *ch, const Ctx *cx, int side, const char *ind) {
  const Select *s = ch->sel;
  fprintf(o, "%sK%d key;\n%smemset(&key, 0, sizeof key);\n", ind, ch->index, ind);
  emit_key_assign(o, ind, "key.k0", side ? s->join_rkey : s->join_lkey, join_key_type(s), cx);
}

/* The condition under which value `v` replaces MIN or MAX accumulator j:
 * DOUBLEs in the total order of q_order_f64 (NaN above every number, -0
 * below +0), so that the result does not depend on the order of the rows. */
static void min_max_cond(char *buf, size_t n, const Expr *a, const char *v, int j) {
  bool dbl = a->args->type.kind == TY_DOUBLE;
  const char *op = a->agg == AGG_MIN ? "<" : ">";
  if (dbl)
    snprintf(buf, n, "q_order_f64(%s, acc->a%d) %s 0", v, j, op);
  else
    snprintf(buf, n, "%s %s acc->a%d", v, op, j);
}

static void emit_acc_update(FILE *o, const Chain *ch, const Ctx *cx, const char *ind, const char *ts) {
  const Select *s = ch->sel;
  fprintf(o, "%sif (is_new || %s > acc->maxts) acc->maxts = %s;\n", ind, ts, ts);
  for (int j = 0; j < s->naggs; j++) {
    text_comment(o, ind, "", s->aggs[j]);
    src_line(o, s->aggs[j]->loc.line);
    agg_defs[s->aggs[j]->agg].update(o, s->aggs[j], j, cx, ind);
    c_line(o);
  }
}

/* Merge partial accumulator `p` into `acc` (is_new: acc is fresh). */
static void emit_acc_merge(FILE *o, const Chain *ch, const char *ind) {
  const Select *s = ch->sel;
  fprintf(o, "%sif (is_new || p->maxts > acc->maxts) acc->maxts = p->maxts;\n", ind);
  for (int j = 0; j < s->naggs; j++)
    agg_defs[s->aggs[j]->agg].merge(o, s->aggs[j], j, ind);
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
}

void cg_avg_field(FILE *o, const Expr *a, int j) {
  acc_member(o, exact_sum(a) ? "AirXsum" : "int64_t", j, "s", "sum of ", a);
  acc_member(o, "int64_t", j, "n", "", a);
}

void cg_minmax_field(FILE *o, const Expr *a, int j) { acc_member(o, ctype(a->args->type), j, "", "", a); }

void cg_count_update(FILE *o, const Expr *a, int j, const Ctx *cx, const char *ind) {
  (void)a, (void)cx;
  fprintf(o, "%sacc->a%d++;\n", ind, j);
}

/* acc->a<j><suffix> += the argument: exactly for DOUBLEs, wrapping for integers */
static void sum_update(FILE *o, const Expr *a, int j, const Ctx *cx, const char *ind, const char *suffix) {
  if (exact_sum(a)) {
    fprintf(o, "%sair_xsum_add(&acc->a%d%s, ", ind, j, suffix);
    emit_expr(o, a->args, cx);
    fprintf(o, ");\n");
  } else {
    fprintf(o, "%sacc->a%d%s = (int64_t)((uint64_t)acc->a%d%s + (uint64_t)(int64_t)", ind, j, suffix, j, suffix);
    emit_expr(o, a->args, cx);
    fprintf(o, ");\n");
  }
}

void cg_sum_update(FILE *o, const Expr *a, int j, const Ctx *cx, const char *ind) { sum_update(o, a, j, cx, ind, ""); }

void cg_avg_update(FILE *o, const Expr *a, int j, const Ctx *cx, const char *ind) {
  sum_update(o, a, j, cx, ind, "s");
  fprintf(o, "%sacc->a%dn++;\n", ind, j);
}

void cg_minmax_update(FILE *o, const Expr *a, int j, const Ctx *cx, const char *ind) {
  fprintf(o, "%s{\n%s  %s v = ", ind, ind, ctype(a->args->type));
  emit_expr(o, a->args, cx);
  char cond[96];
  min_max_cond(cond, sizeof cond, a, "v", j);
  fprintf(o, ";\n%s  if (is_new || %s) acc->a%d = v;\n%s}\n", ind, cond, j, ind);
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

void cg_sum_merge(FILE *o, const Expr *a, int j, const char *ind) { sum_merge(o, a, j, ind, ""); }

void cg_avg_merge(FILE *o, const Expr *a, int j, const char *ind) {
  sum_merge(o, a, j, ind, "s");
  fprintf(o, "%sacc->a%dn += p->a%dn;\n", ind, j, j);
}

void cg_minmax_merge(FILE *o, const Expr *a, int j, const char *ind) {
  char val[32], cond[96];
  snprintf(val, sizeof val, "p->a%d", j);
  min_max_cond(cond, sizeof cond, a, val, j);
  fprintf(o, "%sif (is_new || %s) acc->a%d = p->a%d;\n", ind, cond, j, j);
}


/* The loop over the open windows a row at time ts belongs to (tumbling:
 * advance == size), skipping those already closed; `acc` is the C that
 * yields the row's state in window ws. The caller writes the body and
 * closes the loop with emit_window_loop_end. */
static void emit_window_loop(FILE *o, const WindowSpec *w, const char *ts, const char *wm, const char *acc,
                             const char *ind) {
  fprintf(o, "%sbool in_window = false;\n", ind);
  fprintf(o, "%sstatic _Thread_local QWinCache wc = {INT64_MIN, 0};\n", ind);
  fprintf(o, "%sfor (int64_t ws = q_hop_first(&wc, %s, INT64_C(%" PRId64 "), INT64_C(%" PRId64 ")); ws <= %s; ws += INT64_C(%" PRId64 ")) {\n",
          ind, ts, w->size_ms, w->advance_ms, ts, w->advance_ms);
  fprintf(o, "%s  if (ws + INT64_C(%" PRId64 ") <= %s) continue; /* window already closed */\n", ind, w->size_ms, wm);
  fprintf(o, "%s  in_window = true;\n%s  bool is_new;\n", ind, ind);
  fprintf(o, "%s  %s;\n", ind, acc);
}

/* A row none of whose windows was open is late. */
static void emit_window_loop_end(FILE *o, const char *cnt, const char *ind) {
  fprintf(o, "%s}\n%sif (!in_window) %slate++;\n", ind, ind, cnt);
}

/* Put the row into every open window it belongs to, or into its session;
 * a row whose windows all closed is late. */
static void emit_window_update(FILE *o, const Chain *ch, const SegEnv *env, const char *ind) {
  const WindowSpec *w = ch->sel->window;
  const char *ts = env->ts;
  const Select *s = ch->sel;
  const Expr *k0 = s->nkeys == 1 ? s->keys[0] : NULL;
  char ind2[160], acc[160];
  indent_more(ind2, sizeof ind2, ind);
  if (env->dense) {
    text_comment(o, ind, "GROUP BY ", k0);
    src_line(o, k0->loc.line);
    fprintf(o, "%sconst int64_t kv = (int64_t)", ind);
    emit_expr(o, k0, &env->cx);
    fprintf(o, ";\n");
    c_line(o);
    snprintf(acc, sizeof acc, "A%d *acc = air_dense_acc(%s, ws, kv, &is_new)", ch->index, env->win);
    emit_window_loop(o, w, ts, env->wm, acc, ind);
    emit_acc_update(o, ch, &env->cx, ind2, ts);
    emit_window_loop_end(o, env->cnt, ind);
    return;
  }
  if (k0 && is_padded_array(k0, &env->cx)) {
    /* a single string column is already a key of K's layout */
    fprintf(o, "%sconst K%d *keyp = (const K%d *)", ind, ch->index, ch->index);
    emit_expr(o, k0, &env->cx);
    fprintf(o, ";\n");
  } else {
    emit_key_build(o, ch, &env->cx, ind);
    fprintf(o, "%sconst K%d *keyp = &key;\n", ind, ch->index);
  }
  if (k0 && k0->kind == EX_COLUMN && k0->from_idx == 1 && k0->type.kind == TY_VARCHAR &&
      env->cx.home[1] == HOME_TABLE)
    /* the key is one table column: its hash was made when the table loaded */
    fprintf(o, "%sconst uint64_t kh = t->h%d;\n", ind, k0->col_idx);
  else
    fprintf(o, "%sconst uint64_t kh = hash_K%d(keyp);\n", ind, ch->index);
  if (w->kind == WIN_SESSION) {
    fprintf(o, "%sbool is_new;\n%sA%d *acc = air_sessions_acc(%s, keyp, kh, %s, %s, &is_new);\n", ind, ind,
            ch->index, env->win, ts, env->wm);
    fprintf(o, "%sif (!acc) {\n%s  %slate++;\n%s  break;\n%s}\n", ind, ind, env->cnt, ind, ind);
    emit_acc_update(o, ch, &env->cx, ind, ts);
    return;
  }
  snprintf(acc, sizeof acc, "A%d *acc = air_windows_acc(%s, ws, keyp, kh, &is_new)", ch->index, env->win);
  emit_window_loop(o, w, ts, env->wm, acc, ind);
  emit_acc_update(o, ch, &env->cx, ind2, ts);
  emit_window_loop_end(o, env->cnt, ind);
}

/* Put an input row of a stream-stream join into its windows' buffers. */
static void emit_join_insert(FILE *o, const Chain *ch, const SegEnv *env, int side, const char *ind) {
  char acc[160];
  emit_join_key(o, ch, &env->cx, side, ind);
  fprintf(o, "%sconst uint64_t kh = hash_K%d(&key);\n", ind, ch->index);
  snprintf(acc, sizeof acc, "J%d *acc = air_windows_acc(%s, ws, &key, kh, &is_new)", ch->index, env->win);
  emit_window_loop(o, ch->sel->window, "r->ts", env->wm, acc, ind);
  fprintf(o, "%s  air_vec_push(&acc->%s, r, sizeof *r);\n", ind, side ? "right" : "left");
  emit_window_loop_end(o, "", ind);
}

/* Send `var` (an O row) to every output edge of the stage. */
static void emit_send_all(FILE *o, const Stage *st, const SegEnv *env, const char *var, const char *ind) {
  for (int k = 0; k < st->nouts; k++) {
    char port[64];
    snprintf(port, sizeof port, env->outs, st->outs[k]);
    fprintf(o, "%smemcpy(air_out_row(%s, 0), &%s, sizeof %s);\n", ind, port, var, var);
  }
}

/* Fill a result row O from a row context (Map) and send it on. */
static void emit_out_row(FILE *o, const Stage *st, const SegEnv *env, const char *ind) {
  const Chain *ch = st->chain;
  const Select *s = ch->sel;
  fprintf(o, "%sO%d out;\n%smemset(&out, 0, sizeof out);\n", ind, ch->index, ind);
  fprintf(o, "%sout.ts = %s;\n%sout.srcwm = %s;\n", ind, env->ts, ind, env->wm);
  if (env->cx.wend) fprintf(o, "%sout.wend = %s;\n", ind, env->cx.wend);
  for (int i = 0; i < s->nout; i++) {
    char dst[32];
    snprintf(dst, sizeof dst, "out.o%d", i);
    text_comment(o, ind, "", s->out[i].expr);
    src_line(o, s->out[i].expr->loc.line);
    emit_assign(o, ind, dst, s->out[i].expr, s->out[i].type, &env->cx);
    c_line(o);
  }
  emit_send_all(o, st, env, "out", ind);
}

/* Fill a row R (or RB for a join's second input) and send it to the next
 * pipeline on its only output edge. */
static void emit_r_row(Gen *g, FILE *o, const Stage *st, const SegEnv *env, const char *ind) {
  const Chain *ch = st->chain;
  const Select *s = ch->sel;
  const PEdge *e = &g->ph->edges[st->outs[0]];
  char rt[16], port[64];
  edge_row_type(g->ph, e->id, rt, sizeof rt);
  snprintf(port, sizeof port, env->outs, e->id);
  fprintf(o, "%s%s row;\n%smemset(&row, 0, sizeof row);\n%srow.ts = %s;\n", ind, rt, ind, ind, env->ts);
  fprintf(o, "%srow.srcwm = %s;\n", ind, env->wm);
  if (env->cx.wstart) fprintf(o, "%srow.wstart = %s;\n%srow.wend = %s;\n", ind, env->cx.wstart, ind, env->cx.wend);
  bool second = edge_payload(g->ph, e) == PAY_RIGHT_ROWS; /* a join's second input holds from[1] only */
  for (int f = 0; f < s->nfrom; f++) {
    if (second && f == 0) continue;
    if (env->cx.home[f] == HOME_NONE) continue;
    const Relation *r = s->from[f].rel;
    for (int i = 0; i < r->ncols; i++) {
      if (!ch->used[f][i]) continue;
      char src[96];
      colref(src, sizeof src, &env->cx, f, i);
      if (r->cols[i].type.kind == TY_VARCHAR)
        fprintf(o, "%sq_strcpy(row.f%dc%d, sizeof row.f%dc%d, %s);\n", ind, f, i, f, i, src);
      else
        fprintf(o, "%srow.f%dc%d = %s;\n", ind, f, i, src);
    }
  }
  const Stage *to = &g->ph->stages[e->to];
  switch (e->kind) {
  case XR_KEYHASH: {
    fprintf(o, "%s{\n", ind);
    char ind2[160];
    indent_more(ind2, sizeof ind2, ind);
    if (is_join_stage(to))
      emit_join_key(o, ch, &env->cx, e->to_input, ind2);
    else
      emit_key_build(o, ch, &env->cx, ind2);
    fprintf(o, "%s  const int dest = (int)(hash_K%d(&key) %% (uint64_t)air_world(g_rt));\n", ind, ch->index);
    fprintf(o, "%s  memcpy(air_out_row(%s, dest), &row, sizeof row);\n%s}\n", ind, port, ind);
    break;
  }
  case XR_SINGLE: fprintf(o, "%smemcpy(air_out_row(%s, 0), &row, sizeof row);\n", ind, port); break;
  default:
    fprintf(o, "%smemcpy(air_out_row(%s, (int)(air_hash_bytes(&row, sizeof row) %% (uint64_t)air_world(g_rt))), &row, sizeof row);\n",
            ind, port);
    break;
  }
}

/* The row-by-row code of operators [from, to] of a stage's leg in a
 * do { } while (0) block ("break" drops the row), then its tail: update
 * the windows, or send the row on. */
static void emit_ops(Gen *g, FILE *o, const Stage *st, int from, int to, SegEnv *env, const char *ind) {
  const Chain *ch = st->chain;
  const Select *s = ch->sel;
  fprintf(o, "%sdo { /* query %d: ", ind, ch->index + 1);
  for (int i = from; i <= to; i++)
    fprintf(o, "%s%s", i > from ? " -> " : "", op_name(stage_op(st, i)->kind));
  fprintf(o, " */\n");
  char ind2[160];
  indent_more(ind2, sizeof ind2, ind);
  for (int i = from; i <= to; i++) {
    const Operator *op = stage_op(st, i);
    switch (op->kind) {
    case OP_FILTER:
      for (const Expr *p = op->pred; p; p = p->next) text_comment(o, ind2, p == op->pred ? "WHERE " : "  AND ", p);
      src_line(o, op->pred->loc.line);
      fprintf(o, "%sif (!(", ind2);
      for (const Expr *p = op->pred; p; p = p->next) {
        if (p != op->pred) fprintf(o, " && ");
        Expr one = *p;
        one.next = NULL;
        emit_expr(o, &one, &env->cx);
      }
      fprintf(o, ")) {\n");
      c_line(o);
      fprintf(o, "%s  %sfiltered++;\n%s  break;\n%s}\n", ind2, env->cnt, ind2, ind2);
      if (env->late_fill) {
        fputs(env->late_fill, o);
        env->late_fill = NULL;
      }
      break;
    case OP_STATIC_JOIN: {
      const Relation *t = op->rel;
      Type kt = t->cols[t->key_col].type;
      const Expr *lk = s->join_lkey;
      if (kt.kind == TY_VARCHAR && is_padded_array(lk, &env->cx) && lk->type.len == kt.len) {
        /* the stream's column already is a key of the table's layout */
        fprintf(o, "%sconst TK%d *tkp = (const TK%d *)", ind2, t->index, t->index);
        emit_expr(o, lk, &env->cx);
        fprintf(o, ";\n");
      } else {
        fprintf(o, "%sTK%d tk;\n%smemset(&tk, 0, sizeof tk);\n", ind2, t->index, ind2);
        if (kt.kind == TY_VARCHAR) {
          fprintf(o, "%sconst char *lk = ", ind2);
          emit_expr(o, lk, &env->cx);
          fprintf(o, ";\n%sif (!q_fits(lk, %d)) {\n%s  %sunmatched++;\n%s  break;\n%s}\n", ind2, kt.len, ind2,
                  env->cnt, ind2, ind2);
          fprintf(o, "%sq_strcpy(tk.k, sizeof tk.k, lk);\n", ind2);
        } else if (kt.kind == TY_DOUBLE) {
          emit_key_assign(o, ind2, "tk.k", lk, kt, &env->cx);
        } else {
          fprintf(o, "%stk.k = ", ind2);
          emit_expr(o, lk, &env->cx);
          fprintf(o, ";\n");
        }
        fprintf(o, "%sconst TK%d *tkp = &tk;\n", ind2, t->index);
      }
      const Relation *src = leg_source(st);
      if (lk->kind == EX_COLUMN && lk->from_idx == st->leg && env->cx.home[st->leg] == HOME_SOURCE &&
          src->cols[lk->col_idx].ysb_field == AIR_YSB_AD_ID && lk->type.len == 36 && kt.kind == TY_VARCHAR &&
          kt.len == 36)
        /* a generated ad id: its hash was made once, at program start */
        fprintf(o, "%sconst T%d *t = air_hash_find(tab%d, tkp, air_ysb_ad_hashes[r%d %% AIR_YSB_ADS]);\n", ind2,
                t->index, t->index, lk->col_idx);
      else
        fprintf(o, "%sconst T%d *t = air_hash_find(tab%d, tkp, air_hash_bytes(tkp, sizeof *tkp));\n", ind2,
                t->index, t->index);
      fprintf(o, "%sif (!t) {\n%s  %sunmatched++;\n%s  break;\n%s}\n", ind2, ind2, env->cnt, ind2, ind2);
      env->cx.home[1] = HOME_TABLE;
      break;
    }
    case OP_AGGREGATION:
    case OP_REDUCE:
      if (!st->final) emit_window_update(o, ch, env, ind2);
      break;
    default: break;
    }
  }
  /* the tail: hand the row to the next pipeline(s) */
  OperatorKind lastk = stage_op(st, to)->kind;
  bool agg = lastk == OP_AGGREGATION || lastk == OP_REDUCE;
  if (!agg && st->nouts > 0) {
    const PEdge *e = &g->ph->edges[st->outs[0]];
    if (e->kind == XR_GATHER || e->kind == XR_SAME)
      emit_out_row(o, st, env, ind2);
    else
      emit_r_row(g, o, st, env, ind2);
  }
  fprintf(o, "%s} while (0);\n", ind);
}

/* A windowed derived stream's watermark hold (0 for other chains). */
static int64_t chain_hold(const Chain *ch) { return ch->derived ? ch->derived->wm_hold_ms : 0; }

/* The srcwm of a result row of a window ending at `wend` (C): one below the
 * least event time a row of that window can have, so that it is never late
 * for the derived stream's readers, whose watermark is at most that (the
 * producing stage forwards its own held back, emit_forward_wm). */
static const char *result_srcwm(char *buf, size_t n, const Chain *ch, const char *wend) {
  snprintf(buf, n, "(%s - INT64_C(%" PRId64 ") - 1)", wend, chain_hold(ch));
  return buf;
}

/* The O row of one closed window of key `key` with accumulators `acc`. */
static void emit_window_result(FILE *o, const Stage *st, const SegEnv *env, const char *ind,
                               const char *skip) {
  const Chain *ch = st->chain;
  const Select *s = ch->sel;
  Ctx cx = {.sel = s, .post = true, .key = "key", .acc = "acc", .implicit_ts = {-1, -1}};
  fprintf(o, "%s(void)wstart;\n", ind);
  if (s->having) {
    text_comment(o, ind, "HAVING ", s->having);
    src_line(o, s->having->loc.line);
    fprintf(o, "%sif (!(", ind);
    emit_expr(o, s->having, &cx);
    fprintf(o, ")) %s;\n", skip);
    c_line(o);
  }
  fprintf(o, "%sO%d out;\n%smemset(&out, 0, sizeof out);\n", ind, ch->index, ind);
  fprintf(o, "%sout.wend = wend;\n%sout.ts = acc->maxts;\n", ind, ind);
  char srcwm[96];
  fprintf(o, "%sout.srcwm = %s;\n", ind, result_srcwm(srcwm, sizeof srcwm, ch, "wend"));
  for (int i = 0; i < s->nkeys; i++) {
    if (s->keys[i]->type.kind == TY_VARCHAR)
      fprintf(o, "%smemcpy(out.k%d, key->k%d, sizeof out.k%d);\n", ind, i, i, i);
    else
      fprintf(o, "%sout.k%d = key->k%d;\n", ind, i, i);
  }
  for (int i = 0; i < s->nout; i++) {
    char dst[32];
    snprintf(dst, sizeof dst, "out.o%d", i);
    text_comment(o, ind, "", s->out[i].expr);
    src_line(o, s->out[i].expr->loc.line);
    emit_assign(o, ind, dst, s->out[i].expr, s->out[i].type, &cx);
    c_line(o);
  }
  emit_send_all(o, st, env, "out", ind);
}

/* Close every window the watermark `wm` passed: send its partials (partial
 * pipelines) or its result rows. */
static void emit_close_windows(Gen *g, FILE *o, const Stage *st, const SegEnv *env, const char *ind) {
  const Chain *ch = st->chain;
  const Select *s = ch->sel;
  int c = ch->index;
  if (env->dense) {
    char port[64];
    snprintf(port, sizeof port, env->outs, st->outs[0]);
    fprintf(o, "%s{\n%s  int64_t ws;\n", ind, ind);
    fprintf(o, "%s  while (air_dense_pop_closed(%s, wm, INT64_C(%" PRId64 "), &ws)) {\n", ind, env->win,
            s->window->size_ms);
    fprintf(o, "%s    closed = true;\n%s    size_t pos = 0;\n%s    int64_t kv;\n%s    void *ap;\n", ind, ind, ind, ind);
    fprintf(o, "%s    while (air_dense_next(%s, &pos, &kv, &ap)) {\n", ind, env->win);
    fprintf(o, "%s      K%d key;\n%s      memset(&key, 0, sizeof key);\n", ind, c, ind);
    fprintf(o, "%s      key.k0 = (%s)kv;\n", ind, ctype(s->keys[0]->type));
    fprintf(o, "%s      const int dest = (int)(hash_K%d(&key) %% (uint64_t)air_world(g_rt));\n", ind, c);
    fprintf(o, "%s      P%d *p = air_out_row(%s, dest);\n", ind, c, port);
    fprintf(o, "%s      p->wstart = ws;\n%s      p->key = key;\n%s      p->acc = *(const A%d *)ap;\n", ind, ind, ind, c);
    fprintf(o, "%s    }\n%s  }\n%s}\n", ind, ind, ind);
    return;
  }
  fprintf(o, "%s{\n%s  int64_t ws;\n%s  AirHash *tab;\n", ind, ind, ind);
  fprintf(o, "%s  while ((tab = air_windows_pop_closed(%s, wm, INT64_C(%" PRId64 "), &ws)) != NULL) {\n", ind,
          env->win, s->window->size_ms);
  if (st->partial) fprintf(o, "%s    closed = true;\n", ind);
  fprintf(o, "%s    size_t pos = 0;\n%s    const void *kp;\n%s    void *ap;\n", ind, ind, ind);
  fprintf(o, "%s    while (air_hash_next(tab, &pos, &kp, &ap)) {\n", ind);
  fprintf(o, "%s      const K%d *key = kp;\n%s      (void)key;\n", ind, c, ind);
  if (st->partial) {
    char port[64];
    snprintf(port, sizeof port, env->outs, st->outs[0]);
    fprintf(o, "%s      const A%d *acc = ap;\n", ind, c);
    if (s->nkeys)
      fprintf(o, "%s      const int dest = (int)(hash_K%d(key) %% (uint64_t)air_world(g_rt));\n", ind, c);
    else
      fprintf(o, "%s      const int dest = 0; /* a Reduce ends on rank 0 */\n", ind);
    fprintf(o, "%s      P%d *p = air_out_row(%s, dest);\n", ind, c, port);
    fprintf(o, "%s      p->wstart = ws;\n%s      p->key = *key;\n%s      p->acc = *acc;\n", ind, ind, ind);
  } else if (is_join_stage(st)) {
    fprintf(o, "%s      J%d *acc = ap;\n", ind, c);
    fprintf(o, "%s      const int64_t wstart = ws, wend = ws + INT64_C(%" PRId64 ");\n", ind, s->window->size_ms);
    fprintf(o, "%s      (void)wstart;\n%s      (void)wend;\n", ind, ind);
    fprintf(o, "%s      for (size_t li = 0; li < acc->left.n; li++) {\n", ind);
    fprintf(o, "%s        const R%d *l = (const R%d *)acc->left.data + li;\n", ind, c, c);
    fprintf(o, "%s        for (size_t ri = 0; ri < acc->right.n; ri++) {\n", ind);
    fprintf(o, "%s          const RB%d *rr = (const RB%d *)acc->right.data + ri;\n", ind, c, c);
    fprintf(o, "%s          const int64_t ts = l->ts > rr->ts ? l->ts : rr->ts;\n", ind);
    SegEnv je = *env;
    je.ts = "ts";
    char jwm[96];
    je.wm = result_srcwm(jwm, sizeof jwm, ch, "wend"); /* joined rows are not checked again */
    je.cx.home[0] = HOME_JOIN_LEFT;
    je.cx.home[1] = HOME_JOIN_RIGHT;
    je.cx.implicit_ts[0] = je.cx.implicit_ts[1] = -1;
    je.cx.wstart = "wstart";
    je.cx.wend = "wend";
    char ind10[200];
    snprintf(ind10, sizeof ind10, "%s          ", ind);
    emit_ops(g, o, st, st->first + 1 <= st->last ? st->first + 1 : st->last + 1, st->last, &je, ind10);
    fprintf(o, "%s        }\n%s      }\n", ind, ind);
    fprintf(o, "%s      air_vec_free(&acc->left);\n%s      air_vec_free(&acc->right);\n", ind, ind);
  } else {
    fprintf(o, "%s      const A%d *acc = ap;\n", ind, c);
    fprintf(o, "%s      const int64_t wstart = ws, wend = ws + INT64_C(%" PRId64 ");\n", ind, s->window->size_ms);
    char ind6[200];
    snprintf(ind6, sizeof ind6, "%s      ", ind);
    emit_window_result(o, st, env, ind6, "continue");
  }
  fprintf(o, "%s    }\n%s    air_windows_recycle(%s, tab);\n%s  }\n%s}\n", ind, ind, env->win, ind, ind);
}

/* Watermark wm to every output of a stage (ports named by env->outs). The
 * stage making a windowed derived stream holds it back by the most the
 * stream's event time can trail its window's end (sema's wm_hold_ms). */
static void emit_forward_wm(FILE *o, const Stage *st, const char *outs, const char *ind) {
  int64_t hold = st->chain->producer == st->id - 1 ? chain_hold(st->chain) : 0;
  for (int k = 0; k < st->nouts; k++) {
    char port[64];
    snprintf(port, sizeof port, outs, st->outs[k]);
    if (hold)
      fprintf(o, "%sair_out_watermark(%s, q_wm_back(wm, INT64_C(%" PRId64 ")));\n", ind, port, hold);
    else
      fprintf(o, "%sair_out_watermark(%s, wm);\n", ind, port);
  }
}

/* ---- source vertices ------------------------------------------------------- */

static bool loop_stage_of(const Stage *st, const Relation *r) {
  return in_source_loop(st) && leg_source(st) == r;
}

static void source_env(const Gen *g, const Stage *st, SegEnv *env, bool ptr, char *win, size_t nw, char *ts,
                       size_t nt) {
  memset(env, 0, sizeof *env);
  stage_ctx(g, st, &env->cx, true);
  env->cnt = "st.";
  /* A csv row's lateness is W(i), a function of the file alone (air.h). */
  env->wm = ptr ? "st->wm" : leg_source(st)->source->time == TIME_SCANNED ? "rowwm" : "st.wm";
  env->outs = ptr ? "st->oe%d" : "st.oe%d";
  snprintf(win, nw, ptr ? "st->win%d" : "st.win%d", st->id);
  env->win = win;
  colref(ts, nt, &env->cx, st->leg, leg_source(st)->time_col);
  env->ts = ts;
  env->dense = st->state.kind == STATE_DENSE;
}

typedef struct ColMarks {
  int f;      /* the FROM item */
  bool *cols; /* its columns read */
} ColMarks;

static bool mark_col(void *m_, const Expr *e) {
  ColMarks *m = m_;
  if (e->kind == EX_COLUMN && e->from_idx == m->f) m->cols[e->col_idx] = true;
  return true;
}

/* Mark the columns of FROM item f that e reads. */
static void mark_cols(const Expr *e, int f, bool *cols) {
  ColMarks m = {f, cols};
  expr_walk(e, mark_col, &m);
}

/* Make column i of generator row s (every byte of it: no memset needed). */
static void emit_gen_fill(FILE *f, const Relation *r, int i, const char *ind) {
  const Column *col = &r->cols[i];
  char dst[32];
  snprintf(dst, sizeof dst, "s.c%d", i);
  if (col->ysb_field >= 0) { /* a ysb column */
    if (col->ysb_field == AIR_YSB_TS) /* ingestion time */
      fprintf(f, "%s%s = now;\n", ind, dst);
    else
      fprintf(f, "%sconst uint64_t r%d = air_gen_col(h, %d);\n%sair_ysb_fill(%d, r%d, %s, sizeof %s);\n", ind, i,
              col->ysb_field, ind, col->ysb_field, i, dst, dst);
    return;
  }
  const char *ct = ctype(col->type);
  switch (col->gen.kind) {
  case GEN_NONE:
  case GEN_NOW: fprintf(f, "%s%s = now;\n", ind, dst); break;
  case GEN_SEQUENCE:
    fprintf(f, "%s%s = (%s)(int64_t)((uint64_t)INT64_C(%" PRId64 ") + i * (uint64_t)INT64_C(%" PRId64 "));\n", ind,
            dst, ct, col->gen.a, col->gen.b);
    break;
  case GEN_UNIFORM:
    fprintf(f, "%s%s = (%s)air_gen_uniform(air_gen_col(h, %d), INT64_C(%" PRId64 "), INT64_C(%" PRId64 "));\n", ind,
            dst, ct, i, col->gen.a, col->gen.b);
    break;
  case GEN_CHOICE:
    fprintf(f, "%s{\n%s  static const char *const choices[] = {", ind, ind);
    for (int k = 0; k < col->gen.nchoices; k++) {
      fprintf(f, "%s\"", k ? ", " : "");
      c_escape_str(f, col->gen.choices[k], col->gen.choice_lens[k]);
      fprintf(f, "\"");
    }
    fprintf(f, "};\n%s  q_strcpy(%s, sizeof %s, choices[air_gen_col(h, %d) %% %d]);\n%s}\n", ind, dst, dst, i,
            col->gen.nchoices, ind);
    break;
  case GEN_UUID:
    fprintf(f, "%s{\n%s  char u[37];\n%s  air_gen_uuid(air_gen_col(h, %d), u);\n%s  q_strcpy(%s, sizeof %s, u);\n%s}\n",
            ind, ind, ind, i, ind, dst, dst, ind);
    break;
  }
}

/* The generator kinds' row: the columns the queries read, made from the
 * row's number and hash. */
void cg_gen_row(Gen *g, const Relation *r, FILE *out, char **late) {
  const Physical *ph = g->ph;
  const Plan *pl = g->pl;
  const char *ind = "      ";
  char tsvar[32];
  snprintf(tsvar, sizeof tsvar, "s.c%d", r->time_col);
  /* A generator makes only the columns the queries read; with a single
   * query whose first operator is a Filter, the columns that Filter does
   * not read are made only for the rows it passes (for YSB: the ad id of
   * a third of the events). */
  bool *early = calloc((size_t)r->ncols, sizeof(bool));
  const Stage *only = NULL;
  int nloop = 0;
  for (int i = 0; i < ph->nstages; i++)
    if (loop_stage_of(&ph->stages[i], r)) only = &ph->stages[i], nloop++;
  const Operator *filter = NULL;
  if (nloop == 1 && only->last >= 1 && stage_op(only, 1)->kind == OP_FILTER) filter = stage_op(only, 1);
  for (int i = 0; i < r->ncols; i++) early[i] = filter == NULL || i == r->time_col;
  if (filter)
    for (const Expr *p = filter->pred; p; p = p->next) mark_cols(p, only->leg, early);
  Buf latebuf;
  buf_open(&latebuf);
  for (int i = 0; i < r->ncols; i++) {
    if (!source_col_used(pl, r, i)) continue;
    FILE *ff = early[i] ? out : latebuf.f;
    const char *find = early[i] ? ind : "        ";
    emit_gen_fill(ff, r, i, find);
  }
  free(early);
  *late = buf_take(&latebuf);
  if (!r->ingestion_time && r->cols[r->time_col].gen.kind == GEN_SEQUENCE) {
    /* sequence() may run past the TIMESTAMP range: the stream ends there */
    fprintf(out, "%sif (%s < AIR_TS_MIN || %s > AIR_TS_MAX) {\n", ind, tsvar, tsvar);
    fprintf(out, "%s  air_gen_end(g, ", ind);
    c_str(out, r->name);
    fprintf(out, ", \"its event time leaves the TIMESTAMP range (years 1 to 9999)\");\n");
    fprintf(out, "%s  n = k;\n%s  break;\n%s}\n", ind, ind, ind);
  }
  if (!r->ingestion_time) fprintf(out, "%sif (%s > st.maxts) st.maxts = %s;\n", ind, tsvar, tsvar);
}

/* The csv kind's row: every field of the record parsed and checked. */
void cg_csv_row(Gen *g, const Relation *r, FILE *out, char **late) {
  (void)g, (void)late;
  emit_csv_parse(out, r, "s", "      ", "csv", "continue");
}

/* The csv kind's file, opened before the run starts (setup). */
void cg_csv_global(Gen *g, const Relation *r) {
  fprintf(g->types.f, "static AirCsv *g_csv%d; /* opened before the run starts */\n", r->index);
  char lhs[32];
  snprintf(lhs, sizeof lhs, "g_csv%d", r->index);
  emit_csv_open(g->setup.f, r, lhs, "  ");
}

/* A hole of a source kind's own template. */
static void kind_hole(KindHoles *h, const char *name, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void kind_hole(KindHoles *h, const char *name, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(h->text[h->n], sizeof h->text[h->n], fmt, ap);
  va_end(ap);
  h->h[h->n] = (TplHole){name, h->text[h->n]};
  h->n++;
}

/* source_gen.c.tpl: the pace, the row limit and the seed. */
void cg_gen_holes(const Relation *r, KindHoles *h) {
  kind_hole(h, "RATE", "INT64_C(%" PRId64 ")", r->rate);
  kind_hole(h, "LIMIT", "INT64_C(%" PRId64 ")", r->limit);
  kind_hole(h, "SEED", "%" PRId64, r->seed);
  kind_hole(h, "SEED_GIVEN", "%s", r->has_seed ? "true" : "false");
}

/* source_csv.c.tpl: the file opened at setup (cg_csv_global), its fields. */
void cg_csv_holes(const Relation *r, KindHoles *h) {
  kind_hole(h, "CSV", "g_csv%d", r->index);
  kind_hole(h, "NCOLS", "%d", r->ncols);
}

static void emit_source(Gen *g, const Relation *r) {
  const Physical *ph = g->ph;
  int ri = r->index;
  char state[32], fn[32], row[32];
  snprintf(state, sizeof state, "SrcState%d", ri);
  snprintf(fn, sizeof fn, "source%d", ri);
  snprintf(row, sizeof row, "S%d", ri);

  /* per-instance state */
  FILE *o = g->types.f;
  fprintf(o, "typedef struct %s { /* one instance of source ", state);
  c_comment(o, r->name);
  fprintf(o, " */\n  int64_t wm; /* watermark sent, ms */\n");
  if (r->source->time == TIME_GENERATED) fprintf(o, "  int64_t maxts; /* latest event time seen */\n");
  fprintf(o, "  int64_t filtered, unmatched, late; /* counters not yet added to the stats */\n");
  for (int i = 0; i < ph->nstages; i++) {
    const Stage *st = &ph->stages[i];
    if (!loop_stage_of(st, r)) continue;
    for (int k = 0; k < st->nouts; k++)
      fprintf(o, "  AirOut *oe%d; /* pipeline %d's port on edge %d */\n", st->outs[k], st->id, st->outs[k]);
    fprintf(o, "  int64_t sent%d; /* when pipeline %d last sent a watermark */\n", st->id, st->id);
    if (st->state.kind == STATE_DENSE)
      fprintf(o, "  AirDense *win%d; /* pipeline %d's partial aggregates, by key - %" PRId64 " */\n", st->id, st->id,
              st->state.lo);
    else if (st->partial)
      fprintf(o, "  AirWindows *win%d; /* pipeline %d's partial aggregates */\n", st->id, st->id);
  }
  fprintf(o, "} %s;\n\n", state);

  /* advance: close partial windows, send watermarks */
  FILE *f = g->funcs.f;
  fprintf(f, "static void %s_advance(%s *st, int64_t wm, int64_t now, bool force) {\n", fn, state);
  /* force: forward wm even if it was reached before, when sending was
   * left for later (a stop's cut watermark must reach the consumers) */
  fprintf(f, "  if (wm < st->wm || (wm == st->wm && !force)) return;\n  st->wm = wm;\n");
  for (int i = 0; i < ph->nstages; i++) {
    const Stage *st = &ph->stages[i];
    if (!loop_stage_of(st, r)) continue;
    SegEnv env;
    char win[32], ts[96];
    source_env(g, st, &env, true, win, sizeof win, ts, sizeof ts);
    fprintf(f, "  {\n    bool closed = false;\n");
    if (st->partial) emit_close_windows(g, f, st, &env, "    ");
    fprintf(f, "    if (wm == AIR_WM_END) {\n");
    for (int k = 0; k < st->nouts; k++) fprintf(f, "      air_out_flush(st->oe%d);\n", st->outs[k]);
    fprintf(f, "    } else if (closed || force || now - st->sent%d >= WM_EVERY_MS) {\n", st->id);
    emit_forward_wm(f, st, "st->oe%d", "      ");
    fprintf(f, "      st->sent%d = now;\n    }\n  }\n", st->id);
  }
  fprintf(f, "}\n\n");

  /* fill holes */
  Buf open, rows, branches, chunk_end, finish;
  char *late_fill = NULL;
  buf_open(&open);
  buf_open(&rows);
  buf_open(&branches);
  buf_open(&chunk_end);
  buf_open(&finish);
  r->source->emit_row(g, r, rows.f, &late_fill);
  int first_stage = 0;
  for (int i = 0; i < ph->nstages; i++) {
    const Stage *st = &ph->stages[i];
    if (!loop_stage_of(st, r)) continue;
    if (!first_stage) first_stage = st->id;
    for (int k = 0; k < st->nouts; k++)
      fprintf(open.f, "  st.oe%d = air_out_open(v, inst, g_edge[%d]);\n", st->outs[k], st->outs[k]);
    if (st->state.kind == STATE_DENSE)
      fprintf(open.f, "  st.win%d = air_dense_new(INT64_C(%" PRId64 "), INT64_C(%" PRId64 "), sizeof(A%d));\n", st->id,
              st->state.lo, st->state.hi, st->chain->index);
    else if (st->partial)
      fprintf(open.f, "  st.win%d = air_windows_new(sizeof(K%d), sizeof(A%d));\n", st->id, st->chain->index,
              st->chain->index);
    SegEnv env;
    char win[32], ts[96];
    source_env(g, st, &env, false, win, sizeof win, ts, sizeof ts);
    env.late_fill = late_fill;
    emit_ops(g, branches.f, st, st->first, st->last, &env, "      ");
  }
  /* chunk end: counters, then the watermark */
  FILE *ce = chunk_end.f;
  fprintf(ce, "    q_count_rows(st.filtered, st.unmatched, st.late);\n");
  fprintf(ce, "    st.filtered = st.unmatched = st.late = 0;\n");
  if (r->ingestion_time) {
    fprintf(ce, "    %s_advance(&st, now, now, false);\n", fn);
  } else if (r->source->time == TIME_SCANNED) {
    /* every record this rank scanned, others' too: no later W(i) is lower */
    fprintf(ce, "    %s_advance(&st, air_csv_scanned_wm(csv), air_now_ms(), false);\n", fn);
  } else {
    fprintf(ce, "    if (st.maxts != AIR_WM_NONE)\n      %s_advance(&st, st.maxts - INT64_C(%" PRId64 "), now, false);\n",
            fn, r->wm_bound_ms);
  }
  /* finish: close every window and send the last rows, then free */
  {
    /* A stop: the rows before the agreed cut are made or read (cut.c). The
     * watermark they imply goes first, so that consumers tell the windows
     * they complete from those AIR_WM_STOP then closes early. */
    fprintf(finish.f, "  int64_t cut;\n  if (%s) {\n", r->source->cut);
    if (r->source->time == TIME_SCANNED && !r->ingestion_time) {
      /* every record before the cut scanned, here as on every rank */
      fprintf(finish.f, "    (void)cut;\n    %s_advance(&st, air_csv_scanned_wm(csv), air_now_ms(), true);\n", fn);
    } else if (r->ingestion_time) {
      fprintf(finish.f, "    %s_advance(&st, air_now_ms(), air_now_ms(), true);\n", fn);
    } else {
      const GenSpec *gs = &r->cols[r->time_col].gen;
      if (r->limit > 0)
        fprintf(finish.f, "    const int64_t rows = cut < INT64_C(%" PRId64 ") ? cut : INT64_C(%" PRId64 ");\n",
                r->limit, r->limit);
      else
        fprintf(finish.f, "    const int64_t rows = cut;\n");
      fprintf(finish.f, "    %s_advance(&st, q_wm_back(q_seq_max(INT64_C(%" PRId64 "), INT64_C(%" PRId64
                        "), rows), INT64_C(%" PRId64 ")), air_now_ms(), true);\n",
              fn, gs->a, gs->b, r->wm_bound_ms);
    }
    fprintf(finish.f, "    %s_advance(&st, AIR_WM_STOP, air_now_ms(), true);\n  }\n", fn);
  }
  fprintf(finish.f, "  %s_advance(&st, AIR_WM_END, air_now_ms(), true);\n", fn);
  for (int i = 0; i < ph->nstages; i++) {
    const Stage *st = &ph->stages[i];
    if (loop_stage_of(st, r) && st->partial)
      fprintf(finish.f, "  %s(st.win%d);\n", st->state.kind == STATE_DENSE ? "air_dense_free" : "air_windows_free",
              st->id);
  }

  char id[16];
  snprintf(id, sizeof id, "%d", first_stage);
  Buf srcname;
  buf_open(&srcname);
  c_comment(srcname.f, r->name);
  char *srcname_s = buf_take(&srcname);
  char *open_s = buf_take(&open), *rows_s = buf_take(&rows), *br_s = buf_take(&branches),
       *ce_s = buf_take(&chunk_end), *fin_s = buf_take(&finish);
  KindHoles kh = {.n = 0};
  r->source->holes(r, &kh);
  TplHole holes[11 + sizeof kh.h / sizeof kh.h[0]] = {
      {"ID", id},         {"SOURCE", srcname_s}, {"DESC", r->source->desc}, {"FN", fn},
      {"STATE", state},   {"ROW", row},          {"open", open_s},          {"rows", rows_s},
      {"branches", br_s}, {"chunk_end", ce_s},   {"finish", fin_s}};
  int nholes = 11;
  for (int k = 0; k < kh.n; k++) holes[nholes++] = kh.h[k];
  char err[256];
  bool ok = tpl_fill(f, r->source->tpl, holes, nholes, err, sizeof err);
  if (!ok) {
    diag_fatal_noloc(g->d, "internal error: %s", err);
    g->ok = false;
  }
  fprintf(f, "\n");
  free(srcname_s);
  free(open_s);
  free(rows_s);
  free(br_s);
  free(ce_s);
  free(fin_s);
  free(late_fill);
}

/* ---- consumer stages ------------------------------------------------------- */

static void emit_collector(Gen *g, const Stage *st) {
  const Chain *ch = st->chain;
  int c = ch->index;
  const Operator *sink = stage_op(st, st->first);
  FILE *su = g->setup.f;
  char *hdr = csv_header(ch->sel);
  fprintf(su, "  {\n    static const AirCollectorDef def = {\n");
  fprintf(su, "        .row_size = sizeof(O%d),\n        .wend_offset = offsetof(O%d, wend),\n", c, c);
  fprintf(su, "        .ts_offset = offsetof(O%d, ts),\n        .windowed = %s,\n", c, ch->windowed ? "true" : "false");
  fprintf(su, "        .latency = %s,\n", ch->source->ingestion_time ? "true" : "false");
  fprintf(su, "        .compare = cmp_O%d,\n        .format = fmt_O%d,\n        .header = ", c, c);
  c_str(su, hdr);
  fprintf(su, ",\n        .path = ");
  if (sink->rel)
    c_str(su, sink->rel->path ? sink->rel->path : "");
  else
    fprintf(su, "NULL");
  /* Several queries on standard output: every line of each (its header
   * too) starts with the query's number as --explain shows it. */
  if (!sink->rel && g->pl->nstdout > 1) fprintf(su, ",\n        .tag = \"q%d\"", c + 1);
  fprintf(su, ",\n    };\n    air_collector_new(g_rt, \"results of query %d\", g_edge[%d], &def);\n  }\n", c + 1,
          st->edge);
  free(hdr);
}

static void emit_stage(Gen *g, const Stage *st) {
  if (is_sink_stage(st)) {
    emit_collector(g, st);
    return;
  }
  const Chain *ch = st->chain;
  const Select *s = ch->sel;
  int c = ch->index;
  FILE *f = g->funcs.f;
  FILE *su = g->setup.f;
  bool session = st->state.kind == STATE_SESSIONS;
  bool windows = st->state.kind == STATE_WINDOWS || st->state.kind == STATE_JOIN;
  char ctxn[48], fn[48], id[16];
  snprintf(ctxn, sizeof ctxn, "stage%d", st->id);
  snprintf(fn, sizeof fn, "stage%d", st->id);
  snprintf(id, sizeof id, "%d", st->id);

  Buf fields, body, wmk, desc;
  buf_open(&fields);
  buf_open(&body);
  buf_open(&wmk);
  buf_open(&desc);
  for (int k = 0; k < st->nouts; k++)
    fprintf(fields.f, "  AirOut *oe%d; /* port on edge %d */\n", st->outs[k], st->outs[k]);
  fprintf(fields.f, "  int64_t wm; /* input watermark, ms */\n");
  if (windows) fprintf(fields.f, "  AirWindows *win; /* open windows: key -> state */\n");
  if (session) fprintf(fields.f, "  AirSessions *win; /* open sessions per key */\n");
  fprintf(desc.f, "query %d, ", c + 1);
  for (int i = st->first; i <= st->last; i++)
    fprintf(desc.f, "%s%s", i > st->first ? " -> " : "", op_name(stage_op(st, i)->kind));
  if (st->final) fprintf(desc.f, " (final: merges per-rank partials)");

  char outs[64], win[64], wmv[64];
  snprintf(outs, sizeof outs, "%s.oe%%d", ctxn);
  snprintf(win, sizeof win, "%s.win", ctxn);
  snprintf(wmv, sizeof wmv, "%s.wm", ctxn);
  SegEnv env = {.cnt = "", .outs = outs, .win = win, .wm = wmv};
  stage_ctx(g, st, &env.cx, false);
  /* Lateness is decided against the watermark of the row's source rank
   * when it was read (carried in R and O rows), so that a row is late or
   * not whatever the fusion and the timing of other ranks' watermarks. */
  env.wm = "r->srcwm";
  char ts[96];
  if (st->first == 0)
    colref(ts, sizeof ts, &env.cx, st->leg, leg_source(st)->time_col);
  else
    snprintf(ts, sizeof ts, "r->ts");
  env.ts = ts;

  FILE *b = body.f;
  char rt0[16], rt1[16];
  edge_row_type(g->ph, st->edge, rt0, sizeof rt0);
  if (st->final) {
    fprintf(b, "  const P%d *in = rows;\n  for (size_t k = 0; k < nrows; k++) {\n", c);
    fprintf(b, "    const P%d *p0 = &in[k];\n    bool is_new;\n", c);
    fprintf(b, "    A%d *acc = air_windows_acc(%s, p0->wstart, &p0->key, hash_K%d(&p0->key), &is_new);\n", c, win, c);
    fprintf(b, "    const A%d *p = &p0->acc;\n", c);
    emit_acc_merge(b, ch, "    ");
    fprintf(b, "  }\n");
  } else if (is_join_stage(st)) {
    edge_row_type(g->ph, st->edge1, rt1, sizeof rt1);
    for (int side = 0; side < 2; side++) {
      fprintf(b, "  %sif (input == %d) {\n", side ? "else " : "", side);
      fprintf(b, "    const %s *in = rows;\n    for (size_t k = 0; k < nrows; k++) {\n", side ? rt1 : rt0);
      fprintf(b, "      const %s *r = &in[k];\n", side ? rt1 : rt0);
      SegEnv je = env;
      je.cx.home[0] = side ? HOME_NONE : HOME_EDGE;
      je.cx.home[1] = side ? HOME_EDGE : HOME_NONE;
      emit_join_insert(b, ch, &je, side, "      ");
      fprintf(b, "    }\n  }\n");
    }
  } else {
    fprintf(b, "  const %s *in = rows;\n  for (size_t k = 0; k < nrows; k++) {\n", rt0);
    fprintf(b, "    const %s *r = &in[k];\n", rt0);
    emit_ops(g, b, st, st->first, st->last, &env, "    ");
    fprintf(b, "  }\n");
  }

  FILE *w = wmk.f;
  if (session) {
    /* sessions that met are merged; closed ones become result rows */
    fprintf(w, "  air_sessions_close(%s, wm, %s_session, NULL);\n", win, fn);
  } else if (windows) {
    emit_close_windows(g, w, st, &env, "  ");
  }
  fprintf(w, "  if (wm != AIR_WM_END) {\n");
  emit_forward_wm(w, st, outs, "    ");
  fprintf(w, "  }\n");

  char *fields_s = buf_take(&fields), *body_s = buf_take(&body), *wmk_s = buf_take(&wmk),
       *desc_s = buf_take(&desc);
  /* the session emitter is called from on_watermark and writes to the
   * stage's ports: declared before, defined after the stage */
  if (session)
    fprintf(f, "static void %s_session(const void *kp, int64_t ws, int64_t we, void *ap, void *cx);\n", fn);
  TplHole holes[] = {{"ID", id},     {"DESC", desc_s}, {"CTX", ctxn},          {"FN", fn},
                     {"state_fields", fields_s},      {"body", body_s},       {"on_watermark", wmk_s}};
  char err[256];
  if (!tpl_fill(f, "stage.c.tpl", holes, (int)(sizeof holes / sizeof holes[0]), err, sizeof err)) {
    diag_fatal_noloc(g->d, "internal error: %s", err);
    g->ok = false;
  }
  if (session) {
    fprintf(f, "\n/* A closed session of pipeline %d: its result row. */\n", st->id);
    fprintf(f, "static void %s_session(const void *kp, int64_t ws, int64_t we, void *ap, void *cx) {\n", fn);
    fprintf(f, "  (void)cx;\n  const K%d *key = kp;\n  const A%d *acc = ap;\n  (void)key;\n", c, c);
    fprintf(f, "  const int64_t wstart = ws, wend = we;\n");
    emit_window_result(f, st, &env, "  ", "return");
    fprintf(f, "}\n");
  }
  fprintf(f, "\n");
  free(fields_s);
  free(body_s);
  free(wmk_s);
  free(desc_s);

  fprintf(su, "  {\n");
  if (st->edge1 >= 0)
    fprintf(su, "    AirEdge *in[2] = {g_edge[%d], g_edge[%d]};\n", st->edge, st->edge1);
  else
    fprintf(su, "    AirEdge *in[1] = {g_edge[%d]};\n", st->edge);
  fprintf(su, "    AirVertex *v = air_vertex_consumer(g_rt, \"pipeline %d\", in, %d, %s_batch, %s_watermark, NULL, false);\n",
          st->id, st->edge1 >= 0 ? 2 : 1, fn, fn);
  fprintf(su, "    %s.wm = AIR_WM_NONE;\n", ctxn);
  for (int k = 0; k < st->nouts; k++)
    fprintf(su, "    %s.oe%d = air_out_open(v, 0, g_edge[%d]);\n", ctxn, st->outs[k], st->outs[k]);
  if (session)
    fprintf(su, "    %s.win = air_sessions_new(sizeof(K%d), sizeof(A%d), INT64_C(%" PRId64 "), merge_A%d);\n", ctxn, c,
            c, s->window->gap_ms, c);
  else if (is_join_stage(st))
    fprintf(su, "    %s.win = air_windows_new(sizeof(K%d), sizeof(J%d));\n", ctxn, c, c);
  else if (windows)
    fprintf(su, "    %s.win = air_windows_new(sizeof(K%d), sizeof(A%d));\n", ctxn, c, c);
  fprintf(su, "  }\n");
}

/* ---- the program ----------------------------------------------------------- */

static bool add_cast_bytes(void *n_, const Expr *e) {
  if (e->kind == EX_CAST && e->cast_to.kind == TY_VARCHAR)
    *(size_t *)n_ += (size_t)(e->cast_to.len + 1 > 32 ? e->cast_to.len + 1 : 32);
  return true;
}

/* Bytes of the VARCHAR buffers CASTs in e make on the stack. */
static size_t cast_bytes(const Expr *e) {
  size_t n = 0;
  expr_walk(e, add_cast_bytes, &n);
  return n;
}

static size_t select_cast_bytes(const Select *s) {
  size_t n = cast_bytes(s->where) + cast_bytes(s->having) + cast_bytes(s->join_on);
  for (int i = 0; i < s->nout; i++) n += cast_bytes(s->out[i].expr);
  for (int i = 0; i < s->nkeys; i++) n += cast_bytes(s->keys[i]);
  for (int i = 0; i < s->naggs; i++) n += cast_bytes(s->aggs[i]);
  return n;
}

/* Rows live on the vertex threads' stacks (a source's row, the rows and
 * keys a pipeline makes): with wide VARCHAR columns they outgrow a default
 * 8 MB stack. Tell the runtime a generous bound: four times every row type
 * and every CAST buffer of the program. */
static void emit_stack_hint(Gen *g) {
  const Plan *pl = g->pl;
  FILE *su = g->setup.f;
  size_t casts = 0;
  fprintf(su, "  air_stack_hint(g_rt, 4 * ((size_t)0");
  for (int i = 0; i < pl->cat->nrels; i++) {
    const Relation *r = pl->cat->rels[i];
    bool read = false;
    for (int c = 0; c < pl->nchains && !read; c++)
      read = pl->chains[c].source == r || pl->chains[c].source1 == r;
    if (r->kind == REL_SOURCE && read) fprintf(su, " + sizeof(S%d) + sizeof(SrcState%d)", r->index, r->index);
  }
  for (int c = 0; c < pl->nchains; c++) {
    const Chain *ch = &pl->chains[c];
    fprintf(su, " + sizeof(R%d) + sizeof(O%d)", c, c);
    if (ch->join_at >= 0)
      fprintf(su, " + sizeof(RB%d) + sizeof(K%d) + sizeof(J%d)", c, c, c);
    else if (ch->windowed)
      fprintf(su, " + sizeof(K%d) + sizeof(A%d) + sizeof(P%d)", c, c, c);
    if (ch->sel->table_join) fprintf(su, " + sizeof(TK%d)", ch->sel->from[1].rel->index);
    casts += select_cast_bytes(ch->sel);
  }
  fprintf(su, " + %zu));\n", casts);
}

static bool chain_reads(const Chain *ch, const Relation *r) { return ch->source == r || ch->source1 == r; }

/* Copy the program to out, each C_LINE_MARK line made "#line N+1 c_path"
 * for its own line number N. */
static bool number_lines(FILE *out, const char *text) {
  long n = 1;
  for (const char *p = text; *p;) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    if (len == strlen(C_LINE_MARK) && memcmp(p, C_LINE_MARK, len) == 0) {
      fprintf(out, "#line %ld \"", n + 1);
      c_escape_str(out, g_opt->c_path, strlen(g_opt->c_path));
      fprintf(out, "\"");
    } else {
      fwrite(p, 1, len, out);
    }
    if (!nl) break;
    fputc('\n', out);
    p = nl + 1;
    n++;
  }
  return !ferror(out);
}

static bool emit_program(FILE *out, Diag *d, const Physical *ph);

bool codegen_emit(FILE *out, Diag *d, const Physical *ph, const CodegenOptions *opt) {
  static const CodegenOptions plain = {0};
  g_opt = opt ? opt : &plain;
  if (!g_opt->debug) return emit_program(out, d, ph);
  Buf all;
  buf_open(&all);
  bool ok = emit_program(all.f, d, ph);
  char *text = buf_take(&all);
  if (ok) ok = number_lines(out, text);
  free(text);
  return ok;
}

static bool emit_program(FILE *out, Diag *d, const Physical *ph) {
  const Plan *pl = ph->plan;
  const Catalog *cat = pl->cat;
  Gen g = {.ph = ph, .pl = pl, .d = d, .ok = true};
  buf_open(&g.types);
  buf_open(&g.funcs);
  buf_open(&g.setup);
  FILE *su = g.setup.f;
  g_in_decls = g.types.f;
  g_in_n = 0;

  fprintf(g.types.f, "static AirEdge *g_edge[%d]; /* edges by id (the MPI tag) */\n", ph->nedges ? ph->nedges : 1);
  for (int i = 0; i < cat->nrels; i++) {
    const Relation *r = cat->rels[i];
    bool read = false, joined = false;
    for (int c = 0; c < pl->nchains; c++) {
      if (chain_reads(&pl->chains[c], r)) read = true;
      if (pl->chains[c].sel->nfrom == 2 && pl->chains[c].sel->table_join && pl->chains[c].sel->from[1].rel == r)
        joined = true;
    }
    if (r->kind == REL_TABLE && joined) {
      emit_table(&g, r);
      fprintf(su, "  load_tab%d();\n", r->index);
    }
    if (r->kind == REL_SOURCE && read) emit_source_struct(&g, r);
  }
  fprintf(g.types.f, "\n");
  for (int c = 0; c < pl->nchains; c++) {
    const Chain *ch = &pl->chains[c];
    emit_chain_types(&g, ch);
    if (ch->session) {
      FILE *f = g.funcs.f;
      fprintf(f, "/* Fold the accumulators of a session into those of one it met. */\n");
      fprintf(f, "static void merge_A%d(void *dst, const void *src) {\n", c);
      fprintf(f, "  A%d *acc = dst;\n  const A%d *p = src;\n  const bool is_new = false;\n", c, c);
      emit_acc_merge(f, ch, "  ");
      fprintf(f, "}\n\n");
    }
  }

  /* setup: the sources' files, edges, consumers, then sources */
  for (int i = 0; i < cat->nrels; i++) {
    const Relation *r = cat->rels[i];
    bool read = false;
    for (int c = 0; c < pl->nchains; c++)
      if (chain_reads(&pl->chains[c], r)) read = true;
    if (r->kind == REL_SOURCE && read && r->source->emit_global) r->source->emit_global(&g, r);
  }
  for (int e = 0; e < ph->nedges; e++) {
    const PEdge *ed = &ph->edges[e];
    const Stage *from = &ph->stages[ed->from];
    const char *route = ed->kind == XR_GATHER ? "AIR_ROUTE_GATHER"
                        : ed->kind == XR_SAME ? "AIR_ROUTE_LOCAL"
                                              : "AIR_ROUTE_HASH";
    const char *producers = "1";
    if (in_source_loop(from) && leg_source(from)->source->per_thread) producers = "air_threads(g_rt)";
    char rt[16];
    edge_row_type(ph, e, rt, sizeof rt);
    fprintf(su, "  g_edge[%d] = air_edge_new(g_rt, %d, sizeof(%s), %s, %s);\n", e, e, rt, route, producers);
  }
  for (int i = 0; i < ph->nstages; i++)
    if (!in_source_loop(&ph->stages[i])) emit_stage(&g, &ph->stages[i]);
  emit_stack_hint(&g);
  for (int i = 0; i < cat->nrels; i++) {
    const Relation *r = cat->rels[i];
    bool read = false;
    for (int c = 0; c < pl->nchains; c++)
      if (chain_reads(&pl->chains[c], r)) read = true;
    if (r->kind != REL_SOURCE || !read) continue;
    emit_source(&g, r);
    fprintf(su, "  air_vertex_source(g_rt, \"source ");
    c_escape_str(su, r->name, strlen(r->name));
    fprintf(su, "\", source%d, NULL, %s);\n", r->index, r->source->per_thread ? "air_threads(g_rt)" : "1");
  }

  g_in_decls = NULL;
  free(g_in_exprs);
  g_in_exprs = NULL;
  g_in_n = g_in_cap = 0;
  char *types = buf_take(&g.types), *funcs = buf_take(&g.funcs), *setup = buf_take(&g.setup);
  Buf sum, qfile, qname;
  buf_open(&sum);
  buf_open(&qfile);
  buf_open(&qname);
  fprintf(sum.f, "%d quer%s, %d pipelines, %d edges, %s", pl->nchains, pl->nchains == 1 ? "y" : "ies",
          ph->nstages, ph->nedges, ph->fused ? "fused" : "not fused");
  c_comment(qfile.f, pl->query_path);
  c_escape_str(qname.f, pl->query_name, strlen(pl->query_name));
  char *sum_s = buf_take(&sum), *qfile_s = buf_take(&qfile), *qname_s = buf_take(&qname);
  TplHole holes[] = {{"VERSION", AIRC_VERSION}, {"QUERY_FILE", qfile_s}, {"PLAN_SUMMARY", sum_s},
                     {"QUERY_NAME", qname_s},   {"types", types},        {"functions", funcs},
                     {"setup", setup}};
  char err[256];
  if (g.ok && !tpl_fill(out, "program.c.tpl", holes, (int)(sizeof holes / sizeof holes[0]), err, sizeof err)) {
    diag_fatal_noloc(d, "internal error: %s", err);
    g.ok = false;
  }
  free(types);
  free(funcs);
  free(setup);
  free(sum_s);
  free(qfile_s);
  free(qname_s);
  return g.ok;
}

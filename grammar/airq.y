/* airq.y - the grammar of AIRQ (see docs/language.md) and parse_program().
 *
 * A pure, location-tracking LALR(1) parser. Every node is allocated from the
 * caller's arena and keeps its source location. Errors are recovered at
 * statement level (`error ';'`), so one run reports several of them;
 * anything an action rejects (a bad VARCHAR length, an out-of-range literal,
 * too deep a nesting) is reported with its location and drops the statement.
 */

%define api.pure full
%define api.prefix {airq}
%define api.token.prefix {TOK_}
%define api.location.type {AirqLoc}
%define parse.error custom
%define parse.lac full
%locations
%expect 0

%param {yyscan_t scanner}
%parse-param {ParseState *ps}

%code requires {
#include "airc.h"

#ifndef YY_TYPEDEF_YY_SCANNER_T
#define YY_TYPEDEF_YY_SCANNER_T
typedef void *yyscan_t;
#endif

/* A span of source text: bison's usual four fields plus byte offsets (to
 * recover an expression's text) and the length of its first token. */
typedef struct AirqLoc {
  int first_line, first_column; /* 1-based start */
  int last_line, last_column;   /* 1-based, just past the end */
  int first_len;                /* bytes of the first token on its line */
  size_t first_off, last_off;   /* [first_off, last_off) in the text */
} AirqLoc;

/* One element of a CREATE STREAM/TABLE column list. */
typedef enum { EL_COLUMN, EL_WATERMARK, EL_PKEY } ElemKind;
typedef struct Elem Elem;
struct Elem {
  ElemKind kind;    /* see ElemKind */
  SrcLoc loc;       /* where it starts */
  ColumnDef *col;   /* EL_COLUMN */
  WatermarkDef *wm; /* EL_WATERMARK */
  const char *key;  /* EL_PKEY column */
  SrcLoc key_loc;   /* location of that column */
  Elem *next;
};

/* Lists are built left-recursively with a tail pointer: O(1) appends. */
typedef struct ExprList { Expr *head, *tail; } ExprList;
typedef struct ItemList { SelectItem *head, *tail; } ItemList;
typedef struct OptList { Option *head, *tail; } OptList;
typedef struct ElemList { Elem *head, *tail; } ElemList;

/* The tail of a SELECT after its FROM item: GROUP BY and WINDOW. */
typedef struct GroupWin { Expr *group_by; WindowSpec *window; } GroupWin;

/* The join part of a FROM clause. */
typedef struct JoinPart { bool present; FromItem item; Expr *on; } JoinPart;

/* Everything the scanner and the parser share. */
typedef struct ParseState {
  Arena *arena;        /* owns every node */
  Diag *d;             /* where errors go; d->text is the input */
  Stmt *head, **tail;  /* statements parsed so far */
  int line, col;       /* scanner position, 1-based */
  size_t off;          /* scanner position, byte offset */
  AirqLoc prev;        /* the last token returned (end of file points after it) */
  bool have_prev;      /* prev is set */
  AirqLoc comment;     /* start of the block comment being skipped */
  size_t nul_end;      /* end offset of the last run of NUL bytes reported */
  bool stop;           /* too many errors: report nothing more, end the parse */
  int nreported;       /* errors reported by the parser and scanner */
} ParseState;

/* Reports a located error from the scanner or parser (counted and capped). */
void airq_error_at(ParseState *ps, const AirqLoc *loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
SrcLoc airq_srcloc(const AirqLoc *loc);
}

%code provides {
/* flex's header names bison's types without the prefix */
#ifndef YYSTYPE
#define YYSTYPE AIRQSTYPE
#endif
#ifndef YYLTYPE
#define YYLTYPE AIRQLTYPE
#endif
int airqlex(AIRQSTYPE *lval, AIRQLTYPE *lloc, yyscan_t scanner);
}

%code {
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lex.airq.h"

/* Source spans: first/last from the first/last symbol; an empty rule sits
 * at the end of what came before it. */
#define YYLLOC_DEFAULT(Cur, Rhs, N)                                          \
  do {                                                                       \
    if (N) {                                                                 \
      (Cur).first_line = YYRHSLOC(Rhs, 1).first_line;                        \
      (Cur).first_column = YYRHSLOC(Rhs, 1).first_column;                    \
      (Cur).first_len = YYRHSLOC(Rhs, 1).first_len;                          \
      (Cur).first_off = YYRHSLOC(Rhs, 1).first_off;                          \
      (Cur).last_line = YYRHSLOC(Rhs, N).last_line;                          \
      (Cur).last_column = YYRHSLOC(Rhs, N).last_column;                      \
      (Cur).last_off = YYRHSLOC(Rhs, N).last_off;                            \
    } else {                                                                 \
      (Cur).first_line = (Cur).last_line = YYRHSLOC(Rhs, 0).last_line;       \
      (Cur).first_column = (Cur).last_column = YYRHSLOC(Rhs, 0).last_column; \
      (Cur).first_off = (Cur).last_off = YYRHSLOC(Rhs, 0).last_off;          \
      (Cur).first_len = 1;                                                   \
    }                                                                        \
  } while (0)

/* An action that rejects its input: the error is already reported. */
#define CHECK(x)  \
  do {            \
    if (!(x))     \
      YYERROR;    \
  } while (0)

#define APPEND(list, item)        \
  do {                            \
    if ((list).tail)              \
      (list).tail->next = (item); \
    else                          \
      (list).head = (item);       \
    (list).tail = (item);         \
  } while (0)

static void airqerror(AIRQLTYPE *loc, yyscan_t scanner, ParseState *ps, const char *msg);
static void suggest_unit(ParseState *ps, const AirqLoc *loc, const char *word);

enum { MAX_ERRORS = 50,   /* the parser stops after this many */
       TEXT_MAX = 65536 }; /* longest Expr.text kept whole */

static SrcLoc loc_of(const AirqLoc *l) {
  return airq_srcloc(l);
}

/* The expression's source text with comments dropped and each run of
 * white space made one space: "COUNT( * )" stays as written, but
 * "a  +\n b" becomes "a + b". */
static const char *span_text(ParseState *ps, const AirqLoc *l) {
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

static Expr *mk(ParseState *ps, ExprKind kind, const AirqLoc *l) {
  Expr *e = new_expr(ps->arena, kind, loc_of(l));
  e->text = span_text(ps, l);
  return e;
}

static void deepest(void *d, Expr *child) {
  if (child->depth > *(int *)d)
    *(int *)d = child->depth;
}

/* Sets e->depth from its children; reports and fails past AST_MAX_DEPTH. */
static Expr *deepen(ParseState *ps, Expr *e) {
  int d = 0;
  expr_each_child(e, deepest, &d);
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

static Expr *mk_binary(ParseState *ps, const AirqLoc *l, OpKind op, Expr *a, Expr *b) {
  Expr *e = mk(ps, EX_BINARY, l);
  e->op = op;
  e->lhs = a;
  e->rhs = b;
  return deepen(ps, e);
}

static Expr *mk_unary(ParseState *ps, const AirqLoc *l, OpKind op, Expr *a) {
  /* -literal is a literal: option values and generator bounds stay simple */
  if (op == OP_NEG && (a->kind == EX_INT || a->kind == EX_DOUBLE) && a->depth == 1 &&
      !(a->kind == EX_INT && a->ival == INT64_MIN)) {
    Expr *e = mk(ps, a->kind, l);
    e->ival = -a->ival;
    e->dval = -a->dval;
    return e;
  }
  Expr *e = mk(ps, EX_UNARY, l);
  e->op = op;
  e->lhs = a;
  return deepen(ps, e);
}

static Expr *mk_int(ParseState *ps, const AirqLoc *l, const char *digits) {
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
  Expr *e = mk(ps, EX_INT, l);
  e->ival = v;
  return e;
}

static Expr *mk_double(ParseState *ps, const AirqLoc *l, const char *text) {
  errno = 0;
  double v = strtod(text, NULL);
  if (isinf(v)) {
    airq_error_at(ps, l, "number %s is too large for DOUBLE", text);
    return NULL;
  }
  Expr *e = mk(ps, EX_DOUBLE, l);
  e->dval = v;
  return e;
}

static Expr *mk_string(ParseState *ps, const AirqLoc *l, const char *s) {
  Expr *e = mk(ps, EX_STRING, l);
  e->sval = s;
  e->slen = strlen(s);
  return e;
}

/* "SECONDS" -> 1000; the scanner only returns UNIT for the known words */
static int64_t unit_ms(const char *u) {
  static const struct { const char *name; int64_t ms; } units[] = {
      {"MILLISECOND", 1}, {"SECOND", 1000}, {"MINUTE", 60000}, {"HOUR", 3600000}};
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
static Expr *mk_interval(ParseState *ps, const AirqLoc *l, const AirqLoc *nl,
                         const char *count, bool quoted, const char *unit) {
  int64_t ms = unit_ms(unit), v = 0;
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
  Expr *e = mk(ps, EX_INTERVAL, l);
  e->ival = v * ms;
  return e;
}

static Type mk_type(const char *name) {
  static const struct { const char *name; TypeKind kind; } types[] = {
      {"BOOLEAN", TY_BOOL}, {"INT", TY_INT},       {"INTEGER", TY_INT},
      {"BIGINT", TY_BIGINT}, {"DOUBLE", TY_DOUBLE}, {"TIMESTAMP", TY_TIMESTAMP}};
  Type t = {TY_ERROR, 0};
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
    if (strcasecmp(name, types[i].name) == 0)
      t.kind = types[i].kind;
  return t;
}

enum { VARCHAR_MAX = 65535 };

static bool mk_varchar(ParseState *ps, const AirqLoc *l, const char *digits, Type *t) {
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

static Stmt *mk_stmt(ParseState *ps, StmtKind kind, const AirqLoc *l, const char *name,
                     const AirqLoc *nl) {
  Stmt *s = arena_alloc(ps->arena, sizeof(Stmt));
  s->kind = kind;
  s->loc = loc_of(l);
  s->name = name;
  if (nl)
    s->name_loc = loc_of(nl);
  return s;
}

static void add_stmt(ParseState *ps, Stmt *s) {
  *ps->tail = s;
  ps->tail = &s->next;
}

/* Splits a column list into columns, watermark and key, and checks that
 * the statement allows what it holds. */
static bool take_elems(ParseState *ps, Stmt *s, Elem *els) {
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
      break;
    case EL_WATERMARK:
      if (table) {
        airq_error_at(ps, &at, "WATERMARK is not allowed in CREATE TABLE");
        ok = false;
      } else if (s->wm) {
        airq_error_at(ps, &at, "only one WATERMARK clause is allowed");
        ok = false;
      }
      s->wm = e->wm;
      break;
    case EL_PKEY:
      if (!table) {
        airq_error_at(ps, &at, "PRIMARY KEY is only allowed in CREATE TABLE");
        ok = false;
      } else if (s->pkey) {
        airq_error_at(ps, &at, "only one PRIMARY KEY is allowed");
        ok = false;
      }
      s->pkey = e->key;
      s->pkey_loc = e->key_loc;
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

static FromItem mk_from(const char *name, const AirqLoc *nl, const char *alias,
                        const AirqLoc *al) {
  FromItem f = {0};
  f.name = name;
  f.loc = loc_of(nl);
  f.alias = alias;
  if (alias)
    f.alias_loc = loc_of(al);
  return f;
}
}

%union {
  const char *str;     /* identifiers, keywords as written; literals */
  Expr *expr;
  ExprList exprs;
  OpKind op;
  Type type;
  Stmt *stmt;
  Select *sel;
  SelectItem *item;
  ItemList items;
  ColumnDef *col;
  Option *opt;
  OptList opts;
  Elem *elem;
  ElemList elems;
  WindowSpec *win;
  GroupWin gw;
  JoinPart join;
}

/* literals and names */
%token <str> IDENT    "identifier"
%token <str> INTEGER  "integer literal"
%token <str> DECIMAL  "number"
%token <str> STRING   "string literal"

/* reserved words */
%token <str> SELECT "SELECT" FROM "FROM" WHERE "WHERE" GROUP "GROUP" BY "BY"
%token <str> HAVING "HAVING" WINDOW "WINDOW" JOIN "JOIN" ON "ON" AS "AS"
%token <str> AND "AND" OR "OR" NOT "NOT" IN "IN" BETWEEN "BETWEEN"
%token <str> CASE "CASE" WHEN "WHEN" THEN "THEN" ELSE "ELSE" END "END" CAST "CAST"
%token <str> CREATE "CREATE" INSERT "INSERT" INTO "INTO" WITH "WITH"
%token <str> TRUE "TRUE" FALSE "FALSE" INTERVAL "INTERVAL"
%token <str> WINDOW_START "WINDOW_START" WINDOW_END "WINDOW_END"
%token <str> PRIMARY "PRIMARY" WATERMARK "WATERMARK" FOR "FOR" GENERATED "GENERATED"

/* words that are keywords in one place and may be names everywhere else */
%token <str> STREAM "STREAM" TABLE "TABLE" SINK "SINK" KEY "KEY"
%token <str> SIZE "SIZE" ADVANCE "ADVANCE" GAP "GAP"
%token <str> TUMBLING "TUMBLING" HOPPING "HOPPING" SESSION "SESSION"
%token <str> UNIT "time unit" TYPENAME "type name" VARCHAR "VARCHAR"

/* operators */
%token NE "<>" LE "<=" GE ">="

%type <str> ident opt_alias
%type <expr> expr and_expr not_expr pred arith term factor primary literal
%type <expr> column call interval duration when opt_else gen
%type <exprs> expr_list when_list
%type <op> cmp_op
%type <type> type
%type <stmt> create_stream create_table create_sink insert
%type <sel> select
%type <item> select_item
%type <items> select_list
%type <col> column_def
%type <opt> option
%type <opts> options opt_with
%type <elem> elem
%type <elems> elems
%type <win> window_spec
%type <gw> group_window
%type <join> opt_join
%type <expr> opt_where opt_having
%type <str> unit

%%

// program = stmt*
program:
  %empty
| program stmt
;

// stmt = (create | select | insert)? ";"
stmt:
  create_stream ';' { add_stmt(ps, $1); }
| create_table ';'  { add_stmt(ps, $1); }
| create_sink ';'   { add_stmt(ps, $1); }
| insert ';'        { add_stmt(ps, $1); }
| select ';' {
    Stmt *s = mk_stmt(ps, ST_SELECT, &@1, NULL, NULL);
    s->loc = $1->loc; /* the SELECT keyword, not the whole query */
    s->select = $1;
    add_stmt(ps, s);
  }
| ';'
| error ';' { yyerrok; }
;

// create_stream = "CREATE" "STREAM" ident ( "(" elems ")" opt_with | "AS" select )
create_stream:
  CREATE STREAM ident '(' elems ')' opt_with {
    $$ = mk_stmt(ps, ST_CREATE_STREAM, &@1, $3, &@3);
    CHECK(take_elems(ps, $$, $5.head));
    $$->opts = $7.head;
  }
| CREATE STREAM ident AS select {
    $$ = mk_stmt(ps, ST_CREATE_STREAM_AS, &@1, $3, &@3);
    $$->select = $5;
  }
;

// create_table = "CREATE" "TABLE" ident "(" elems ")" opt_with
create_table:
  CREATE TABLE ident '(' elems ')' opt_with {
    $$ = mk_stmt(ps, ST_CREATE_TABLE, &@1, $3, &@3);
    CHECK(take_elems(ps, $$, $5.head));
    $$->opts = $7.head;
  }
;

// create_sink = "CREATE" "SINK" ident opt_with
create_sink:
  CREATE SINK ident opt_with {
    $$ = mk_stmt(ps, ST_CREATE_SINK, &@1, $3, &@3);
    $$->opts = $4.head;
  }
;

// insert = "INSERT" "INTO" ident select
insert:
  INSERT INTO ident select {
    $$ = mk_stmt(ps, ST_INSERT, &@1, $3, &@3);
    $$->select = $4;
  }
;

// elems = elem ("," elem)*
elems:
  elem           { $$.head = $$.tail = NULL; APPEND($$, $1); }
| elems ',' elem { $$ = $1; APPEND($$, $3); }
;

// elem = column_def | "WATERMARK" "FOR" ident "AS" expr | "PRIMARY" "KEY" "(" ident ")"
elem:
  column_def {
    $$ = arena_alloc(ps->arena, sizeof(Elem));
    $$->kind = EL_COLUMN;
    $$->loc = $1->loc;
    $$->col = $1;
  }
| WATERMARK FOR ident AS expr {
    $$ = arena_alloc(ps->arena, sizeof(Elem));
    $$->kind = EL_WATERMARK;
    $$->loc = loc_of(&@1);
    $$->wm = arena_alloc(ps->arena, sizeof(WatermarkDef));
    $$->wm->column = $3;
    $$->wm->loc = loc_of(&@3);
    $$->wm->expr = $5;
  }
| PRIMARY KEY '(' ident ')' {
    $$ = arena_alloc(ps->arena, sizeof(Elem));
    $$->kind = EL_PKEY;
    $$->loc = loc_of(&@1);
    $$->key = $4;
    $$->key_loc = loc_of(&@4);
  }
;

// column_def = ident type ("GENERATED" "BY" call)?
column_def:
  ident type gen {
    $$ = arena_alloc(ps->arena, sizeof(ColumnDef));
    $$->name = $1;
    $$->loc = loc_of(&@1);
    $$->type = $2;
    $$->type_loc = loc_of(&@2);
    $$->gen = $3;
  }
;

gen:
  %empty            { $$ = NULL; }
| GENERATED BY call { $$ = $3; }
;

// type = BOOLEAN | INT | INTEGER | BIGINT | DOUBLE | TIMESTAMP | "VARCHAR" "(" integer ")"
type:
  TYPENAME                    { $$ = mk_type($1); }
| VARCHAR '(' INTEGER ')'     { CHECK(mk_varchar(ps, &@3, $3, &$$)); }
;

// opt_with = ("WITH" "(" option ("," option)* ")")?
opt_with:
  %empty                { $$.head = $$.tail = NULL; }
| WITH '(' options ')'  { $$ = $3; }
;

options:
  option             { $$.head = $$.tail = NULL; APPEND($$, $1); }
| options ',' option { $$ = $1; APPEND($$, $3); }
;

// option = ident "=" (string | ["-"] number | TRUE | FALSE)
option:
  ident '=' literal {
    $$ = arena_alloc(ps->arena, sizeof(Option));
    $$->key = $1;
    $$->loc = loc_of(&@1);
    $$->value = $3;
  }
| ident '=' '-' literal {
    $$ = arena_alloc(ps->arena, sizeof(Option));
    $$->key = $1;
    $$->loc = loc_of(&@1);
    if ($4->kind != EX_INT && $4->kind != EX_DOUBLE) {
      airq_error_at(ps, &@4, "only a number can be negative");
      YYERROR;
    }
    /* the value spans '-' and the number */
    AirqLoc l = @3;
    l.last_line = @4.last_line;
    l.last_column = @4.last_column;
    l.last_off = @4.last_off;
    $$->value = mk_unary(ps, &l, OP_NEG, $4);
  }
;

// select = "SELECT" items "FROM" from_item join? ("WHERE" expr)? group_window ("HAVING" expr)?
select:
  SELECT select_list FROM ident opt_alias opt_join opt_where group_window opt_having {
    $$ = arena_alloc(ps->arena, sizeof(Select));
    $$->loc = loc_of(&@1);
    $$->items = $2.head;
    $$->from[0] = mk_from($4, &@4, $5, &@5);
    $$->nfrom = 1;
    if ($6.present) {
      $$->from[1] = $6.item;
      $$->nfrom = 2;
      $$->join_on = $6.on;
    }
    $$->where = $7;
    $$->group_by = $8.group_by;
    $$->window = $8.window;
    $$->having = $9;
  }
;

select_list:
  select_item                 { $$.head = $$.tail = NULL; APPEND($$, $1); }
| select_list ',' select_item { $$ = $1; APPEND($$, $3); }
;

// select_item = expr ("AS" ident)? | "*" | ident "." "*"
select_item:
  expr {
    $$ = arena_alloc(ps->arena, sizeof(SelectItem));
    $$->expr = $1;
  }
| expr AS ident {
    $$ = arena_alloc(ps->arena, sizeof(SelectItem));
    $$->expr = $1;
    $$->alias = $3;
    $$->alias_loc = loc_of(&@3);
  }
| '*' {
    $$ = arena_alloc(ps->arena, sizeof(SelectItem));
    $$->expr = mk(ps, EX_STAR, &@1);
  }
| ident '.' '*' {
    $$ = arena_alloc(ps->arena, sizeof(SelectItem));
    $$->expr = mk(ps, EX_STAR, &@$);
    $$->expr->qual = $1;
    $$->expr->name_loc = loc_of(&@3);
  }
;

// alias = ("AS")? ident
opt_alias:
  %empty   { $$ = NULL; }
| AS ident { $$ = $2; @$ = @2; }
| ident    { $$ = $1; }
;

// join = "JOIN" ident alias? "ON" expr
opt_join:
  %empty { $$.present = false; }
| JOIN ident opt_alias ON expr {
    $$.present = true;
    $$.item = mk_from($2, &@2, $3, &@3);
    $$.on = $5;
  }
;

opt_where:
  %empty     { $$ = NULL; }
| WHERE expr { $$ = $2; }
;

// group_window = ("GROUP" "BY" exprs)? ("WINDOW" spec)?, in either order
group_window:
  %empty                                   { $$.group_by = NULL; $$.window = NULL; }
| GROUP BY expr_list                       { $$.group_by = $3.head; $$.window = NULL; }
| WINDOW window_spec                       { $$.group_by = NULL; $$.window = $2; }
| GROUP BY expr_list WINDOW window_spec    { $$.group_by = $3.head; $$.window = $5; }
| WINDOW window_spec GROUP BY expr_list    { $$.group_by = $5.head; $$.window = $2; }
;

opt_having:
  %empty      { $$ = NULL; }
| HAVING expr { $$ = $2; }
;

// window_spec = "TUMBLING" "(" "SIZE" d ")" | "HOPPING" "(" "SIZE" d "," "ADVANCE" "BY" d ")"
//             | "SESSION" "(" "GAP" d ")"
window_spec:
  TUMBLING '(' SIZE duration ')' {
    $$ = arena_alloc(ps->arena, sizeof(WindowSpec));
    $$->kind = WIN_TUMBLING;
    $$->loc = loc_of(&@1);
    $$->size = $4;
  }
| HOPPING '(' SIZE duration ',' ADVANCE BY duration ')' {
    $$ = arena_alloc(ps->arena, sizeof(WindowSpec));
    $$->kind = WIN_HOPPING;
    $$->loc = loc_of(&@1);
    $$->size = $4;
    $$->advance = $8;
  }
| SESSION '(' GAP duration ')' {
    $$ = arena_alloc(ps->arena, sizeof(WindowSpec));
    $$->kind = WIN_SESSION;
    $$->loc = loc_of(&@1);
    $$->gap = $4;
  }
;

// duration = interval | integer unit | string unit
duration:
  interval
| INTEGER unit { CHECK($$ = mk_interval(ps, &@$, &@1, $1, false, $2)); }
| STRING unit  { CHECK($$ = mk_interval(ps, &@$, &@1, $1, true, $2)); }
;

// interval = "INTERVAL" (integer | string) unit
interval:
  INTERVAL INTEGER unit { CHECK($$ = mk_interval(ps, &@$, &@2, $2, false, $3)); }
| INTERVAL STRING unit  { CHECK($$ = mk_interval(ps, &@$, &@2, $2, true, $3)); }
;

unit:
  UNIT
| IDENT {
    airq_error_at(ps, &@1,
                  "unknown time unit '%s' (expected MILLISECOND, SECOND, MINUTE or HOUR)", $1);
    suggest_unit(ps, &@1, $1);
    YYERROR;
  }
;

// expr = and_expr ("OR" and_expr)*
expr:
  expr OR and_expr { CHECK($$ = mk_binary(ps, &@$, OP_OR, $1, $3)); }
| and_expr
;

and_expr:
  and_expr AND not_expr { CHECK($$ = mk_binary(ps, &@$, OP_AND, $1, $3)); }
| not_expr
;

// not_expr = "NOT" not_expr | pred
not_expr:
  NOT not_expr { CHECK($$ = mk_unary(ps, &@$, OP_NOT, $2)); }
| pred
;

// pred = arith (cmp arith | "IN" "(" exprs ")" | "BETWEEN" arith "AND" arith)?
pred:
  arith cmp_op arith { CHECK($$ = mk_binary(ps, &@$, $2, $1, $3)); }
| arith IN '(' expr_list ')' {
    $$ = mk(ps, EX_IN, &@$);
    $$->lhs = $1;
    $$->args = $4.head;
    CHECK($$ = deepen(ps, $$));
  }
| arith BETWEEN arith AND arith {
    $$ = mk(ps, EX_BETWEEN, &@$);
    $$->lhs = $1;
    $$->rhs = $3;
    $$->third = $5;
    CHECK($$ = deepen(ps, $$));
  }
| arith
;

cmp_op:
  '=' { $$ = OP_EQ; }
| NE  { $$ = OP_NE; }
| '<' { $$ = OP_LT; }
| LE  { $$ = OP_LE; }
| '>' { $$ = OP_GT; }
| GE  { $$ = OP_GE; }
;

// arith = term (("+" | "-") term)*
arith:
  arith '+' term { CHECK($$ = mk_binary(ps, &@$, OP_ADD, $1, $3)); }
| arith '-' term { CHECK($$ = mk_binary(ps, &@$, OP_SUB, $1, $3)); }
| term
;

// term = factor (("*" | "/" | "%") factor)*
term:
  term '*' factor { CHECK($$ = mk_binary(ps, &@$, OP_MUL, $1, $3)); }
| term '/' factor { CHECK($$ = mk_binary(ps, &@$, OP_DIV, $1, $3)); }
| term '%' factor { CHECK($$ = mk_binary(ps, &@$, OP_MOD, $1, $3)); }
| factor
;

// factor = ("-" | "+") factor | primary
factor:
  '-' factor { CHECK($$ = mk_unary(ps, &@$, OP_NEG, $2)); }
| '+' factor { $$ = $2; }
| primary
;

primary:
  literal
| interval
| column
| call
| '(' expr ')' { $$ = $2; }
| CASE when_list opt_else END {
    $$ = mk(ps, EX_CASE, &@$);
    $$->args = $2.head;
    $$->else_ = $3;
    CHECK($$ = deepen(ps, $$));
  }
| CAST '(' expr AS type ')' {
    $$ = mk(ps, EX_CAST, &@$);
    $$->lhs = $3;
    $$->cast_to = $5;
    CHECK($$ = deepen(ps, $$));
  }
| WINDOW_START { $$ = mk(ps, EX_WINDOW_START, &@$); }
| WINDOW_END   { $$ = mk(ps, EX_WINDOW_END, &@$); }
;

literal:
  INTEGER { CHECK($$ = mk_int(ps, &@1, $1)); }
| DECIMAL { CHECK($$ = mk_double(ps, &@1, $1)); }
| STRING  { $$ = mk_string(ps, &@1, $1); }
| TRUE    { $$ = mk(ps, EX_BOOL, &@1); $$->ival = 1; }
| FALSE   { $$ = mk(ps, EX_BOOL, &@1); $$->ival = 0; }
;

// column = ident ("." ident)?
column:
  ident {
    $$ = mk(ps, EX_COLUMN, &@1);
    $$->name = $1;
  }
| ident '.' ident {
    $$ = mk(ps, EX_COLUMN, &@$);
    $$->qual = $1;
    $$->name = $3;
    $$->name_loc = loc_of(&@3);
  }
;

// call = ident "(" ("*" | exprs)? ")"
call:
  ident '(' ')' {
    $$ = mk(ps, EX_CALL, &@$);
    $$->name = $1;
    $$->name_loc = loc_of(&@1);
  }
| ident '(' '*' ')' {
    $$ = mk(ps, EX_CALL, &@$);
    $$->name = $1;
    $$->name_loc = loc_of(&@1);
    $$->args = mk(ps, EX_STAR, &@3);
    CHECK($$ = deepen(ps, $$));
  }
| ident '(' expr_list ')' {
    $$ = mk(ps, EX_CALL, &@$);
    $$->name = $1;
    $$->name_loc = loc_of(&@1);
    $$->args = $3.head;
    CHECK($$ = deepen(ps, $$));
  }
;

expr_list:
  expr               { $$.head = $$.tail = NULL; APPEND($$, $1); }
| expr_list ',' expr { $$ = $1; APPEND($$, $3); }
;

when_list:
  when           { $$.head = $$.tail = NULL; APPEND($$, $1); }
| when_list when { $$ = $1; APPEND($$, $2); }
;

// when = "WHEN" expr "THEN" expr
when:
  WHEN expr THEN expr {
    $$ = mk(ps, EX_WHEN, &@$);
    $$->lhs = $2;
    $$->rhs = $4;
    CHECK($$ = deepen(ps, $$));
  }
;

opt_else:
  %empty    { $$ = NULL; }
| ELSE expr { $$ = $2; }
;

// A name: an identifier, or a word that is a keyword only elsewhere.
ident:
  IDENT | STREAM | TABLE | SINK | KEY | SIZE | ADVANCE | GAP
| TUMBLING | HOPPING | SESSION | UNIT | TYPENAME | VARCHAR
;

%%

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

static void airqerror(AIRQLTYPE *loc, yyscan_t scanner, ParseState *ps, const char *msg) {
  (void)scanner;
  /* bison's only other message is about its own stack: reached only by
   * thousands of nested prefix operators or parentheses */
  if (strcmp(msg, "memory exhausted") == 0)
    msg = "expression nested too deeply";
  airq_error_at(ps, loc, "%s", msg);
}

/* A token's name as a message shows it: keywords and descriptions plain,
 * punctuation quoted (';'). */
static void token_name(char *buf, size_t n, const char *name) {
  size_t len = strlen(name);
  if (len >= 2 && name[0] == '"' && name[len - 1] == '"') {
    name++;
    len -= 2;
  }
  bool word = false;
  for (size_t i = 0; i < len; i++)
    if ((name[i] >= 'A' && name[i] <= 'Z') || (name[i] >= 'a' && name[i] <= 'z'))
      word = true;
  if (word || name[0] == '\'')
    snprintf(buf, n, "%.*s", (int)len, name);
  else
    snprintf(buf, n, "'%.*s'", (int)len, name);
}

static bool starts_expr(yysymbol_kind_t k) {
  static const char *const starts[] = {"'('", "'-'", "'+'"};
  if (k == YYSYMBOL_IDENT || k == YYSYMBOL_INTEGER || k == YYSYMBOL_DECIMAL ||
      k == YYSYMBOL_STRING || k == YYSYMBOL_TRUE || k == YYSYMBOL_FALSE ||
      k == YYSYMBOL_INTERVAL || k == YYSYMBOL_CASE || k == YYSYMBOL_CAST ||
      k == YYSYMBOL_WINDOW_START || k == YYSYMBOL_WINDOW_END || k == YYSYMBOL_NOT)
    return true;
  for (size_t i = 0; i < sizeof starts / sizeof starts[0]; i++)
    if (strcmp(yysymbol_name(k), starts[i]) == 0)
      return true;
  return false;
}

/* ---- "did you mean" for keywords ---------------------------------- */

enum { KW_MAX = 24 }; /* longest keyword, with room to spare */

static const char *const type_words[] = {"BOOLEAN", "INT",      "INTEGER",  "BIGINT",
                                         "DOUBLE",  "TIMESTAMP"};
static const char *const unit_words[] = {"MILLISECOND", "MILLISECONDS", "SECOND", "SECONDS",
                                         "MINUTE",      "MINUTES",      "HOUR",   "HOURS"};

/* The keyword a token stands for (SELECT), or false for punctuation and
 * descriptions such as "identifier" (keywords are the all-capital names). */
static bool keyword_of(yysymbol_kind_t k, char *buf, size_t n) {
  const char *name = yysymbol_name(k);
  size_t len = strlen(name);
  if (len >= 2 && name[0] == '"' && name[len - 1] == '"') {
    name++;
    len -= 2;
  }
  if (len == 0 || len >= n)
    return false;
  for (size_t i = 0; i < len; i++)
    if (!((name[i] >= 'A' && name[i] <= 'Z') || name[i] == '_'))
      return false;
  memcpy(buf, name, len);
  buf[len] = '\0';
  return true;
}

/* The words that would have been accepted where a keyword was expected. */
static int keyword_candidates(const yysymbol_kind_t *exp, int nexp,
                              char (*store)[KW_MAX], const char **cands, int max) {
  int n = 0;
  for (int i = 0; i < nexp; i++) {
    if (exp[i] == YYSYMBOL_TYPENAME || exp[i] == YYSYMBOL_UNIT) {
      bool types = exp[i] == YYSYMBOL_TYPENAME;
      const char *const *w = types ? type_words : unit_words;
      int nw = types ? (int)(sizeof type_words / sizeof *type_words)
                     : (int)(sizeof unit_words / sizeof *unit_words);
      for (int j = 0; j < nw && n < max; j++)
        cands[n++] = w[j];
    } else if (n < max && keyword_of(exp[i], store[i], KW_MAX)) {
      cands[n++] = store[i];
    }
  }
  return n;
}

static void suggest_unit(ParseState *ps, const AirqLoc *loc, const char *word) {
  const char *best = diag_suggest(word, unit_words, (int)(sizeof unit_words / sizeof *unit_words));
  if (best && !ps->stop)
    diag_note(ps->d, airq_srcloc(loc), "did you mean '%s'?", best);
}

static bool is_keyword_word(const char *word) {
  char kw[KW_MAX];
  for (int k = 0; k < YYNTOKENS; k++)
    if (keyword_of((yysymbol_kind_t)k, kw, sizeof kw) && strcasecmp(kw, word) == 0)
      return true;
  for (size_t j = 0; j < sizeof type_words / sizeof *type_words; j++)
    if (strcasecmp(type_words[j], word) == 0)
      return true;
  for (size_t j = 0; j < sizeof unit_words / sizeof *unit_words; j++)
    if (strcasecmp(unit_words[j], word) == 0)
      return true;
  return false;
}

static bool word_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

/* The word just before the token at `l`, when only white space separates
 * them: a misspelt keyword that the grammar took as an alias (FROM s GROPU
 * BY k) shows up only at the token after it. */
static bool word_before(const ParseState *ps, const AirqLoc *l, char *buf, size_t n,
                        SrcLoc *at) {
  const char *t = ps->d->text;
  size_t end = l->first_off;
  if (!t || end > ps->d->text_len)
    return false;
  while (end > 0 && (t[end - 1] == ' ' || t[end - 1] == '\t' || t[end - 1] == '\n' ||
                     t[end - 1] == '\r'))
    end--;
  size_t start = end;
  while (start > 0 && word_char(t[start - 1]))
    start--;
  if (start == end || end - start >= n || (t[start] >= '0' && t[start] <= '9'))
    return false;
  size_t bol = start;
  while (bol > 0 && t[bol - 1] != '\n')
    bol--;
  for (size_t i = bol; i + 1 < start; i++)
    if ((t[i] == '-' && t[i + 1] == '-') || t[i] == '\'' || (t[i] == '/' && t[i + 1] == '*'))
      return false; /* in a comment or after a quote: not a token we can trust */
  int newlines = 0;
  for (size_t i = start; i < l->first_off; i++)
    newlines += t[i] == '\n';
  memcpy(buf, t + start, end - start);
  buf[end - start] = '\0';
  at->line = l->first_line - newlines;
  at->col = (int)(start - bol) + 1;
  at->len = (int)(end - start);
  return at->line > 0;
}

/* After a syntax error: "did you mean 'GROUP'?" when the offending
 * identifier, or the identifier just before the offending token, is one
 * typo away from a keyword the parser would have accepted there. */
static void suggest_keyword(ParseState *ps, const yypcontext_t *ctx, yysymbol_kind_t tok,
                            const yysymbol_kind_t *exp, int nexp) {
  char store[YYNTOKENS][KW_MAX];
  const char *cands[YYNTOKENS + 16];
  int ncands = keyword_candidates(exp, nexp, store, cands, (int)(sizeof cands / sizeof *cands));
  if (ncands == 0 || ps->stop)
    return;
  const AirqLoc *l = yypcontext_location(ctx);
  char word[KW_MAX * 2];
  if (tok == YYSYMBOL_IDENT && l->first_len > 0 && (size_t)l->first_len < sizeof word &&
      l->first_off + (size_t)l->first_len <= ps->d->text_len) {
    memcpy(word, ps->d->text + l->first_off, (size_t)l->first_len);
    word[l->first_len] = '\0';
    const char *best = diag_suggest(word, cands, ncands);
    if (best) {
      diag_note(ps->d, airq_srcloc(l), "did you mean '%s'?", best);
      return;
    }
  }
  SrcLoc at;
  /* a short alias next to a short keyword (ts, AS) is no evidence of a typo */
  if (tok == YYSYMBOL_YYEMPTY || !word_before(ps, l, word, sizeof word, &at) ||
      strlen(word) < 3 || is_keyword_word(word))
    return;
  const char *best = diag_suggest(word, cands, ncands);
  if (best)
    diag_note(ps->d, at, "did you mean '%s'?", best);
}

/* "syntax error, unexpected X[, expecting A or B]". The expected tokens are
 * listed only when there are few of them; a missing ';' before the next
 * statement or the end of file is named alone, because that is what it is. */
static int yyreport_syntax_error(const yypcontext_t *ctx, yyscan_t scanner, ParseState *ps) {
  (void)scanner;
  enum { NEXP = 5 };
  yysymbol_kind_t tok = yypcontext_token(ctx);
  yysymbol_kind_t exp[YYNTOKENS];
  int nexp = yypcontext_expected_tokens(ctx, exp, YYNTOKENS);
  if (nexp < 0)
    nexp = 0;

  char msg[512], name[64];
  size_t n = 0;
  n += (size_t)snprintf(msg + n, sizeof msg - n, "syntax error");
  if (tok != YYSYMBOL_YYEMPTY) {
    token_name(name, sizeof name, yysymbol_name(tok));
    n += (size_t)snprintf(msg + n, sizeof msg - n, ", unexpected %s", name);
    if (tok == YYSYMBOL_IDENT || tok == YYSYMBOL_INTEGER || tok == YYSYMBOL_DECIMAL) {
      const AirqLoc *l = yypcontext_location(ctx);
      int len = l->first_len > 32 ? 32 : l->first_len;
      if (l->first_off + (size_t)len <= ps->d->text_len)
        n += (size_t)snprintf(msg + n, sizeof msg - n, " '%.*s'", len,
                              ps->d->text + l->first_off);
    }
  }
  /* Say "identifier" once rather than listing every non-reserved word,
   * and "expression" rather than every token an expression starts with. */
  bool has_ident = false, has_int = false, semi = false, from = false, rparen = false;
  for (int i = 0; i < nexp; i++) {
    has_ident |= exp[i] == YYSYMBOL_IDENT;
    has_int |= exp[i] == YYSYMBOL_INTEGER;
    semi |= strcmp(yysymbol_name(exp[i]), "';'") == 0;
    rparen |= strcmp(yysymbol_name(exp[i]), "')'") == 0;
    from |= exp[i] == YYSYMBOL_FROM;
  }
  const char *names[YYNTOKENS + 1];
  int nnames = 0;
  if (has_ident && has_int)
    names[nnames++] = "expression";
  for (int i = 0; i < nexp; i++) {
    yysymbol_kind_t k = exp[i];
    if (has_ident && k >= YYSYMBOL_STREAM && k <= YYSYMBOL_VARCHAR)
      continue;
    if (has_ident && has_int && starts_expr(k))
      continue;
    names[nnames++] = yysymbol_name(k);
  }
  bool clause = tok == YYSYMBOL_YYEOF || tok == YYSYMBOL_WHERE || tok == YYSYMBOL_GROUP ||
                tok == YYSYMBOL_WINDOW || tok == YYSYMBOL_HAVING || tok == YYSYMBOL_JOIN ||
                (tok != YYSYMBOL_YYEMPTY && strcmp(yysymbol_name(tok), "';'") == 0);
  if (semi && (tok == YYSYMBOL_YYEOF || tok == YYSYMBOL_SELECT || tok == YYSYMBOL_CREATE ||
               tok == YYSYMBOL_INSERT)) {
    names[0] = "';'";
    nnames = 1;
  } else if (from && clause) {
    names[0] = "FROM";
    nnames = 1;
  } else if (rparen && (clause || tok == YYSYMBOL_FROM || tok == YYSYMBOL_AS)) {
    names[0] = "')'";
    nnames = 1;
  }
  if (nnames < NEXP) {
    for (int i = 0; i < nnames && n < sizeof msg; i++) {
      token_name(name, sizeof name, names[i]);
      n += (size_t)snprintf(msg + n, sizeof msg - n, "%s%s",
                            i == 0 ? ", expecting " : i == nnames - 1 ? " or " : ", ", name);
    }
  }
  airq_error_at(ps, yypcontext_location(ctx), "%s", msg);
  suggest_keyword(ps, ctx, tok, exp, nexp);
  return 0;
}

Program *parse_program(Arena *a, Diag *d) {
  Program *p = arena_alloc(a, sizeof(Program));
  p->arena = a;
  ParseState ps = {0};
  ps.arena = a;
  ps.d = d;
  ps.tail = &ps.head;
  ps.line = 1;
  ps.col = 1;
  if (d->text_len > INT_MAX / 2) {
    diag_fatal_noloc(d, "%s: file too large", d->path ? d->path : "input");
    return p;
  }
  yyscan_t scanner;
  if (airqlex_init_extra(&ps, &scanner) != 0) {
    diag_fatal_noloc(d, "cannot start the scanner");
    return p;
  }
  YY_BUFFER_STATE buf = airq_scan_bytes(d->text ? d->text : "", (int)d->text_len, scanner);
  airqparse(scanner, &ps);
  airq_delete_buffer(buf, scanner);
  airqlex_destroy(scanner);
  p->stmts = ps.head;
  return p;
}

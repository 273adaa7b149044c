/* parse.h - what the grammar (airq.y), the scanner (airq.l) and the
 * node builders (build.c) share: source spans, the parse state, the
 * grammar's list types, and the functions its actions call.
 */
#ifndef AIRQ_PARSE_H
#define AIRQ_PARSE_H

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

/* ORDER BY items and LIMIT. */
typedef struct OrderList { OrderItem *head, *tail; } OrderList;
/* EMIT: how an updating query writes its changes (EMIT_NONE: not said) */
typedef struct EmitPart { int mode; Expr *every; AirqLoc loc; } EmitPart;
/* A query's WITH (state_ttl = duration): NULL when not given */
typedef struct TtlPart { Expr *ttl; AirqLoc loc; } TtlPart;
typedef struct OrderLimit { OrderItem *order; int64_t limit; AirqLoc limit_loc; bool has_limit; } OrderLimit;

/* The join part of a FROM clause. */
/* JoinPart.kind: the sides whose rows without a match go on, padded with NULLs */
enum { JOIN_KEEP_LEFT = 1, JOIN_KEEP_RIGHT = 2 };
typedef struct JoinPart { bool present; bool comma; int kind; FromItem item; Expr *on; } JoinPart;

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
  Stmt *sub_head, **sub_tail; /* the WITH queries and FROM subqueries of the statement being parsed */
  int nsub;            /* FROM subqueries without an alias so far (subquery_N) */
  int nrewrite;        /* derived streams the rewrites made so far (distinct_N, joined_N) */
} ParseState;

/* Reports a located error from the scanner or parser (counted and capped). */
void airq_error_at(ParseState *ps, const AirqLoc *loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
SrcLoc airq_srcloc(const AirqLoc *loc);

/* ---- build.c: the nodes the grammar's actions make ------------------------ */

/* The words a TYPENAME and a UNIT token stand for (for "did you mean"). */
extern const char *const airq_type_words[8];
extern const char *const airq_unit_words[12];

/* The expression's source text, comments dropped, white space runs one space. */
const char *build_text(ParseState *ps, const AirqLoc *l);
/* A node of kind at l, its text the span's. */
Expr *build_node(ParseState *ps, ExprKind kind, const AirqLoc *l);
/* Sets e->depth from its children; reports and returns NULL past AST_MAX_DEPTH. */
Expr *build_deepen(ParseState *ps, Expr *e);
Expr *build_binary(ParseState *ps, const AirqLoc *l, OpKind op, Expr *a, Expr *b);
Expr *build_unary(ParseState *ps, const AirqLoc *l, OpKind op, Expr *a);
/* EXTRACT(unit FROM e): the call unit(e) (YEAR, MONTH, DAY, HOUR, MINUTE,
 * SECOND); NULL after a reported error (another name than EXTRACT, another
 * unit). */
Expr *build_extract(ParseState *ps, const AirqLoc *l, const char *fn, const AirqLoc *fl, const char *unit,
                    const AirqLoc *ul, Expr *e);
/* POSITION(sub IN s): the call LOCATE(sub, s); NULL after a reported
 * error (another name than POSITION). */
Expr *build_position(ParseState *ps, const AirqLoc *l, const char *fn, const AirqLoc *fl, Expr *sub, Expr *s);
/* A subquery where only x [NOT] IN (SELECT ...) takes one: says so, after
 * what (NULL: "a subquery is not a value"). */
void build_no_subquery(ParseState *ps, const AirqLoc *l, const char *what);
/* x IN (SELECT ...), or x NOT IN (SELECT ...) when negate: the subquery
 * kept in the node (sema checks that it reads one TABLE). */
Expr *build_in_select(ParseState *ps, const AirqLoc *l, Expr *x, Select *sub, bool negate);
/* An operator written as a function of two arguments: a LIKE b, a || b. */
Expr *build_call2(ParseState *ps, const AirqLoc *l, const char *name, Expr *a, Expr *b);
/* Literals; NULL after a reported error (out of range, malformed). */
/* DATE 'yyyy-MM-dd' (another type name before a string is an error) */
Expr *build_typed_literal(ParseState *ps, const AirqLoc *l, const char *type, const AirqLoc *tl, const char *text,
                          const AirqLoc *sl);
/* CURRENT_DATE: CAST(CURRENT_TIMESTAMP AS DATE), the UTC day of the wall clock */
Expr *build_current_date(ParseState *ps, const AirqLoc *l);
Expr *build_int(ParseState *ps, const AirqLoc *l, const char *digits);
Expr *build_double(ParseState *ps, const AirqLoc *l, const char *text);
Expr *build_string(ParseState *ps, const AirqLoc *l, const char *s);
int64_t build_unit_ms(const char *u);
Expr *build_interval(ParseState *ps, const AirqLoc *l, const AirqLoc *nl, const char *count,
                     bool quoted, const char *unit);
void build_suggest_unit(ParseState *ps, const AirqLoc *loc, const char *word);
enum { AIRQ_STRING_LEN = 256 }; /* STRING, and VARCHAR without a length: VARCHAR(256) */
bool build_type(ParseState *ps, const AirqLoc *l, const char *name, const char *digits, const AirqLoc *dl,
                Type *t);
bool build_varchar(ParseState *ps, const AirqLoc *l, const char *digits, Type *t);
Stmt *build_stmt(ParseState *ps, StmtKind kind, const AirqLoc *l, const char *name,
                 const AirqLoc *nl);
void build_add_stmt(ParseState *ps, Stmt *s);
/* Splits a column list into columns, watermark and key; false after an error. */
bool build_take_elems(ParseState *ps, Stmt *s, Elem *els);
bool build_tvf(ParseState *ps, FromItem *f, const char *fn, const AirqLoc *fl, const char *stream,
               const AirqLoc *sl, const char *desc, const AirqLoc *dl, const char *time, const AirqLoc *tl,
               Expr *durs, const char *alias, const AirqLoc *al);
bool build_tvf_window(ParseState *ps, Select *sel);
Expr *build_window_time(ParseState *ps, const AirqLoc *l);
/* state_ttl = '1 hour': the duration a text spells, NULL after an error */
Expr *build_duration_text(ParseState *ps, const AirqLoc *l, const char *text);
/* EMIT's word (FINAL, CHANGES, EVERY; `duration`: one follows): its EmitMode, 0 after an error */
int build_emit(ParseState *ps, const AirqLoc *l, const char *word, bool duration);
Select *build_distinct(ParseState *ps, Select *sel);
Select *build_join_agg(ParseState *ps, Select *sel);
Select *build_row_number(ParseState *ps, Select *sel);
FromItem build_from(const char *name, const AirqLoc *nl, const char *alias, const AirqLoc *al);
/* A WITH query or FROM subquery: a derived stream (CREATE STREAM name AS
 * sel) that only the statement being parsed sees; build_add_stmt adds it
 * before that statement, with owner set to it. */
Stmt *build_subquery(ParseState *ps, const char *name, const AirqLoc *nl, Select *sel);
FromItem build_from_subquery(ParseState *ps, const AirqLoc *l, Select *sel, const char *alias, const AirqLoc *al);
/* A statement that did not parse: its subqueries go too. */
void build_drop_subqueries(ParseState *ps);

#endif /* AIRQ_PARSE_H */

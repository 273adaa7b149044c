/* airc.h - the one header of the airc compiler.
 *
 * Split into banner sections, one per file of compiler/ (chibicc style).
 * Phases: grammar (airq.l/airq.y) -> AST (ast.c) -> sema.c -> plan.c ->
 * fuse.c -> codegen.c.  Every phase reads the previous phase's output only.
 */
#ifndef AIRC_H
#define AIRC_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "air_limits.h" /* shared with the runtime: TIMESTAMP range, edge limit, YSB fields */

#define AIRC_VERSION "0.1.0"

/* ======================================================================
 * arena.c - one arena for AST and plan, freed once
 * ====================================================================== */

typedef struct Arena Arena;

Arena *arena_new(void);
void arena_free(Arena *a);                       /* accepts NULL */
void *arena_alloc(Arena *a, size_t n);           /* zeroed, never NULL (aborts on OOM) */
char *arena_strdup(Arena *a, const char *s);
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_printf(Arena *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* ======================================================================
 * diag.c - GCC/Clang style diagnostics with source line and caret
 * ====================================================================== */

/* A source location: 1-based line and column of the first byte, and the
 * length in bytes of the text it covers on that line (>= 1) for '^~~~'. */
typedef struct SrcLoc {
  int line; /* 1-based */
  int col;  /* 1-based, in bytes */
  int len;  /* bytes covered on the first line, at least 1 */
} SrcLoc;

typedef struct Diag {
  const char *path;  /* file name as given on the command line */
  const char *text;  /* the whole source text, NUL-terminated */
  size_t text_len;   /* bytes in text (the file may hold NUL bytes) */
  int nerrors;       /* errors reported so far */
  int nwarnings;     /* warnings reported so far */
  FILE *out;         /* where diagnostics go (stderr) */
  int seen_line;     /* the last line shown (0: none) and where it starts, */
  size_t seen_pos;   /* so diagnostics in file order find their lines in O(n) */
} Diag;

/* "path:line:col: error: msg" then the line and a caret, as GCC prints. */
void diag_error(Diag *d, SrcLoc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void diag_warning(Diag *d, SrcLoc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void diag_note(Diag *d, SrcLoc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* An error without a location: "airc: error: msg". */
void diag_fatal_noloc(Diag *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Edit distance between two words, ignoring case, a swap of neighbouring
 * letters counting as one edit; words over 63 bytes are "far" (INT16_MAX). */
int diag_edit_distance(const char *a, const char *b);
/* The candidate closest to a misspelt word, or NULL when none is close
 * enough to be what was meant (distance 0 for a 1-byte word, 1 up to
 * 5 bytes, else 2). Ties go to the earlier candidate; a candidate equal to
 * word is skipped; NULL entries are allowed. For "did you mean" notes. */
const char *diag_suggest(const char *word, const char *const *candidates, int n);

/* ======================================================================
 * Types (shared by ast.c and sema.c)
 * ====================================================================== */

typedef enum {
  TY_ERROR,     /* a type error was already reported; suppress cascades */
  TY_BOOL,      /* BOOLEAN */
  TY_INT,       /* INT, int32_t */
  TY_BIGINT,    /* BIGINT, int64_t */
  TY_DOUBLE,    /* DOUBLE */
  TY_VARCHAR,   /* VARCHAR(n) */
  TY_TIMESTAMP, /* ms since epoch, int64_t */
  TY_DATE,      /* a day: the ms of its midnight UTC, int64_t (docs/design.md "DATE") */
  TY_INTERVAL,  /* a duration in ms, int64_t (literals only) */
  TY_NULL,      /* the NULL literal before its context gives it a type */
} TypeKind;

/* NULL (docs/design.md, "NULL"): a value of a nullable type may be NULL,
 * held in band as the type's sentinel (air_query.h: AIR_NULL_*); code for
 * a type that is not nullable never tests for it, so queries over columns
 * that cannot be NULL (generators, NOT NULL) cost what they did before. */
typedef struct Type {
  TypeKind kind; /* see TypeKind */
  int len;       /* TY_VARCHAR: maximum length in bytes; else 0 */
  bool nullable; /* sema: a value may be NULL */
} Type;

const char *type_name(Type t, char *buf, size_t n); /* "VARCHAR(36)" */
typedef struct Expr Expr;
/* An expression's text for --explain: an aggregate's with its FILTER. */
const char *plan_label(const Expr *e, char *buf, size_t n);
bool type_is_numeric(Type t);  /* INT, BIGINT, DOUBLE */
bool comparable(Type a, Type b); /* sema.c: whether a value of a compares with one of b */
bool type_is_integer(Type t);  /* INT, BIGINT, TIMESTAMP, INTERVAL */

/* ======================================================================
 * ast.c - the syntax tree built by grammar/airq.y
 * ====================================================================== */

typedef enum {
  EX_INT,          /* integer literal: ival */
  EX_DOUBLE,       /* decimal literal: dval */
  EX_STRING,       /* string literal: sval/slen ('' already undoubled) */
  EX_BOOL,         /* TRUE/FALSE: ival 1/0 */
  EX_INTERVAL,     /* INTERVAL literal: ival in ms */
  EX_DATE,         /* DATE 'yyyy-MM-dd' literal: ival, the ms of its midnight UTC */
  EX_COLUMN,       /* [qual.]name */
  EX_STAR,         /* '*' or 'qual.*' in a select list, '*' in COUNT(*) */
  EX_UNARY,        /* op lhs: OP_NEG, OP_NOT */
  EX_BINARY,       /* lhs op rhs */
  EX_IN,           /* lhs IN (args) */
  EX_IN_SELECT,    /* lhs IN (SELECT item FROM table [WHERE cond]): sub */
  EX_BETWEEN,      /* lhs BETWEEN rhs AND third */
  EX_CASE,         /* CASE args (EX_WHEN list) [ELSE else_] END */
  EX_WHEN,         /* WHEN lhs THEN rhs (only inside EX_CASE) */
  EX_CAST,         /* CAST(lhs AS cast_to) */
  EX_CALL,         /* name(args): scalar function or aggregate */
  EX_WINDOW_START, /* WINDOW_START pseudo-column */
  EX_WINDOW_END,   /* WINDOW_END pseudo-column */
  EX_NULL,         /* the NULL literal */
  EX_IS_NULL,      /* lhs IS NULL; ival 1: lhs IS NOT NULL */
  EX_ROW_NUMBER,   /* ROW_NUMBER() of Flink's Top-N form: the row's number in its partition */
  EX_BRANCH,       /* the copy number 0..n-1 of a row its query aggregates n times (Select.expand) */
} ExprKind;

typedef enum {
  OP_NONE,
  OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD,   /* + - * / % */
  OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, /* = <>/!= < <= > >= */
  OP_AND, OP_OR,                            /* AND OR */
  OP_NEG, OP_NOT,                           /* unary - and NOT */
} OpKind;

typedef enum {
  AGG_NONE,
  AGG_COUNT_STAR, /* COUNT(*) */
  AGG_COUNT,      /* COUNT(x) */
  AGG_SUM,        /* SUM(x) */
  AGG_MIN,        /* MIN(x) */
  AGG_MAX,        /* MAX(x) */
  AGG_AVG,        /* AVG(x) */
  AGG_VAR_POP,    /* VAR_POP(x): the variance over n */
  AGG_VAR_SAMP,   /* VAR_SAMP(x): over n - 1 */
  AGG_VARIANCE,   /* VARIANCE(x): VAR_SAMP */
  AGG_STDDEV_POP, /* STDDEV_POP(x): the square root of VAR_POP */
  AGG_STDDEV_SAMP,/* STDDEV_SAMP(x): of VAR_SAMP */
  AGG_STDDEV,     /* STDDEV(x): STDDEV_SAMP */
  AGG_FIRST_VALUE,/* FIRST_VALUE(x): x of the row of the earliest event time */
  AGG_LAST_VALUE, /* LAST_VALUE(x): of the latest */
  AGG_LAST = AGG_LAST_VALUE /* the last row of agg_defs */
} AggKind;

typedef enum {
  FN_NONE,
  FN_ABS, FN_LEAST, FN_GREATEST, FN_LENGTH, /* scalar functions: rows of func_defs */
  FN_MOD, FN_ROUND, FN_FLOOR, FN_CEIL, FN_POWER, FN_SQRT, FN_LN, FN_EXP,
  FN_UPPER, FN_LOWER, FN_TRIM, FN_SUBSTRING, FN_REPLACE, FN_CONCAT, FN_SPLIT_INDEX, FN_LIKE,
  FN_YEAR, FN_MONTH, FN_DAY, FN_HOUR, FN_MINUTE, FN_SECOND, FN_DATE_FORMAT, FN_TO_TIMESTAMP,
  FN_REGEXP_LIKE, FN_REGEXP_EXTRACT, FN_LOCATE, FN_NOW, FN_COALESCE, FN_NULLIF,
  FN_LAST = FN_NULLIF,
} FuncKind;

typedef struct Relation Relation;

struct Expr {
  ExprKind kind;   /* see ExprKind */
  SrcLoc loc;      /* where it starts; len covers it all if on one line, else its first token */
  const char *text;/* the expression's source text, whitespace-normalised (output column name) */
  OpKind op;       /* EX_UNARY, EX_BINARY */
  Expr *lhs;       /* operand, IN/BETWEEN subject, WHEN condition, CAST operand */
  Expr *rhs;       /* right operand, BETWEEN low, WHEN result */
  Expr *third;     /* BETWEEN high */
  Expr *args;      /* EX_CALL arguments, EX_IN list, EX_CASE whens (linked by next) */
  Expr *else_;     /* EX_CASE ELSE branch, or NULL */
  Expr *filter;    /* an aggregate's FILTER (WHERE cond), or NULL */
  Expr *next;      /* next in whatever list holds this node */
  const char *name;/* EX_COLUMN column, EX_CALL function name (as written) */
  const char *qual;/* EX_COLUMN/EX_STAR qualifier (alias or stream), or NULL */
  SrcLoc name_loc; /* EX_COLUMN: location of the column name itself */
  int64_t ival;    /* EX_INT, EX_BOOL, EX_INTERVAL (ms), EX_DATE (ms of midnight UTC) */
  double dval;     /* EX_DOUBLE */
  const char *sval;/* EX_STRING bytes (not NUL-terminated in meaning; see slen) */
  size_t slen;     /* EX_STRING length in bytes */
  Type cast_to;    /* EX_CAST target type */
  bool distinct;   /* EX_CALL: an aggregate over DISTINCT values (the parser rewrites it away) */
  bool over;       /* EX_CALL: ROW_NUMBER() OVER (...) (the parser rewrites its Top-N form) */
  Expr *over_part; /* its PARTITION BY list */
  struct OrderItem *over_order; /* its ORDER BY */
  struct Select *sub; /* EX_IN_SELECT: the subquery (its one item over one TABLE); never walked by
                         expr_walk, whose columns are the query's, not the table's */
  int depth;       /* parser: nesting depth, at most AST_MAX_DEPTH (bounds recursion) */

  /* --- filled by sema.c --- */
  Type type;       /* result type (TY_ERROR after a reported error) */
  AggKind agg;     /* EX_CALL that is an aggregate */
  FuncKind func;   /* EX_CALL that is a scalar function */
  int from_idx;    /* EX_COLUMN: 0 = first FROM item, 1 = joined item */
  int col_idx;     /* EX_COLUMN: column index in that item's Relation */
  int agg_idx;     /* EX_CALL aggregate: index into Select.aggs */
  int key_idx;     /* expression equal to GROUP BY key k (after aggregation): k, else -1 */
};

typedef struct ColumnDef ColumnDef;
struct ColumnDef {
  const char *name; /* column name */
  SrcLoc loc;       /* location of the name */
  Type type;        /* declared type */
  SrcLoc type_loc;  /* location of the type */
  Expr *gen;        /* GENERATED BY call (EX_CALL), or NULL */
  const char *meta_key; /* METADATA [FROM 'key']: the key ("" without FROM: the name), or NULL */
  SrcLoc meta_loc;  /* where METADATA is */
  bool not_null;    /* NOT NULL: an empty or null field makes the row bad */
  bool pkey;        /* PRIMARY KEY written on the column itself */
  bool proctime;    /* `name AS PROCTIME()`: the time a row is read, no field of the record */
  ColumnDef *next;
};

typedef struct Option Option;
struct Option {
  const char *key;  /* option name as written (matched case-insensitively) */
  SrcLoc loc;       /* location of the key */
  Expr *value;      /* EX_STRING, EX_INT, EX_DOUBLE or EX_BOOL literal */
  Option *next;
};

typedef struct WatermarkDef {
  const char *column; /* WATERMARK FOR column */
  SrcLoc loc;         /* location of the column name */
  Expr *expr;         /* AS expr; sema requires 'column - INTERVAL' or 'column' */
  int64_t bound_ms;   /* sema: the tolerated disorder in ms */
} WatermarkDef;

typedef enum { WIN_NONE, WIN_TUMBLING, WIN_HOPPING, WIN_SESSION } WindowKind;

/* EMIT: when an updating query (GROUP BY or aggregates without WINDOW)
 * writes its changes. EMIT_NONE: not said (an updating query's default is
 * EMIT_CHANGES; a window's is its close, which EMIT FINAL also says). */
typedef enum { EMIT_NONE, EMIT_FINAL, EMIT_CHANGES, EMIT_EVERY } EmitMode;

typedef struct WindowSpec {
  WindowKind kind;    /* see WindowKind */
  SrcLoc loc;         /* location of the window kind keyword */
  Expr *size;         /* TUMBLING/HOPPING SIZE: EX_INTERVAL */
  Expr *advance;      /* HOPPING ADVANCE BY: EX_INTERVAL */
  Expr *gap;          /* SESSION GAP: EX_INTERVAL */
  Expr *grace;        /* GRACE PERIOD: EX_INTERVAL, or NULL */
  int64_t size_ms;    /* sema: window size in ms (0 for SESSION) */
  int64_t advance_ms; /* sema: slide in ms (== size_ms for TUMBLING) */
  int64_t gap_ms;     /* sema: session gap in ms */
  int64_t grace_ms;   /* sema: GRACE PERIOD in ms; 0: none (a row late for a window is dropped) */
  EmitMode emit;      /* sema: an updating query's emission intervals (EMIT_NONE: a written WINDOW) */
} WindowSpec;

typedef struct SelectItem SelectItem;
struct SelectItem {
  Expr *expr;        /* the expression, or EX_STAR */
  const char *alias; /* AS name, or NULL */
  SrcLoc alias_loc;  /* location of the alias */
  SelectItem *next;
};

typedef struct FromItem {
  const char *name;  /* stream or table name */
  SrcLoc loc;        /* location of the name */
  const char *alias; /* alias, or NULL */
  SrcLoc alias_loc;  /* location of the alias */
  WindowSpec *tvf;   /* FROM TABLE(TUMBLE(TABLE s, DESCRIPTOR(ts), ...)): the window it gives */
  const char *tvf_time; /* the DESCRIPTOR's column (must be the stream's event time) */
  SrcLoc tvf_time_loc;
  Relation *rel;     /* sema: what the name refers to */
} FromItem;

/* sema: one output column of a SELECT after '*' expansion */
typedef struct OutCol {
  const char *name;  /* result column name (alias, column name, or expr text) */
  Type type;         /* its type */
  Expr *expr;        /* the expression computing it */
} OutCol;

typedef enum {
  QK_MAP,         /* no aggregates, no window: Map/Filter/StaticJoin chain */
  QK_REDUCE,      /* aggregates in a window, no GROUP BY */
  QK_AGGREGATION, /* aggregates in a window with GROUP BY */
  QK_JOIN,        /* stream-stream windowed join (no aggregates) */
} QueryKind;

/* Where an ORDER BY item puts NULL: NULLS_DEFAULT after every value, and
 * first with DESC; NULLS FIRST and NULLS LAST whatever the direction. */
typedef enum { NULLS_DEFAULT, NULLS_FIRST, NULLS_LAST } OrderNulls;

/* One ORDER BY item. */
typedef struct OrderItem {
  Expr *expr;         /* an output's name, position (an integer) or expression */
  bool desc;          /* DESC */
  OrderNulls nulls;   /* NULLS FIRST, NULLS LAST or neither */
  int out;            /* sema: the output column it orders by */
  struct OrderItem *next;
} OrderItem;

typedef struct Select Select;
struct Select {
  SrcLoc loc;         /* location of SELECT */
  SelectItem *items;  /* select list */
  FromItem from[2];   /* FROM item and optional JOIN item */
  int nfrom;          /* 1 or 2 */
  Expr *join_on;      /* ON condition, or NULL */
  Expr *where;        /* WHERE condition, or NULL */
  Expr *group_by;     /* GROUP BY expressions linked by next, or NULL */
  WindowSpec *window; /* WINDOW clause, or NULL */
  OrderItem *order_by; /* ORDER BY: each window's rows in this order, or NULL */
  int64_t limit;      /* LIMIT n: each window's first n rows; 0: no LIMIT */
  int limit_part;     /* the first ORDER BY items partition the window: LIMIT n per partition */
  bool top_n;         /* written as Flink's ROW_NUMBER() Top-N (build_row_number) */
  bool topn_rows;     /* ... of a window's rows, not of aggregates: the partition's first `limit`
                       * rows are the accumulator (keys: the partition's; sema_select.c) */
  SrcLoc limit_loc;   /* where LIMIT is */
  int expand;         /* > 1: each input row is aggregated this many times, EX_BRANCH its copy's number
                       * (the first step of aggregates over DISTINCT values of several arguments) */
  Expr *rank_where;   /* a Top-N's other conditions beside rownum <= n (linked by next), or NULL: each
                       * holds for the rows written, after the cut and the numbering (on rank 0) */
  const char **rank_names; /* the names they read the output columns by (the ranked query's), nout */
  Expr *having;       /* HAVING condition, or NULL */
  EmitMode emit;      /* EMIT ..., or EMIT_NONE */
  Expr *emit_every;   /* EMIT EVERY's interval (EX_INTERVAL), or NULL */
  SrcLoc emit_loc;    /* where EMIT is */
  Expr *state_ttl;    /* WITH (state_ttl = duration): EX_INTERVAL, or NULL */
  SrcLoc state_ttl_loc;

  /* --- filled by sema.c --- */
  QueryKind qkind;    /* see QueryKind */
  OutCol *out;        /* output columns, nout of them */
  int nout;
  Expr **aggs;        /* the distinct aggregate calls (EX_CALL with agg != AGG_NONE) */
  int naggs;
  Expr **keys;        /* GROUP BY expressions as an array */
  int nkeys;
  Expr *join_lkey;    /* equi-join key on from[0] (an expression over from[0]) */
  Expr *join_rkey;    /* equi-join key on from[1] */
  Expr **join_rest;   /* JOIN ON's other equalities, tested on each joined row (a Filter after the join) */
  int njoin_rest;
  bool table_join;    /* from[1] is a TABLE (StaticJoin) */
  bool comma_join;    /* FROM a, b: the join key is an equality of WHERE (join_on points at it) */
  bool left_join;     /* LEFT or FULL JOIN: a from[0] row without a match goes on, from[1]'s columns NULL */
  bool right_join;    /* RIGHT or FULL JOIN: a from[1] row without a match goes on, from[0]'s columns NULL */
  int time_from;      /* which FROM item's time column drives the window */
  /* An interval join (two streams, no WINDOW, ON or WHERE bounding one's
   * event time by the other's): from[1].ts - from[0].ts in [ij_lo, ij_hi] ms */
  bool interval_join;
  int64_t ij_lo, ij_hi;
  /* A regular join (Flink's name): two streams, no WINDOW, no time bounds
   * (or one only: a filter then), no state_ttl. Planned as an interval join
   * (interval_join is set too) whose bounds are all of time: every row of
   * both sides is kept for ever in one bucket per key, none is late, and a
   * pair's time for a derived stream is the latest of its rows' times and
   * their sources' watermarks when read (cg_rows.c emit_interval_join_row).
   * With WITH (state_ttl = d) the join is the interval join with bounds
   * [-d, d] instead (regular_join false). */
  bool regular_join;
  /* An outer regular join: a kept row that met none goes on padded at
   * once (+I), and is taken back (-D) when its first match comes, before
   * the pair (+I): its rows are changes (select_changes), like an
   * updating query's. */
  bool join_retracts;
  /* An updating query: aggregates without a WINDOW (sema_select.c's
   * check_updating). The rows are aggregated in tumbling intervals of
   * `window` (size emit_ms: EMIT EVERY's interval, 1 ms for EMIT CHANGES,
   * all of time for EMIT FINAL), each row in the interval of
   * max(ts, its source's watermark + 1), so none is late; when an interval
   * closes, the final stage merges its accumulators into the key's running
   * ones (a table of its own: C<n>, cg_rows.c's emit_updates) and writes
   * what changed: +I, -U and +U, -D, ordered by key. */
  bool updating;
  int64_t emit_ms;
  int64_t ttl_ms;     /* state_ttl in ms; 0: none (state kept for ever) */
  /* Its input is updating (a derived stream of an updating query): each
   * row adds (+I, +U) or takes back (-U, -D) itself, weight +1 or -1; every
   * aggregate then must take rows back (AggDef.retract). */
  bool retract;
};

/* How long past its own time an interval join's row can still meet one of
 * the other side: max(hi, -lo) >= 0 (its state's reach, and the hold of a
 * derived stream of it). */
static inline int64_t ijoin_keep_ms(const Select *s) { return s->ij_hi > -s->ij_lo ? s->ij_hi : -s->ij_lo; }

/* An interval join's time bucket: max(hi - lo, 1 s). */
static inline int64_t ijoin_bucket_ms(const Select *s) {
  int64_t w = s->ij_hi - s->ij_lo;
  return w > 1000 ? w : 1000;
}

/* The hold of a derived stream of an interval join: a pair's time trails
 * the watermark of the row that made it by at most ijoin_keep_ms; an outer
 * join's padded row, sent when its bucket is dropped, has its own time,
 * which trails the watermark forwarded before by less than a bucket more. */
static inline int64_t ijoin_hold_ms(const Select *s) {
  if (s->regular_join) return 0; /* a pair's time is never behind the watermark of the row that made it */
  return ijoin_keep_ms(s) + (s->left_join || s->right_join ? ijoin_bucket_ms(s) : 0);
}

/* Do the query's result rows carry a change (O's op): an updating query's,
 * or the rows of one passed on (a query over an updating stream). */
/* A windowed aggregation's GRACE PERIOD in ms (0: none): a row late for a
 * window by less updates its result when the watermark passes end + grace
 * (cg_rows.c's emit_grace_updates); its results are a changelog. */
static inline int64_t select_grace(const Select *s) {
  return s->window && !s->updating ? s->window->grace_ms : 0;
}
static inline bool select_changes(const Select *s) { return s->updating || s->retract || s->join_retracts || select_grace(s) > 0; }

/* Are FROM item f's columns NULL in the rows an outer join pads (f = 1 of a
 * LEFT JOIN, f = 0 of a RIGHT JOIN, both of a FULL JOIN)? */
static inline bool join_padded(const Select *s, int f) {
  return f == 1 ? s->left_join : s->right_join;
}

typedef enum {
  ST_CREATE_STREAM,    /* CREATE STREAM name (cols) WITH (...) : a source */
  ST_CREATE_TABLE,     /* CREATE TABLE name (cols, PRIMARY KEY (k)) WITH (...) */
  ST_CREATE_STREAM_AS, /* CREATE STREAM name AS select */
  ST_CREATE_SINK,      /* CREATE SINK name WITH (...) */
  ST_SELECT,           /* select ; results to standard output */
  ST_INSERT,           /* INSERT INTO name select */
} StmtKind;

typedef struct Stmt Stmt;
struct Stmt {
  StmtKind kind;         /* see StmtKind */
  SrcLoc loc;            /* location of the first keyword */
  const char *name;      /* created name, or INSERT target */
  SrcLoc name_loc;       /* location of that name */
  ColumnDef *cols;       /* CREATE STREAM/TABLE columns */
  WatermarkDef *wm;      /* WATERMARK clause, or NULL */
  const char *pkey;      /* PRIMARY KEY column, or NULL */
  SrcLoc pkey_loc;       /* location of that column */
  Option *opts;          /* WITH options */
  Select *select;        /* query of CREATE STREAM AS, SELECT, INSERT */
  Relation *rel;         /* sema: the relation this statement creates or targets */
  Stmt *owner;           /* a WITH query or FROM subquery: the statement that alone sees it */
  bool subquery;         /* ... a FROM subquery (named by its alias or subquery_N) */
  Stmt *next;
};

typedef struct Program {
  Stmt *stmts;        /* in source order */
  Arena *arena;       /* owns every node */
} Program;

/* Parse a whole file. Syntax errors go to d; the statements that parsed
 * are returned (error recovery skips to the next ';'). Never NULL. */
Program *parse_program(Arena *a, Diag *d);

/* Deepest expression nesting the parser accepts: later phases recurse on
 * expressions, and this keeps them far from the end of the C stack. */
#define AST_MAX_DEPTH 256

Expr *new_expr(Arena *a, ExprKind kind, SrcLoc loc);
/* The expression walker, the one place that knows an Expr's children: lhs,
 * rhs, third, else_, then each of args. It never follows e->next, which
 * only links e into the list that holds it (arguments, IN values, WHENs,
 * GROUP BY keys, a Filter's conjuncts). expr_each_child calls fn on each
 * direct child; expr_walk calls fn on e and its descendants, pre-order,
 * skipping the children of a node for which fn returns false (e NULL:
 * nothing). Neither changes the tree; fn may. */
void expr_each_child(const Expr *e, void (*fn)(void *ctx, Expr *child), void *ctx);
void expr_walk(const Expr *e, bool (*fn)(void *ctx, const Expr *e), void *ctx);
void ast_dump(FILE *out, const Program *p); /* for parser tests */
const char *op_text(OpKind op);             /* "+", "<>", "AND", ... */

/* ======================================================================
 * file.c - reading whole files
 * ====================================================================== */

/* The largest file read_file takes: far more than any query, and small
 * enough that `airc /dev/zero` stops at once. */
#define AIRC_MAX_FILE_BYTES ((size_t)64 << 20)

/* The file's bytes, NUL-terminated (malloc'd; the caller frees), with its
 * length in *len; NULL with errno set when it cannot be read (EFBIG when it
 * holds more than AIRC_MAX_FILE_BYTES). */
char *read_file(const char *path, size_t *len);

/* ======================================================================
 * sema.c, sema_*.c - names, types, aggregates, windows, time columns, options
 * ====================================================================== */

typedef enum {
  REL_SOURCE,  /* CREATE STREAM with columns: a row of source_kinds */
  REL_TABLE,   /* CREATE TABLE */
  REL_DERIVED, /* CREATE STREAM AS SELECT */
  REL_SINK,    /* CREATE SINK */
} RelKind;

typedef struct SourceKindDef SourceKindDef; /* kinds.c: one row per source kind */
typedef struct SinkKindDef SinkKindDef;     /* kinds.c: one row per sink kind */

typedef enum {
  GEN_NONE,      /* not generated (ingestion time for TIMESTAMP) */
  GEN_SEQUENCE,  /* sequence(start, step) */
  GEN_UNIFORM,   /* uniform(lo, hi) */
  GEN_CHOICE,    /* choice('a', ...) */
  GEN_UUID,      /* uuid() */
  GEN_NOW,       /* now(): ingestion time */
} GenKind;

typedef struct GenSpec {
  GenKind kind;          /* see GenKind */
  int64_t a, b;          /* sequence: start, step; uniform: lo, hi */
  const char **choices;  /* choice: the strings */
  size_t *choice_lens;   /* their lengths */
  int nchoices;
} GenSpec;

typedef struct Column {
  const char *name;  /* column name */
  Type type;         /* column type */
  SrcLoc loc;        /* where it was declared */
  GenSpec gen;       /* datagen: how it is filled */
  int ysb_field;     /* ysb source: which generator field (AIR_YSB_*), else -1 */
  bool meta_ts;      /* METADATA FROM 'timestamp': the kafka message's timestamp, not in the value */
  bool proc_ts;      /* AS PROCTIME(): the wall-clock time the row is read, not in the record */
} Column;

struct Relation {
  RelKind kind;          /* see RelKind */
  const char *name;      /* stream/table/sink name */
  SrcLoc loc;            /* where it was declared */
  Column *cols;          /* columns, ncols of them */
  int ncols;
  int time_col;          /* event-time column index, or -1 (tables) */
  int meta_col;          /* the METADATA FROM 'timestamp' column (then time_col), or -1 */
  int proc_col;          /* the `AS PROCTIME()` column (then time_col), or -1 */
  bool has_watermark;    /* WATERMARK clause given */
  int64_t wm_bound_ms;   /* tolerated disorder in ms (0 without WATERMARK) */
  int64_t wm_hold_ms;    /* windowed derived stream: its watermark is its query's minus this,
                            the most its event time can be behind its window's end */
  bool ingestion_time;   /* the time column is wall-clock ingestion time */
  bool implicit_time;    /* REL_DERIVED: the time column is the implicit ts after the outputs */
  bool updating;         /* REL_DERIVED: the changes of an updating query (rows carry an op) */
  int key_col;           /* TABLE: PRIMARY KEY column index */
  const SourceKindDef *source; /* REL_SOURCE/REL_TABLE: where rows come from (NULL: not given) */
  const SinkKindDef *sink;     /* REL_SINK: where rows go (NULL: not given) */
  const char *path;      /* csv path (source, table or sink) */
  SrcLoc path_loc;       /* ... its value in the WITH options */
  bool header;           /* csv: the first line is a header */
  bool header_skip;      /* csv: ... skipped unchecked (header = 'skip') */
  bool follow;           /* csv stream: read on as the file grows (follow = true), rank 0 alone */
  bool json;             /* csv, stdin, tcp: format = 'json', one object per line */
  bool ts_iso;           /* a sink: TIMESTAMPs as ISO-8601 text (timestamp_format, else airc_ts_iso) */
  const char *tcp_listen;  /* tcp: listen = 'host:port', or NULL */
  const char *tcp_connect; /* tcp: connect = 'host:port', or NULL */
  const char *brokers;   /* kafka: bootstrap servers */
  const char *topics;    /* kafka: topic,... */
  const char *group;     /* kafka source: consumer group, or NULL */
  const char *start;     /* kafka source: earliest, latest or [topic:]p:offset,... (NULL: earliest) */
  bool until_end;        /* kafka source: end = 'latest' */
  int64_t idle_ms;       /* kafka source: idle_timeout, -1 = none */
  int64_t timeout_ms;    /* kafka: brokers unreachable this long end the run */
  const char **props;    /* kafka.* options: name, value pairs (without 'kafka.') */
  int nprops;
  const char *address;   /* redis table or sink: host:port */
  const char *pattern;   /* redis table: SCAN MATCH pattern of the keys read (NULL: '*') */
  const char *key_prefix; /* redis table: keys starting with it, the key column without it (or NULL) */
  bool redis_hash;       /* redis table: layout = 'hash' (else 'string') */
  const char *prefix;    /* redis sink: put before every key (NULL: the sink's name and ':') */
  const char *password;  /* redis sink: AUTH, or NULL */
  int64_t db;            /* redis sink: SELECT db */
  int64_t max_bad_rows;  /* csv: more bad rows than this fail the run, -1 = no count */
  double max_bad_pct;    /* csv: ... more than this % of the records, -1 = none */
  int64_t rate;          /* events/s over all ranks, 0 = unthrottled */
  int64_t seed;          /* generators */
  int64_t limit;         /* generators: rows in all, 0 = unbounded */
  bool has_seed, has_limit;
  /* run-time overrides (--set): per OptionKey, the value as the program's
   * option table carries it (as written, the default, or NULL), its type,
   * and why --set refuses it (NULL: it may be set); the table's first row */
  const char **opt_text;
  const char **opt_why;
  AirOptType *opt_type;
  int opt_base;          /* row of its first option in the program's table (OPT_COUNT rows each), -1: none */
  Stmt *def;             /* defining statement */
  int index;             /* position in Catalog.rels */
  bool used;             /* read by some query */
  const Stmt *owner;     /* a WITH query or FROM subquery: the one statement that sees it */
  bool written;          /* sinks: some INSERT writes it */
  bool broken;           /* derived streams whose query had errors */
  bool in_select;        /* TABLE: read by some x IN (SELECT ... FROM it): loaded, though joined by none */
};

/* The column a record has no field for (the message's timestamp, or the
 * processing time), or -1: the columns after it take the field before theirs. */
static inline int nofield_col(const Relation *r) { return r->meta_col >= 0 ? r->meta_col : r->proc_col; }

typedef struct Catalog {
  Relation **rels;   /* in declaration order */
  int nrels, cap;
  int nopt_rels;     /* sources, tables and sinks: OPT_COUNT option rows each */
  Relation **slots;  /* by name: open addressing, at most half full */
  uint32_t nslots;   /* a power of two, or 0 */
} Catalog;

/* Check the program, fill the annotations above, report every error.
 * Returns the catalog (never NULL); d->nerrors says whether it is usable. */
Catalog *sema_check(Arena *a, Diag *d, Program *p);
Relation *catalog_find(Catalog *c, const char *name);


/* ======================================================================
 * plan.c - the logical plan: one chain of the paper's operators per query
 * ====================================================================== */

typedef enum {
  OP_SOURCE,       /* a source stream's rows enter */
  OP_MAP,          /* select list without aggregates */
  OP_FILTER,       /* WHERE */
  OP_STATIC_JOIN,  /* lookup join with a TABLE */
  OP_REDUCE,       /* windowed aggregates without GROUP BY */
  OP_AGGREGATION,  /* windowed aggregates with GROUP BY */
  OP_JOIN,         /* windowed stream-stream equi-join */
  OP_SINK,         /* results: stdout or a CREATE SINK */
} OperatorKind;

typedef struct Operator {
  OperatorKind kind;  /* see OperatorKind */
  Expr *pred;         /* OP_FILTER: the conjuncts it tests, linked by next */
  Relation *rel;      /* OP_SOURCE stream, OP_STATIC_JOIN table, OP_SINK sink (NULL = stdout) */
} Operator;

/* One query statement as a chain Source -> ... -> Sink. A stream-stream
 * join has a second input leg (ops1: Source, Filter?) meeting ops at OP_JOIN. */
typedef struct Chain {
  Stmt *stmt;         /* the SELECT / INSERT / CREATE STREAM AS */
  Select *sel;        /* its query */
  Relation *source;   /* from[0]'s relation */
  Relation *source1;  /* from[1]'s relation for a stream-stream join, else NULL */
  Operator *ops;      /* the chain, ops[0] is OP_SOURCE, ops[nops-1] OP_SINK */
  int nops;
  Operator *ops1;     /* the join's second leg: OP_SOURCE, OP_FILTER? */
  int nops1;
  int join_at;        /* index of OP_JOIN in ops, or -1 */
  int index;          /* 0-based among the program's chains */
  int number;         /* its statement's query number (1-based; WITH queries and subqueries take their statement's) */
  char label[96];     /* "query 2", or "query 2 (WITH big)" for a WITH query or FROM subquery of query 2 */
  bool windowed;      /* ends in Reduce, Aggregation or Join */
  bool session;       /* SESSION window: no partial aggregate (sessions merge by key) */
  Relation *derived;  /* CREATE STREAM AS: the stream it makes, else NULL */
  /* columns the chain reads: used[f][c] for from item f, column c */
  bool *used[2];
  int producer;       /* fuse: index of the stage whose rows are the results */
} Chain;

typedef struct Plan {
  Chain *chains;      /* in statement order */
  int nchains;
  Catalog *cat;       /* names and relations */
  const char *query_path; /* the .airq file as given */
  const char *query_name; /* basename without .airq (program name) */
  int nstdout;        /* chains whose results go to standard output; with more than
                         one, each line of each (header too) starts with q1, q2, ... */
} Plan;

/* Build the logical plan (and report plan-level errors such as two INSERTs
 * into one sink); d->nerrors tells whether it is usable. */
Plan *plan_build(Arena *a, Diag *d, Program *p, Catalog *cat);
/* The index in ch->ops of the StaticJoin or Join that brings from[1]'s
 * columns into the chain's rows, or -1. */
int chain_join_op(const Chain *ch);

/* ======================================================================
 * fuse.c - the physical plan: pipelines (vertices) and exchanges (edges)
 * ====================================================================== */

typedef enum {
  XR_LOCAL,   /* same rank, no message: a function call (fused) */
  XR_ROWHASH, /* a message to rank hash(row) % ranks (non-fused stateless edge) */
  XR_KEYHASH, /* a message to rank hash(group or join key) % ranks */
  XR_SINGLE,  /* a message to rank 0 (global Reduce) */
  XR_GATHER,  /* results to the collector on rank 0 */
  XR_SAME,    /* a message to the same rank: a derived stream's rows to a reader */
} ExchangeKind;

/* No window, gap or watermark bound is longer than the TIMESTAMP range
 * (air_limits.h), so window arithmetic stays within int64. */
#define AIRC_MAX_SPAN_MS (AIR_TS_MAX - AIR_TS_MIN)
/* A hopping window with more windows per event than this gets a warning. */
#define AIRC_WARN_WINDOWS_PER_ROW 100000
#define AIRC_MAX_OUTS 16 /* consumers of one pipeline's rows */

/* Where a stage keeps its state: fuse.c decides, codegen builds it,
 * --explain shows it. */
typedef enum {
  STATE_NONE,     /* stateless */
  STATE_WINDOWS,  /* per open window, a hash table: group key -> accumulators (AirWindows) */
  STATE_DENSE,    /* per open window, an array indexed by key - lo (AirDense): the key is one
                     generated uniform(lo, hi) integer column of fewer than 65536 values */
  STATE_SESSIONS, /* per key, its open sessions, merged when they meet (AirSessions) */
  STATE_JOIN,     /* per open window and join key, the rows of both sides (AirWindows of J) */
} StateKind;

typedef struct StateShape {
  StateKind kind;   /* see StateKind */
  int64_t lo, hi;   /* STATE_DENSE: the key range */
  int64_t slice_ms; /* STATE_WINDOWS/DENSE of a HOPPING window that overlaps: the windows'
                       state is shared slices of this length (AirSlide, runtime/slide.c); 0: per window */
} StateShape;

/* What the rows on an edge are (codegen's C type for them in brackets). */
typedef enum {
  PAY_ROWS,       /* the query's input rows: the columns it reads of each FROM item (R) */
  PAY_LEFT_ROWS,  /* a stream-stream join's first input: the columns it reads of it (RA) */
  PAY_RIGHT_ROWS, /* a stream-stream join's second input: the columns it reads of it (RB) */
  PAY_PARTIALS,   /* per-rank partial aggregates: window, group key, accumulators (P) */
  PAY_RESULTS,    /* result rows: window, key, output columns (O of the sending query) */
} Payload;

/* A pipeline: the operators [first, last] of one leg of a chain, run as one
 * loop on every rank (or on rank 0: the collector). */
typedef struct Stage {
  Chain *chain;       /* the chain it belongs to */
  int leg;            /* 0, or 1 for a stream-stream join's second input */
  int first, last;    /* operator indices in the leg's ops */
  bool partial;       /* ends with the per-rank partial aggregate */
  bool final;         /* starts with the final aggregate (merges partials) */
  ExchangeKind in;    /* how rows reach it (XR_LOCAL: it runs in a source's loop) */
  int edge;           /* input edge id, -1 in a source's loop */
  int edge1;          /* a Join's second input edge, else -1 */
  int outs[AIRC_MAX_OUTS]; /* output edge ids */
  int nouts;
  int id;             /* 1-based pipeline number in --explain */
  StateShape state;   /* what it keeps between rows */
  /* A generator's loop running this stage alone, whose first operator is a
   * Filter: late[c] for the columns it makes only for the rows the Filter
   * passes (those the Filter does not read, but the query does), else NULL. */
  bool *late;
} Stage;

/* An edge between two pipelines: rows travel on it as messages (MPI, or a
 * queue within the rank). */
typedef struct PEdge {
  int id;             /* edge id: the MPI tag */
  ExchangeKind kind;  /* routing */
  int from, to;       /* stage indices */
  int to_input;       /* 0, or 1 for a Join's second input */
} PEdge;

typedef struct Physical {
  Plan *plan;         /* the logical plan */
  bool fused;         /* false with --no-fuse */
  Stage *stages;      /* chain by chain, in order */
  int nstages;
  PEdge *edges;       /* by id */
  int nedges;
  Chain *too_many;    /* a chain whose results have more than AIRC_MAX_OUTS readers */
} Physical;


Physical *fuse_plan(Arena *a, Plan *plan, bool fuse);
/* The rows edge e carries. */
Payload edge_payload(const Physical *ph, const PEdge *e);
/* The slice length of a chain whose aggregates share slices across
 * overlapping HOPPING windows (gcd of size and advance), 0 when not. */
int64_t chain_slice_ms(const Chain *ch);


/* ======================================================================
 * explain.c, explain_dot.c - the plan for people: --explain, --explain=dot
 * ====================================================================== */

void explain_print(FILE *out, const Physical *ph);
/* explain_dot.c: the same plan as a Graphviz digraph (--explain=dot). */
void explain_dot(FILE *out, const Physical *ph);
/* "10 s", "2 min", "1 h", "250 ms" into buf (n bytes); returns buf. */
const char *explain_ms(int64_t ms, char *buf, size_t n);
/* "TUMBLING size 10 s", "HOPPING size 10 s advance 2 s", "SESSION gap 30 s";
 * "" for no window. Into buf (n bytes); returns buf. */
const char *explain_window(const WindowSpec *w, char *buf, size_t n);
/* A stage's state shape, "" when it keeps none; the columns an edge's rows
 * carry. Into buf (n bytes). */
void describe_state(const Stage *st, char *buf, size_t n);
void describe_payload(const Physical *ph, const PEdge *e, char *buf, size_t n);
/* The columns a stage makes late (Stage.late), "" when none. */
void describe_late(const Stage *st, char *buf, size_t n);

/* ======================================================================
 * tpl.c - templates with named holes (lempar.c style)
 * ====================================================================== */

typedef struct TplHole {
  const char *name;   /* hole name: @NAME@ inline, or a whole line naming it (see tpl.c) */
  const char *text;   /* replacement text */
} TplHole;

/* Fill template `name` (codegen_templates/<name>, embedded, or from
 * $AIRC_TEMPLATE_DIR) into out. Unknown, unfilled or doubly given holes are
 * errors: returns false with a message in err (size errn). */
bool tpl_fill(FILE *out, const char *name, const TplHole *holes, int nholes,
              char *err, size_t errn);
/* The template's text (embedded or overridden), or NULL. */
const char *tpl_text(const char *name);

/* ======================================================================
 * codegen.c, cg_*.c - C from the physical plan (codegen_int.h)
 * ====================================================================== */

/* How results write TIMESTAMPs where no sink's timestamp_format says:
 * ISO-8601 text (true, the default) or epoch milliseconds (airc
 * --timestamp-format epoch_ms); kinds.c, set by main.c before sema. */
extern bool airc_ts_iso;

typedef struct CodegenOptions {
  bool debug;             /* airc -g: #line directives into the query (and back into the C) */
  const char *query_path; /* the query as #line names it */
  const char *c_path;     /* the C file as #line names it (kept beside the executable) */
} CodegenOptions;

/* Write the program's C source to out (opt NULL: no options). Returns false
 * on an internal error (reported through d). */
bool codegen_emit(FILE *out, Diag *d, const Physical *ph, const CodegenOptions *opt);
/* Append s to buf as the body of a C string literal: every byte that is not
 * a safe printable ASCII character becomes an octal escape, so no query text
 * can end the literal, form a trigraph or a comment. */
void c_escape_str(FILE *out, const char *s, size_t n);

/* ======================================================================
 * kinds.c - one row per kind: sources, sinks, aggregates, operators
 *
 * A kind's row says everything the phases ask about it; a phase never
 * tests which kind it has. Adding a source kind is its row, the hooks the
 * row names (a check in sema_ddl.c, emitters in cg_*.c), its template or
 * runtime file, its tests and docs. docs/design.md lists what each hook
 * must do.
 * ====================================================================== */

/* WITH (...) option keys; option_keys[] says which relations take each. */
typedef enum {
  OPT_SOURCE,
  OPT_PATH,
  OPT_HEADER,
  OPT_RATE,
  OPT_SEED,
  OPT_LIMIT,
  OPT_SINK,
  OPT_MAX_BAD_ROWS,
  OPT_FOLLOW,
  OPT_LISTEN,
  OPT_CONNECT,
  OPT_FORMAT,
  OPT_BROKERS,
  OPT_TOPIC,
  OPT_GROUP,
  OPT_START,
  OPT_END,
  OPT_IDLE_TIMEOUT,
  OPT_TIMEOUT,
  OPT_KAFKA_PROPS, /* kafka.<librdkafka property>, any number */
  OPT_ADDRESS,
  OPT_PATTERN,
  OPT_KEY_PREFIX,
  OPT_LAYOUT,
  OPT_PREFIX,
  OPT_DB,
  OPT_PASSWORD,
  OPT_TS_FORMAT,
  OPT_COUNT
} OptionKey;
#define OPT_BIT(o) (1u << (o))

/* An option: its key, where it applies, and how --set changes it at run
 * time (docs/design.md, "Run-time options"). */
typedef struct OptionKeyDef {
  const char *key;  /* as written (matched case-insensitively) */
  unsigned rels;    /* the relation kinds it applies to: 1u << RelKind */
  AirOptType type;  /* its value at run time (air_limits.h); AIR_OPT_FIXED: part of the plan */
  const char *dflt; /* its value when not given, as the runtime parses it, or NULL: none */
  const char *why;  /* AIR_OPT_FIXED: why --set refuses it */
} OptionKeyDef;
extern const OptionKeyDef option_keys[OPT_COUNT];

typedef struct Sema Sema; /* sema_int.h */
typedef struct Gen Gen;   /* codegen_int.h: one program being written */
typedef struct Ctx Ctx;   /* codegen_int.h: where an expression's columns live */

/* How a source's event time and watermark come about. */
typedef enum {
  TIME_GENERATED, /* the source makes it: a sequence() column is event time, its watermark the
                     latest made minus the bound; any other TIMESTAMP is ingestion time */
  TIME_SCANNED,   /* read from the records: the watermark covers the records every rank has
                     scanned (air_csv_scanned_wm), the same on every rank */
} TimePolicy;

/* Holes a source kind fills in its own template (beside the common ones). */
typedef struct KindHoles {
  TplHole h[6];
  char text[6][48];
  int n;
} KindHoles;

struct SourceKindDef {
  const char *name;        /* as written in WITH (source = '...') */
  const char *desc;        /* --explain of a stream it feeds: "csv file" */
  const char *table_desc;  /* --explain of a TABLE it fills; NULL: it cannot fill one */
  const char *table_brief; /* the same, shorter, for --explain=dot */
  bool table_only;         /* it fills a TABLE and never a STREAM */
  unsigned opts;           /* options it takes besides 'source' (OPT_BIT) */
  unsigned required;       /* ... of which these must be given */
  bool per_thread;         /* one producer per --threads on every rank, else one per rank */
  const char *lib;         /* the library a program reading it links (-l...), or NULL */
  bool generated_by;       /* columns take GENERATED BY */
  bool message_ts;         /* a TIMESTAMP column may be METADATA FROM 'timestamp' (kafka) */
  bool all_columns;        /* every column is made (parsed and checked), read or not */
  bool nulls;              /* its fields may be NULL (an empty csv field, a null or missing JSON
                              one): its columns are nullable unless NOT NULL */
  TimePolicy time;         /* see TimePolicy */
  const char *tpl;         /* codegen_templates/ file of its loop */
  const char *cut;         /* C expression: true when a stop's cut is agreed, the rows before
                              it in (int64_t cut) */
  const char *reader;      /* the runtime type of its reader (AirGen, AirCsv): st.reader */
  const char *ckpt;        /* the runtime's prefix of its reader's checkpoint functions
                              (air_gen: air_gen_save, air_gen_load), NULL: it cannot be
                              checkpointed (the run refuses --checkpoint-dir) */
  /* sema_ddl.c: checks of the columns for this kind, of a stream and of a table (NULL: none) */
  void (*check_stream)(Sema *s, Stmt *st, Relation *r);
  void (*check_table)(Sema *s, Stmt *st, Relation *r);
  /* cg_vertices.c, cg_types.c: file-scope state and its setup (NULL: none); one row into `s` in the loop
   * (columns a single Filter does not read may go to *late, for the rows it passes); the
   * template's own holes; the code that loads a TABLE it fills. */
  void (*emit_global)(Gen *g, const Relation *r);
  void (*emit_row)(Gen *g, const Relation *r, FILE *out, char **late);
  void (*holes)(const Relation *r, KindHoles *h);
  void (*emit_table)(Gen *g, const Relation *r);
  /* whether a stream of it runs until stopped (NULL: never) */
  bool (*unbounded)(const Relation *r);
};
extern const SourceKindDef source_kinds[];
extern const int nsource_kinds;

struct SinkKindDef {
  const char *name;  /* as written in WITH (sink = '...'); --explain names it */
  unsigned opts;     /* options it takes besides 'sink' (OPT_BIT) */
  unsigned required; /* ... of which these must be given */
  const char *lib;   /* the library a program writing it links (-l...), or NULL */
  bool file;         /* writes the file named by 'path' (else standard output, or ops) */
  bool header;       /* CSV output starts with the header line (not a message or a hash per row) */
  const char *ops;   /* the runtime's AirSinkOps it writes through ("air_kafka_sink_ops"), or NULL */
  /* sema.c: whether the query of its INSERT INTO fits it (NULL: any does) */
  void (*check_insert)(Sema *s, const Stmt *ins, const Relation *r);
  /* cg_vertices.c: `static const ... sdef = {...};`, the definition ops is given */
  void (*emit_def)(FILE *su, const Chain *ch, const Relation *r);
};
extern const SinkKindDef sink_kinds[];
extern const int nsink_kinds;

/* One aggregate function. Rows are indexed by AggKind. */
/* An aggregate's accumulator is fixed-size plain data: partials are copied
 * between ranks as bytes, slices and sessions merge with `merge`, and
 * closing a window frees nothing. An aggregate that would need a set (over
 * DISTINCT values) is not an AggDef: the parser rewrites the query into
 * two aggregations of plain ones (build_distinct in grammar/build.c; with
 * several DISTINCT arguments the first takes each row once per argument,
 * Select.expand, so each set stays a GROUP BY). */
typedef struct AggDef {
  const char *name;          /* as written (upper case); NULL for AGG_NONE */
  bool star;                 /* the '*' form: COUNT(*) */
  bool retract;              /* over an updating input: its update takes cx->weight (+1 or -1), so a
                              * row's old version is taken back exactly (sums and counts) */
  Type (*result)(Type arg);  /* its type over an argument of type arg; TY_ERROR: not over it */
  /* cg_expr.c: the accumulator's members for aggregate j; one row's update (is_new: the
   * accumulator is fresh); merging partial p into acc; its value from accumulator cx->acc */
  void (*field)(FILE *o, const Expr *a, int j);
  void (*update)(FILE *o, const Expr *a, int j, const Ctx *cx, const char *ind);
  void (*merge)(FILE *o, const Expr *a, int j, const char *ind);
  void (*value)(FILE *o, const Expr *a, int j, const Ctx *cx);
} AggDef;
extern const AggDef agg_defs[AGG_LAST + 1];
/* The aggregate called name (any case), the '*' form or not; AGG_NONE if there is none. */
AggKind agg_lookup(const char *name, bool star);

/* The operator's name in --explain and in generated comments: "StaticJoin". */
const char *op_name(OperatorKind k);

/* The row of a source or sink kind by name (any case), or NULL. */
const SourceKindDef *source_kind_lookup(const char *name);
const SinkKindDef *sink_kind_lookup(const char *name);
/* Whether a stream runs until it is stopped (kafka without end = 'latest',
 * tcp, stdin, csv with follow = true, a generator without limit), itself or
 * through a stream it is derived from. */
bool relation_unbounded(const Relation *r);
/* What a sink writes to, for --explain: its path, topic or address ("" for stdout). */
const char *sink_target(const Relation *r);

/* Hooks the rows name (sema_ddl.c, cg_*.c). */
void sema_check_ysb_stream(Sema *s, Stmt *st, Relation *r);
void sema_check_ysb_table(Sema *s, Stmt *st, Relation *r);
void sema_check_datagen_stream(Sema *s, Stmt *st, Relation *r);
void sema_check_tcp_stream(Sema *s, Stmt *st, Relation *r);
void cg_tcp_global(Gen *g, const Relation *r);
void sema_check_kafka_stream(Sema *s, Stmt *st, Relation *r);
void cg_kafka_global(Gen *g, const Relation *r);
void sema_check_redis_insert(Sema *s, const Stmt *ins, const Relation *r);
void cg_kafka_sink_def(FILE *su, const Chain *ch, const Relation *r);
void cg_redis_sink_def(FILE *su, const Chain *ch, const Relation *r);
void cg_tcp_sink_def(FILE *su, const Chain *ch, const Relation *r);
void cg_csv_global(Gen *g, const Relation *r);
void cg_stdin_global(Gen *g, const Relation *r);
void cg_csv_row(Gen *g, const Relation *r, FILE *out, char **late);
void cg_gen_row(Gen *g, const Relation *r, FILE *out, char **late);
void cg_csv_holes(const Relation *r, KindHoles *h);
void cg_gen_holes(const Relation *r, KindHoles *h);
void cg_csv_table(Gen *g, const Relation *r);
void cg_ysb_table(Gen *g, const Relation *r);
void sema_check_redis_table(Sema *s, Stmt *st, Relation *r);
void cg_redis_table(Gen *g, const Relation *r);
void cg_count_field(FILE *o, const Expr *a, int j);
void cg_sum_field(FILE *o, const Expr *a, int j);
void cg_avg_field(FILE *o, const Expr *a, int j);
void cg_minmax_field(FILE *o, const Expr *a, int j);
void cg_count_update(FILE *o, const Expr *a, int j, const Ctx *cx, const char *ind);
void cg_sum_update(FILE *o, const Expr *a, int j, const Ctx *cx, const char *ind);
void cg_avg_update(FILE *o, const Expr *a, int j, const Ctx *cx, const char *ind);
void cg_minmax_update(FILE *o, const Expr *a, int j, const Ctx *cx, const char *ind);
void cg_count_merge(FILE *o, const Expr *a, int j, const char *ind);
void cg_sum_merge(FILE *o, const Expr *a, int j, const char *ind);
void cg_avg_merge(FILE *o, const Expr *a, int j, const char *ind);
void cg_minmax_merge(FILE *o, const Expr *a, int j, const char *ind);
void cg_plain_value(FILE *o, const Expr *a, int j, const Ctx *cx);
void cg_sum_value(FILE *o, const Expr *a, int j, const Ctx *cx);
void cg_avg_value(FILE *o, const Expr *a, int j, const Ctx *cx);
void cg_var_field(FILE *o, const Expr *a, int j);
void cg_var_update(FILE *o, const Expr *a, int j, const Ctx *cx, const char *ind);
void cg_var_merge(FILE *o, const Expr *a, int j, const char *ind);
void cg_var_value(FILE *o, const Expr *a, int j, const Ctx *cx);
void cg_firstlast_field(FILE *o, const Expr *a, int j);
void cg_firstlast_update(FILE *o, const Expr *a, int j, const Ctx *cx, const char *ind);
void cg_firstlast_merge(FILE *o, const Expr *a, int j, const char *ind);

/* A scalar function: one row per FuncKind (kinds.c), found by name. To add
 * one: a FuncKind, a row here (its arguments, its result type rule, its
 * emitter in cg_expr.c), the run-time helper in air_query.h if it needs
 * one, tests, docs/language.md "Functions". */
typedef struct FuncDef {
  const char *name;   /* as written (upper case); NULL for FN_NONE */
  const char *alias;  /* another name for it, or NULL */
  int min_args, max_args; /* max_args -1: any number */
  /* The result over the argument types (each checked, none an error);
   * TY_ERROR with *bad the argument at fault and *want what it must be.
   * NULL: the common type of all the arguments (LEAST, GREATEST). */
  Type (*result)(const Type *args, int n, int *bad, const char **want);
  void (*emit)(FILE *o, const Expr *e, const Ctx *cx); /* cg_expr.c: the C of a call */
  bool op;            /* an operator's (LIKE, ||), not callable by name */
  bool nulls;         /* it takes NULL arguments itself (COALESCE, NULLIF); else any NULL
                         argument makes the result NULL without calling it */
  bool own_null;      /* it may be NULL of arguments that are not when its result is no
                         DOUBLE (TO_TIMESTAMP of bad text, an integer MOD by zero) */
} FuncDef;
extern const FuncDef func_defs[FN_LAST + 1];
/* The function called name (any case, or its alias); FN_NONE if none. An
 * operator's row (LIKE) has a reserved word for its name, which the parser
 * never reads as a call. */
FuncKind func_lookup(const char *name);
void cg_fn_abs(FILE *o, const Expr *e, const Ctx *cx);
void cg_fn_minmax(FILE *o, const Expr *e, const Ctx *cx);
void cg_fn_length(FILE *o, const Expr *e, const Ctx *cx);
void cg_fn_math(FILE *o, const Expr *e, const Ctx *cx);
void cg_fn_string(FILE *o, const Expr *e, const Ctx *cx);
void cg_fn_time(FILE *o, const Expr *e, const Ctx *cx);
void cg_fn_regexp(FILE *o, const Expr *e, const Ctx *cx);
void cg_fn_null(FILE *o, const Expr *e, const Ctx *cx);

#endif /* AIRC_H */

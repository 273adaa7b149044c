/* options.c - run-time overrides of the options of sources, tables and
 * sinks: --set rel.key=value on the command line, AIRC_SET_rel__key=value
 * in the environment (--set wins, the last one of a key wins).
 *
 * airc writes a table of every relation's options into the program
 * (AirOptDef: name, type, the compiled value as text, or why it cannot be
 * changed); air_options parses the compiled text and the overrides with
 * the same checks (air_optparse.h, which airc uses too), so a value is
 * refused at run time with the compiler's words, and the generated setup
 * code reads every value through air_opt_*. Every rank parses the same
 * argv and environment; the ranks agree on the verdict before any of them
 * starts work, and a refused override ends every rank with status 1. */
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "air_int.h"
#include "air_optparse.h"

extern char **environ;

#define ENV_PREFIX "AIRC_SET_"

typedef struct AirOptVal {
  const char *s;      /* strings: the value */
  int64_t i;          /* integers, durations (ms; -1: none), bools, header, end, bad-row limit kind */
  double d;           /* max_bad_rows: the count or percentage */
  bool given;         /* a value, compiled or overridden (else the option's absence) */
  const char *origin; /* the override that set it, or NULL */
  const char **props; /* AIR_OPT_PROPS: overridden name, value pairs */
  int nprops;
  const char **merged; /* air_opt_props' result, owned */
  char *joined;        /* air_opt_join's result, owned */
} AirOptVal;

struct AirOpts {
  const AirOptDef *defs;
  AirOptVal *vals;
  int n;
};

/* ---- one value -------------------------------------------------------- */

static bool word_is(const char *v, const char *a, const char *b) {
  return strcasecmp(v, a) == 0 || strcasecmp(v, b) == 0;
}

/* Parse text as an option of type d->type into v; false and the message
 * (the compiler's) in msg. key: as the user wrote it. */
static bool parse_value(const AirOptDef *d, const char *key, const char *text, AirOptVal *v, char *msg,
                        size_t n) {
  const char *bad = NULL;
  switch (d->type) {
  case AIR_OPT_NA:
  case AIR_OPT_FIXED: {
    /* kafka.*'s message names the property as the user wrote it, as airc's */
    const char *why = d->why ? d->why : "this option cannot be changed at run time", *pat = "option 'kafka.*'";
    if (strncmp(why, pat, strlen(pat)) == 0 && strncasecmp(key, "kafka.", 6) == 0)
      snprintf(msg, n, "option '%s'%s", key, why + strlen(pat));
    else
      snprintf(msg, n, "%s", why);
    return false;
  }
  case AIR_OPT_PATH:
  case AIR_OPT_NAME:
    if (!*text) bad = AIR_MSG_EMPTY;
    v->s = text;
    break;
  case AIR_OPT_TEXT:
    v->s = text;
    break;
  case AIR_OPT_BOOL:
    if (word_is(text, "true", "1")) v->i = 1;
    else if (word_is(text, "false", "0")) v->i = 0;
    else bad = AIR_MSG_BOOL;
    break;
  case AIR_OPT_HEADER:
    if (word_is(text, "true", "1")) v->i = AIR_CSV_HEADER;
    else if (word_is(text, "false", "0")) v->i = AIR_CSV_NO_HEADER;
    else if (strcasecmp(text, "skip") == 0) v->i = AIR_CSV_HEADER_SKIP;
    else bad = AIR_MSG_HEADER;
    break;
  case AIR_OPT_COUNT:
  case AIR_OPT_INT:
    if (!air_parse_int(text, &v->i) || (d->type == AIR_OPT_COUNT && v->i < 0))
      bad = d->type == AIR_OPT_COUNT ? AIR_MSG_COUNT : AIR_MSG_INT;
    break;
  case AIR_OPT_DURATION:
  case AIR_OPT_TIMEOUT:
    if (!air_parse_duration(text, &v->i)) bad = AIR_MSG_DURATION;
    else if (d->type == AIR_OPT_TIMEOUT && v->i < 1) bad = AIR_MSG_TIMEOUT_MIN;
    break;
  case AIR_OPT_HOSTPORT:
    if (!air_parse_hostport(text)) bad = AIR_MSG_HOSTPORT;
    v->s = text;
    break;
  case AIR_OPT_BROKERS:
    if (!air_parse_list(text, AIR_BROKER_CHARS)) bad = AIR_MSG_BROKERS;
    v->s = text;
    break;
  case AIR_OPT_TOPICS:
    if (!air_parse_list(text, AIR_TOPIC_CHARS)) bad = AIR_MSG_TOPICS;
    v->s = text;
    break;
  case AIR_OPT_TOPIC:
    if (!air_parse_list(text, AIR_TOPIC_CHARS)) bad = AIR_MSG_TOPIC;
    else if (strchr(text, ',')) bad = AIR_MSG_SINK_TOPIC;
    v->s = text;
    break;
  case AIR_OPT_START:
    if (!air_parse_start(text)) bad = AIR_MSG_START;
    v->s = strcasecmp(text, "earliest") == 0 ? "earliest" : strcasecmp(text, "latest") == 0 ? "latest" : text;
    break;
  case AIR_OPT_END:
    if (strcasecmp(text, "latest") == 0) v->i = 1;
    else if (strcasecmp(text, "none") == 0) v->i = 0;
    else bad = AIR_MSG_END;
    break;
  case AIR_OPT_BAD_ROWS:
    if (air_parse_int(text, &v->i) && v->i >= 0) {
      v->d = (double)v->i;
      v->i = AIR_BAD_COUNT;
    } else if (air_parse_pct(text, &v->d)) {
      v->i = AIR_BAD_PCT;
    } else {
      bad = AIR_MSG_BAD_ROWS;
    }
    break;
  case AIR_OPT_PROPS: {
    const char *name = key + 6, *ours = air_prop_ours(name);
    if (strspn(name, AIR_PROP_CHARS) != strlen(name)) {
      snprintf(msg, n, "option '%s': %s", key, AIR_MSG_PROP_NAME);
      return false;
    }
    if (ours) {
      snprintf(msg, n, "option '%s' is set by airc: write %s = '...'", key, ours);
      return false;
    }
    return true;
  }
  }
  if (bad) {
    snprintf(msg, n, "option '%s' %s", d->key, bad);
    return false;
  }
  v->given = true;
  return true;
}

/* The absence of an option: no string, durations -1 (never), the rest 0. */
static void absent_value(const AirOptDef *d, AirOptVal *v) {
  memset(v, 0, sizeof *v);
  if (d->type == AIR_OPT_DURATION || d->type == AIR_OPT_TIMEOUT) v->i = -1;
  if (d->type == AIR_OPT_BAD_ROWS) v->i = AIR_BAD_NO_GOOD;
  if (d->type == AIR_OPT_HEADER) v->i = AIR_CSV_NO_HEADER;
}

/* ---- did you mean ----------------------------------------------------- */

static int lower(int c) { return tolower((unsigned char)c); }

/* Edit distance, a swap of neighbours one edit, case not counted (as
 * airc's diag_edit_distance, so that both suggest the same word). */
static int distance(const char *a, const char *b) {
  enum { MAXLEN = 63 };
  size_t m = strlen(a), n = strlen(b);
  if (m > MAXLEN || n > MAXLEN) return 1 << 14;
  int t[MAXLEN + 1][MAXLEN + 1];
  for (size_t i = 0; i <= m; i++) t[i][0] = (int)i;
  for (size_t j = 0; j <= n; j++) t[0][j] = (int)j;
  for (size_t i = 1; i <= m; i++)
    for (size_t j = 1; j <= n; j++) {
      int ca = lower(a[i - 1]), cb = lower(b[j - 1]);
      int best = t[i - 1][j - 1] + (ca != cb);
      if (t[i - 1][j] + 1 < best) best = t[i - 1][j] + 1;
      if (t[i][j - 1] + 1 < best) best = t[i][j - 1] + 1;
      if (i > 1 && j > 1 && ca == lower(b[j - 2]) && lower(a[i - 2]) == cb && t[i - 2][j - 2] + 1 < best)
        best = t[i - 2][j - 2] + 1;
      t[i][j] = best;
    }
  return t[m][n];
}

/* The closest candidate within airc's limit (1 edit up to 5 letters, 2
 * beyond, none for one letter). */
typedef struct Suggest {
  const char *word, *best;
  int dist;
} Suggest;

static void suggest_init(Suggest *s, const char *word) {
  size_t len = strlen(word);
  s->word = word;
  s->best = NULL;
  s->dist = (len <= 1 ? 0 : len <= 5 ? 1 : 2) + 1;
}

static void suggest_add(Suggest *s, const char *cand) {
  if (!cand[0] || strcmp(cand, s->word) == 0) return;
  int d = distance(s->word, cand);
  if (d < s->dist) s->dist = d, s->best = cand;
}

/* ---- the overrides ----------------------------------------------------- */

typedef struct Verdict {
  char origin[512]; /* "--set a.b=c" or "AIRC_SET_a__b=c" */
  char msg[1024];
  bool bad;
} Verdict;

static void refuse(Verdict *vd, const char *origin, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void refuse(Verdict *vd, const char *origin, const char *fmt, ...) {
  if (vd->bad) return; /* the first refusal is the one told */
  vd->bad = true;
  snprintf(vd->origin, sizeof vd->origin, "%s", origin);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(vd->msg, sizeof vd->msg, fmt, ap);
  va_end(ap);
}

/* The longest relation name r of the table such that text starts with r
 * and then sep, or NULL. */
static const char *known_rel(const struct AirOpts *o, const char *text, const char *sep) {
  const char *best = NULL;
  size_t ns = strlen(sep);
  for (int i = 0; i < o->n; i++) {
    size_t nr = strlen(o->defs[i].rel);
    if (strncmp(text, o->defs[i].rel, nr) == 0 && strncmp(text + nr, sep, ns) == 0 &&
        (!best || nr > strlen(best)))
      best = o->defs[i].rel;
  }
  return best;
}

/* Apply one override: relation rel (n bytes), option key, value text. */
static void apply(struct AirOpts *o, const char *origin, const char *rel, size_t nrel, const char *key,
                  const char *text, Verdict *vd) {
  int first = -1;
  Suggest sr;
  char relname[256];
  snprintf(relname, sizeof relname, "%.*s", (int)nrel, rel);
  suggest_init(&sr, relname);
  for (int i = 0; i < o->n; i++) {
    if (strcmp(o->defs[i].rel, relname) == 0) {
      if (first < 0) first = i;
    } else if (i == 0 || strcmp(o->defs[i].rel, o->defs[i - 1].rel) != 0) {
      suggest_add(&sr, o->defs[i].rel);
    }
  }
  if (first < 0) {
    refuse(vd, origin, "unknown stream, table or sink '%s'%s%s%s", relname, sr.best ? "; did you mean '" : "",
           sr.best ? sr.best : "", sr.best ? "'?" : "");
    return;
  }
  bool prop = strncasecmp(key, "kafka.", 6) == 0 && key[6];
  Suggest sk;
  suggest_init(&sk, key);
  for (int i = first; i < o->n && strcmp(o->defs[i].rel, relname) == 0; i++) {
    const AirOptDef *d = &o->defs[i];
    bool match = prop ? d->type == AIR_OPT_PROPS || strcmp(d->key, "kafka.*") == 0 : strcasecmp(d->key, key) == 0;
    if (!match) {
      if (d->type != AIR_OPT_NA && d->type != AIR_OPT_PROPS) suggest_add(&sk, d->key);
      continue;
    }
    AirOptVal v = o->vals[i];
    char msg[1024];
    if (!parse_value(d, key, text, &v, msg, sizeof msg)) {
      refuse(vd, origin, "%s", msg);
      return;
    }
    if (prop) {
      /* a kafka.<property>: added, or replacing the same one overridden before */
      AirOptVal *pv = &o->vals[i];
      int k = 0;
      while (k < pv->nprops && strcasecmp(pv->props[2 * k], key + 6) != 0) k++;
      if (k == pv->nprops) {
        const char **np = realloc(pv->props, sizeof *np * (size_t)(2 * pv->nprops + 2));
        char *name = strdup(key + 6); /* key is the caller's buffer; freed by air_options_free */
        if (np) pv->props = np;
        if (!np || !name) {
          free(name);
          refuse(vd, origin, "out of memory");
          return;
        }
        pv->props[2 * k] = name;
        pv->nprops++;
      }
      pv->props[2 * k + 1] = text;
      pv->origin = origin;
      return;
    }
    v.origin = origin;
    o->vals[i] = v;
    return;
  }
  refuse(vd, origin, "unknown option '%s'%s%s%s", key, sk.best ? "; did you mean '" : "", sk.best ? sk.best : "",
         sk.best ? "'?" : "");
}

/* A path as airc compares them: "./a//b" and "a/b" are one file. */
static void path_key(const char *p, char *out, size_t n) {
  size_t o = 0;
  if (*p == '/' && o + 1 < n) out[o++] = *p++;
  while (*p) {
    while (*p == '/') p++;
    size_t len = strcspn(p, "/");
    if (len && !(len == 1 && p[0] == '.')) {
      if (o > 0 && out[o - 1] != '/' && o + 1 < n) out[o++] = '/';
      for (size_t k = 0; k < len && o + 1 < n; k++) out[o++] = p[k];
    }
    p += len;
  }
  if (o == 0) out[o++] = '.';
  out[o] = '\0';
}

/* The checks across options that airc made on the compiled values, again
 * when an override changed one of them. */
static void cross_checks(struct AirOpts *o, Verdict *vd) {
  for (int i = 0; i < o->n; i++) {
    const AirOptDef *d = &o->defs[i];
    AirOptVal *v = &o->vals[i];
    if (d->type == AIR_OPT_START && v->given) {
      /* a start naming topics names the stream's own */
      for (int j = 0; j < o->n; j++) {
        if (o->defs[j].type != AIR_OPT_TOPICS || strcmp(o->defs[j].rel, d->rel) != 0 || !o->vals[j].given) continue;
        if (!v->origin && !o->vals[j].origin) continue;
        size_t tn;
        const char *p = air_start_stray_topic(v->s, o->vals[j].s, &tn);
        if (p) refuse(vd, v->origin ? v->origin : o->vals[j].origin, AIR_MSG_START_TOPIC, (int)tn, p, o->vals[j].s);
      }
    }
    if (d->type == AIR_OPT_PATH && d->role == 1 && v->given) {
      /* a sink writes no file another relation reads or another sink writes */
      char ki[4096], kj[4096];
      path_key(v->s, ki, sizeof ki);
      for (int j = 0; j < o->n; j++) {
        const AirOptVal *w = &o->vals[j];
        if (j == i || o->defs[j].type != AIR_OPT_PATH || !w->given || (!v->origin && !w->origin)) continue;
        if (o->defs[j].role == 1 && j > i) continue; /* two sinks: told once, at the second */
        path_key(w->s, kj, sizeof kj);
        if (strcmp(ki, kj) != 0) continue;
        const char *origin = v->origin ? v->origin : w->origin;
        if (o->defs[j].role == 1)
          refuse(vd, origin, "sinks '%s' and '%s' both write '%s'", o->defs[j].rel, d->rel, v->s);
        else
          refuse(vd, origin, "sink '%s' would overwrite '%s', which %s '%s' reads", d->rel, v->s,
                 o->defs[j].role == 2 ? "table" : "stream", o->defs[j].rel);
      }
    }
  }
}

static uint64_t hash_str(uint64_t h, const char *s) {
  for (; *s; s++) h = (h ^ (unsigned char)*s) * UINT64_C(0x100000001b3);
  return (h ^ 0xff) * UINT64_C(0x100000001b3);
}

void air_options(AirRuntime *rt, const AirOptDef *defs, int n) {
  struct AirOpts *o = calloc(1, sizeof *o);
  if (!o || !(o->vals = calloc((size_t)(n > 0 ? n : 1), sizeof *o->vals))) air_fatal(rt, "out of memory");
  o->defs = defs;
  o->n = n;
  rt->opts = o;
  Verdict vd = {.bad = false};
  char msg[1024];
  for (int i = 0; i < n; i++) {
    absent_value(&defs[i], &o->vals[i]);
    if (defs[i].text && defs[i].type != AIR_OPT_NA && defs[i].type != AIR_OPT_FIXED &&
        !parse_value(&defs[i], defs[i].key, defs[i].text, &o->vals[i], msg, sizeof msg))
      air_fatal(rt, "internal error: the compiled %s.%s: %s", defs[i].rel, defs[i].key, msg);
  }

  /* The environment first (in its order), then --set (in argv's order):
   * the last value given for an option wins, so --set wins. */
  uint64_t h = UINT64_C(0xcbf29ce484222325);
  for (char **e = environ; e && *e; e++) {
    const char *s = *e;
    if (strncmp(s, ENV_PREFIX, strlen(ENV_PREFIX)) != 0) continue;
    h = hash_str(h, s);
    s += strlen(ENV_PREFIX);
    const char *eq = strchr(s, '=');
    size_t nname = eq ? (size_t)(eq - s) : strlen(s);
    const char *rel = known_rel(o, s, "__");
    const char *sep = rel ? s + strlen(rel) : strstr(s, "__");
    if (!sep || sep >= s + nname || sep + 2 >= s + nname) {
      refuse(&vd, *e, "expected %srelation__option=value (a '.' in the option written '__')", ENV_PREFIX);
      continue;
    }
    /* the option: '__' stands for '.' */
    char key[256];
    size_t k = 0;
    for (const char *p = sep + 2; p < s + nname && k + 1 < sizeof key; p++) {
      if (p[0] == '_' && p[1] == '_' && p + 1 < s + nname) {
        key[k++] = '.';
        p++;
      } else {
        key[k++] = *p;
      }
    }
    key[k] = '\0';
    apply(o, *e, s, (size_t)(sep - s), key, eq + 1, &vd);
  }
  for (int i = 0; i < rt->nsets; i++) {
    const char *s = rt->sets[i];
    char origin[512];
    snprintf(origin, sizeof origin, "--set %s", s);
    char *stored = strdup(origin); /* kept for the messages of cross_checks */
    if (!stored) air_fatal(rt, "out of memory");
    rt->set_origins[i] = stored;
    h = hash_str(h, origin);
    const char *eq = strchr(s, '=');
    const char *rel = known_rel(o, s, ".");
    const char *dot = rel ? s + strlen(rel) : strchr(s, '.');
    if (!eq) {
      refuse(&vd, stored, "expected --set relation.option=value (no '=')");
      continue;
    }
    if (!dot || dot > eq || dot == s || dot + 1 == eq) {
      refuse(&vd, stored, "expected --set relation.option=value (no relation before a '.')");
      continue;
    }
    char key[256];
    snprintf(key, sizeof key, "%.*s", (int)(eq - dot - 1), dot + 1);
    apply(o, stored, s, (size_t)(dot - s), key, eq + 1, &vd);
  }
  cross_checks(o, &vd);

  /* The ranks agree: the lowest rank that refused tells why, every rank
   * ends; overrides that differ between ranks (an environment not passed
   * on) are refused too, since the ranks would read different inputs. */
  uint64_t hs[2] = {h, ~h}, hall[2];
  MPI_Allreduce(hs, hall, 2, MPI_UINT64_T, MPI_MAX, rt->comm);
  if (!vd.bad && (hall[0] != h || hall[1] != ~h))
    refuse(&vd, ENV_PREFIX "*", "the ranks were given different overrides (is the environment passed to every rank?)");
  int mine = vd.bad ? rt->rank : rt->world, lowest;
  MPI_Allreduce(&mine, &lowest, 1, MPI_INT, MPI_MIN, rt->comm);
  if (lowest == rt->world) return;
  if (lowest == rt->rank) {
    fflush(stdout);
    fprintf(stderr, "airc: %s: %s: %s\n", rt->name, vd.origin, vd.msg);
  }
  MPI_Finalize();
  exit(1);
}

/* ---- the values, for the generated setup ------------------------------ */

static const AirOptVal *val(const AirRuntime *rt, int i) {
  if (!rt->opts || i < 0 || i >= rt->opts->n)
    air_fatal((AirRuntime *)rt, "internal error: option %d read before air_options or out of range", i);
  return &rt->opts->vals[i];
}

const char *air_opt_str(const AirRuntime *rt, int i) { return val(rt, i)->given ? val(rt, i)->s : NULL; }
int64_t air_opt_i64(const AirRuntime *rt, int i) { return val(rt, i)->i; }
double air_opt_f64(const AirRuntime *rt, int i) { return val(rt, i)->d; }
bool air_opt_given(const AirRuntime *rt, int i) { return val(rt, i)->given; }

const char *air_opt_join(AirRuntime *rt, const char *prefix, int i) {
  AirOptVal *v = (AirOptVal *)val(rt, i);
  const char *s = v->given ? v->s : "?";
  free(v->joined);
  v->joined = air_xmalloc(rt, strlen(prefix) + strlen(s) + 1);
  strcpy(v->joined, prefix);
  strcat(v->joined, s);
  return v->joined;
}

void air_opt_props(AirRuntime *rt, int i, const char *const *compiled, int ncompiled, const char *const **props,
                   int *nprops) {
  AirOptVal *v = (AirOptVal *)val(rt, i);
  free(v->merged);
  v->merged = air_xmalloc(rt, sizeof(char *) * (size_t)(2 * (ncompiled + v->nprops) + 1));
  int n = 0;
  for (int k = 0; k < ncompiled; k++) {
    bool over = false;
    for (int j = 0; j < v->nprops; j++) over |= strcasecmp(compiled[2 * k], v->props[2 * j]) == 0;
    if (over) continue;
    v->merged[2 * n] = compiled[2 * k];
    v->merged[2 * n + 1] = compiled[2 * k + 1];
    n++;
  }
  for (int j = 0; j < v->nprops; j++, n++) {
    v->merged[2 * n] = v->props[2 * j];
    v->merged[2 * n + 1] = v->props[2 * j + 1];
  }
  *props = v->merged;
  *nprops = n;
}

void air_options_free(AirRuntime *rt) {
  struct AirOpts *o = rt->opts;
  if (o) {
    for (int i = 0; i < o->n; i++) {
      for (int k = 0; k < o->vals[i].nprops; k++)
        free((char *)o->vals[i].props[2 * k]); /* the names overridden: strdup'd by apply */
      free(o->vals[i].props);
      free(o->vals[i].merged);
      free(o->vals[i].joined);
    }
    free(o->vals);
    free(o);
  }
  rt->opts = NULL;
  for (int i = 0; i < rt->nsets; i++) free(rt->set_origins[i]);
  free(rt->set_origins);
  free(rt->sets);
  rt->set_origins = NULL;
  rt->sets = NULL;
  rt->nsets = 0;
}

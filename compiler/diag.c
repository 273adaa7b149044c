/* diag.c - GCC/Clang style diagnostics with source line and caret.
 *
 *   query.airq:7:8: error: unknown column 'event_typ' in stream 'ad_events'
 *       7 | WHERE event_typ = 'view'
 *         |       ^~~~~~~~~
 *
 * Messages and echoed lines may quote arbitrary bytes from the query, so
 * control characters are printed as \xNN: a diagnostic never sends raw
 * control sequences to the terminal.
 */
#include "airc.h"

#include <stdlib.h>
#include <string.h>

enum {
  GUTTER_MIN = 5,   /* gcc 12 right-aligns line numbers in 5 columns */
  SHOW_MAX = 200,   /* longest stretch of a source line that is echoed */
  SHOW_BEFORE = 60, /* bytes shown before the caret when a line is cut */
};

static FILE *out_of(Diag *d) {
  return d->out ? d->out : stderr;
}

/* Width in columns of byte s[i] as printed by put_byte (0 for the second
 * byte of an escaped two-byte sequence or a UTF-8 continuation byte). */
static int byte_width(const unsigned char *s, size_t n, size_t i, bool keep_tab) {
  unsigned char c = s[i];
  if (c == '\t' && keep_tab)
    return 1;
  if (c < 0x20 || c == 0x7f)
    return 4;
  /* U+0080..U+009F (C1 controls) encoded in UTF-8 */
  if (c == 0xc2 && i + 1 < n && s[i + 1] >= 0x80 && s[i + 1] <= 0x9f)
    return 8;
  if (c >= 0x80 && c <= 0xbf)
    return 0;
  return 1;
}

/* Prints s[i]; returns how many bytes it consumed. */
static size_t put_byte(FILE *f, const unsigned char *s, size_t n, size_t i, bool keep_tab) {
  unsigned char c = s[i];
  if (c == '\t' && keep_tab) {
    fputc(c, f);
    return 1;
  }
  if (c < 0x20 || c == 0x7f) {
    fprintf(f, "\\x%02x", c);
    return 1;
  }
  if (c == 0xc2 && i + 1 < n && s[i + 1] >= 0x80 && s[i + 1] <= 0x9f) {
    fprintf(f, "\\x%02x\\x%02x", c, s[i + 1]);
    return 2;
  }
  fputc(c, f);
  return 1;
}

static void put_escaped(FILE *f, const char *s, size_t n, bool keep_tab) {
  const unsigned char *u = (const unsigned char *)s;
  for (size_t i = 0; i < n;)
    i += put_byte(f, u, n, i, keep_tab);
}

/* Finds line `line` (1-based) of the text; false if the text has none. */
static bool find_line(Diag *d, int line, size_t *start, size_t *len) {
  if (!d->text || line < 1)
    return false;
  size_t pos = 0;
  int l = 1;
  if (d->seen_line > 0 && d->seen_line <= line) {
    l = d->seen_line;
    pos = d->seen_pos;
  }
  for (; l < line; l++) {
    const char *nl = memchr(d->text + pos, '\n', d->text_len - pos);
    if (!nl)
      return false;
    pos = (size_t)(nl - d->text) + 1;
  }
  /* the empty "line" after a final newline is not shown */
  if (pos == d->text_len && line > 1)
    return false;
  const char *nl = memchr(d->text + pos, '\n', d->text_len - pos);
  size_t end = nl ? (size_t)(nl - d->text) : d->text_len;
  if (end > pos && d->text[end - 1] == '\r')
    end--;
  d->seen_line = line;
  d->seen_pos = pos;
  *start = pos;
  *len = end - pos;
  return true;
}

static void repeat(FILE *f, int c, int n) {
  for (int i = 0; i < n; i++)
    fputc(c, f);
}

static void show_line(Diag *d, SrcLoc loc) {
  size_t start, len;
  if (!find_line(d, loc.line, &start, &len))
    return;
  FILE *f = out_of(d);
  const unsigned char *s = (const unsigned char *)d->text + start;
  size_t col = loc.col > 0 ? (size_t)loc.col - 1 : 0; /* 0-based caret byte */
  size_t span = loc.len > 0 ? (size_t)loc.len : 1;

  /* Very long lines are cut around the caret, so that one diagnostic on a
   * megabyte-long line does not print a megabyte. */
  size_t from = 0, to = len;
  if (len > SHOW_MAX) {
    from = col > SHOW_BEFORE ? col - SHOW_BEFORE : 0;
    if (from > len)
      from = len;
    to = from + SHOW_MAX < len ? from + SHOW_MAX : len;
  }
  char num[32];
  int w = snprintf(num, sizeof num, "%d", loc.line);
  if (w < GUTTER_MIN)
    w = GUTTER_MIN;

  fprintf(f, "%*s | ", w, num);
  if (from > 0)
    fputs("...", f);
  for (size_t i = from; i < to;)
    i += put_byte(f, s, len, i, true);
  if (to < len)
    fputs("...", f);
  fputc('\n', f);

  fprintf(f, "%*s | ", w, "");
  if (from > 0)
    fputs("   ", f);
  size_t i = from;
  for (; i < col && i < to; i++) {
    if (s[i] == '\t')
      fputc('\t', f);
    else
      repeat(f, ' ', byte_width(s, len, i, true));
  }
  if (col >= to) {
    /* the caret is past the end of the line (a missing token at the end) */
    size_t extra = col - to;
    repeat(f, ' ', (int)(extra < SHOW_MAX ? extra : SHOW_MAX));
    fputs("^\n", f);
    return;
  }
  int cw = byte_width(s, len, col, true);
  fputc('^', f);
  repeat(f, '~', cw > 1 ? cw - 1 : 0);
  for (i = col + 1; i < col + span && i < to; i++)
    repeat(f, '~', byte_width(s, len, i, true));
  fputc('\n', f);
}

static void report(Diag *d, SrcLoc loc, const char *kind, const char *fmt, va_list ap) {
  FILE *f = out_of(d);
  char small[512];
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(small, sizeof small, fmt, ap);
  char *msg = small;
  if (n < 0) {
    n = 0;
    small[0] = '\0';
  } else if ((size_t)n >= sizeof small) {
    msg = malloc((size_t)n + 1);
    if (!msg) {
      msg = small;
      n = (int)sizeof small - 1;
    } else {
      vsnprintf(msg, (size_t)n + 1, fmt, ap2);
    }
  }
  va_end(ap2);

  const char *path = d->path ? d->path : "<input>";
  put_escaped(f, path, strlen(path), false);
  if (loc.line > 0)
    fprintf(f, ":%d:%d", loc.line, loc.col > 0 ? loc.col : 1);
  fprintf(f, ": %s: ", kind);
  /* n, not strlen: a quoted NUL byte (%c of '\0') must still be shown */
  put_escaped(f, msg, (size_t)n, false);
  fputc('\n', f);
  if (msg != small)
    free(msg);
  if (loc.line > 0)
    show_line(d, loc);
}

void diag_error(Diag *d, SrcLoc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  report(d, loc, "error", fmt, ap);
  va_end(ap);
  d->nerrors++;
}

void diag_warning(Diag *d, SrcLoc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  report(d, loc, "warning", fmt, ap);
  va_end(ap);
  d->nwarnings++;
}

void diag_note(Diag *d, SrcLoc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  report(d, loc, "note", fmt, ap);
  va_end(ap);
}

void diag_fatal_noloc(Diag *d, const char *fmt, ...) {
  FILE *f = out_of(d);
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n < 0)
    n = 0;
  if ((size_t)n >= sizeof buf)
    n = (int)sizeof buf - 1;
  fputs("airc: error: ", f);
  put_escaped(f, buf, (size_t)n, false);
  fputc('\n', f);
  d->nerrors++;
}

/* ---------------------------------------------------------------------
 * "did you mean" suggestions
 * --------------------------------------------------------------------- */

enum { SUGGEST_MAX_LEN = 63 }; /* longer words are never typos worth fixing */

static int lower(int c) {
  return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* Edit distance where a swap of two neighbours counts as one edit (the
 * commonest typo: GROPU) and case does not count at all, since keywords
 * are case-insensitive and a column typed in the wrong case is still the
 * column the user meant. */
int diag_edit_distance(const char *a, const char *b) {
  size_t m = strlen(a), n = strlen(b);
  if (m > SUGGEST_MAX_LEN || n > SUGGEST_MAX_LEN)
    return INT16_MAX;
  int d[SUGGEST_MAX_LEN + 1][SUGGEST_MAX_LEN + 1];
  for (size_t i = 0; i <= m; i++)
    d[i][0] = (int)i;
  for (size_t j = 0; j <= n; j++)
    d[0][j] = (int)j;
  for (size_t i = 1; i <= m; i++) {
    for (size_t j = 1; j <= n; j++) {
      int ca = lower((unsigned char)a[i - 1]), cb = lower((unsigned char)b[j - 1]);
      int best = d[i - 1][j - 1] + (ca != cb);
      if (d[i - 1][j] + 1 < best)
        best = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < best)
        best = d[i][j - 1] + 1;
      if (i > 1 && j > 1 && ca == lower((unsigned char)b[j - 2]) &&
          lower((unsigned char)a[i - 2]) == cb && d[i - 2][j - 2] + 1 < best)
        best = d[i - 2][j - 2] + 1;
      d[i][j] = best;
    }
  }
  return d[m][n];
}

/* How far a word may be from what was meant: one letter is no evidence at
 * all, and two edits in a five-letter word leave little of it. */
static int suggest_limit(size_t len) {
  if (len <= 1)
    return 0;
  if (len <= 5)
    return 1;
  return 2;
}

const char *diag_suggest(const char *word, const char *const *candidates, int n) {
  if (!word || !candidates)
    return NULL;
  int limit = suggest_limit(strlen(word));
  const char *best = NULL;
  int best_dist = limit + 1;
  for (int i = 0; i < n; i++) {
    const char *c = candidates[i];
    /* the word itself is not a suggestion (it failed for another reason) */
    if (!c || !c[0] || strcmp(c, word) == 0)
      continue;
    int dist = diag_edit_distance(word, c);
    if (dist < best_dist) {
      best = c;
      best_dist = dist;
    }
  }
  return best;
}

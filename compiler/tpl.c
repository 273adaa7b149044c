/* tpl.c - fill codegen templates (lemon's lempar.c, flex's skeletons).
 *
 * A template is ordinary-looking C with named holes:
 *   - inline:     @NAME@            (capitals, digits and '_')
 *   - whole line: a line holding only  / *%% name %%* /  (without the spaces)
 * Every hole must be given exactly once and every given hole must occur, so a
 * template and the code generator cannot drift apart silently.
 */
#include "airc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

typedef struct EmbeddedTemplate {
  const char *name;
  const char *text;
} EmbeddedTemplate;
extern const EmbeddedTemplate airc_templates[];

/* Overridden templates read from $AIRC_TEMPLATE_DIR, kept for the run. */
static char *read_override(const char *name) {
  const char *dir = getenv("AIRC_TEMPLATE_DIR");
  if (!dir || !*dir) return NULL;
  size_t n = strlen(dir) + strlen(name) + 2;
  char *path = malloc(n);
  if (!path) return NULL;
  snprintf(path, n, "%s/%s", dir, name);
  size_t len;
  char *text = read_file(path, &len);
  free(path);
  return text;
}

const char *tpl_text(const char *name) {
  static struct {
    const char *name;
    char *text;
  } cache[32];
  static int ncache;
  for (int i = 0; i < ncache; i++)
    if (strcmp(cache[i].name, name) == 0) return cache[i].text;
  char *over = read_override(name);
  if (over && ncache < 32) {
    cache[ncache].name = name;
    cache[ncache++].text = over;
    return over;
  }
  free(over);
  for (const EmbeddedTemplate *t = airc_templates; t->name; t++)
    if (strcmp(t->name, name) == 0) return t->text;
  return NULL;
}

static int find_hole(const TplHole *holes, int n, const char *name, size_t len) {
  for (int i = 0; i < n; i++)
    if (strlen(holes[i].name) == len && memcmp(holes[i].name, name, len) == 0) return i;
  return -1;
}

/* Is [p, end) a whole-line hole "/" "*%% name %%*" "/"? Sets name/len. */
static bool line_hole(const char *p, const char *end, const char **name, size_t *len) {
  while (p < end && (*p == ' ' || *p == '\t')) p++;
  while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r')) end--;
  if (end - p < 9 || memcmp(p, "/*%%", 4) != 0 || memcmp(end - 4, "%%*/", 4) != 0) return false;
  p += 4;
  end -= 4;
  while (p < end && *p == ' ') p++;
  while (end > p && end[-1] == ' ') end--;
  if (p == end) return false;
  for (const char *q = p; q < end; q++)
    if (!isalnum((unsigned char)*q) && *q != '_') return false;
  *name = p;
  *len = (size_t)(end - p);
  return true;
}

bool tpl_fill(FILE *out, const char *name, const TplHole *holes, int nholes, char *err, size_t errn) {
  const char *text = tpl_text(name);
  if (!text) {
    snprintf(err, errn, "template '%s' not found", name);
    return false;
  }
  for (int i = 0; i < nholes; i++)
    for (int j = 0; j < i; j++)
      if (strcmp(holes[i].name, holes[j].name) == 0) {
        snprintf(err, errn, "template '%s': hole '%s' given twice", name, holes[i].name);
        return false;
      }
  int used[64] = {0};
  if (nholes > 64) {
    snprintf(err, errn, "template '%s': too many holes", name);
    return false;
  }
  for (const char *line = text; *line;) {
    const char *eol = strchr(line, '\n');
    const char *next = eol ? eol + 1 : line + strlen(line);
    if (!eol) eol = next;
    const char *hname;
    size_t hlen;
    if (line_hole(line, eol, &hname, &hlen)) {
      int h = find_hole(holes, nholes, hname, hlen);
      if (h < 0) {
        snprintf(err, errn, "template '%s': hole '%.*s' not filled", name, (int)hlen, hname);
        return false;
      }
      used[h] = 1;
      size_t tl = strlen(holes[h].text);
      fputs(holes[h].text, out);
      if (tl && holes[h].text[tl - 1] != '\n') fputc('\n', out);
      line = next;
      continue;
    }
    for (const char *p = line; p < next; p++) {
      if (*p == '@') {
        const char *q = p + 1;
        while (q < eol && (isupper((unsigned char)*q) || isdigit((unsigned char)*q) || *q == '_')) q++;
        if (q > p + 1 && q < eol && *q == '@') {
          int h = find_hole(holes, nholes, p + 1, (size_t)(q - p - 1));
          if (h < 0) {
            snprintf(err, errn, "template '%s': hole '%.*s' not filled", name, (int)(q - p - 1), p + 1);
            return false;
          }
          used[h] = 1;
          fputs(holes[h].text, out);
          p = q;
          continue;
        }
      }
      fputc(*p, out);
    }
    line = next;
  }
  for (int i = 0; i < nholes; i++)
    if (!used[i]) {
      snprintf(err, errn, "template '%s' has no hole '%s'", name, holes[i].name);
      return false;
    }
  return true;
}

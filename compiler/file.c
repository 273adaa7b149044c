/* file.c - reading a whole file into memory (queries, overridden templates). */
#include "airc.h"

#include <errno.h>
#include <stdlib.h>

char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  while (buf) {
    size_t got = fread(buf + n, 1, cap - n - 1, f);
    n += got;
    if (got == 0) break;
    if (n + 1 == cap) {
      char *nb = realloc(buf, cap * 2);
      if (!nb) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = nb;
      cap *= 2;
    }
  }
  bool failed = ferror(f) != 0;
  fclose(f);
  if (!buf || failed) {
    free(buf);
    if (!errno) errno = EIO;
    return NULL;
  }
  buf[n] = '\0';
  *len = n;
  return buf;
}

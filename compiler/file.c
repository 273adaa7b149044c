/* file.c - reading a whole file into memory (queries, overridden templates). */
#include "airc.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>

char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  /* A regular file's size is known up front; a device or a pipe has none
   * (/dev/zero never ends), so the count while reading is what stops it. */
  struct stat st;
  if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > (off_t)AIRC_MAX_FILE_BYTES) {
    fclose(f);
    errno = EFBIG;
    return NULL;
  }
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  bool too_big = false;
  while (buf) {
    size_t got = fread(buf + n, 1, cap - n - 1, f);
    n += got;
    if (n > AIRC_MAX_FILE_BYTES) {
      too_big = true;
      break;
    }
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
  if (!buf || failed || too_big) {
    free(buf);
    errno = too_big ? EFBIG : errno ? errno : EIO;
    return NULL;
  }
  buf[n] = '\0';
  *len = n;
  return buf;
}

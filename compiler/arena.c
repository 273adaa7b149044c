/* arena.c - one arena for AST and plan, freed once.
 *
 * Nodes live as long as the compilation, so a bump allocator over a chain
 * of blocks is all we need: no per-node free, and one arena_free() leaves
 * ASan nothing to report.
 */
#include "airc.h"

#include <stdlib.h>
#include <string.h>

enum { ARENA_BLOCK = 64 * 1024 };

typedef struct Block Block;
struct Block {
  Block *next; /* previously filled block */
  size_t used; /* bytes handed out from data */
  size_t cap;  /* bytes in data */
  max_align_t data[];
};

struct Arena {
  Block *head; /* block being filled; older ones follow */
};

static void *xmalloc(size_t n) {
  void *p = malloc(n);
  if (!p) {
    fputs("airc: out of memory\n", stderr);
    fflush(stderr); /* with the diagnostics before it: stderr is buffered */
    abort();
  }
  return p;
}

static Block *block_new(size_t cap, Block *next) {
  Block *b = xmalloc(sizeof(Block) + cap);
  b->next = next;
  b->used = 0;
  b->cap = cap;
  return b;
}

Arena *arena_new(void) {
  Arena *a = xmalloc(sizeof(Arena));
  a->head = block_new(ARENA_BLOCK, NULL);
  return a;
}

void arena_free(Arena *a) {
  if (!a)
    return;
  for (Block *b = a->head, *next; b; b = next) {
    next = b->next;
    free(b);
  }
  free(a);
}

void *arena_alloc(Arena *a, size_t n) {
  size_t align = _Alignof(max_align_t);
  if (n == 0)
    n = 1;
  if (n > SIZE_MAX / 2) {
    fputs("airc: out of memory\n", stderr);
    fflush(stderr); /* with the diagnostics before it: stderr is buffered */
    abort();
  }
  n = (n + align - 1) & ~(align - 1);
  Block *b = a->head;
  if (b->cap - b->used < n) {
    if (n > ARENA_BLOCK / 4) {
      /* A big request gets a block of its own behind the current one, so
       * the space left in the current block is not wasted. */
      Block *big = block_new(n, b->next);
      b->next = big;
      memset(big->data, 0, n);
      big->used = n;
      return big->data;
    }
    b = a->head = block_new(ARENA_BLOCK, b);
  }
  void *p = (char *)b->data + b->used;
  b->used += n;
  memset(p, 0, n);
  return p;
}

char *arena_strndup(Arena *a, const char *s, size_t n) {
  char *p = arena_alloc(a, n + 1);
  if (n)
    memcpy(p, s, n);
  p[n] = '\0';
  return p;
}

char *arena_strdup(Arena *a, const char *s) {
  return arena_strndup(a, s, strlen(s));
}

char *arena_printf(Arena *a, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0)
    return arena_strdup(a, "");
  char *p = arena_alloc(a, (size_t)n + 1);
  va_start(ap, fmt);
  vsnprintf(p, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return p;
}

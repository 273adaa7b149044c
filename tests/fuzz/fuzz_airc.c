/* fuzz_airc.c - libFuzzer harness over airc's front end and code generator.
 *
 * Each input is one .airq file. It goes through the phases exactly as
 * compiler/main.c calls them (parse, check, plan, fuse, explain as text and
 * as Graphviz, codegen), in process, once fused and once not. Diagnostics
 * and outputs go to /dev/null or a memory stream: what is looked for is a
 * crash, a hang, a leak or a sanitizer report, never the text (docs/language.md
 * section 7: no input file, however malformed, may make airc crash or hang).
 *
 * Built and run by `make fuzz` (see tests/fuzz/README.md).
 */
#include "airc.h"

#include <stdlib.h>
#include <string.h>

static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  devnull = fopen("/dev/null", "w");
  if (!devnull)
    abort();
  return 0;
}

/* codegen_emit for one physical plan, into a memory stream freed here. */
static void emit(Diag *d, Physical *ph) {
  char *buf = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&buf, &len);
  if (!mem)
    abort();
  codegen_emit(mem, d, ph, NULL);
  fclose(mem);
  free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* airc reads files into a NUL-terminated buffer that may hold NUL bytes
   * (main.c read_file): give the phases the same. */
  char *text = malloc(size + 1);
  if (!text)
    return 0;
  memcpy(text, data, size);
  text[size] = '\0';

  Diag d = {.path = "fuzz.airq", .text = text, .text_len = size, .out = devnull};
  Arena *a = arena_new();
  Program *p = parse_program(a, &d);
  Catalog *cat = d.nerrors == 0 ? sema_check(a, &d, p) : NULL;
  Plan *pl = d.nerrors == 0 ? plan_build(a, &d, p, cat) : NULL;
  if (d.nerrors == 0 && pl) {
    pl->query_path = "fuzz.airq";
    pl->query_name = "fuzz";
    for (int fused = 1; fused >= 0; fused--) {
      Physical *ph = fuse_plan(a, pl, fused);
      /* main.c refuses these plans before --check, --explain and codegen */
      if (ph->too_many || ph->nedges > AIR_MAX_EDGES)
        continue;
      explain_print(devnull, ph);
      explain_dot(devnull, ph);
      emit(&d, ph);
    }
  }
  arena_free(a);
  free(text);
  return 0;
}

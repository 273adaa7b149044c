/* fuzz_csv.c - libFuzzer over the csv and JSON readers (runtime/csv.c): any
 * bytes as a file, read to the end in csv or JSON mode. The first byte
 * picks the format, the value kinds of the columns, the header rule and
 * the watermark bound; the second the number of columns, the time column,
 * the rank share and the fields asked for. Every field returned is read
 * byte by byte, so ASan sees any span outside the buffer. `make fuzz-csv`
 * (not part of check): FUZZ_SECONDS on one core, crashes in
 * build/fuzz/csv-artifacts/. Run before adding to what the readers accept:
 * their input comes from files, pipes and the network. */
#include "air.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
AirCsv *air_csv_open_at(AirRuntime *rt, const AirCsvDef *def, int rank, int world);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static char path[64];
  static int fd = -1;
  if (fd < 0) {
    strcpy(path, "/tmp/fuzz_csv_XXXXXX");
    fd = mkstemp(path);
  }
  if (size < 2) return 0;
  uint8_t mode = data[0], shape = data[1];
  data += 2, size -= 2;
  if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size) return 0;
  static const char *const cols[] = {"a", "b", "ts", "d", "e"};
  static const char *const kinds[] = {"snnbs", "nsnnb", "bbnss", "nnnnn"};
  int ncols = 1 + shape % 5;
  AirCsvDef def = {.path = path, .name = "f", .cols = cols, .ncols = ncols,
                   .time_col = (shape >> 3) % 2 && ncols > 2 ? 2 : -1,
                   .json = mode & 1, .json_kinds = kinds[(mode >> 1) % 4],
                   .header = (mode & 1) ? AIR_CSV_NO_HEADER : (AirCsvHeader)((mode >> 3) % 3),
                   .wm_bound_ms = (mode >> 5)};
  AirCsv *c = air_csv_open_at(NULL, &def, (shape >> 4) % 2, 1 + (shape >> 5) % 2);
  if (!c) return 0;
  AirField f[8];
  long line;
  int nf;
  unsigned sum = 0;
  while ((nf = air_csv_next(c, f, 1 + (shape >> 6) % 6, &line)) != AIR_CSV_END) {
    if (nf == AIR_CSV_BAD_QUOTING) {
      sum += (unsigned)strlen(air_csv_bad_why(c));
      continue;
    }
    if (nf == AIR_CSV_WAIT) break;
    int n = nf < 6 ? nf : 6;
    for (int k = 0; k < n && k < 1 + (shape >> 6) % 6; k++)
      for (size_t j = 0; j < f[k].n; j++) sum += (unsigned char)f[k].p[j];
    int64_t ts;
    (void)air_csv_time(c, &ts);
    (void)air_csv_row_wm(c);
  }
  air_csv_close(c);
  return (int)(sum & 0);
}

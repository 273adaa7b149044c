/* ceiling.h - clocks shared by the hand-fused ceiling programs. */
#ifndef CEILING_H
#define CEILING_H

#include <sys/resource.h>
#include <time.h>

/* CPU seconds of this process: on a shared machine, events per CPU-second
 * is the figure that other tenants disturb least. */
static inline double cpu_s(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
         (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

static inline double mono_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#endif /* CEILING_H */

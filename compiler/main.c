/* main.c - the airc driver: read, check, plan, explain or generate, compile.
 *
 * airc never hands query text to a shell: the C compiler is started with
 * fork/execvp and an argument vector.
 */
#include "airc.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *usage_text =
    "usage: airc [options] query.airq\n"
    "Compile a windowed streaming query into an MPI program named after the file.\n"
    "\n"
    "  -o FILE          name of the executable (with -S: of the C file)\n"
    "  -S, --emit-c     write the generated C (query.c) and stop\n"
    "  -g               for debugging: build with -g -O0, keep the C beside the executable\n"
    "                   (FILE.c), with #line directives into the query for gdb and warnings\n"
    "  --explain        print the physical plan and stop\n"
    "  --explain=dot    print the physical plan as a Graphviz graph (dot -Tpng) and stop\n"
    "  --no-fuse        do not fuse operators into pipelines (every edge is a message)\n"
    "  --check          check the query (syntax, names, types, plan) and stop\n"
    "  --cc CC          the C compiler (default mpicc)\n"
    "  --cflags FLAGS   extra flags for the C compiler, separated by spaces\n"
    "  --timestamp-format iso|epoch_ms\n"
    "                   how results write TIMESTAMPs where a sink does not say (its\n"
    "                   timestamp_format): ISO-8601 text in UTC (default) or epoch ms\n"
    "  --version        print the version\n"
    "  --help           print this help\n"
    "\n"
    "Run the result with: mpirun -np N ./query [--rate R] [--duration S] [--threads T]\n"
    "                     [--stats] [--stats-json FILE] [--quiet]\n";

typedef struct Options {
  const char *input;   /* the .airq file */
  const char *output;  /* -o */
  bool emit_c;         /* -S */
  bool debug;          /* -g */
  bool explain;        /* --explain */
  bool explain_dot;    /* --explain=dot */
  bool check;          /* --check */
  bool no_fuse;        /* --no-fuse */
  const char *cc;      /* --cc */
  const char *cflags;  /* --cflags */
} Options;

/* "dir/ysb.airq" -> "ysb" */
static char *query_name(const char *path) {
  const char *b = strrchr(path, '/');
  b = b ? b + 1 : path;
  char *s = strdup(b);
  char *dot = strrchr(s, '.');
  if (dot && dot != s) *dot = '\0';
  if (!*s) {
    free(s);
    s = strdup("query");
  }
  return s;
}

/* Do a and b name one existing file (the same inode, however spelt)? */
static bool same_file(const char *a, const char *b) {
  struct stat sa, sb;
  if (strcmp(a, "-") == 0 || stat(a, &sa) != 0 || stat(b, &sb) != 0)
    return false;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static bool exists(const char *p) {
  struct stat st;
  return stat(p, &st) == 0;
}

/* Where libair.a and air.h are: $AIRC_RUNTIME_DIR, else next to airc (the
 * build tree: build/airc, build/libair.a, build/include/air.h), else the
 * installed layout (bin/airc, lib/libair.a, include/air.h). */
static bool find_runtime(char *lib, char *inc, size_t n) {
  const char *env = getenv("AIRC_RUNTIME_DIR");
  char dir[PATH_MAX];
  if (env && *env) {
    snprintf(lib, n, "%s/libair.a", env);
    snprintf(inc, n, "%s/include", env);
    return exists(lib);
  }
  ssize_t len = readlink("/proc/self/exe", dir, sizeof dir - 1);
  if (len <= 0) return false;
  dir[len] = '\0';
  char *slash = strrchr(dir, '/');
  if (slash) *slash = '\0';
  snprintf(lib, n, "%s/libair.a", dir);
  snprintf(inc, n, "%s/include", dir);
  if (exists(lib)) return true;
  snprintf(lib, n, "%s/../lib/libair.a", dir);
  snprintf(inc, n, "%s/../include", dir);
  return exists(lib);
}

/* Run argv[0] with argv; returns its exit status or -1. */
static int run(char **argv) {
  fflush(NULL); /* our diagnostics before the child's, and none of them twice */
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    execvp(argv[0], argv);
    fprintf(stderr, "airc: error: cannot run '%s': %s\n", argv[0], strerror(errno));
    fflush(stderr); /* buffered (main), and _exit does not flush */
    _exit(127);
  }
  int status;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Compile cfile into exe: 0, 1 when the runtime is not found, 2 when the C
 * compiler failed (the message names cfile, which the caller keeps). */
static int compile_c(const Options *o, const char *cfile, const char *exe, const Catalog *cat) {
  char lib[PATH_MAX + 32], inc[PATH_MAX + 32];
  if (!find_runtime(lib, inc, sizeof lib)) {
    fprintf(stderr, "airc: error: cannot find libair.a (set AIRC_RUNTIME_DIR to the directory holding "
                    "libair.a and include/air.h)\n");
    return 1;
  }
  char incflag[PATH_MAX + 40];
  snprintf(incflag, sizeof incflag, "-I%s", inc);
  char *argv[128];
  int n = 0;
  char *flags = o->cflags ? strdup(o->cflags) : NULL;
  argv[n++] = (char *)(o->cc ? o->cc : "mpicc");
  argv[n++] = "-std=c11";
  argv[n++] = "-D_GNU_SOURCE";
  if (o->debug) {
    argv[n++] = "-g";
    argv[n++] = "-O0";
  } else {
    argv[n++] = "-O2";
  }
  argv[n++] = "-Wall";
  argv[n++] = "-Wextra";
  argv[n++] = incflag;
  if (flags)
    for (char *tok = strtok(flags, " \t"); tok && n < 110; tok = strtok(NULL, " \t")) argv[n++] = tok;
  argv[n++] = (char *)cfile;
  argv[n++] = lib;
  /* the libraries of the source and sink kinds it uses (kafka: -lrdkafka), once each */
  for (int i = 0; i < cat->nrels && n < 120; i++) {
    const Relation *r = cat->rels[i];
    const char *l = r->source ? r->source->lib : r->sink ? r->sink->lib : NULL;
    bool seen = !l;
    for (int k = 0; k < n && !seen; k++) seen = strcmp(argv[k], l) == 0;
    if (!seen) argv[n++] = (char *)l;
  }
  argv[n++] = "-lm";
  argv[n++] = "-pthread";
  argv[n++] = "-o";
  argv[n++] = (char *)exe;
  argv[n] = NULL;
  int st = run(argv);
  free(flags);
  if (st != 0) {
    fprintf(stderr, "airc: error: the C compiler '%s' failed (status %d); the C is kept in '%s'\n",
            argv[0], st, cfile);
    return 2; /* the caller keeps cfile */
  }
  return 0;
}

static int parse_args(int argc, char **argv, Options *o) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "-o") == 0 && i + 1 < argc) o->output = argv[++i];
    else if (strcmp(a, "-S") == 0 || strcmp(a, "--emit-c") == 0) o->emit_c = true;
    else if (strcmp(a, "-g") == 0) o->debug = true;
    else if (strcmp(a, "--explain") == 0 || strcmp(a, "--explain=text") == 0) o->explain = true;
    else if (strcmp(a, "--explain=dot") == 0) o->explain = o->explain_dot = true;
    else if (strcmp(a, "--check") == 0) o->check = true;
    else if (strcmp(a, "--no-fuse") == 0) o->no_fuse = true;
    else if (strcmp(a, "--cc") == 0 && i + 1 < argc) o->cc = argv[++i];
    else if (strcmp(a, "--cflags") == 0 && i + 1 < argc) o->cflags = argv[++i];
    else if ((strcmp(a, "--timestamp-format") == 0 && i + 1 < argc) || strncmp(a, "--timestamp-format=", 19) == 0) {
      const char *v = a[18] == '=' ? a + 19 : argv[++i];
      if (strcmp(v, "iso") != 0 && strcmp(v, "epoch_ms") != 0) {
        fprintf(stderr, "airc: error: --timestamp-format takes 'iso' or 'epoch_ms', not '%s'\n", v);
        return 1;
      }
      airc_ts_iso = strcmp(v, "iso") == 0;
    }
    else if (strcmp(a, "--version") == 0) {
      printf("airc %s\n", AIRC_VERSION);
      exit(0);
    } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(usage_text, stdout);
      exit(0);
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "airc: error: unknown or incomplete option '%s'\n%s", a, usage_text);
      return 1;
    } else if (o->input) {
      fprintf(stderr, "airc: error: more than one input file ('%s' and '%s')\n", o->input, a);
      return 1;
    } else
      o->input = a;
  }
  if (!o->input) {
    fprintf(stderr, "airc: error: no input file\n%s", usage_text);
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  /* diagnostics in blocks, not a write(2) per piece: 100k warnings took
   * seconds of system time (exit and run() flush it) */
  static char errbuf[1 << 16];
  setvbuf(stderr, errbuf, _IOFBF, sizeof errbuf);
  Options o = {0};
  if (parse_args(argc, argv, &o)) return 1;

  size_t len = 0;
  char *text = read_file(o.input, &len);
  if (!text && errno == EFBIG) {
    fprintf(stderr, "airc: error: '%s' is larger than %zu MiB: not a query file\n", o.input,
            AIRC_MAX_FILE_BYTES >> 20);
    return 1;
  }
  if (!text) {
    fprintf(stderr, "airc: error: cannot read '%s': %s\n", o.input, strerror(errno));
    return 1;
  }
  /* A UTF-8 byte order mark (editors on Windows write one) is not part of
   * the query: lines and columns count from after it. */
  const char *body = text;
  if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) {
    body += 3;
    len -= 3;
  }
  Diag d = {.path = o.input, .text = body, .text_len = len, .out = stderr};
  Arena *a = arena_new();
  Program *p = parse_program(a, &d);
  /* After a syntax error the dropped statements' names would only cause
   * follow-on "unknown stream" errors: check names and types of a file
   * that parsed. */
  Catalog *cat = d.nerrors == 0 ? sema_check(a, &d, p) : NULL;
  Plan *pl = NULL;
  if (d.nerrors == 0) pl = plan_build(a, &d, p, cat);
  int status = 0;
  if (d.nerrors) {
    status = 1;
    goto done;
  }
  char *name = query_name(o.input);
  pl->query_path = o.input;
  pl->query_name = arena_strdup(a, name);
  Physical *ph = fuse_plan(a, pl, !o.no_fuse);
  if (ph->too_many)
    diag_error(&d, ph->too_many->stmt->name_loc, "stream '%s' has more than %d readers",
               ph->too_many->derived ? ph->too_many->derived->name : "?", AIRC_MAX_OUTS);
  if (ph->nedges > AIR_MAX_EDGES) {
    Chain *last = &pl->chains[pl->nchains - 1];
    diag_error(&d, last->stmt->loc, "the program needs %d message edges, more than the %d the runtime has: split it into several programs",
               ph->nedges, AIR_MAX_EDGES);
  }
  if (d.nerrors) {
    free(name);
    status = 1;
    goto done;
  }
  if (o.check) {
    free(name);
    goto done;
  }
  if (o.explain) {
    if (o.explain_dot)
      explain_dot(stdout, ph);
    else
      explain_print(stdout, ph);
    free(name);
    goto done;
  }

  /* The C file (-S) or the executable must not replace the query: "airc
   * myquery" would name the executable after its input. */
  const char *target = o.output ? o.output : name;
  char cname[PATH_MAX];
  if (o.emit_c && !o.output) {
    snprintf(cname, sizeof cname, "%s.c", name);
    target = cname;
  }
  if (same_file(target, o.input)) {
    fprintf(stderr,
            "airc: error: the %s '%s' would overwrite the query file '%s': name another with -o\n",
            o.emit_c ? "C file" : "executable", target, o.input);
    free(name);
    status = 1;
    goto done;
  }

  char cpath[PATH_MAX], tmpdir[] = "/tmp/airc.XXXXXX";
  bool keep_c = o.emit_c || o.debug;
  if (o.emit_c) {
    if (o.output)
      snprintf(cpath, sizeof cpath, "%s", o.output);
    else
      snprintf(cpath, sizeof cpath, "%s.c", name);
  } else if (o.debug) {
    /* -g: the C that gdb shows lives beside the executable */
    snprintf(cpath, sizeof cpath, "%s.c", target);
    if (same_file(cpath, o.input)) {
      fprintf(stderr, "airc: error: the C file '%s' would overwrite the query file '%s': name another "
                      "executable with -o\n", cpath, o.input);
      free(name);
      status = 1;
      goto done;
    }
  } else {
    if (!mkdtemp(tmpdir)) {
      fprintf(stderr, "airc: error: cannot make a temporary directory: %s\n", strerror(errno));
      free(name);
      status = 1;
      goto done;
    }
    snprintf(cpath, sizeof cpath, "%s/%s.c", tmpdir, "query");
  }
  FILE *out = strcmp(cpath, "-") == 0 ? stdout : fopen(cpath, "w");
  if (!out) {
    fprintf(stderr, "airc: error: cannot write '%s': %s\n", cpath, strerror(errno));
    free(name);
    status = 1;
    goto done;
  }
  CodegenOptions copt = {.debug = o.debug, .query_path = o.input, .c_path = cpath};
  bool ok = codegen_emit(out, &d, ph, &copt);
  if (out != stdout && fclose(out) != 0) ok = false;
  if (!ok) status = 1;
  bool cc_failed = false;
  if (ok && !o.emit_c) {
    const char *exe = o.output ? o.output : name;
    status = compile_c(&o, cpath, exe, cat);
    cc_failed = status == 2;
    if (status) status = 1;
  }
  /* The C stays when asked for (-S, -g) and when the C compiler failed on
   * it (the message names it); a half-written one never stays. */
  if ((!keep_c && !cc_failed) || (!ok && out != stdout)) unlink(cpath);
  if (!keep_c && !cc_failed) rmdir(tmpdir);
  free(name);
done:
  arena_free(a);
  free(text);
  return status;
}

# airc - a compiler from windowed streaming queries (.airq) to C+MPI programs.
#
#   make            build/airc, build/libair.a, build/include/air.h
#   make check      every test (unit, golden, end-to-end on 1..3 ranks)
#   make demo       YSB on 2 ranks
#   make deps       install the Debian packages (as root), or print the command
#
# Generated files (bison/flex output, objects, templates, test builds) go to build/.

CC      ?= cc
MPICC   ?= mpicc
CFLAGS  ?= -O2 -g
WARN    := -Wall -Wextra
CSTD    := -std=c11 -D_GNU_SOURCE
BISON   ?= bison
FLEX    ?= flex
B       := build

DEB_PACKAGES := flex bison mpich libmpich-dev libcmocka-dev python3 gawk gdb librdkafka-dev kcat \
                libhiredis-dev redis-server redis-tools

COMPILER_SRC := $(filter-out compiler/main.c,$(wildcard compiler/*.c))
COMPILER_OBJ := $(COMPILER_SRC:compiler/%.c=$(B)/compiler/%.o) \
                $(B)/grammar/airq.tab.o $(B)/grammar/lex.airq.o $(B)/grammar/build.o $(B)/templates.o
RUNTIME_SRC  := $(wildcard runtime/*.c)
RUNTIME_OBJ  := $(RUNTIME_SRC:runtime/%.c=$(B)/runtime/%.o)
TEMPLATES    := $(sort $(wildcard codegen_templates/*.tpl))
UNIT_SRC     := $(wildcard tests/unit/test_*.c)
UNIT_BIN     := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)

.PHONY: all deps deps-quiet check check-parts check-unit check-golden check-e2e demo clean update-golden
all: $(B)/airc $(B)/libair.a $(B)/include/air.h $(B)/include/air_limits.h $(B)/include/air_query.h

# --- compiler -------------------------------------------------------------
# One bison run makes both files (a grouped target: under -j two runs
# wrote the same files at once and a half-written parser got compiled).
$(B)/grammar/airq.tab.c $(B)/grammar/airq.tab.h &: grammar/airq.y
	@mkdir -p $(dir $@)
	$(BISON) -Wall -Werror --defines=$(B)/grammar/airq.tab.h -o $(B)/grammar/airq.tab.c $<

$(B)/grammar/lex.airq.c $(B)/grammar/lex.airq.h &: grammar/airq.l
	@mkdir -p $(dir $@)
	$(FLEX) --header-file=$(B)/grammar/lex.airq.h -o $(B)/grammar/lex.airq.c $<

$(B)/grammar/lex.airq.o: $(B)/grammar/lex.airq.c $(B)/grammar/airq.tab.h compiler/airc.h grammar/parse.h
	$(CC) $(CSTD) $(CFLAGS) $(WARN) -Wno-sign-compare -Wno-unused-function -Icompiler -Iruntime -Igrammar -I$(B)/grammar -c $< -o $@

$(B)/grammar/airq.tab.o: $(B)/grammar/airq.tab.c $(B)/grammar/lex.airq.h compiler/airc.h grammar/parse.h
	$(CC) $(CSTD) $(CFLAGS) $(WARN) -Icompiler -Iruntime -Igrammar -I$(B)/grammar -c $< -o $@

$(B)/grammar/build.o: grammar/build.c grammar/parse.h $(B)/grammar/airq.tab.h compiler/airc.h
	$(CC) $(CSTD) $(CFLAGS) $(WARN) -Icompiler -Iruntime -Igrammar -I$(B)/grammar -c $< -o $@

$(B)/compiler/%.o: compiler/%.c $(wildcard compiler/*.h) runtime/air_limits.h $(B)/grammar/airq.tab.h $(B)/grammar/lex.airq.h
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(CFLAGS) $(WARN) -Icompiler -Iruntime -Igrammar -I$(B)/grammar -c $< -o $@

# Templates are embedded as string literals, one per line, so airc is one
# self-contained binary (AIRC_TEMPLATE_DIR overrides them at run time).
$(B)/templates.c: $(TEMPLATES) tools/embed_templates.sh
	@mkdir -p $(dir $@)
	sh tools/embed_templates.sh $(TEMPLATES) > $@

$(B)/templates.o: $(B)/templates.c
	$(CC) $(CSTD) $(CFLAGS) $(WARN) -c $< -o $@

# Every phase but the driver, as an archive so tests link only what they use.
$(B)/libairc.a: $(COMPILER_OBJ)
	rm -f $@
	ar rcs $@ $^

$(B)/airc: $(B)/compiler/main.o $(B)/libairc.a
	$(CC) $(CFLAGS) -o $@ $^

# --- runtime ----------------------------------------------------------------
$(B)/runtime/%.o: runtime/%.c runtime/air.h runtime/air_limits.h $(wildcard runtime/*_int.h)
	@mkdir -p $(dir $@)
	$(MPICC) $(CSTD) $(CFLAGS) $(WARN) -pthread -Iruntime -c $< -o $@

$(B)/libair.a: $(RUNTIME_OBJ)
	rm -f $@
	ar rcs $@ $^

$(B)/include/%.h: runtime/%.h
	@mkdir -p $(dir $@)
	cp $< $@

# --- tests ------------------------------------------------------------------
$(B)/tests/test_%: tests/unit/test_%.c $(B)/libairc.a $(B)/libair.a
	@mkdir -p $(dir $@)
	$(MPICC) $(CSTD) $(CFLAGS) $(WARN) -pthread -Icompiler -Iruntime -Igrammar -I$(B)/grammar $< $(B)/libairc.a $(B)/libair.a -lcmocka -lm -o $@

# make check runs its parts two at a time (CHECK_JOBS): most of them wait on
# processes, sockets and timers as much as they compute, so on two cores
# this takes about 10 minutes where one at a time takes 17. Each part's
# output is printed whole when it ends (-Otarget), and a failing part does
# not stop the others (-k); `make check CHECK_JOBS=1`
# runs them one by one, printing as they go. Every `check-parts: X` below
# adds a part.
CHECK_JOBS ?= 2
check: deps-quiet all
	@$(MAKE) --no-print-directory -k -j$(CHECK_JOBS) -Otarget check-parts

check-parts: check-e2e check-unit check-golden check-install check-queries

check-unit: $(UNIT_BIN)
	@sh tests/run_unit.sh $(UNIT_BIN)

check-golden: all
	@sh tests/golden/run.sh

check-e2e: all
	@sh tests/e2e/run.sh

update-golden: all
	@UPDATE=1 sh tests/golden/run.sh

demo: deps-quiet all
	$(B)/airc queries/ysb.airq -o $(B)/ysb
	mpirun -np 2 $(B)/ysb --duration 25

deps:
	@sh tools/deps.sh $(DEB_PACKAGES)

deps-quiet:
	@sh tools/deps.sh --if-missing $(DEB_PACKAGES)

clean:
	rm -rf $(B)

# --- hardening (fuzz, sanitizers) ---------------------------------------------
# make fuzz: libFuzzer over the front end and code generator, in process
# (tests/fuzz/fuzz_airc.c), for FUZZ_SECONDS on one core; not part of check.
FUZZ_SECONDS ?= 300
FUZZ_CC      ?= clang
FUZZ_FLAGS   := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FUZZ_SRC     := $(COMPILER_SRC) $(B)/grammar/airq.tab.c $(B)/grammar/lex.airq.c grammar/build.c $(B)/templates.c

.PHONY: fuzz fuzz-merge
$(B)/fuzz/fuzz_airc: tests/fuzz/fuzz_airc.c $(FUZZ_SRC) compiler/airc.h $(B)/grammar/airq.tab.h $(B)/grammar/lex.airq.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CSTD) $(FUZZ_FLAGS) -Icompiler -Iruntime -Igrammar -I$(B)/grammar tests/fuzz/fuzz_airc.c $(FUZZ_SRC) -o $@

fuzz: $(B)/fuzz/fuzz_airc
	sh tests/fuzz/fuzz.sh $(FUZZ_SECONDS)

# make fuzz-csv: libFuzzer over the csv and JSON readers (tests/fuzz/fuzz_csv.c,
# the runtime's sources with MPI's headers), seeded with the e2e cases' data.
FUZZ_MPI := $(shell $(MPICC) -show 2>/dev/null | tr ' ' '\n' | grep -E '^-[IL]' | tr '\n' ' ')
.PHONY: fuzz-csv
$(B)/fuzz/fuzz_csv: tests/fuzz/fuzz_csv.c $(RUNTIME_SRC) runtime/air.h $(wildcard runtime/*_int.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CSTD) $(FUZZ_FLAGS) -Iruntime $(FUZZ_MPI) tests/fuzz/fuzz_csv.c $(RUNTIME_SRC) \
	  -lmpich -lrdkafka -lhiredis -lm -pthread -o $@

fuzz-csv: $(B)/fuzz/fuzz_csv
	@mkdir -p $(B)/fuzz/csv-corpus $(B)/fuzz/csv-artifacts
	@for f in tests/e2e/cases/*/*.csv tests/e2e/cases/*/*.json; do \
	  head -c 4000 "$$f" > "$(B)/fuzz/csv-corpus/seed_$$(cksum < "$$f" | cut -d' ' -f1)"; done
	$(B)/fuzz/fuzz_csv -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -timeout=10 \
	  -artifact_prefix=$(B)/fuzz/csv-artifacts/ $(B)/fuzz/csv-corpus

# Minimize build/fuzz/corpus into tests/fuzz/corpus (review before committing).
fuzz-merge: $(B)/fuzz/fuzz_airc
	MERGE=1 sh tests/fuzz/fuzz.sh

# Part of make check (a prerequisite added here, the check rule is above):
# the kept fuzz corpus through build/airc, and the injection tests.
.PHONY: check-hardening
check-parts: check-hardening
check-hardening: all
	@sh tests/fuzz/replay.sh
	@sh tests/inject/run.sh

# make check-asan: compiler and runtime built with ASan+UBSan into build/asan/
# (a self-contained layout: airc finds libair.a and include/ next to itself).
# Unit tests and golden tests run with leak detection on. Generated programs
# (tests/sanitize/e2e.sh asan: 4 e2e cases on 1 and 2 ranks) run with
# ASAN_OPTIONS=detect_leaks=0: MPICH itself leaks (a program that only calls
# MPI_Init_thread and MPI_Finalize leaks 1016 bytes in 9 allocations, from
# modules it loads at run time), so every rank would fail on memory that is
# not ours to free.
A          := $(B)/asan
ASAN_FLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
ASAN_COMPILER_OBJ := $(COMPILER_SRC:compiler/%.c=$(A)/compiler/%.o) \
                     $(A)/grammar/airq.tab.o $(A)/grammar/lex.airq.o $(A)/grammar/build.o $(A)/templates.o
ASAN_RUNTIME_OBJ  := $(RUNTIME_SRC:runtime/%.c=$(A)/runtime/%.o)
ASAN_UNIT_BIN     := $(UNIT_SRC:tests/unit/%.c=$(A)/tests/%)

.PHONY: check-asan
$(A)/compiler/%.o: compiler/%.c $(wildcard compiler/*.h) runtime/air_limits.h $(B)/grammar/airq.tab.h $(B)/grammar/lex.airq.h
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(ASAN_FLAGS) $(WARN) -Icompiler -Iruntime -Igrammar -I$(B)/grammar -c $< -o $@

$(A)/grammar/build.o: grammar/build.c grammar/parse.h $(B)/grammar/airq.tab.h compiler/airc.h
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(ASAN_FLAGS) $(WARN) -Icompiler -Iruntime -Igrammar -I$(B)/grammar -c $< -o $@

$(A)/grammar/%.o: $(B)/grammar/%.c $(B)/grammar/airq.tab.h $(B)/grammar/lex.airq.h compiler/airc.h grammar/parse.h
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(ASAN_FLAGS) $(WARN) -Wno-sign-compare -Wno-unused-function -Icompiler -Iruntime -Igrammar -I$(B)/grammar -c $< -o $@

$(A)/templates.o: $(B)/templates.c
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(ASAN_FLAGS) $(WARN) -c $< -o $@

$(A)/libairc.a: $(ASAN_COMPILER_OBJ)
	rm -f $@
	ar rcs $@ $^

$(A)/airc: $(A)/compiler/main.o $(A)/libairc.a
	$(CC) $(ASAN_FLAGS) -o $@ $^

$(A)/runtime/%.o: runtime/%.c runtime/air.h runtime/air_limits.h $(wildcard runtime/*_int.h)
	@mkdir -p $(dir $@)
	$(MPICC) $(CSTD) $(ASAN_FLAGS) $(WARN) -pthread -Iruntime -c $< -o $@

$(A)/libair.a: $(ASAN_RUNTIME_OBJ)
	rm -f $@
	ar rcs $@ $^

$(A)/include/%.h: runtime/%.h
	@mkdir -p $(dir $@)
	cp $< $@

$(A)/tests/test_%: tests/unit/test_%.c $(A)/libairc.a $(A)/libair.a
	@mkdir -p $(dir $@)
	$(MPICC) $(CSTD) $(ASAN_FLAGS) $(WARN) -pthread -Icompiler -Iruntime -Igrammar -I$(B)/grammar $< $(A)/libairc.a $(A)/libair.a -lcmocka -lm -o $@

check-asan: all $(A)/airc $(A)/libair.a $(A)/include/air.h $(A)/include/air_limits.h $(A)/include/air_query.h $(ASAN_UNIT_BIN)
	@sh tests/run_unit.sh $(ASAN_UNIT_BIN)
	@AIRC=$(A)/airc sh tests/golden/run.sh
	@AIRC=$(A)/airc sh tests/fuzz/replay.sh
	@sh tests/sanitize/e2e.sh asan

# make check-tsan: ThreadSanitizer over the threaded runtime (build/tsan/):
# the queue and watermark unit tests, the libair integration test
# (tests/runtime/run.sh, every case, 4 repeated runs) and 4 e2e cases on 1
# and 2 ranks. MPICH (ch4:ucx) segfaults under TSan in any program, even
# MPI_Init alone: UCX's memory hooks (libucm ucm_madvise -> ucm_event_enter)
# call pthread_rwlock_rdlock from a new thread's start, before TSan set the
# thread up (SIGSEGV in __tsan::MutexPreReadLock). UCX_MEM_EVENTS=no turns
# the hooks off, and then everything runs. The compiler is single-threaded:
# it is not built with TSan.
T           := $(B)/tsan
TSAN_FLAGS  := -O1 -g -fsanitize=thread
TSAN_RUNTIME_OBJ := $(RUNTIME_SRC:runtime/%.c=$(T)/runtime/%.o)
TSAN_UNIT_BIN    := $(T)/tests/test_queue $(T)/tests/test_watermark
TSAN_ENV    := UCX_MEM_EVENTS=no TSAN_OPTIONS=halt_on_error=1

.PHONY: check-tsan
$(T)/runtime/%.o: runtime/%.c runtime/air.h runtime/air_limits.h $(wildcard runtime/*_int.h)
	@mkdir -p $(dir $@)
	$(MPICC) $(CSTD) $(TSAN_FLAGS) $(WARN) -pthread -Iruntime -c $< -o $@

$(T)/libair.a: $(TSAN_RUNTIME_OBJ)
	rm -f $@
	ar rcs $@ $^

$(T)/include/%.h: runtime/%.h
	@mkdir -p $(dir $@)
	cp $< $@

$(T)/tests/test_%: tests/unit/test_%.c $(T)/libair.a
	@mkdir -p $(dir $@)
	$(MPICC) $(CSTD) $(TSAN_FLAGS) $(WARN) -pthread -Iruntime $< $(T)/libair.a -lcmocka -lm -o $@

check-tsan: all $(T)/libair.a $(T)/include/air.h $(T)/include/air_limits.h $(T)/include/air_query.h $(TSAN_UNIT_BIN)
	@$(TSAN_ENV) sh tests/run_unit.sh $(TSAN_UNIT_BIN)
	@$(TSAN_ENV) LIBAIR=$(T)/libair.a LIBAIR_NO_MAKE=1 WSUM_TMP=$(T)/runtime-test \
	  WSUM_CFLAGS="$(TSAN_FLAGS)" REPEAT=4 sh tests/runtime/run.sh
	@sh tests/sanitize/e2e.sh tsan

# --- install, docs, examples --------------------------------------------------
# make install PREFIX=/opt/airc: airc, libair.a, air.h and the man page, in
# the layout airc looks for relative to itself (bin/../lib, bin/../include).
PREFIX  ?= /usr/local
DESTDIR ?=
INSTALL_FILES := bin/airc lib/libair.a include/air.h include/air_limits.h include/air_query.h share/man/man1/airc.1

.PHONY: install uninstall check-install check-queries docs-png
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include \
	  $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(B)/airc $(DESTDIR)$(PREFIX)/bin/airc
	install -m 644 $(B)/libair.a $(DESTDIR)$(PREFIX)/lib/libair.a
	install -m 644 runtime/air.h $(DESTDIR)$(PREFIX)/include/air.h
	install -m 644 runtime/air_limits.h $(DESTDIR)$(PREFIX)/include/air_limits.h
	install -m 644 runtime/air_query.h $(DESTDIR)$(PREFIX)/include/air_query.h
	install -m 644 docs/airc.1 $(DESTDIR)$(PREFIX)/share/man/man1/airc.1

uninstall:
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/,$(INSTALL_FILES))

check-install: all
	@sh tests/install/run.sh

check-queries: all
	@sh tests/queries/run.sh

# Stops: SIGINT, SIGTERM and --duration cut the sources at one agreed
# point, checked exactly; a killed run's .tmp is a prefix of the full output.
.PHONY: check-stop
check-parts: check-stop
check-stop: all
	@python3 tests/stop/run.py

# Checkpoints: runs killed (SIGKILL, a random rank, rank 0, inside a
# checkpoint) and resumed give the bytes of an uninterrupted run; torn,
# corrupt and missing state files, another query, another rank count.
# check-ckpt-stress: 10 kill-and-resume trials per case instead of 1.
.PHONY: check-ckpt check-ckpt-stress
check-parts: check-ckpt
check-ckpt: all
	@python3 tests/ckpt/run.py 1
check-ckpt-stress: all
	@python3 tests/ckpt/run.py 10

# Bad rows that fail a run: a csv source or table with no good row,
# max_bad_rows as a count and a percentage; a table's bad rows counted once;
# a header read as a record (header = false) says to write header = true.
.PHONY: check-badrows
check-parts: check-badrows
check-badrows: all
	@python3 tests/badrows/run.py

# The compiler driver on hostile input sizes (a device, a pipe, 64 MiB of
# NUL bytes), and its time and memory linear in the number of statements.
.PHONY: check-compiler
check-parts: check-compiler
check-compiler: all
	@sh tests/compiler/run.sh

# Non-regular files: csv streams and tables read from FIFOs and standard
# input on 1-3 ranks, a stop while the writer is idle, and a file followed
# as it grows (follow = true).
.PHONY: check-pipes
check-parts: check-pipes
check-pipes: all
	@python3 tests/pipes/run.py

# Query shapes (filters around joins, derived streams into joins and
# aggregates, ...), fused and not, on 1-3 ranks, against Python references.
.PHONY: check-shapes
check-parts: check-shapes
check-shapes: all
	@python3 tests/shapes/run.py

# source = 'tcp' on loopback: concurrent senders to listen, a reconnecting
# connect, a port in use; 1-3 ranks, fused and not.
.PHONY: check-kafka
check-parts: check-kafka
$(B)/tests/mock_cluster: tests/kafka/mock_cluster.c
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) -O1 $(WARN) $< -lrdkafka -o $@
check-kafka: all $(B)/tests/mock_cluster
	@python3 tests/kafka/run.py

# source = 'redis' tables against a redis-server started on a free loopback
# port: YSB's campaigns as the original benchmark stores them, hashes, bad
# keys, 100k keys, Redis down or mute; YSB the original way, Kafka in (the
# mock cluster) and Redis out (~35 s).
.PHONY: check-redis
check-parts: check-redis
check-redis: all $(B)/tests/mock_cluster
	@python3 tests/redis/run.py

.PHONY: check-tcp
check-parts: check-tcp
check-tcp: all
	@python3 tests/tcp/run.py

# Run-time option overrides: --set and AIRC_SET_* change a compiled query's
# input, table and sink paths, header, limit; refused overrides end every
# rank with the compiler's message (1-3 ranks, about 30 s).
.PHONY: check-set
check-parts: check-set
check-set: all
	@python3 tests/set/run.py

# The sinks that are no bounded file: redis (a redis-server of its own on
# loopback, read back with redis-cli), tcp, stdout with JSON lines, and a
# csv sink of an unbounded source; their failures; 1-3 ranks, fused and not.
.PHONY: check-sinks
check-parts: check-sinks
check-sinks: all
	@python3 tests/sinks/run.py

# Stream-stream joins (a window's right rows hashed when it closes) against
# a pair-by-pair evaluation: hot keys, VARCHAR and DOUBLE keys, HOPPING
# windows, late rows; fused and not, 1-3 ranks (tests/joins/run.py).
.PHONY: check-joins
check-parts: check-joins
check-joins: all
	@python3 tests/joins/run.py

# HOPPING windows from shared slices against a per-window evaluation, with
# rows late for some of their windows, fused and not, on 1-3 ranks.
.PHONY: check-slices
check-parts: check-slices
check-slices: all
	@python3 tests/slices/run.py

# The Nexmark queries of queries/nexmark (q0-q22; q6's file holds only the
# part airc can state) on data made by tests/nexmark/gen.py, fused and not,
# on 1-3 ranks, against Python references (tests/nexmark/reference.py;
# about 1.5 min).
.PHONY: check-nexmark
check-parts: check-nexmark
check-nexmark: all
	@python3 tests/nexmark/run.py

# Big state: a per-rank partial that stops pre-aggregating (and starts
# again), sorted window tables merged on rank 0, against a Python reference.
.PHONY: check-state
check-parts: check-state
check-state: all
	@python3 tests/state/run.py

# Every example of docs/language.md compiles and runs on 2 ranks; the error
# examples fail with their messages.
.PHONY: check-docs
check-parts: check-docs
check-docs: all
	@python3 tests/docs/run.py

# airc -g: the C kept beside the executable, #line directives into the query
# (gdb finds a bad row and a division by zero at their query lines), the C
# kept when the C compiler fails.
.PHONY: check-debug
check-parts: check-debug
check-debug: all
	@python3 tests/debug/run.py

# The committed picture of YSB*'s plan (needs Debian's graphviz; not in check).
docs-png: all
	$(B)/airc --explain=dot queries/ysb_star.airq | dot -Tpng -o docs/ysb_star.png

# --- bench --------------------------------------------------------------------
# make bench: sustainable-throughput search, ceilings, scaling (bench/bench.py;
# long: see bench/README.md). BENCH_QUICK=1: about 10 minutes. Never in check.
BENCH_CFLAGS := $(CSTD) -O2 $(WARN) -I$(B)/include
BENCH_PY_FLAGS := $(if $(filter 1 yes true,$(BENCH_QUICK)),--quick) $(if $(BENCH_DURATION),--duration $(BENCH_DURATION))

$(B)/bench/ceiling_%: bench/ceiling_%.c bench/ceiling.h $(B)/libair.a $(B)/include/air.h $(B)/include/air_limits.h $(B)/include/air_query.h
	@mkdir -p $(dir $@)
	$(MPICC) $(BENCH_CFLAGS) $< $(B)/libair.a -lm -pthread -o $@

# The JSON parsers airc was measured against (issue 12): bench-only
# dependencies, installed by make bench as root (tools/deps.sh).
$(B)/bench/json_parsers: bench/json_parsers.c bench/ceiling.h $(B)/libair.a $(B)/include/air.h $(B)/include/air_limits.h
	@mkdir -p $(dir $@)
	$(MPICC) $(BENCH_CFLAGS) $< $(B)/libair.a -lcjson -ljansson -lm -pthread -o $@

# YSB from Kafka beside a bare librdkafka consumer (bench/kafka_bench.py).
$(B)/bench/kafka_tool: bench/kafka_tool.c
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) -O2 $(WARN) $< -lrdkafka -o $@

.PHONY: bench bench-tools bench-kafka bench-files bench-beyond bench-ckpt bench-lang bench-updating
bench-kafka: all $(B)/tests/mock_cluster $(B)/bench/kafka_tool
	python3 bench/kafka_bench.py $(if $(filter 1 yes true,$(BENCH_QUICK)),--runs 1)

# A csv file read by 1, 2 and 4 ranks beside DuckDB (bench/files_bench.py;
# DuckDB from npm into build/bench/node, bench only).
bench-files: all
	python3 bench/files_bench.py $(if $(filter 1 yes true,$(BENCH_QUICK)),--quick)

bench-tools: all $(B)/bench/ceiling_ysb $(B)/bench/ceiling_swa $(B)/bench/ceiling_state $(B)/bench/ceiling_join
	@sh tools/deps.sh --if-missing gnuplot-nox || echo "bench: without gnuplot, no plots"
	@sh tools/deps.sh --if-missing libcjson-dev libjansson-dev && $(MAKE) --no-print-directory $(B)/bench/json_parsers \
	  || echo "bench: without libcjson-dev and libjansson-dev, no JSON parser comparison"

# Only issue 14's cases (big state and its output, joins, sliding windows),
# each beside its hand-written limit: ~15 min, BENCH_QUICK=1 ~4.
bench-beyond: bench-tools
	python3 bench/bench.py --beyond-only $(if $(filter 1 yes true,$(BENCH_QUICK)),--quick)

# Checkpoints' cost beside no checkpoints: throughput and p99 of SWA and
# YSB at 10 s and 1 s, size and time for 1k, 1M, 10M keys, resume time.
bench-ckpt: all
	python3 bench/ckpt_bench.py $(if $(filter 1 yes true,$(BENCH_QUICK)),--quick)

# Newer operators beside the plain ones they extend: a Top-N of a window's
# rows beside the window aggregation, interval and outer joins beside the
# windowed inner join (~3 min, BENCH_QUICK=1 ~1).
bench-lang: all
	python3 bench/lang_bench.py $(if $(filter 1 yes true,$(BENCH_QUICK)),--quick)

# Updating queries (GROUP BY without WINDOW) beside the windowed aggregation
# of the same events and the hand-written SWA loop (~4 min, BENCH_QUICK=1 ~1).
bench-updating: bench-tools
	python3 bench/updating_bench.py $(if $(filter 1 yes true,$(BENCH_QUICK)),--quick)

bench: bench-tools
	python3 bench/bench.py $(BENCH_PY_FLAGS)
	$(MAKE) --no-print-directory bench-kafka
	$(MAKE) --no-print-directory bench-files
	$(MAKE) --no-print-directory bench-ckpt
	$(MAKE) --no-print-directory bench-lang
	$(MAKE) --no-print-directory bench-updating


# --- stress and faults --------------------------------------------------------
# make check-faults (~30 s, part of check): SIGKILL of a rank, SIGINT/SIGTERM,
# missing/vanished inputs, duplicate table keys, a full disk, closed stdout.
# make check-stress (~5 min, not in check): 3x overload for 60 s, 10 million
# keys in one window, 10,000 open windows, then the fault cases.
.PHONY: check-faults check-stress
check-parts: check-faults

check-faults: all
	@sh tests/stress/faults.sh

check-stress: all
	@sh tests/stress/overload.sh
	@sh tests/stress/faults.sh

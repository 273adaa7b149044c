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
WARN    := -Wall -Wextra -Wno-unused-parameter
CSTD    := -std=c11 -D_GNU_SOURCE
BISON   ?= bison
FLEX    ?= flex
B       := build

DEB_PACKAGES := flex bison mpich libmpich-dev libcmocka-dev python3 gawk

COMPILER_SRC := $(filter-out compiler/main.c,$(wildcard compiler/*.c))
COMPILER_OBJ := $(COMPILER_SRC:compiler/%.c=$(B)/compiler/%.o) \
                $(B)/grammar/airq.tab.o $(B)/grammar/lex.airq.o $(B)/templates.o
RUNTIME_SRC  := $(wildcard runtime/*.c)
RUNTIME_OBJ  := $(RUNTIME_SRC:runtime/%.c=$(B)/runtime/%.o)
TEMPLATES    := $(sort $(wildcard codegen_templates/*.tpl))
UNIT_SRC     := $(wildcard tests/unit/test_*.c)
UNIT_BIN     := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)

.PHONY: all deps check check-unit check-golden check-e2e demo clean update-golden
all: $(B)/airc $(B)/libair.a $(B)/include/air.h

# --- compiler -------------------------------------------------------------
$(B)/grammar/airq.tab.c $(B)/grammar/airq.tab.h: grammar/airq.y
	@mkdir -p $(dir $@)
	$(BISON) -Wall -Werror --defines=$(B)/grammar/airq.tab.h -o $(B)/grammar/airq.tab.c $<

$(B)/grammar/lex.airq.c $(B)/grammar/lex.airq.h: grammar/airq.l
	@mkdir -p $(dir $@)
	$(FLEX) --header-file=$(B)/grammar/lex.airq.h -o $(B)/grammar/lex.airq.c $<

$(B)/grammar/lex.airq.o: $(B)/grammar/lex.airq.c $(B)/grammar/airq.tab.h compiler/airc.h
	$(CC) $(CSTD) $(CFLAGS) $(WARN) -Wno-sign-compare -Wno-unused-function -Icompiler -I$(B)/grammar -c $< -o $@

$(B)/grammar/airq.tab.o: $(B)/grammar/airq.tab.c $(B)/grammar/lex.airq.h compiler/airc.h
	$(CC) $(CSTD) $(CFLAGS) $(WARN) -Icompiler -I$(B)/grammar -c $< -o $@

$(B)/compiler/%.o: compiler/%.c compiler/airc.h $(B)/grammar/airq.tab.h $(B)/grammar/lex.airq.h
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(CFLAGS) $(WARN) -Icompiler -I$(B)/grammar -c $< -o $@

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
$(B)/runtime/%.o: runtime/%.c runtime/air.h $(wildcard runtime/*_int.h)
	@mkdir -p $(dir $@)
	$(MPICC) $(CSTD) $(CFLAGS) $(WARN) -pthread -Iruntime -c $< -o $@

$(B)/libair.a: $(RUNTIME_OBJ)
	rm -f $@
	ar rcs $@ $^

$(B)/include/air.h: runtime/air.h
	@mkdir -p $(dir $@)
	cp $< $@

# --- tests ------------------------------------------------------------------
$(B)/tests/test_%: tests/unit/test_%.c $(B)/libairc.a $(B)/libair.a
	@mkdir -p $(dir $@)
	$(MPICC) $(CSTD) $(CFLAGS) $(WARN) -pthread -Icompiler -Iruntime -I$(B)/grammar $< $(B)/libairc.a $(B)/libair.a -lcmocka -lm -o $@

check: all check-unit check-golden check-e2e

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

#!/bin/sh
# fuzz.sh SECONDS - run the libFuzzer harness build/fuzz/fuzz_airc (built by
# `make fuzz`) for SECONDS on one core. The working corpus build/fuzz/corpus
# is seeded from every query in the tree and the kept corpus tests/fuzz/corpus;
# crashes, hangs and leaks land in build/fuzz/artifacts/. Run from the
# repository root. MERGE=1 instead minimizes build/fuzz/corpus into
# tests/fuzz/corpus (only inputs that add coverage are kept).
set -eu
secs=${1:-300}
b=build/fuzz
mkdir -p "$b/corpus" "$b/artifacts"

# The seeds: every query in the tree, named by checksum.
seed() {
  for f in queries/*.airq $(find tests/golden tests/e2e/cases -name query.airq -type f); do
    [ -f "$f" ] || continue
    cp "$f" "$1/seed_$(cksum < "$f" | cut -d' ' -f1)"
  done
}

if [ "${MERGE:-0}" = 1 ]; then
  # The seeds go in first, so the kept corpus holds only what they do not
  # already cover; edges only (-use_counters=0) keeps it small.
  rm -rf "$b/merged"
  mkdir -p "$b/merged"
  seed "$b/merged"
  "$b/fuzz_airc" -merge=1 -use_counters=0 -max_len=4096 "$b/merged" tests/fuzz/corpus \
    "$b/corpus" 2>&1 | tail -n 2
  rm -f "$b/merged"/seed_* tests/fuzz/corpus/*
  cp "$b/merged"/* tests/fuzz/corpus/
  echo "fuzz: tests/fuzz/corpus has $(ls tests/fuzz/corpus | wc -l) files"
  exit 0
fi

seed "$b/corpus"
cp tests/fuzz/corpus/* "$b/corpus/" 2> /dev/null || true

status=0
# -jobs=1 -workers=1: the machine has two cores shared with others.
# -timeout: an input that takes 10 s is a hang; -max_len: longer inputs add
# little but slow every run. Findings are reported by libFuzzer in fuzz-0.log.
# libFuzzer writes its log as fuzz-0.log in the current directory: build/fuzz.
dict=$(pwd)/tests/fuzz/airq.dict
(cd "$b" && ./fuzz_airc -jobs=1 -workers=1 -max_total_time="$secs" -timeout=10 \
  -rss_limit_mb=2048 -max_len=4096 -dict="$dict" \
  -artifact_prefix=artifacts/ -print_final_stats=1 corpus) || status=$?
tail -n 25 "$b/fuzz-0.log"
echo "fuzz: artifacts (crashes, hangs, leaks):"
ls "$b/artifacts"
exit $status

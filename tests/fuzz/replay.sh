#!/bin/sh
# Replay the kept fuzz corpus (tests/fuzz/corpus) through the real airc
# binary: every file with --check and with -S must end with status 0 or 1,
# never a signal or another status (docs/language.md section 7). For a sample of
# the files airc accepts, the C it wrote must also pass
# `mpicc -fsyntax-only -Werror -Wall -Wextra`. Run from the repository root.
# Environment: AIRC (default build/airc), MPICC, SAMPLE (C files, 30).
set -u
root=$(pwd)
AIRC=${AIRC:-$root/build/airc}
case $AIRC in /*) ;; */*) AIRC=$root/$AIRC ;; esac
MPICC=${MPICC:-mpicc}
SAMPLE=${SAMPLE:-30}
corpus=$root/tests/fuzz/corpus
w=$(mktemp -d "${TMPDIR:-/tmp}/airc-replay.XXXXXX") || exit 1
trap 'rm -rf "$w"' EXIT
trap 'exit 130' INT TERM HUP

n=0; bad=0; accepted=0; compiled=0
for f in "$corpus"/*; do
  [ -f "$f" ] || continue
  n=$((n + 1))
  id=$(basename "$f")
  # A file that airc would not read in time is a hang: 10 s is plenty.
  timeout 10 "$AIRC" --check "$f" > /dev/null 2> "$w/err"
  rc=$?
  if [ $rc -gt 1 ]; then
    echo "FAIL fuzz replay $id --check: status $rc"; head -n 5 "$w/err" | sed 's/^/    /'
    bad=$((bad + 1)); continue
  fi
  rm -f "$w/x.c"
  timeout 10 "$AIRC" -S -o "$w/x.c" "$f" > /dev/null 2> "$w/err"
  rc2=$?
  if [ $rc2 -gt 1 ] || [ $rc2 -ne $rc ]; then
    echo "FAIL fuzz replay $id -S: status $rc2 (--check: $rc)"; head -n 5 "$w/err" | sed 's/^/    /'
    bad=$((bad + 1)); continue
  fi
  [ $rc -eq 0 ] || continue
  accepted=$((accepted + 1))
  # The files are visited in name order (hashes): the first SAMPLE accepted
  # ones are an arbitrary but stable sample.
  [ $compiled -lt "$SAMPLE" ] || continue
  compiled=$((compiled + 1))
  if ! "$MPICC" -std=c11 -D_GNU_SOURCE -fsyntax-only -Werror -Wall -Wextra \
      -I "$root/build/include" "$w/x.c" > "$w/cc.log" 2>&1; then
    echo "FAIL fuzz replay $id: the generated C does not compile"; head -n 10 "$w/cc.log" | sed 's/^/    /'
    bad=$((bad + 1))
  fi
done
echo "fuzz replay: $n inputs, $accepted accepted, $compiled compiled, $bad failed"
[ $n -gt 0 ] && [ $bad -eq 0 ]

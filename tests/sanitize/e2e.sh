#!/bin/sh
# e2e.sh asan|tsan - run a few end-to-end cases with a sanitizer build of
# libair: the queries are compiled with the generated C instrumented the same
# way and linked with build/asan/libair.a or build/tsan/libair.a, and each
# program runs on 1 and 2 ranks. The e2e harness (tests/e2e/run.sh) is reused
# unchanged on a scratch copy of the chosen cases whose `ranks` is "1 2".
# Run from the repository root; CASES overrides the case list. Why the
# options below are what they are: see the hardening section of the Makefile
# and tests/fuzz/README.md.
set -u
mode=${1:-asan}
root=$(pwd)
CASES=${CASES:-"csv_filter_agg csv_table_join stream_join outer_joins interval_join ysb_star_datagen hopping_csv functions_sql time_functions top_n top_n_rows"}
w=$(mktemp -d "${TMPDIR:-/tmp}/airc-$mode.XXXXXX") || exit 1
trap 'rm -rf "$w"' EXIT
trap 'exit 130' INT TERM HUP

case $mode in
  asan)
    # build/asan/airc finds build/asan/libair.a next to itself.
    airc=$root/build/asan/airc
    flags="-g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all"
    env=":"
    # MPICH leaks by itself (see the Makefile): leak reports would be its own.
    ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
    export ASAN_OPTIONS UBSAN_OPTIONS ;;
  tsan)
    airc=$root/build/airc
    flags="-g -fsanitize=thread"
    env="export AIRC_RUNTIME_DIR='$root/build/tsan'"
    TSAN_OPTIONS=halt_on_error=1
    # UCX's memory hooks (libucm, under MPICH's ch4:ucx) crash inside
    # TSan's pthread_rwlock interceptor as soon as a thread starts; without
    # them MPI works under TSan.
    UCX_MEM_EVENTS=no
    export TSAN_OPTIONS UCX_MEM_EVENTS ;;
  *) echo "usage: e2e.sh asan|tsan" >&2; exit 2 ;;
esac

mkdir -p "$w/tests/e2e/cases"
ln -s "$root/tests/e2e/lib" "$w/tests/e2e/lib"
for c in $CASES; do
  cp -R "$root/tests/e2e/cases/$c" "$w/tests/e2e/cases/$c" || exit 1
  echo "1 2" > "$w/tests/e2e/cases/$c/ranks"
done
# One word for the harness: airc whose C compiler adds the sanitizer flags
# (through --cc, so that the harness's own --cflags still apply).
cat > "$w/cc" <<EOW
#!/bin/sh
exec ${MPICC:-mpicc} $flags "\$@"
EOW
cat > "$w/airc" <<EOW
#!/bin/sh
$env
exec "$airc" --cc "$w/cc" "\$@"
EOW
chmod +x "$w/cc" "$w/airc"
# shellcheck disable=SC2086 # CASES is a word list
(cd "$w" && AIRC=$w/airc E2E_TIMEOUT=${E2E_TIMEOUT:-120} sh "$root/tests/e2e/run.sh" $CASES) \
  > "$w/log" 2>&1
status=$?
# checkpoints: runs killed and resumed, on the same and other rank counts
AIRC=$w/airc CKPT_CASES="tumbling csv,session csv,join csv" python3 "$root/tests/ckpt/run.py" 1 \
  >> "$w/log" 2>&1 || status=1
sed "s/^/$mode /" "$w/log"
exit $status

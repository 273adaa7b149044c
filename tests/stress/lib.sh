# lib.sh - shared by tests/stress/*.sh (sourced, POSIX sh).
#
# Stress and fault tests run real jobs under mpirun and look at them from the
# outside: /proc for memory, exit statuses, stderr, the files left behind.

AIRC=${AIRC:-build/airc}
NP=${NP:-2}
pass=0
fail=0

ok() { pass=$((pass + 1)); echo "  ok   $*"; }
bad() { fail=$((fail + 1)); echo "  FAIL $*"; }
check() { # check DESCRIPTION COMMAND...: ok when the command succeeds
  d=$1; shift
  if "$@"; then ok "$d"; else bad "$d"; fi
}

lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 < b + 0) }'; } # numbers, a < b

# Every process below pid (mpirun -> hydra_pmi_proxy -> ranks).
descendants() {
  ps -e -o pid= -o ppid= | awk -v root="$1" '
    { parent[$1] = $2 }
    END { n = 1; set[root] = 1; changed = 1
          while (changed) { changed = 0
            for (p in parent) if (!(p in set) && (parent[p] in set)) { set[p] = 1; changed = 1 } }
          for (p in set) if (p != root) print p }'
}

# The rank processes of the job started as pid $1: descendants running $2.
rank_pids() {
  for p in $(descendants "$1"); do
    [ "$(cat /proc/$p/comm 2>/dev/null)" = "$2" ] && echo "$p"
  done
}

# sample_mem MPIRUN_PID BINARY_NAME OUT: every second until the job ends,
# one line "seconds pid VmRSS_kB VmHWM_kB" per rank into OUT. VmHWM is the
# kernel's own peak, so samples a second apart still see short spikes.
sample_mem() {
  _t=0
  : > "$3"
  while kill -0 "$1" 2>/dev/null; do
    for p in $(rank_pids "$1" "$2"); do
      awk -v t="$_t" -v p="$p" '/^VmRSS:/ { r = $2 } /^VmHWM:/ { h = $2 }
        END { if (r != "") print t, p, r, h }' /proc/$p/status 2>/dev/null >> "$3"
    done
    sleep 1
    _t=$((_t + 1))
  done
}

# Peak VmHWM over all samples, in MB.
peak_mb() { awk '$4 > m { m = $4 } END { printf "%d", m / 1024 }' "$1"; }

# A JSON number field of a one-line --stats-json file.
json_field() {
  sed -n "s/.*\"$2\":\([-0-9.e]*\).*/\1/p" "$1"
}

#!/usr/bin/env python3
"""bench.py - airc's benchmark harness (make bench; never part of make check).

Sustainable throughput (Karimov et al., ICDE 2018; the AIR paper, sec. 5.2)
of SWA, YSB and YSB*, fused and --no-fuse, over a grid of ranks x threads,
beside a hand-fused single-thread ceiling measured in the same run; then the
scaling of cost with distinct keys, window size/slide, and the bytes that
cross ranks per input event. Results go to build/bench/ (see bench/README.md).

  python3 bench/bench.py [--quick] [--duration S] [--lat-bound MS]
                         [--tolerance F] [--skip-scaling] [--only WORKLOAD]

Python 3 standard library only; gnuplot (Debian gnuplot-nox) for the plots.
"""
import argparse
import contextlib
import csv
import filecmp
import datetime
import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
B = os.path.join(ROOT, "build")
OUT = os.path.join(B, "bench")
AIRC = os.path.join(B, "airc")
NPROC = os.cpu_count() or 1

WORKLOADS = ["swa", "ysb", "ysb_star"]
CEILING_OF = {  # workload -> ceiling kind (see run_ceiling)
    "swa": "swa",
    "ysb": "ysb",
    "ysb_star": "ysb_star",
}
GRID = [(1, 1), (1, 2), (2, 1), (2, 2), (4, 1)]  # ranks x threads

PHASE_TIMES = []  # (phase, seconds) for "what takes how long"


def log(msg):
    print("bench: " + msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------
# Running things
# ---------------------------------------------------------------------------

def run_cmd(argv, timeout, stdout=subprocess.DEVNULL, line_cb=None):
    """Runs argv in its own session (so a hang is ended with its whole
    process group, which is ours). With line_cb, stdout is read line by line
    on a thread and line_cb(line, wall_ms) is called as each arrives.
    Returns (exit status, -999 on timeout; stderr text; peak RSS in KiB and
    CPU seconds of the child and the descendants it waited for: with
    mpirun, every rank)."""
    err = tempfile.TemporaryFile(mode="w+")
    p = subprocess.Popen(argv, stdout=subprocess.PIPE if line_cb else stdout,
                         stderr=err, start_new_session=True, text=True)
    reader = None
    if line_cb:
        def read():
            for line in p.stdout:
                line_cb(line, time.time() * 1000.0)
        reader = threading.Thread(target=read, daemon=True)
        reader.start()
    deadline = time.time() + timeout
    status = ru = None
    while True:
        pid, st, r = os.wait4(p.pid, os.WNOHANG)
        if pid:
            status, ru = st, r
            break
        if time.time() > deadline:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            _, st, r = os.wait4(p.pid, 0)
            status, ru = None, r
            break
        time.sleep(0.02)
    p.returncode = 0  # reaped above; keeps Popen from waiting again
    if reader:
        reader.join(5)
    rc = -999 if status is None else os.waitstatus_to_exitcode(status)
    err.seek(0)
    text = err.read()
    err.close()
    if ru is None:
        return rc, text, None, None
    return rc, text, ru.ru_maxrss, ru.ru_utime + ru.ru_stime


def compile_query(src, exe, nofuse):
    argv = [AIRC, "--timestamp-format", "epoch_ms", src, "-o", exe] + (["--no-fuse"] if nofuse else [])
    r = subprocess.run(argv, capture_output=True, text=True)
    if r.returncode != 0:
        return r.stderr.strip() or "airc failed"
    return None


def explain(src, nofuse):
    argv = [AIRC, "--explain", src] + (["--no-fuse"] if nofuse else [])
    r = subprocess.run(argv, capture_output=True, text=True)
    return r.stdout if r.returncode == 0 else ""


class Run:
    """One execution of a compiled query at one offered rate."""

    def __init__(self, **kw):
        self.__dict__.update(kw)


RUN_GRACE = [90.0]    # seconds a run may take past its duration (quick: 30)
SCALE_GRACE = [600.0]  # the same for scaling runs, whose drain can be long (quick: 60)


def run_query(exe, ranks, threads, rate, duration, lat_bound, tag, use_mpirun=True):
    """Runs exe and judges the run. Window lag = arrival of a window's first
    result line at the harness - WINDOW_END, for windows that closed during
    the run (not the ones flushed at its end)."""
    sj = os.path.join(OUT, "tmp", "stats-%d.json" % os.getpid())
    if os.path.exists(sj):
        os.remove(sj)
    argv = ([] if not use_mpirun else ["mpirun", "-np", str(ranks)]) + [
        exe, "--rate", str(int(rate)), "--duration", str(duration),
        "--threads", str(threads), "--stats-json", sj]
    wend_col = [None]
    first_seen = {}

    def on_line(line, now):
        cols = line.rstrip("\n").split(",")
        if wend_col[0] is None:
            if "WINDOW_END" in cols:
                wend_col[0] = cols.index("WINDOW_END")
            else:
                wend_col[0] = -1
            return
        if wend_col[0] < 0 or len(cols) <= wend_col[0]:
            return
        try:
            we = int(cols[wend_col[0]])
        except ValueError:
            return
        if we not in first_seen:
            first_seen[we] = now

    t_start = time.time() * 1000.0
    rc, err, rss, cpu = run_cmd(argv, timeout=duration + RUN_GRACE[0], line_cb=on_line)
    wall = time.time() * 1000.0 - t_start
    st = None
    if os.path.exists(sj):
        try:
            with open(sj) as f:
                st = json.load(f)
        except ValueError:
            st = None
    gen_end = t_start + duration * 1000.0
    lags = [first_seen[w] - w for w in sorted(first_seen) if w <= gen_end - 200]
    r = Run(tag=tag, exe=os.path.basename(exe), ranks=ranks, threads=threads,
            rate=int(rate), duration=duration, rc=rc, wall_s=wall / 1000.0,
            rss_kib=rss, lags=lags, stats=st, err=err.strip().splitlines()[-3:],
            load=os.getloadavg()[0], cpu_s=cpu)
    judge(r, lat_bound)
    return r


def exit_note(rc, grace=None):
    if rc == -999:
        return "did not end: killed %.0f s past its duration" % (grace or RUN_GRACE[0])
    return "exit %s" % rc


def judge(r, lat_bound):
    """The sustainability criteria (documented in bench/README.md)."""
    reasons = []
    st = r.stats
    if r.rc != 0 or st is None:
        reasons.append(exit_note(r.rc))
    else:
        eps = st.get("events_per_s") or 0.0
        if r.rate > 0 and eps < 0.99 * r.rate:
            reasons.append("rate %.3g<0.99R" % eps)
        if st.get("dropped", 0):
            reasons.append("dropped %d" % st["dropped"])
        lat = st.get("latency_ms") or {}
        p99, mx = lat.get("p99"), lat.get("max")
        if p99 is not None and p99 > lat_bound:
            reasons.append("p99 %.0fms" % p99)
        if mx is not None and mx > 2 * lat_bound:
            reasons.append("max %.0fms" % mx)
        lags = r.lags
        if len(lags) >= 3:
            base = statistics.median(lags[:-1])
            if lags[-1] > max(2 * base, base + 250):
                reasons.append("lag rising %.0f->%.0fms" % (base, lags[-1]))
    r.ok = not reasons
    r.why = ";".join(reasons)


def stat(r, key, sub=None):
    if r.stats is None:
        return None
    v = r.stats.get(key)
    if sub is not None:
        v = (v or {}).get(sub)
    return v


# ---------------------------------------------------------------------------
# Ceiling
# ---------------------------------------------------------------------------

CEILING_SAMPLES = {}  # kind -> [events/s]
CEILING_CPU = {}      # kind -> [events per CPU-second]


def run_ceiling(kind, duration):
    exe = {"swa": "ceiling_swa", "ysb": "ceiling_ysb", "ysb_eager": "ceiling_ysb",
           "ysb_full": "ceiling_ysb", "ysb_star": "ceiling_ysb"}[kind]
    extra = {"ysb_eager": ["--eager"], "ysb_full": ["--full"],
             "ysb_star": ["--star"]}.get(kind, [])
    r = subprocess.run([os.path.join(OUT, exe), "--duration", str(duration)] + extra,
                       capture_output=True, text=True, timeout=duration + 60)
    if r.returncode != 0:
        log("ceiling %s failed: %s" % (kind, r.stderr.strip()))
        return None
    res = json.loads(r.stdout.strip().splitlines()[-1])
    eps = res["events_per_s"]
    CEILING_SAMPLES.setdefault(kind, []).append(eps)
    if res.get("cpu_s"):
        CEILING_CPU.setdefault(kind, []).append(res["events"] / res["cpu_s"])
    return eps


def ceiling(kind, per_cpu=False):
    s = (CEILING_CPU if per_cpu else CEILING_SAMPLES).get(kind)
    return statistics.median(s) if s else None


def per_cpu(r):
    """Events per CPU-second of a run (every rank's user + system time)."""
    ev = stat(r, "events_in")
    return ev / r.cpu_s if ev and r.cpu_s else None


# ---------------------------------------------------------------------------
# Sustainable-throughput search
# ---------------------------------------------------------------------------

def marginal(r):
    """A failure worth one more try on a shared machine: only the delivery
    criterion failed, and by less than 5% (a descheduled generator drops
    what it could not make in time; a real overload misses by more)."""
    eps = stat(r, "events_per_s") or 0.0
    return r.why.startswith("rate") and ";" not in r.why and eps >= 0.95 * r.rate


def sustainable(exe, ranks, threads, cfg, tag, runs):
    """Coarse search, then bisection. The unthrottled probe bounds it: no
    rate above 1.05x what the program does flat out is tried (it cannot be
    delivered at 99%), which saves the runs that would only confirm that."""
    probe = run_query(exe, ranks, threads, 0, cfg.probe_duration, cfg.lat_bound,
                      tag + " probe")
    runs.append(probe)
    u = stat(probe, "events_per_s") or 0.0
    log("%s: unthrottled %.3gM/s" % (tag, u / 1e6))
    if u <= 0:
        return probe, None, u
    cap = 1.05 * u
    tested = {}

    def test(rate):
        rate = int(round(rate, -3)) if rate > 1e4 else int(rate)
        tries = 0
        while rate not in tested or (not tested[rate].ok and tries <= cfg.retries
                                     and marginal(tested[rate])):
            r = run_query(exe, ranks, threads, rate, cfg.duration, cfg.lat_bound, tag)
            runs.append(r)
            tries += 1
            if rate not in tested or r.ok:
                tested[rate] = r
            log("%s: R=%.3gM/s -> %.3gM/s p99 %s ms load %.1f %s" % (
                tag, rate / 1e6, (stat(r, "events_per_s") or 0) / 1e6,
                stat(r, "latency_ms", "p99"), r.load, "ok" if r.ok else "FAIL " + r.why))
        return tested[rate]

    lo = hi = None
    if cfg.quick:
        # Start near the probe: most of the search's runs land where the
        # answer is, at the price of the low-rate latency points.
        rate = 0.8 * u
        while rate >= 1e4:
            if test(rate).ok:
                lo = rate
                break
            hi = rate
            rate *= 0.7
        if lo is not None and hi is None:
            hi = cap
    else:
        rate = cfg.start_rate if cfg.start_rate < u else u / 8
        while True:
            if rate >= cap:
                hi = cap
                break
            if test(rate).ok:
                lo = rate
                rate *= 2
            else:
                hi = rate
                if lo is not None:
                    break
                rate /= 2
                if rate < 1e4:
                    break
    if lo is None:
        return probe, None, u
    while hi / lo - 1 > cfg.tolerance and len(runs) < cfg.max_runs:
        mid = (lo + hi) / 2
        if test(mid).ok:
            lo = mid
        else:
            hi = mid
    best = max((r for r in tested.values() if r.ok), key=lambda r: r.rate)
    return probe, best, u


# ---------------------------------------------------------------------------
# Scaling of cost
# ---------------------------------------------------------------------------

KEYS_TEMPLATE = """-- written by bench/bench.py: SWA with {k} distinct keys
CREATE STREAM events (key BIGINT GENERATED BY uniform(0, {hi}),
                      value BIGINT GENERATED BY uniform(1, 100),
                      ts TIMESTAMP) WITH (source = 'datagen');
SELECT key, SUM(value) AS total, WINDOW_END
FROM events GROUP BY key WINDOW {window};
"""


def scaling_query(name, keys, window):
    qdir = os.path.join(OUT, "queries")
    os.makedirs(qdir, exist_ok=True)
    src = os.path.join(qdir, name + ".airq")
    with open(src, "w") as f:
        f.write(KEYS_TEMPLATE.format(k=keys, hi=keys - 1, window=window))
    exe = os.path.join(OUT, "bin", name)
    err = compile_query(src, exe, False)
    return exe, err


def run_flat_out(exe, duration):
    """Unthrottled, 1 rank, 1 thread, without mpirun (an MPI singleton) so
    the peak RSS is the query's own; stdout to /dev/null."""
    sj = os.path.join(OUT, "tmp", "flat.json")
    if os.path.exists(sj):
        os.remove(sj)
    t0 = time.time()
    rc, err, rss, cpu = run_cmd([exe, "--rate", "0", "--duration", str(duration),
                                 "--stats-json", sj, "--quiet"], timeout=duration + SCALE_GRACE[0])
    wall = time.time() - t0
    st = json.load(open(sj)) if os.path.exists(sj) else None
    return rc, st, rss, wall, err


# ---------------------------------------------------------------------------
# Output: CSV, markdown, gnuplot
# ---------------------------------------------------------------------------

RUN_FIELDS = ["tag", "workload", "plan", "ranks", "threads", "overcommit", "offered_rate",
              "duration_s", "events_in", "events_per_s", "delivered_ratio", "dropped", "late",
              "windows", "lat_mean_ms", "lat_p50_ms", "lat_p99_ms", "lat_max_ms",
              "window_lags_ms", "sustainable", "why", "exit", "wall_s", "load1", "cpu_s",
              "events_per_cpu_s"]


def run_row(r, workload, plan):
    st = r.stats or {}
    lat = st.get("latency_ms") or {}
    eps = st.get("events_per_s")
    return {
        "tag": r.tag, "workload": workload, "plan": plan, "ranks": r.ranks,
        "threads": r.threads, "overcommit": int(r.ranks * r.threads > NPROC),
        "offered_rate": r.rate, "duration_s": r.duration, "events_in": st.get("events_in"),
        "events_per_s": eps,
        "delivered_ratio": round(eps / r.rate, 4) if eps and r.rate else "",
        "dropped": st.get("dropped"), "late": st.get("late"), "windows": st.get("windows"),
        "lat_mean_ms": lat.get("mean"), "lat_p50_ms": lat.get("p50"),
        "lat_p99_ms": lat.get("p99"), "lat_max_ms": lat.get("max"),
        "window_lags_ms": " ".join("%.0f" % x for x in r.lags),
        "sustainable": int(r.ok) if r.rate > 0 else "", "why": r.why, "exit": r.rc,
        "wall_s": round(r.wall_s, 2), "load1": round(r.load, 2),
        "cpu_s": round(r.cpu_s, 3) if r.cpu_s else None, "events_per_cpu_s": per_cpu(r),
    }


def write_csv(path, fields, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        for row in rows:
            w.writerow(row)


def fmt_rate(x):
    if x is None or x == "":
        return "-"
    return "%.2fM" % (x / 1e6)


def fmt_ms(x):
    return "-" if x is None else "%.0f" % x


def gnuplot(script, name):
    if not shutil.which("gnuplot"):
        log("gnuplot missing: %s not drawn (make bench installs gnuplot-nox)" % name)
        return False
    path = os.path.join(OUT, "plots", name + ".gp")
    with open(path, "w") as f:
        f.write(script)
    r = subprocess.run(["gnuplot", path], capture_output=True, text=True, cwd=os.path.join(OUT, "plots"))
    if r.returncode != 0:
        log("gnuplot %s: %s" % (name, r.stderr.strip()[:300]))
        return False
    return True


PLOT_HEAD = """set terminal pngcairo size 900,560 noenhanced font ",10"
set grid
set key outside right top
set datafile separator ","
"""


def plots(run_rows, sust_rows, grid_rows, key_rows, win_rows, slide_rows, state_rows):
    pdir = os.path.join(OUT, "plots")
    os.makedirs(pdir, exist_ok=True)
    made = []
    # Latency vs offered rate, per workload: one series per plan and variant.
    for wl in WORKLOADS:
        series = {}
        for row in run_rows:
            if row["workload"] != wl or not row["offered_rate"] or row["lat_p99_ms"] is None:
                continue
            key = "%s %dx%d" % (row["plan"], row["ranks"], row["threads"])
            series.setdefault(key, []).append(row)
        if not series:
            continue
        plots_cmd = []
        for i, (key, rows) in enumerate(sorted(series.items())):
            dat = "lat_%s_%d.csv" % (wl, i)
            with open(os.path.join(pdir, dat), "w") as f:
                for row in sorted(rows, key=lambda r: r["offered_rate"]):
                    f.write("%g,%g,%g,%d\n" % (row["offered_rate"] / 1e6, row["lat_p99_ms"],
                                               row["lat_mean_ms"], 1 if row["sustainable"] else 0))
            plots_cmd.append("'%s' using 1:2 with linespoints lw 2 title '%s p99'" % (dat, key))
            plots_cmd.append("'%s' using 1:3 with points pt 6 title '%s mean'" % (dat, key))
        if gnuplot(PLOT_HEAD + """set output 'latency_%s.png'
set title 'event-time latency vs offered rate: %s (every search run)'
set xlabel 'offered rate, M events/s'
set ylabel 'latency, ms (log)'
set logscale y
plot %s
""" % (wl, wl, ", ".join(plots_cmd)), "latency_" + wl):
            made.append("latency_%s.png" % wl)
    # Sustainable throughput per variant, with the ceiling as a reference.
    if sust_rows:
        dat = "sustainable.csv"
        with open(os.path.join(pdir, dat), "w") as f:
            for row in sust_rows:
                f.write("%s %s %dx%d,%g,%g\n" % (row["workload"], row["plan"], row["ranks"],
                                                row["threads"], (row["sustainable"] or 0) / 1e6,
                                                (row["ceiling"] or 0) / 1e6))
        if gnuplot(PLOT_HEAD + """set output 'sustainable.png'
set title 'sustainable throughput per variant (bars) and 1-core ceiling (points)'
set ylabel 'M events/s'
set style data histograms
set style fill solid 0.6
set boxwidth 0.8
set xtics rotate by -40
set yrange [0:*]
plot '%s' using 2:xtic(1) title 'airc sustainable', '' using 0:3 with points pt 7 ps 1.5 title 'ceiling (1 core)'
""" % dat, "sustainable"):
            made.append("sustainable.png")
    # Throughput vs ranks x threads.
    if grid_rows:
        series = {}
        for row in grid_rows:
            series.setdefault("%s %s" % (row["workload"], row["plan"]), []).append(row)
        labels = ["%dx%d" % g for g in GRID]
        cmds = []
        for i, (key, rows) in enumerate(sorted(series.items())):
            dat = "grid_%d.csv" % i
            with open(os.path.join(pdir, dat), "w") as f:
                for row in rows:
                    lab = "%dx%d" % (row["ranks"], row["threads"])
                    if lab not in labels:
                        continue
                    f.write("%d,%s,%g,%s\n" % (labels.index(lab), lab, row["unthrottled"] / 1e6,
                                               "%g" % (row["sustainable"] / 1e6) if row["sustainable"] else "NaN"))
            cmds.append("'%s' using 1:3:xtic(2) with linespoints lw 2 title '%s flat out'" % (dat, key))
            cmds.append("'%s' using 1:4 with points pt 7 ps 1.5 title '%s sustainable'" % (dat, key))
        if gnuplot(PLOT_HEAD + """set output 'grid.png'
set title 'throughput vs ranks x threads (%d cores; beyond %d = overcommit)'
set xlabel 'ranks x threads'
set ylabel 'M events/s'
set yrange [0:*]
set xrange [-0.5:%d.5]
plot %s
""" % (NPROC, NPROC, len(GRID) - 1, ", ".join(cmds)), "grid"):
            made.append("grid.png")
    if key_rows:
        dat = "keys.csv"
        with open(os.path.join(pdir, dat), "w") as f:
            for row in key_rows:
                f.write("%d,%s,%s\n" % (row["keys"], "%g" % (row["events_per_s"] / 1e6) if row["events_per_s"] else "NaN",
                                        "%g" % (row["ceiling"] / 1e6) if row["ceiling"] else "NaN"))
        if gnuplot(PLOT_HEAD + """set output 'keys.png'
set title 'events/s vs distinct keys (SWA, 1 rank, 1 thread, flat out)'
set xlabel 'distinct keys (log)'
set ylabel 'M events/s'
set logscale x
set yrange [0:*]
plot '%s' using 1:2 with linespoints lw 2 title 'airc fused', '' using 1:3 with linespoints lw 2 title 'ceiling_swa'
""" % dat, "keys"):
            made.append("keys.png")
    if win_rows:
        dat = "windows.csv"
        with open(os.path.join(pdir, dat), "w") as f:
            for row in win_rows:
                f.write("%s,%g,%s\n" % (row["window"].replace(",", ""), row["open_per_event"],
                                        "%g" % (row["events_per_s"] / 1e6) if row["events_per_s"] else "NaN"))
        if gnuplot(PLOT_HEAD + """set output 'windows.png'
set title 'events/s vs windows per event (SWA 1000 keys, 1 rank, flat out)'
set xlabel 'windows each event is in (size / slide; one slice updated)'
set ylabel 'M events/s'
set logscale x
set yrange [0:*]
plot '%s' using 2:3:1 with labels offset 0,1 notitle, '' using 2:3 with linespoints lw 2 title 'airc fused'
""" % dat, "windows"):
            made.append("windows.png")
    hops = [r for r in slide_rows if "ADVANCE BY 100 MILLISECONDS" in r["window"] and r["ns_per_event"]]
    if hops:
        dat = "sliding.csv"
        with open(os.path.join(pdir, dat), "w") as f:
            for row in hops:
                f.write("%d,%g\n" % (row["overlap"], row["ns_per_event"]))
        if gnuplot(PLOT_HEAD + """set output 'sliding.png'
set title 'cost per event vs overlapping windows (HOPPING, ADVANCE BY 100 ms, 10 keys, 1 rank)'
set xlabel 'windows each event is in (size / advance, log)'
set ylabel 'ns per event (results written)'
set logscale x
set yrange [0:*]
plot '%s' using 1:2 with linespoints lw 2 title 'airc fused (shared slices)'
""" % dat, "sliding"):
            made.append("sliding.png")
    aggs = [r for r in state_rows if r["case"] == "agg" and r["ranks"] == 1 and r["airc_ns_per_event"]]
    if aggs:
        dat = "state.csv"
        with open(os.path.join(pdir, dat), "w") as f:
            for row in aggs:
                f.write("%d,%g,%g\n" % (row["keys"], row["airc_ns_per_event"], row["limit_ns_per_event"]))
        if gnuplot(PLOT_HEAD + """set output 'state.png'
set title 'cost per event vs distinct keys (one window, SUM and COUNT, 1 rank, results written)'
set xlabel 'distinct keys (log)'
set ylabel 'ns per event'
set logscale x
set yrange [0:*]
plot '%s' using 1:2 with linespoints lw 2 title 'airc fused', '' using 1:3 with linespoints lw 2 title 'hand-written (ceiling_state)'
""" % dat, "state"):
            made.append("state.png")
    return made


def machine():
    model = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = "?"
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal"):
                mem = "%.1f GiB" % (int(line.split()[1]) / 1048576)
    except OSError:
        pass
    return {"nproc": NPROC, "cpu": model, "mem": mem, "kernel": platform.release(),
            "load": " ".join("%.2f" % x for x in os.getloadavg())}


def materialized(src):
    cols = re.findall(r"columns read from (\w+): (.*)", explain(src, False))
    return "; ".join("%s: %s" % c for c in cols)


# ---------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------

@contextlib.contextmanager
def phase(name):
    """Time the block as one phase of "what takes how long" (name may be
    a function, called at the end, when the count it names is known)."""
    t0 = time.time()
    try:
        yield
    finally:
        PHASE_TIMES.append((name() if callable(name) else name, time.time() - t0))


def parse_config():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="10 s runs, fewer variants (~10 min)")
    ap.add_argument("--duration", type=float, help="seconds per search run (default 60, quick 10; env BENCH_DURATION)")
    ap.add_argument("--lat-bound", type=float, default=1000.0, help="p99 latency bound, ms (max: twice it)")
    ap.add_argument("--tolerance", type=float, help="bisection stops at hi/lo-1 <= this (0.05; quick 0.10)")
    ap.add_argument("--start-rate", type=float, default=1e6, help="first rate of the coarse doubling")
    ap.add_argument("--only", choices=WORKLOADS, action="append", help="workloads to search")
    ap.add_argument("--retries", type=int, default=1,
                    help="extra runs at a rate that failed only marginally on delivery (default 1)")
    ap.add_argument("--skip-scaling", action="store_true")
    ap.add_argument("--beyond-only", action="store_true",
                    help="only the cases beyond the benchmark (big state and its output, joins, sliding "
                         "windows: make bench-beyond), no throughput search")
    cfg = ap.parse_args()
    if cfg.duration is None:
        env = os.environ.get("BENCH_DURATION")
        cfg.duration = float(env) if env else (10.0 if cfg.quick else 60.0)
    if cfg.tolerance is None:
        cfg.tolerance = 0.10 if cfg.quick else 0.05
    cfg.probe_duration = min(cfg.duration, 4.0 if cfg.quick else 5.0)
    cfg.max_runs = 6 if cfg.quick else 25  # per search, probe included
    cfg.ceil_dur = 2.0 if cfg.quick else 5.0
    cfg.scale_dur = 3.0 if cfg.quick else min(cfg.duration, 20.0)
    if cfg.quick:
        RUN_GRACE[0], SCALE_GRACE[0] = 30.0, 60.0
    return cfg


def workload_sources():
    """Queries: queries/ysb_star.airq is the project's; ours is a fallback."""
    srcs = {"swa": os.path.join(ROOT, "queries", "swa.airq"),
            "ysb": os.path.join(ROOT, "queries", "ysb.airq"),
            "ysb_star": os.path.join(ROOT, "queries", "ysb_star.airq")}
    if not os.path.exists(srcs["ysb_star"]):
        srcs["ysb_star"] = os.path.join(ROOT, "bench", "queries", "ysb_star.airq")
    return srcs


def compile_workloads(srcs, notes):
    """(workload, plan) -> executable, for those that compile."""
    exes = {}
    for wl in WORKLOADS:
        for plan in ("fused", "nofuse"):
            exe = os.path.join(OUT, "bin", "%s_%s" % (wl, plan))
            err = compile_query(srcs[wl], exe, plan == "nofuse")
            if err:
                notes.append("%s %s skipped: airc: %s" % (wl, plan, err.splitlines()[0]))
                log(notes[-1])
            else:
                exes[(wl, plan)] = exe
    return exes


def plan_runs(cfg, exes):
    """What to search and what to run flat out: (workload, plan, ranks,
    threads). Grid points not searched in quick mode are still run flat
    out (unthrottled)."""
    only = cfg.only or WORKLOADS
    if cfg.quick:
        searches = [("ysb", "fused", 1, 1), ("ysb", "fused", 2, 1), ("ysb", "nofuse", 1, 1),
                    ("swa", "fused", 1, 1), ("swa", "nofuse", 1, 1), ("ysb_star", "fused", 1, 1)]
        flat = [("ysb", p, r, t) for p in ("fused", "nofuse") for (r, t) in GRID
                if (p, r, t) not in (("fused", 1, 1), ("fused", 2, 1), ("nofuse", 1, 1))]
    else:
        searches = [(wl, p, r, t) for wl in WORKLOADS for p in ("fused", "nofuse") for (r, t) in GRID]
        flat = []
    keep = lambda v: [x for x in v if x[0] in only and (x[0], x[1]) in exes]
    return keep(searches), keep(flat)


def run_searches(cfg, exes, searches, runs_all, grid):
    """The sustainable-throughput searches, each after one ceiling sample
    (the machine is shared and noisy: the ratios use medians of samples
    interleaved with the airc runs). Returns the rows of sustainable.csv."""
    sust_rows = []
    t_ceil = 0.0
    t0 = time.time()
    for (wl, plan, ranks, threads) in searches:
        tc = time.time()
        run_ceiling(CEILING_OF[wl], cfg.ceil_dur)
        t_ceil += time.time() - tc
        tag = "%s %s %dx%d" % (wl, plan, ranks, threads)
        runs = []
        ts = time.time()
        probe, best, u = sustainable(exes[(wl, plan)], ranks, threads, cfg, tag, runs)
        took = time.time() - ts
        runs_all.extend((wl, plan, r) for r in runs)
        s = best.rate if best else None
        grid[(wl, plan, ranks, threads)] = {"unthrottled": u, "sustainable": s, "per_cpu": per_cpu(probe)}
        sust_rows.append({"workload": wl, "plan": plan, "ranks": ranks, "threads": threads,
                          "overcommit": int(ranks * threads > NPROC), "unthrottled": u,
                          "sustainable": s, "best": best, "runs": len(runs), "search_s": took})
    PHASE_TIMES.append(("sustainable searches (%d configs)" % len(searches), time.time() - t0 - t_ceil))
    PHASE_TIMES.append(("interleaved ceiling samples", t_ceil))
    for row in sust_rows:
        c = ceiling(CEILING_OF[row["workload"]])
        row["ceiling"] = c
        cores = min(row["ranks"] * row["threads"], NPROC)
        row["ratio"] = row["sustainable"] / c if (c and row["sustainable"]) else None
        row["ratio_ideal"] = row["sustainable"] / (cores * c) if (c and row["sustainable"]) else None
    return sust_rows


def run_flat(cfg, exes, flat, runs_all, grid):
    """The grid points run flat out only."""
    for (wl, plan, ranks, threads) in flat:
        tag = "%s %s %dx%d flat" % (wl, plan, ranks, threads)
        r = run_query(exes[(wl, plan)], ranks, threads, 0, cfg.probe_duration, cfg.lat_bound, tag)
        runs_all.append((wl, plan, r))
        u = stat(r, "events_per_s") or 0.0
        log("%s: %.3gM/s" % (tag, u / 1e6))
        grid[(wl, plan, ranks, threads)] = {"unthrottled": u, "sustainable": None, "per_cpu": per_cpu(r)}


def scaling_run(name, keys, window, row, cfg):
    """Compile and run one scaling query flat out, filling row."""
    exe, err = scaling_query(name, keys, window)
    if err:
        row["note"] = err.splitlines()[0]
        return
    rc, st, rss, wall, _ = run_flat_out(exe, cfg.scale_dur)
    row["wall_s"] = wall
    if st:
        row.update(events_per_s=st["events_per_s"], windows=st["windows"],
                   ingest_per_s=st["events_in"] / cfg.scale_dur)
    row["rss_mib"] = rss / 1024.0 if rss else None
    if rc != 0:
        row["note"] = exit_note(rc, SCALE_GRACE[0])


def scale_keys(cfg):
    """Cost against distinct keys, beside the hand-written ceiling_swa."""
    rows = []
    keys_list = [100, 10000, 1000000, 10000000] if cfg.quick else [100, 1000, 10000, 100000, 1000000, 10000000]
    for k in keys_list:
        row = {"keys": k, "events_per_s": None, "rss_mib": None, "windows": None,
               "ceiling": None, "note": "", "ingest_per_s": None, "wall_s": None}
        scaling_run("keys_%d" % k, k, "TUMBLING (SIZE 10 SECONDS)", row, cfg)
        cr = subprocess.run([os.path.join(OUT, "ceiling_swa"), "--duration", str(min(cfg.scale_dur, 3.0)),
                             "--keys", str(k)], capture_output=True, text=True)
        if cr.returncode == 0:
            row["ceiling"] = json.loads(cr.stdout.strip().splitlines()[-1])["events_per_s"]
        rows.append(row)
        log("keys %d: %s events/s, peak RSS %s MiB, ceiling %s" % (
            k, fmt_rate(row["events_per_s"]), fmt_ms(row["rss_mib"]), fmt_rate(row["ceiling"])))
    return rows


def scale_windows(cfg):
    """Cost against window size and slide (windows open per event)."""
    wins = [("TUMBLING (SIZE 1 SECOND)", 1), ("TUMBLING (SIZE 10 SECONDS)", 1),
            ("TUMBLING (SIZE 60 SECONDS)", 1),
            ("HOPPING (SIZE 10 SECONDS, ADVANCE BY 5 SECONDS)", 2),
            ("HOPPING (SIZE 10 SECONDS, ADVANCE BY 1 SECOND)", 10),
            ("HOPPING (SIZE 10 SECONDS, ADVANCE BY 500 MILLISECONDS)", 20),
            ("HOPPING (SIZE 10 SECONDS, ADVANCE BY 100 MILLISECONDS)", 100),
            ("HOPPING (SIZE 100 SECONDS, ADVANCE BY 100 MILLISECONDS)", 1000)]
    if cfg.quick:
        wins = [w for w in wins if w[1] in (1, 10, 100, 1000) and "60" not in w[0]]
    rows = []
    for i, (wdef, per) in enumerate(wins):
        row = {"window": wdef, "open_per_event": per, "events_per_s": None, "rss_mib": None,
               "note": "", "ingest_per_s": None, "wall_s": None}
        scaling_run("win_%d" % i, 1000, wdef, row, cfg)
        rows.append(row)
        log("window %s: %s events/s" % (wdef, fmt_rate(row["events_per_s"])))
    return rows


SLIDE_TEMPLATE = """-- written by bench/bench.py: {n} events, 10 keys, event time 1 ms apart
CREATE STREAM events (key BIGINT GENERATED BY uniform(0, 9),
                      value BIGINT GENERATED BY uniform(1, 100),
                      ts TIMESTAMP GENERATED BY sequence(0, 1))
  WITH (source = 'datagen', seed = 7, limit = {n});
SELECT key, SUM(value) AS total, COUNT(*) AS n, WINDOW_END
FROM events GROUP BY key WINDOW {window};
"""

# (window, windows each event is in, the row the issue 14 target compares
# it with). Same events in every row; with ADVANCE BY 100 ms fixed the
# result rows are the same in number whatever the size, so the cost of the
# overlap itself shows.
SLIDES = [("TUMBLING (SIZE 10 SECONDS)", 1),
          ("TUMBLING (SIZE 100 MILLISECONDS)", 1),
          ("HOPPING (SIZE 10 SECONDS, ADVANCE BY 1 SECOND)", 10),
          ("HOPPING (SIZE 1 SECOND, ADVANCE BY 100 MILLISECONDS)", 10),
          ("HOPPING (SIZE 10 SECONDS, ADVANCE BY 100 MILLISECONDS)", 100),
          ("HOPPING (SIZE 100 SECONDS, ADVANCE BY 100 MILLISECONDS)", 1000)]


def sliding_windows(cfg):
    """Fixed events through tumbling and hopping windows, 1 rank, fused:
    median of 3 runs each (issue 14: HOPPING 10 s / 100 ms at least 1/3 of
    TUMBLING 10 s; cost flat in the overlap for a fixed advance)."""
    n = 10000000 if cfg.quick else 20000000
    qdir = os.path.join(OUT, "queries")
    os.makedirs(qdir, exist_ok=True)
    rows = []
    for i, (wdef, per) in enumerate(SLIDES):
        row = {"window": wdef, "overlap": per, "events": n, "wall_s": None, "events_per_s": None,
               "ns_per_event": None, "windows": None, "ratio_to_tumbling": None, "rss_mib": None, "note": ""}
        src = os.path.join(qdir, "slide_%d.airq" % i)
        with open(src, "w") as f:
            f.write(SLIDE_TEMPLATE.format(n=n, window=wdef))
        exe = os.path.join(OUT, "bin", "slide_%d" % i)
        err = compile_query(src, exe, False)
        if err:
            row["note"] = err.splitlines()[0]
            rows.append(row)
            continue
        walls, rates, rsss = [], [], []
        sj = os.path.join(OUT, "tmp", "slide.json")
        for _ in range(3):
            if os.path.exists(sj):
                os.remove(sj)
            t0 = time.time()
            rc, _, rss, _ = run_cmd([exe, "--stats-json", sj, "--quiet"], timeout=SCALE_GRACE[0])
            if rc != 0:
                row["note"] = "exit %s" % rc
                break
            walls.append(time.time() - t0)
            rsss.append(rss / 1024.0 if rss else 0)
            st = json.load(open(sj))
            row["windows"] = st.get("windows")
            rates.append(st.get("events_per_s") or 0.0)
        if rates:
            # the program's own rate (its run, results written), as the
            # issue's table: process start-up would weigh on the short runs
            eps = statistics.median(rates)
            row.update(wall_s=statistics.median(walls), events_per_s=eps,
                       ns_per_event=1e9 / eps if eps else None, rss_mib=max(rsss))
        rows.append(row)
        log("sliding %s: %s events/s, %s s" % (wdef, fmt_rate(row["events_per_s"]), fmt_ms(row["wall_s"])))
    base = rows[0]["events_per_s"]
    for row in rows:
        if base and row["events_per_s"]:
            row["ratio_to_tumbling"] = row["events_per_s"] / base
    return rows


STATE_TEMPLATE = """-- written by bench/bench.py: {n} events over {k} keys (bench/ceiling_state.c makes the same)
CREATE STREAM events (key BIGINT GENERATED BY uniform(0, {hi}),
                      value BIGINT GENERATED BY uniform(1, 100),
                      ts TIMESTAMP GENERATED BY sequence(0, 1))
  WITH (source = 'datagen', seed = 7, limit = {n});
SELECT key, SUM(value) AS total, COUNT(*) AS n, {cols}
FROM events GROUP BY key WINDOW {window};
"""


def plain_write_rate(path, rows):
    """Rows per second of writing the bytes of file `path` (its `rows`
    rows) to another file with 64 KiB write(2)s from memory: the floor of
    any writer of those bytes (no formatting, no ordering)."""
    data = open(path, "rb").read()
    dst = path + ".plain"
    best = None
    for _ in range(3):
        t0 = time.time()
        fd = os.open(dst, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        view = memoryview(data)
        for i in range(0, len(data), 65536):
            os.write(fd, view[i:i + 65536])
        os.close(fd)
        dt = time.time() - t0
        best = dt if best is None else min(best, dt)
    os.remove(dst)
    return rows / best if best else None


def state_cases(cfg, cases=None, reps=None):
    """Big state (issue 14 targets 1 and 4, and sessions with many active
    keys): airc on 1 rank (and the 10M-key case on 2) beside
    bench/ceiling_state.c, one thread with one open-addressing table, qsort
    and the runtime's integer writer, on the same events; both write the
    same bytes (checked). Each time is the median of `reps` runs, the
    limit's measured in the same stretch as airc's (the machine is shared:
    compare ratios, not seconds). Also per case: state bytes per key (the
    hash-table slots at their peak, --stats-json state_bytes_peak, over
    every rank) beside peak RSS per key (the largest process), and the
    output: rows/s of rank 0's merge and write of the results
    (--stats-json output_s) beside a plain write of the same bytes."""
    reps = reps or (1 if cfg.quick else 3)
    if cases:
        pass
    elif cfg.quick:
        cases = [("agg", 1000, 8000000, [1]), ("agg", 1000000, 8000000, [1]), ("agg", 4000000, 8000000, [1, 2]),
                 ("session", 200000, 8000000, [1])]
    else:
        cases = [("agg", 1000, 20000000, [1]), ("agg", 100000, 20000000, [1]), ("agg", 1000000, 20000000, [1]),
                 ("agg", 10000000, 20000000, [1, 2]), ("session", 1000000, 20000000, [1])]
    qdir = os.path.join(OUT, "queries")
    tmp = os.path.join(OUT, "tmp")
    os.makedirs(qdir, exist_ok=True)
    os.makedirs(tmp, exist_ok=True)
    os.makedirs(os.path.join(OUT, "bin"), exist_ok=True)
    rows = []
    f2 = lambda x: "-" if x is None else "%.2f" % x  # noqa: E731
    med = lambda xs: statistics.median(xs) if xs else None  # noqa: E731
    for mode, keys, n, rank_list in cases:
        # a session's gap: twice a key's mean time between events, so nearly
        # every key has a session open all the time
        gap = 2 * keys
        window = "TUMBLING (SIZE 6 HOURS)" if mode == "agg" else "SESSION (GAP %d MILLISECONDS)" % gap
        cols = "WINDOW_END" if mode == "agg" else "WINDOW_START, WINDOW_END"
        name = "state_%s_%d" % (mode, keys)
        src = os.path.join(qdir, name + ".airq")
        with open(src, "w") as f:
            f.write(STATE_TEMPLATE.format(n=n, k=keys, hi=keys - 1, cols=cols, window=window))
        exe = os.path.join(OUT, "bin", name)
        err = compile_query(src, exe, False)
        out_a, out_c = os.path.join(tmp, name + ".airc.csv"), os.path.join(tmp, name + ".limit.csv")
        sj = os.path.join(tmp, name + ".json")
        limit = {"secs": [], "bytes_per_key": None, "rows": None}
        runs = {r: {"secs": [], "rss": [], "state": [], "settled": [], "out_s": [], "raw": None, "same": None,
                    "note": ""}
                for r in rank_list}
        for _ in range(reps):
            argv = [os.path.join(OUT, "ceiling_state"), "--mode", mode, "--keys", str(keys), "--events", str(n),
                    "--gap", str(gap)]
            with open(out_c, "w") as fo:
                p = subprocess.run(argv, stdout=fo, stderr=subprocess.PIPE, text=True)
            if p.returncode == 0:
                cj = json.loads(p.stderr.strip().splitlines()[-1])
                limit["secs"].append(cj["secs"])
                limit["bytes_per_key"], limit["rows"] = cj["bytes_per_key"], cj["rows"]
            for r in rank_list:
                ru = runs[r]
                if err:
                    ru["note"] = err.splitlines()[0]
                    continue
                argv = (["mpirun", "-np", str(r)] if r > 1 else []) + [exe, "--stats-json", sj, "--quiet"]
                if os.path.exists(sj):
                    os.remove(sj)
                with open(out_a, "w") as fo:
                    rc, _, rss, _ = run_cmd(argv, timeout=SCALE_GRACE[0] * 2, stdout=fo)
                if rc != 0 or not os.path.exists(sj):
                    ru["note"] = "airc exit %s" % rc
                    continue
                st = json.load(open(sj))
                eps = st.get("events_per_s") or 0
                if eps:
                    ru["secs"].append(n / eps)
                if rss:
                    ru["rss"].append(rss * 1024.0 / keys)
                ru["state"].append((st.get("state_bytes_peak") or 0) / keys)
                ru["settled"].append((st.get("state_bytes_settled") or 0) / keys)
                ru["raw"] = st.get("partial_raw_rows")
                if st.get("output_s"):
                    ru["out_s"].append(st["output_s"])
                if p.returncode == 0 and ru["same"] is not False:
                    ru["same"] = filecmp.cmp(out_a, out_c, shallow=False)
        plain = plain_write_rate(out_c, limit["rows"]) if limit["rows"] and os.path.exists(out_c) else None
        for f in (out_a, out_c):
            if os.path.exists(f):
                os.remove(f)
        lim_s = med(limit["secs"])
        for r in rank_list:
            ru = runs[r]
            row = {"case": mode, "keys": keys, "events": n, "ranks": r, "runs": len(ru["secs"]),
                   "airc_s": med(ru["secs"]), "limit_s": lim_s, "ratio": None,
                   "airc_ns_per_event": None, "limit_ns_per_event": None,
                   "state_bytes_per_key": med(ru["settled"]), "state_peak_bytes_per_key": med(ru["state"]),
                   "airc_bytes_per_key": med(ru["rss"]),
                   "limit_bytes_per_key": limit["bytes_per_key"], "rows": limit["rows"], "same_bytes": ru["same"],
                   "partial_raw_rows": ru["raw"],
                   "output_rows_per_s": (limit["rows"] / med(ru["out_s"])) if ru["out_s"] and limit["rows"] else None,
                   "plain_write_rows_per_s": plain, "note": ru["note"]}
            if row["airc_s"] and row["limit_s"]:
                row["ratio"] = row["airc_s"] / row["limit_s"]
                row["airc_ns_per_event"] = row["airc_s"] * 1e9 / n
                row["limit_ns_per_event"] = row["limit_s"] * 1e9 / n
            rows.append(row)
            log("state %s %d keys %d rank(s): airc %s s, hand-written %s s (medians of %d), state %s B/key, "
                "same bytes %s" % (mode, keys, r, f2(row["airc_s"]), f2(row["limit_s"]), reps,
                                   f2(row["state_bytes_per_key"]), row["same_bytes"]))
    return rows


JOIN_STREAM_TEMPLATE = """-- written by bench/bench.py: {n} rows per side over {k} keys, one window (bench/ceiling_join.c makes the same)
CREATE STREAM l (k BIGINT GENERATED BY uniform(0, {hi}),
                 v BIGINT GENERATED BY uniform(1, 100),
                 ts TIMESTAMP GENERATED BY sequence(0, 1))
  WITH (source = 'datagen', seed = 7, limit = {n});
CREATE STREAM r (k BIGINT GENERATED BY uniform(0, {hi}),
                 w BIGINT GENERATED BY uniform(1, 100),
                 ts TIMESTAMP GENERATED BY sequence(0, 1))
  WITH (source = 'datagen', seed = 8, limit = {n});
SELECT l.k, l.v, r.w, WINDOW_END
FROM l JOIN r ON l.k = r.k
WINDOW TUMBLING (SIZE 6 HOURS);
"""

JOIN_TABLE_TEMPLATE = """-- written by bench/bench.py: {n} events looked up in a {t}-row table (bench/ceiling_join.c does the same)
CREATE STREAM e (k BIGINT GENERATED BY uniform(0, {hi}),
                 v BIGINT GENERATED BY uniform(1, 100),
                 ts TIMESTAMP GENERATED BY sequence(0, 1))
  WITH (source = 'datagen', seed = 7, limit = {n});
CREATE TABLE d (k BIGINT, g BIGINT, w BIGINT, PRIMARY KEY (k))
  WITH (source = 'csv', path = '{path}', header = true);
SELECT d.g, SUM(e.v * d.w) AS total, COUNT(*) AS n, WINDOW_END
FROM e JOIN d ON e.k = d.k GROUP BY d.g WINDOW TUMBLING (SIZE 6 HOURS);
"""


def join_table_file(t):
    """The table of the static join: "k,g,w", k = 0..t-1 in order, g = k *
    7919 mod 1000, w = k mod 97 + 1 (kept between harness runs)."""
    path = os.path.join(OUT, "tmp", "join_table_%d.csv" % t)
    if os.path.exists(path):
        return path
    with open(path + ".part", "w") as f:
        f.write("k,g,w\n")
        step = 1000000
        for a in range(0, t, step):
            f.write("".join("%d,%d,%d\n" % (k, (k * 7919) % 1000, k % 97 + 1) for k in range(a, min(t, a + step))))
    os.rename(path + ".part", path)
    return path


def join_cases(cfg):
    """Joins (issue 14 target 5): a stream-stream windowed join (N rows per
    side in one window, about N result rows) and the static join of N
    events with a T-row csv table, each on 1 and 2 ranks beside
    bench/ceiling_join.c, one thread with one hash table on the same rows;
    both write the same bytes (checked). Wall seconds of the whole process
    (the table load included), medians of `runs` runs interleaved with the
    hand-written ones."""
    if cfg.quick:
        cases, runs = [("stream", 1000000, 1000000), ("table", 2000000, 2000000)], 1
    else:
        cases, runs = [("stream", 1000000, 1000000), ("table", 10000000, 10000000)], 3
    qdir = os.path.join(OUT, "queries")
    tmp = os.path.join(OUT, "tmp")
    os.makedirs(qdir, exist_ok=True)
    rows = []
    for mode, size, n in cases:
        name = "join_%s_%d" % (mode, size)
        src = os.path.join(qdir, name + ".airq")
        if mode == "stream":
            text = JOIN_STREAM_TEMPLATE.format(n=n, k=size, hi=size - 1)
            limit_argv = ["--mode", "stream", "--rows", str(n), "--keys", str(size)]
            events = 2 * n
        else:
            path = join_table_file(size)
            text = JOIN_TABLE_TEMPLATE.format(n=n, t=size, hi=size + size // 10 - 1, path=path)
            limit_argv = ["--mode", "table", "--events", str(n), "--table-rows", str(size), "--path", path]
            events = n
        with open(src, "w") as f:
            f.write(text)
        exe = os.path.join(OUT, "bin", name)
        err = compile_query(src, exe, False)
        for ranks in (1, 2):
            row = {"case": mode, "size": size, "events": events, "ranks": ranks, "airc_s": None,
                   "airc_load_s": None, "limit_s": None, "limit_load_s": None, "ratio": None,
                   "airc_events_per_s": None, "limit_events_per_s": None, "airc_rss_per_row": None,
                   "limit_rss_per_row": None, "rows": None, "same_bytes": None, "note": ""}
            if err:
                row["note"] = err.splitlines()[0]
                rows.append(row)
                continue
            per_row = events if mode == "stream" else size  # what the state grows with
            a_s, a_load, a_rss, c_s, c_load, c_rss, same = [], [], [], [], [], [], True
            for i in range(runs):
                out_a, out_c = os.path.join(tmp, name + ".airc.csv"), os.path.join(tmp, name + ".limit.csv")
                sj = os.path.join(tmp, name + ".json")
                if os.path.exists(sj):
                    os.remove(sj)
                argv = ([] if ranks == 1 else ["mpirun", "-np", str(ranks)]) + [exe, "--stats-json", sj, "--quiet"]
                t0 = time.time()
                with open(out_a, "w") as fo:
                    rc, _, rss, _ = run_cmd(argv, timeout=SCALE_GRACE[0] * 2, stdout=fo)
                wall = time.time() - t0
                if rc != 0 or not os.path.exists(sj):
                    row["note"] = "airc exit %s" % rc
                    break
                eps = json.load(open(sj)).get("events_per_s") or 0
                a_s.append(wall)
                if mode == "table" and eps:
                    a_load.append(max(0.0, wall - n / eps))
                a_rss.append(rss * 1024.0 / per_row if rss else None)
                t0 = time.time()
                with open(out_c, "w") as fo:
                    rc, cerr, crss, _ = run_cmd([os.path.join(OUT, "ceiling_join")] + limit_argv, timeout=600,
                                                stdout=fo)
                cwall = time.time() - t0
                if rc != 0:
                    row["note"] = "ceiling_join exit %s" % rc
                    break
                cj = json.loads(cerr.strip().splitlines()[-1])
                c_s.append(cwall)
                c_load.append(cj["load_s"])
                c_rss.append(crss * 1024.0 / per_row if crss else None)
                row["rows"] = cj["rows"]
                same = same and filecmp.cmp(out_a, out_c, shallow=False)
                for f in (out_a, out_c):
                    os.remove(f)
            med = lambda v: statistics.median(v) if v and None not in v else None  # noqa: E731
            if a_s and c_s and not row["note"]:
                row.update(airc_s=med(a_s), airc_load_s=med(a_load), limit_s=med(c_s), limit_load_s=med(c_load),
                           airc_rss_per_row=med(a_rss), limit_rss_per_row=med(c_rss), same_bytes=same)
                row["ratio"] = row["airc_s"] / row["limit_s"]
                row["airc_events_per_s"] = events / row["airc_s"]
                row["limit_events_per_s"] = events / row["limit_s"]
            rows.append(row)
            f2 = lambda x: "-" if x is None else "%.2f" % x  # noqa: E731
            log("join %s %d, %d rank(s): airc %s s, hand-written %s s, same bytes %s" % (
                mode, size, ranks, f2(row["airc_s"]), f2(row["limit_s"]), row["same_bytes"]))
    return rows


def json_parsers(cfg):
    """format = 'json': airc's scanner beside cJSON and jansson on the same
    lines (bench/json_parsers.c; median of 3 runs each)."""
    exe = os.path.join(OUT, "json_parsers")
    if not os.path.exists(exe):
        return []
    n = 1000000 if cfg.quick else 3000000
    runs = {}
    for _ in range(3):
        p = subprocess.run([exe, "--rows", str(n)], capture_output=True, text=True)
        if p.returncode != 0:
            return [{"parser": "-", "rows": n, "rows_per_s": None, "same_rows": None, "note": p.stderr[:80]}]
        for line in p.stdout.splitlines():
            j = json.loads(line)
            runs.setdefault(j["parser"], []).append(j)
    sums = {k: v[0]["checksum"] for k, v in runs.items()}
    rows = []
    for k, v in runs.items():
        rate = statistics.median(x["rows_per_s"] for x in v)
        rows.append({"parser": k, "rows": n, "rows_per_s": rate, "same_rows": sums[k] == sums.get("airc"),
                     "note": ""})
        log("json %s: %s rows/s" % (k, fmt_rate(rate)))
    return rows


def bytes_across(cfg, exes, sust_rows, runs_all):
    """Bytes and messages that crossed ranks per input event, as the
    runtime counted them (--stats-json bytes_sent, messages), from the
    searches' best 2-rank runs (or a fixed-rate 2-rank run when none was
    searched)."""
    rows = []
    for wl in ("swa", "ysb"):
        for plan in ("fused", "nofuse"):
            if (wl, plan) not in exes:
                continue
            cand = [row["best"] for row in sust_rows if row["workload"] == wl and row["plan"] == plan
                    and row["ranks"] == 2 and row["threads"] == 1 and row["best"]]
            if cand:
                r = cand[0]
            else:
                r = run_query(exes[(wl, plan)], 2, 1, 1000000, cfg.scale_dur, cfg.lat_bound,
                              "%s %s 2x1 bytes" % (wl, plan))
                runs_all.append((wl, plan, r))
            ev = stat(r, "events_in")
            sent, msgs = stat(r, "bytes_sent"), stat(r, "messages")
            per = lambda x: x / ev if (ev and x is not None) else None
            rows.append({"workload": wl, "plan": plan, "ranks": r.ranks, "threads": r.threads,
                         "rate": r.rate, "events_in": ev, "bytes_sent": sent, "messages": msgs,
                         "remote_bytes_per_event": per(sent), "messages_per_event": per(msgs)})
    return rows


def write_results(cfg, stamp, mach, srcs, notes, runs_all, sust_rows, grid, key_rows, win_rows, byte_rows,
                  slide_rows, state_rows, join_rows):
    run_rows = [run_row(r, wl, plan) for (wl, plan, r) in runs_all]
    write_csv(os.path.join(OUT, "runs.csv"), RUN_FIELDS, run_rows)
    sust_fields = ["workload", "plan", "ranks", "threads", "overcommit", "unthrottled", "sustainable",
                   "ceiling", "ratio", "ratio_ideal", "lat_mean_ms", "lat_p50_ms", "lat_p99_ms",
                   "lat_max_ms", "runs", "search_s"]
    for row in sust_rows:
        b = row["best"]
        lat = (stat(b, "latency_ms") if b else None) or {}
        row.update(lat_mean_ms=lat.get("mean"), lat_p50_ms=lat.get("p50"), lat_p99_ms=lat.get("p99"),
                   lat_max_ms=lat.get("max"))
    write_csv(os.path.join(OUT, "sustainable.csv"), sust_fields, sust_rows)
    write_csv(os.path.join(OUT, "ceiling.csv"), ["kind", "samples", "median", "min", "max",
                                                 "median_per_cpu_s"],
              [{"kind": k, "samples": " ".join("%.0f" % x for x in v), "median": statistics.median(v),
                "min": min(v), "max": max(v), "median_per_cpu_s": ceiling(k, True)}
               for k, v in sorted(CEILING_SAMPLES.items())])
    grid_rows = [{"workload": k[0], "plan": k[1], "ranks": k[2], "threads": k[3],
                  "overcommit": int(k[2] * k[3] > NPROC), **v} for k, v in sorted(grid.items())]
    write_csv(os.path.join(OUT, "grid.csv"), ["workload", "plan", "ranks", "threads", "overcommit",
                                              "unthrottled", "sustainable", "per_cpu"], grid_rows)
    if key_rows:
        write_csv(os.path.join(OUT, "scaling_keys.csv"), ["keys", "events_per_s", "ingest_per_s", "ceiling",
                                                          "rss_mib", "windows", "wall_s", "note"], key_rows)
    if state_rows:
        write_csv(os.path.join(OUT, "state.csv"), list(state_rows[0].keys()), state_rows)
    if join_rows:
        write_csv(os.path.join(OUT, "joins.csv"), list(join_rows[0].keys()), join_rows)
    if slide_rows:
        write_csv(os.path.join(OUT, "sliding.csv"), ["window", "overlap", "events", "wall_s", "events_per_s",
                                                     "ns_per_event", "windows", "ratio_to_tumbling", "rss_mib",
                                                     "note"], slide_rows)
    if win_rows:
        write_csv(os.path.join(OUT, "scaling_windows.csv"), ["window", "open_per_event", "events_per_s",
                                                             "ingest_per_s", "rss_mib", "windows", "wall_s",
                                                             "note"], win_rows)
    if byte_rows:
        write_csv(os.path.join(OUT, "bytes.csv"), ["workload", "plan", "ranks", "threads", "rate",
                                                   "events_in", "bytes_sent", "messages",
                                                   "remote_bytes_per_event", "messages_per_event"], byte_rows)
    with phase("plots"):
        made = plots(run_rows, sust_rows, grid_rows, key_rows, win_rows, slide_rows, state_rows)
    return grid_rows, made


def main():
    cfg = parse_config()
    for d in ("bin", "tmp", "plots", "queries"):
        os.makedirs(os.path.join(OUT, d), exist_ok=True)
    for exe in ("ceiling_ysb", "ceiling_swa"):
        if not os.path.exists(os.path.join(OUT, exe)):
            sys.exit("bench: build/bench/%s missing: run make bench" % exe)
    t_all = time.time()
    stamp = datetime.datetime.now().strftime("%Y-%m-%d %H:%M:%S %Z").strip()
    mach = machine()
    log("%s, %d cores (%s), mode %s, %.0f s runs" % (stamp, NPROC, mach["cpu"],
                                                      "quick" if cfg.quick else "full", cfg.duration))
    srcs, notes = workload_sources(), []
    with phase("compile workloads"):
        exes = compile_workloads(srcs, notes)
    searches, flat = plan_runs(cfg, exes) if not cfg.beyond_only else ([], [])
    if not cfg.beyond_only:
        with phase("ceiling samples"):
            for kind in ("ysb", "ysb_eager", "ysb_full", "swa", "ysb_star"):
                run_ceiling(kind, cfg.ceil_dur)
    runs_all, grid = [], {}  # runs_all: (workload, plan, Run); grid: (wl, plan, r, t) -> rates
    sust_rows = run_searches(cfg, exes, searches, runs_all, grid)
    if flat:
        with phase("flat-out grid runs (%d)" % len(flat)):
            run_flat(cfg, exes, flat, runs_all, grid)
    if not cfg.beyond_only:
        for kind in ("ysb", "swa", "ysb_star", "ysb_eager", "ysb_full"):
            run_ceiling(kind, cfg.ceil_dur)  # closing samples, after the airc runs
    key_rows, win_rows, byte_rows, slide_rows, state_rows, json_rows, join_rows = [], [], [], [], [], [], []
    # the cases beyond the benchmark run alone (--beyond-only) or among
    # the scaling runs, in their place
    scaling = not cfg.skip_scaling and not cfg.beyond_only
    if scaling:
        with phase(lambda: "scaling: keys (%d points)" % len(key_rows)):
            key_rows = scale_keys(cfg)
        with phase(lambda: "scaling: windows (%d points)" % len(win_rows)):
            win_rows = scale_windows(cfg)
        with phase("JSON parsers"):
            json_rows = json_parsers(cfg)
    if scaling or cfg.beyond_only:
        with phase(lambda: "big state (%d points)" % len(state_rows)):
            state_rows = state_cases(cfg)
        with phase(lambda: "joins (%d points)" % len(join_rows)):
            join_rows = join_cases(cfg)
        with phase(lambda: "sliding windows (%d points)" % len(slide_rows)):
            slide_rows = sliding_windows(cfg)
    if scaling:
        with phase("scaling: bytes across ranks"):
            byte_rows = bytes_across(cfg, exes, sust_rows, runs_all)
    grid_rows, made = write_results(cfg, stamp, mach, srcs, notes, runs_all, sust_rows, grid,
                                    key_rows, win_rows, byte_rows, slide_rows, state_rows, join_rows)
    PHASE_TIMES.append(("total", time.time() - t_all))
    write_summary(cfg, stamp, mach, srcs, notes, sust_rows, grid_rows, key_rows, win_rows, byte_rows, made,
                  slide_rows, state_rows, json_rows, join_rows)
    # Each harness run is also kept whole, by date.
    hist = os.path.join(OUT, "history", datetime.datetime.now().strftime("%Y%m%d-%H%M%S"))
    os.makedirs(hist, exist_ok=True)
    for f in os.listdir(OUT):
        if f.endswith(".csv") or f == "summary.md":
            shutil.copy(os.path.join(OUT, f), hist)
    log("done in %.0f s: %s" % (time.time() - t_all, os.path.join(OUT, "summary.md")))


def write_summary(cfg, stamp, mach, srcs, notes, sust_rows, grid_rows, key_rows, win_rows, byte_rows, made,
                  slide_rows, state_rows, json_rows, join_rows):
    L = []
    L.append("# airc benchmark results")
    L.append("")
    L.append("- date: %s" % stamp)
    L.append("- machine: %d cores (`nproc`), %s, %s RAM, Linux %s, load at end %s" % (
        mach["nproc"], mach["cpu"], mach["mem"], mach["kernel"], mach["load"]))
    L.append("- mode: %s; search runs %.0f s, unthrottled probes %.0f s; bisection to %.0f%%; "
             "latency bound p99 <= %.0f ms, max <= %.0f ms" % (
                 "quick" if cfg.quick else "full", cfg.duration, cfg.probe_duration,
                 cfg.tolerance * 100, cfg.lat_bound, 2 * cfg.lat_bound))
    L.append("- sustainable: delivered >= 99%% of the offered rate, dropped = 0, p99/max latency "
             "under the bound, last closed window's lag not rising (bench/README.md); a rate "
             "that failed only on delivery by < 5%% is retried %d time(s); load average per run in runs.csv" % cfg.retries)
    L.append("- columns the compiled plans materialize: " + " | ".join(
        "%s: %s" % (wl, materialized(src) or "?") for wl, src in srcs.items()))
    L.append("")
    L.append("## Ceiling (hand-fused, 1 thread; median of samples interleaved with the airc runs)")
    L.append("")
    L.append("| program | what it makes per event | median events/s | samples (min..max) | per CPU-second |")
    L.append("|---|---|---|---|---|")
    what = {"ysb": "event_type; ad_id only for views (lazy)",
            "ysb_eager": "ad_id + event_type for every event (as airc's fused loop)",
            "ysb_full": "all 7 fields, the 136-byte event",
            "ysb_star": "YSB*: event_type; ad_id for views and clicks",
            "swa": "key, value"}
    for k in ("ysb", "ysb_eager", "ysb_full", "ysb_star", "swa"):
        v = CEILING_SAMPLES.get(k)
        if v:
            L.append("| ceiling %s | %s | %s | %d (%s..%s) | %s |" % (
                k, what[k], fmt_rate(statistics.median(v)), len(v), fmt_rate(min(v)), fmt_rate(max(v)),
                fmt_rate(ceiling(k, True))))
    L.append("")
    L.append("## Sustainable throughput")
    L.append("")
    L.append("ratio = sustainable / 1-core ceiling of the same workload; ideal = sustainable / "
             "(min(ranks x threads, %d) x ceiling)." % NPROC)
    L.append("")
    L.append("| workload | plan | ranks x threads | overcommit | flat out | sustainable | ratio | ideal | "
             "latency ms mean/p50/p99/max | runs | search s |")
    L.append("|---|---|---|---|---|---|---|---|---|---|---|")
    for row in sust_rows:
        L.append("| %s | %s | %dx%d | %s | %s | %s | %s | %s | %s/%s/%s/%s | %d | %.0f |" % (
            row["workload"], row["plan"], row["ranks"], row["threads"], "yes" if row["overcommit"] else "no",
            fmt_rate(row["unthrottled"]), fmt_rate(row["sustainable"]),
            "%.2f" % row["ratio"] if row["ratio"] else "-",
            "%.2f" % row["ratio_ideal"] if row["ratio_ideal"] else "-",
            fmt_ms(row["lat_mean_ms"]), fmt_ms(row["lat_p50_ms"]), fmt_ms(row["lat_p99_ms"]),
            fmt_ms(row["lat_max_ms"]), row["runs"], row["search_s"]))
    L.append("")
    L.append("## Throughput vs ranks x threads (flat out = unthrottled, %.0f s)" % cfg.probe_duration)
    L.append("")
    L.append("Per CPU-second: events / (user + system seconds of every rank), the figure other "
             "tenants of the machine disturb least; its ratio is to the ceiling's per CPU-second.")
    L.append("")
    L.append("| workload | plan | ranks x threads | overcommit | flat out | sustainable | flat out per CPU-s | ratio |")
    L.append("|---|---|---|---|---|---|---|---|")
    for row in grid_rows:
        c = ceiling(CEILING_OF[row["workload"]], True)
        pc = row.get("per_cpu")
        L.append("| %s | %s | %dx%d | %s | %s | %s | %s | %s |" % (
            row["workload"], row["plan"], row["ranks"], row["threads"],
            "yes" if row["overcommit"] else "no", fmt_rate(row["unthrottled"]),
            fmt_rate(row["sustainable"]), fmt_rate(pc), "%.2f" % (pc / c) if pc and c else "-"))
    if key_rows:
        L.append("")
        L.append("## Scaling: distinct keys (SWA template, fused, 1 rank, 1 thread, flat out)")
        L.append("")
        L.append("events/s = events in / the whole run, closing and writing every window included "
                 "(stats-json); ingest/s = events in / %.0f s, the generating part; wall = the process's "
                 "whole life." % cfg.scale_dur)
        L.append("")
        L.append("| keys | airc events/s | ingest/s | wall s | ceiling_swa events/s | airc / ceiling | "
                 "peak RSS MiB | result rows | note |")
        L.append("|---|---|---|---|---|---|---|---|---|")
        for row in key_rows:
            ratio = (row["events_per_s"] / row["ceiling"]) if row["events_per_s"] and row["ceiling"] else None
            L.append("| %d | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                row["keys"], fmt_rate(row["events_per_s"]), fmt_rate(row["ingest_per_s"]),
                fmt_ms(row["wall_s"]), fmt_rate(row["ceiling"]), "%.2f" % ratio if ratio else "-",
                fmt_ms(row["rss_mib"]), row["windows"], row["note"]))
    if win_rows:
        L.append("")
        L.append("## Scaling: window size and slide (SWA, 1000 keys, fused, 1 rank, flat out)")
        L.append("")
        L.append("| window | windows per event | events/s | ingest/s | wall s | peak RSS MiB | note |")
        L.append("|---|---|---|---|---|---|---|")
        for row in win_rows:
            L.append("| %s | %d | %s | %s | %s | %s | %s |" % (
                row["window"], row["open_per_event"], fmt_rate(row["events_per_s"]),
                fmt_rate(row["ingest_per_s"]), fmt_ms(row["wall_s"]), fmt_ms(row["rss_mib"]), row["note"]))
    if json_rows:
        L.append("")
        L.append("## JSON lines: airc's scanner beside the libraries (1 thread, the same %d lines)" % json_rows[0]["rows"])
        L.append("")
        L.append("airc reads a file through its csv reader with format = 'json' and parses each field to "
                 "its column type; cJSON and jansson parse each line of the same text in memory into a tree "
                 "and look the fields up. 'same rows': the same checksum of the values read as airc's.")
        L.append("")
        L.append("| parser | rows/s | same rows | note |")
        L.append("|---|---|---|---|")
        for row in json_rows:
            L.append("| %s | %s | %s | %s |" % (row["parser"], fmt_rate(row["rows_per_s"]), row["same_rows"],
                                              row["note"]))
    if state_rows:
        L.append("")
        L.append("## Big state: airc beside a hand-written loop (the same events, the same output bytes)")
        L.append("")
        L.append("Targets (issue 14): 10M keys in one window within 1.5x of the hand-written loop on 1 rank and "
                 "faster than it on 2; at most 64 bytes of state per key; output rows/s beside a plain write of the "
                 "same bytes. Times are medians of %d runs each, the loop's run in the same stretch as airc's: on a "
                 "shared machine read the ratio, not the seconds. State B/key: every hash table's slots (all "
                 "ranks) at their largest outside a doubling, and at their peak, during one (a doubling holds the "
                 "old slots beside the new); RSS B/key: peak RSS of the largest process (tables, held results, "
                 "buffers); the loop's: its table. Output: rank 0's merge and write of the results (airc's collector) in rows/s, "
                 "beside 64 KiB writes of the same bytes from memory." % max(r["runs"] for r in state_rows))
        L.append("")
        L.append("| case | keys | events | ranks | airc s | hand-written s | airc / hand | airc ns/event | hand ns/event "
                 "| state B/key | state peak B/key | RSS B/key | hand B/key | result rows | output rows/s "
                 "| plain write rows/s | rows sent unaggregated | same bytes | note |")
        L.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        f1 = lambda x: "-" if x is None else "%.1f" % x  # noqa: E731
        for row in state_rows:
            L.append(("| %s | %d | %d | %d" + " | %s" * 15 + " |") % (
                "one window, SUM+COUNT" if row["case"] == "agg" else "SESSION (GAP 2 x keys ms)",
                row["keys"], row["events"], row["ranks"], f1(row["airc_s"]), f1(row["limit_s"]),
                "%.2f" % row["ratio"] if row["ratio"] else "-", f1(row["airc_ns_per_event"]),
                f1(row["limit_ns_per_event"]), f1(row["state_bytes_per_key"]), f1(row["state_peak_bytes_per_key"]),
                f1(row["airc_bytes_per_key"]),
                f1(row["limit_bytes_per_key"]), row["rows"], fmt_rate(row["output_rows_per_s"]),
                fmt_rate(row["plain_write_rows_per_s"]), row["partial_raw_rows"], row["same_bytes"], row["note"]))
    if join_rows:
        L.append("")
        L.append("## Joins: airc beside a hand-written hash join (the same rows, the same output bytes)")
        L.append("")
        L.append("Stream-stream: N rows per side over N keys in one TUMBLING window (about N result rows, "
                 "sorted). Static: N events looked up in a T-row csv table (k unique; one event in 11 misses), "
                 "SUM and COUNT per table group. Seconds: wall time of the whole process, the table load included "
                 "(load: airc's wall less its stream time; the hand-written load is reading the file into its "
                 "table); median of the runs. RSS per row: the largest process's peak RSS over the input rows "
                 "(stream) or the table rows (static). The hand-written join is one thread on 1 rank in both rows.")
        L.append("")
        L.append("| join | size | ranks | airc s | hand-written s | airc / hand | airc events/s | hand events/s | "
                 "load s airc / hand | RSS bytes/row airc / hand | result rows | same bytes | note |")
        L.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        f2 = lambda x: "-" if x is None else "%.2f" % x  # noqa: E731
        f0 = lambda x: "-" if x is None else "%.0f" % x  # noqa: E731
        for row in join_rows:
            L.append("| %s | %s | %d | %s | %s | %s | %s | %s | %s / %s | %s / %s | %s | %s | %s |" % (
                "stream-stream, 1 window" if row["case"] == "stream" else "static (table)",
                ("%d rows/side" % (row["events"] // 2)) if row["case"] == "stream" else
                ("%d events, %d-row table" % (row["events"], row["size"])),
                row["ranks"], f2(row["airc_s"]), f2(row["limit_s"]), f2(row["ratio"]),
                fmt_rate(row["airc_events_per_s"]), fmt_rate(row["limit_events_per_s"]),
                f2(row["airc_load_s"]), f2(row["limit_load_s"]), f0(row["airc_rss_per_row"]),
                f0(row["limit_rss_per_row"]), row["rows"], row["same_bytes"], row["note"]))
    if slide_rows:
        L.append("")
        L.append("## Sliding windows: shared slices (10 keys, same %d events, 1 rank, fused, median of 3)"
                 % slide_rows[0]["events"])
        L.append("")
        L.append("Target (issue 14): HOPPING 10 s / 100 ms at least 1/3 of TUMBLING 10 s; the cost per event "
                 "flat in the overlap for ADVANCE BY 100 ms (the same result rows at every size).")
        L.append("")
        L.append("| window | windows per event | events/s | ns/event | x TUMBLING 10 s | result windows | peak RSS MiB | note |")
        L.append("|---|---|---|---|---|---|---|---|")
        for row in slide_rows:
            r = row["ratio_to_tumbling"]
            verdict = ""
            if row["window"] == "HOPPING (SIZE 10 SECONDS, ADVANCE BY 100 MILLISECONDS)" and r:
                verdict = " (target 0.33: %s)" % ("met" if r >= 1 / 3 else "NOT met")
            L.append("| %s | %d | %s | %s | %s%s | %s | %s | %s |" % (
                row["window"], row["overlap"], fmt_rate(row["events_per_s"]),
                "%.1f" % row["ns_per_event"] if row["ns_per_event"] else "-",
                "%.2f" % r if r else "-", verdict, row["windows"], fmt_ms(row["rss_mib"]), row["note"]))
    if byte_rows:
        L.append("")
        L.append("## Bytes across ranks per input event (counted by the runtime)")
        L.append("")
        L.append("Every batch a rank sends to another, as --stats-json's bytes_sent and messages "
                 "count it (rows and batch headers), over the events read. Partial aggregates: one row "
                 "per key, window, rank and source thread, so fused bytes/event fall as rate x window "
                 "size grows.")
        L.append("")
        L.append("| workload | plan | ranks x threads | at rate | bytes across ranks / event | messages / event |")
        L.append("|---|---|---|---|---|---|")
        for row in byte_rows:
            fb = lambda x: "-" if x is None else ("%.4g" % x)
            L.append("| %s | %s | %dx%d | %s | %s | %s |" % (
                row["workload"], row["plan"], row["ranks"], row["threads"],
                fmt_rate(row["rate"]) if row["rate"] else "flat out", fb(row["remote_bytes_per_event"]),
                fb(row["messages_per_event"])))
    if notes:
        L.append("")
        L.append("## Notes")
        L.append("")
        for n in notes:
            L.append("- " + n)
    L.append("")
    L.append("## Where the time went")
    L.append("")
    for name, secs in PHASE_TIMES:
        L.append("- %s: %.0f s" % (name, secs))
    if made:
        L.append("")
        L.append("## Plots (build/bench/plots/)")
        L.append("")
        for m in made:
            L.append("- ![%s](plots/%s)" % (m, m))
    L.append("")
    L.append("CSV: build/bench/runs.csv (every run), sustainable.csv, grid.csv, ceiling.csv, "
             "scaling_keys.csv, scaling_windows.csv, sliding.csv, state.csv, joins.csv, bytes.csv; copies per harness run in build/bench/history/.")
    with open(os.path.join(OUT, "summary.md"), "w") as f:
        f.write("\n".join(L) + "\n")


if __name__ == "__main__":
    main()

"""airref - reference helpers for the end-to-end tests (Python 3.11, stdlib only).

Written from the documentation only (docs/language.md sections 2, 4 and 7 and the
generator comment in runtime/air.h), never from the C code, so that a bug in
the runtime cannot hide itself by being copied here.
"""

import csv
import io
import re

MASK64 = (1 << 64) - 1

# --------------------------------------------------------------------------
# Generators: row i of a stream is a function of (seed, i) alone.
# --------------------------------------------------------------------------


def mix64(z):
    """splitmix64's finalizer on unsigned 64-bit integers."""
    z = (z + 0x9E3779B97F4A7C15) & MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def row_hash(seed, i):
    """H = mix64(mix64(seed) + i), seed taken as its 64-bit two's complement."""
    return mix64((mix64(seed & MASK64) + i) & MASK64)


def col_value(h, c):
    """r = mix64(H + c); c is the 0-based declaration position (datagen)
    or the YSB field number."""
    return mix64((h + c) & MASK64)


def uniform(r, lo, hi):
    # lo + r % (hi - lo + 1) in unsigned arithmetic, read back as signed:
    # equal to the plain integer formula whenever lo <= hi.
    return lo + r % (hi - lo + 1)


def choice(r, items):
    return items[r % len(items)]


def sequence(i, start=0, step=1):
    return start + i * step


def uuid(r):
    """16 bytes: big-endian r, big-endian mix64(r); RFC 4122 version 4 and
    variant bits forced; lowercase 8-4-4-4-12 hex."""
    b = bytearray(r.to_bytes(8, "big") + mix64(r).to_bytes(8, "big"))
    b[6] = (b[6] & 0x0F) | 0x40
    b[8] = (b[8] & 0x3F) | 0x80
    h = b.hex()
    return f"{h[0:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


# YSB: field numbers and their value sets.
YSB_USER_ID, YSB_PAGE_ID, YSB_AD_ID, YSB_AD_TYPE, YSB_EVENT_TYPE, YSB_IP, YSB_TS = range(7)
YSB_ADS = 1000
YSB_CAMPAIGNS = 100
YSB_AD_TYPES = ("banner", "modal", "sponsored-search", "mail", "mobile")
YSB_EVENT_TYPES = ("view", "click", "purchase")


def ysb_ad_uuid(k):
    return uuid(mix64((0xADADADAD00000000 + k) & MASK64))


def ysb_campaign_uuid(j):
    return uuid(mix64((0xCAC0CAC000000000 + j) & MASK64))


def ysb_campaign_of_ad(k):
    return k // 10


def ysb_ad_index(h):
    """Index (0..999) of the ad of the row with row hash h."""
    return col_value(h, YSB_AD_ID) % YSB_ADS


def ysb_field(h, field):
    """The string value of a YSB field (not ts) for the row with hash h."""
    r = col_value(h, field)
    if field in (YSB_USER_ID, YSB_PAGE_ID):
        return uuid(r)
    if field == YSB_AD_ID:
        return ysb_ad_uuid(r % YSB_ADS)
    if field == YSB_AD_TYPE:
        return YSB_AD_TYPES[r % 5]
    if field == YSB_EVENT_TYPE:
        return YSB_EVENT_TYPES[r % 3]
    if field == YSB_IP:
        x = r & 0xFFFFFFFF
        return ".".join(str((x >> s) & 0xFF) for s in (24, 16, 8, 0))
    raise ValueError(f"ysb field {field} has no string value")


# --------------------------------------------------------------------------
# C arithmetic (docs/language.md section 1): wrap-around, truncating division.
# --------------------------------------------------------------------------


def wrap(v, bits):
    m = 1 << bits
    v &= m - 1
    return v - m if v >= m >> 1 else v


def c_div(a, b):
    """Integer division truncating toward zero; x / 0 is 0."""
    if b == 0:
        return 0
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def c_mod(a, b):
    """C's %: the sign of the dividend; x % 0 is 0."""
    if b == 0:
        return 0
    return a - c_div(a, b) * b


def tumble_start(ts, size_ms):
    return (ts // size_ms) * size_ms  # Python's // floors, as windows must


def hop_starts(ts, size_ms, adv_ms):
    """Starts of every hopping window [s, s + size) holding ts, s a multiple
    of adv, in increasing order."""
    last = (ts // adv_ms) * adv_ms
    first = last
    while first - adv_ms + size_ms > ts:
        first -= adv_ms
    return list(range(first, last + 1, adv_ms))


def sessions(times, gap_ms):
    """Session windows of one key's event times: an event at t covers
    [t, t + gap) and sessions that overlap merge, so a session is
    [first, last + gap). Returns [(start, end, [indices into times])]."""
    out = []
    for i in sorted(range(len(times)), key=lambda k: times[k]):
        t = times[i]
        if out and t < out[-1][1]:
            out[-1][1] = max(out[-1][1], t + gap_ms)
            out[-1][2].append(i)
        else:
            out.append([t, t + gap_ms, [i]])
    return [tuple(s) for s in out]


def file_watermarks(times, bound_ms):
    """W(i) for every record i of a csv source (docs/guarantees.md, the
    lateness rule): the largest event time that counts among records
    0..i-1, minus bound_ms; None while none counted. times[i] is record i's
    event time when it counts (the record has the declared number of fields
    and a valid TIMESTAMP in its time column, whatever its other fields),
    else None. A function of the file alone: not of ranks or chunks."""
    out, top = [], None
    for t in times:
        out.append(None if top is None else top - bound_ms)
        if t is not None:
            top = t if top is None else max(top, t)
    return out


def late_records(times, bound_ms, last_end, good=None):
    """Indices of the records that are late: good (all when good is None),
    and even the latest window holding the record, which ends at
    last_end(ts), has ended by W(i): last_end(ts) <= W(i)."""
    wms = file_watermarks(times, bound_ms)
    return {i for i, (t, w) in enumerate(zip(times, wms))
            if t is not None and (good is None or good[i]) and w is not None and last_end(t) <= w}


def updating_times(times, bound_ms):
    """The event time each record of a csv source counts at in an updating
    query (GROUP BY without WINDOW): its own ts when ts > W(i) (or W(i) is
    None), else W(i) + 1, so that a row behind the watermark goes into the
    next emission instead of being dropped."""
    return [t if w is None or t > w else w + 1 for t, w in zip(times, file_watermarks(times, bound_ms))]


def key_order(key):
    """A sort key for GROUP BY keys (tuples) in result order: NULL after
    every value, strings as UTF-8 bytes."""
    return tuple((v is None, v.encode() if isinstance(v, str) else (0 if v is None else v)) for v in key)


def changelog(batches, fold, result):
    """An updating query's changelog. batches: [[(key, row), ...], ...],
    one list per interval, in interval order (key a tuple); fold(state or
    None, row) is the key's running state after row; result(key, state) is
    its result row (a tuple without op), or None when HAVING hides it (or
    nothing is left of it). Per interval, the keys that had rows in it in
    key order: +I (not shown before), -U and +U (shown, another row), -D
    (shown, hidden now); nothing when the row is the same. Returns
    [(interval index, op, row)]."""
    states, shown, out = {}, {}, []
    for n, batch in enumerate(batches):
        for k, r in batch:
            states[k] = fold(states.get(k), r)
        for k in sorted({k for k, _ in batch}, key=key_order):
            now, old = result(k, states[k]), shown.get(k)
            if now == old:
                continue
            if old is not None:
                out.append((n, "-U" if now is not None else "-D", old))
            if now is not None:
                out.append((n, "+U" if old is not None else "+I", now))
            shown[k] = now
    return out


def with_watermarks(recs, bound_ms, ts="ts"):
    """recs (dicts in file order) with r["wm"] = W(i) of each
    (file_watermarks over r[ts]; None while none counted)."""
    for r, w in zip(recs, file_watermarks([r[ts] for r in recs], bound_ms)):
        r["wm"] = w
    return recs


def regular_join_time(x, y, ts="ts"):
    """A regular join's pair time (docs/language.md, "Regular joins"): the
    later of the two rows' times, raised to W + 1 when at or below W, for W
    either row's watermark when read (r["wm"], with_watermarks)."""
    t = max(x[ts], y[ts])
    for w in (x["wm"], y["wm"]):
        if w is not None and t <= w:
            t = w + 1
    return t


def changelog_by_time(batches, key_of, value_of, fold):
    """An updating aggregation's changes, one emission per batch: batches is
    [(time, rows)] in time order; fold(state, row) updates the state of
    key_of(row) (None: new); value_of(state) is the key's result row, or
    None when the key has no rows. Returns [(time, op, key, value)]: per
    emission, the keys it changed in key order, -U before +U (-D when the
    key has no row left), +I for a key new to the result, a key whose value
    did not change writing nothing."""
    states, shown, out = {}, {}, []
    for t, rows in batches:
        touched = set()
        for r in rows:
            k = key_of(r)
            states[k] = fold(states.get(k), r)
            touched.add(k)
        for k in sorted(touched):
            now, old = value_of(states[k]), shown.get(k)
            if now == old:
                continue
            if old is not None:
                out.append((t, "-U" if now is not None else "-D", k, old))
            if now is not None:
                out.append((t, "+U" if old is not None else "+I", k, now))
            shown[k] = now
    return out


def grace_changelog(recs, size_ms, grace_ms, result, key=key_order):
    """A TUMBLING window with a GRACE PERIOD (docs/language.md, "Grace
    period"). recs: [(k, ts, w, x)], k the group key, w the record's W(i)
    (file_watermarks), x what result reads. For the record's window [s, e):
    on time when w is None or w < e, within the grace when e <= w <
    e + grace_ms, else late (dropped). result(s, k, xs) is the row of the
    key's xs (a tuple without op) or None when HAVING hides it. At e: +I of
    each key's on-time row; at e + grace: for each key with records within
    the grace, its row of all of them against the row written at e: -U
    then +U, +I (none shown), -D (hidden now), nothing when the same.
    Returns ([(time, op, row)] in output order: time, key, op),
    {"on": n, "grace": n, "late": n})."""
    ops = {"+I": 0, "-U": 1, "+U": 2, "-D": 3}
    ontime, grace, kinds = {}, {}, {"on": 0, "grace": 0, "late": 0}
    for k, ts, w, x in recs:
        s = tumble_start(ts, size_ms)
        e = s + size_ms
        kind = "on" if w is None or w < e else "grace" if w < e + grace_ms else "late"
        kinds[kind] += 1
        if kind != "late":
            (ontime if kind == "on" else grace).setdefault((s, k), []).append(x)
    out = []
    for (s, k), xs in ontime.items():
        r = result(s, k, xs)
        if r is not None:
            out.append((s + size_ms, k, "+I", r))
    for (s, k), xs in grace.items():
        old = result(s, k, ontime.get((s, k), []))
        now = result(s, k, ontime.get((s, k), []) + xs)
        if old == now:
            continue
        if old is not None:
            out.append((s + size_ms + grace_ms, k, "-U" if now is not None else "-D", old))
        if now is not None:
            out.append((s + size_ms + grace_ms, k, "+U" if old is not None else "+I", now))
    out.sort(key=lambda r: (r[0], key(r[1]), ops[r[2]]))
    return [(t, op, r) for t, _, op, r in out], kinds


def raw_fields(line):
    """A CSV line's fields as written, quotes and all (so that the empty
    field, NULL, differs from "", the empty string)."""
    out, cur, quoted = [], "", False
    for c in line:
        if c == "," and not quoted:
            out.append(cur)
            cur = ""
            continue
        quoted ^= c == '"'
        cur += c
    return out + [cur]


def apply_changelog(lines, nkey):
    """The table a changelog leaves (lines: CSV text without the header,
    each op,col...; the key is the first nkey columns as written): +I adds a key that
    is absent, -U and -D remove exactly the row present (the whole line
    after the op), +U sets a key just taken back by -U. Raises
    AssertionError on a line that breaks this; returns {key: line}."""
    table, pending = {}, None
    for i, line in enumerate(lines):
        op, _, row = line.partition(",")
        key = tuple(raw_fields(row)[:nkey])  # as written: NULL is not ""
        after_u, pending = pending, None
        assert after_u is None or (op == "+U" and key == after_u), "line %d: %s after -U of %s" % (i, line, after_u)
        if op in ("-U", "-D"):
            assert table.get(key) == row, "line %d: %s takes back %r" % (i, line, table.get(key))
            del table[key]
            pending = key if op == "-U" else None
        elif op in ("+I", "+U"):
            assert key not in table and (op == "+U") == (after_u is not None), "line %d: %s" % (i, line)
            table[key] = row
        else:
            raise AssertionError("line %d: no op: %s" % (i, line))
    assert pending is None, "a -U at the end"
    return table


# --------------------------------------------------------------------------
# CSV output (docs/language.md section 4).
# --------------------------------------------------------------------------


class AmbiguousValue(ValueError):
    """A value whose text two readings of the output contract could write
    differently; tests must choose data that avoids it."""


def fmt_double(v):
    """A DOUBLE as the output writes it (docs/language.md section 4): C's
    "%.15g", or "%.16g" or "%.17g" when fewer digits do not read back to v;
    so plain digits from 1e-4 to below 1e15, an exponent ("1e+15",
    "2.5e-05") outside. Infinities are written "inf" and "-inf" as C's
    printf spells them; NaN and -0 are refused (their text is not pinned)."""
    if v != v:
        raise AmbiguousValue("NaN")
    if v in (float("inf"), float("-inf")):
        return "inf" if v > 0 else "-inf"
    if v == 0 and str(v).startswith("-"):
        raise AmbiguousValue("negative zero")
    for p in (15, 16, 17):
        s = "%.*g" % (p, v)
        if float(s) == v:
            return s
    return s


def fmt_str(s):
    if s == "":
        return '""'  # the empty string; NULL is the empty field
    if any(c in s for c in ',"\r\n') or s[0] == " " or s[-1] == " ":
        return '"' + s.replace('"', '""') + '"'
    return s


def fmt_bool(b):
    return "true" if b else "false"


def fmt_value(v):
    if v is None:
        return ""  # NULL
    if isinstance(v, bool):
        return fmt_bool(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return fmt_double(v)
    if isinstance(v, str):
        return fmt_str(v)
    raise TypeError(f"cannot format {v!r}")


def csv_line(values):
    return ",".join(fmt_value(v) for v in values)


def print_result(header, rows, out=None):
    """Header line, then one line per row (rows already in output order)."""
    import sys

    out = out or sys.stdout
    out.write(",".join(header) + "\n")
    for r in rows:
        out.write(csv_line(r) + "\n")


# --------------------------------------------------------------------------
# Result order (docs/language.md "ORDER BY and LIMIT", NULL "Ordering").
# --------------------------------------------------------------------------


def order_cmp(a, b, desc=False, nulls=None):
    """-1, 0 or 1: a before, with or after b under one ORDER BY item. NULL
    (None) goes after every value, first with DESC, unless nulls is "first"
    or "last"; strings compare as UTF-8 bytes."""
    first = nulls == "first" if nulls else desc
    if a is None or b is None:
        if a is None and b is None:
            return 0
        return (-1 if first else 1) if a is None else (1 if first else -1)
    x = a.encode() if isinstance(a, str) else a
    y = b.encode() if isinstance(b, str) else b
    r = (x > y) - (x < y)
    return -r if desc else r


def sort_rows(rows, items):
    """rows: (output tuple, event time) pairs, sorted by items, each
    (position, desc, nulls) as order_cmp takes them, then by every output
    column ascending, then the event time: a window's order of result rows."""
    import functools

    def cmp(p, q):
        for i, desc, nulls in items:
            r = order_cmp(p[0][i], q[0][i], desc, nulls)
            if r:
                return r
        for i in range(len(p[0])):
            r = order_cmp(p[0][i], q[0][i])
            if r:
                return r
        return (p[1] > q[1]) - (p[1] < q[1])
    return sorted(rows, key=functools.cmp_to_key(cmp))


# --------------------------------------------------------------------------
# CSV input.
# --------------------------------------------------------------------------


def output_lines(path):
    """A program's output file as lines, without the empty one after the last newline."""
    with open(path, newline="") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def check_tagged_sets(path, wants, unordered=()):
    """Several queries on standard output, as check_tagged, but the rows of
    the tags in unordered (a Map's, in arrival order) are compared sorted,
    under their header. Exits with a diff of what differs."""
    import difflib
    import sys

    got = {tag: [] for tag in wants}
    for line in output_lines(path):
        tag, _, rest = line.partition(",")
        if tag not in got:
            sys.exit("line without a query tag %s: %r" % (", ".join(sorted(wants)), line))
        got[tag].append(rest)
    for tag in sorted(wants):
        want, have = wants[tag], got[tag]
        if tag in unordered:
            want, have = want[:1] + sorted(want[1:]), have[:1] + sorted(have[1:])
        if have != want:
            sys.exit("%s differs:\n%s" % (tag, "\n".join(difflib.unified_diff(want, have, "want", "got",
                                                                              lineterm=""))))


def check_tagged(path, wants):
    """Several queries on standard output: every line of the file at path
    must start with one of the tags of wants ({"q1": [lines], ...}), and
    each tag's lines, the tag removed and in order, must be exactly its
    list. Exits with what differs."""
    check_tagged_sets(path, wants)


def read_csv(path, header=False):
    """All records of a well-formed RFC 4180 file, as lists of strings."""
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f, strict=True))
    return rows[1:] if header else rows


def parse_line_strict(line):
    """One physical line (no embedded newlines) as RFC 4180 fields, or None
    when its quoting is malformed (a quote inside an unquoted field, text
    after a closing quote, an unterminated quote)."""
    fields, i, n = [], 0, len(line)
    while True:
        if i < n and line[i] == '"':
            i += 1
            buf = io.StringIO()
            while True:
                if i >= n:
                    return None  # unterminated
                if line[i] == '"':
                    if i + 1 < n and line[i + 1] == '"':
                        buf.write('"')
                        i += 2
                        continue
                    i += 1
                    break
                buf.write(line[i])
                i += 1
            fields.append(buf.getvalue())
            if i < n and line[i] != ",":
                return None  # text after the closing quote
        else:
            j = line.find(",", i)
            j = n if j < 0 else j
            field = line[i:j]
            if '"' in field:
                return None
            fields.append(field)
            i = j
        if i >= n:
            return fields
        i += 1  # the comma


def data_lines(path, header=True):
    """(line number, fields) for every non-blank line of a CSV file whose
    fields hold no line ends, after the header line when there is one;
    fields is None when the line's quoting is malformed."""
    with open(path, newline="") as f:
        lines = f.read().split("\n")
    for lineno, line in enumerate(lines, start=1):
        if (header and lineno == 1) or line == "":
            continue
        yield lineno, parse_line_strict(line)


def reported_lines(grep_file, data_file):
    """The line numbers of data_file that a case's stderr_grep expects to
    see reported as bad rows (patterns `^name\\.csv:LINE:`)."""
    name = re.escape(re.escape(data_file))
    with open(grep_file) as f:
        return [int(m) for m in re.findall(r"^" + name + r":(\d+):", f.read(), re.M)]


def parse_int(s, bits):
    """A whole-field decimal integer in range for `bits`, else None."""
    t = s[1:] if s[:1] in "+-" else s
    if not t or not t.isascii() or not t.isdigit():
        return None
    v = int(s)
    lim = 1 << (bits - 1)
    return v if -lim <= v < lim else None


_DECIMAL = re.compile(r"[+-]?([0-9]+(\.[0-9]+)?|\.[0-9]+)([eE][+-]?[0-9]+)?")
_WORDS = {"inf": float("inf"), "+inf": float("inf"), "-inf": float("-inf"),
          "infinity": float("inf"), "+infinity": float("inf"),
          "-infinity": float("-inf"), "nan": float("nan")}


def parse_double(s):
    """A DOUBLE field (docs/guarantees.md): a decimal number, or inf,
    infinity (either signed) or nan in any case; None when it is none of
    these or out of range (finite text beyond the doubles, or a nonzero
    number that rounds to 0)."""
    if s.lower() in _WORDS:
        return _WORDS[s.lower()]
    m = _DECIMAL.fullmatch(s)
    if not m:
        return None
    v = float(s)
    mantissa = m.group(1)
    if v in (float("inf"), float("-inf")) or (v == 0 and mantissa.strip("0.") != ""):
        return None
    return v


TS_MIN, TS_MAX = -62135596800000, 253402300799999  # years 1 to 9999, in ms


def parse_ts(s):
    """A TIMESTAMP field: a BIGINT within years 1 to 9999, else None."""
    v = parse_int(s, 64)
    return v if v is not None and TS_MIN <= v <= TS_MAX else None


ISO_FORM = None


def parse_iso_ms(txt):
    """ISO-8601 text as docs/language.md lists its forms ('yyyy-MM-dd', then
    ' ' or 'T' and 'HH:mm:ss', a fraction, 'Z' or an offset), parsed with
    datetime: ms since the epoch, or None for any other text or a date or
    time that does not exist."""
    import datetime
    import re

    global ISO_FORM
    if ISO_FORM is None:
        ISO_FORM = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?"
                              r"(Z|[+-]\d{2}:\d{2})?)?$")
    m = ISO_FORM.match(txt)
    if not m:
        return None
    y, mo, d, h, mi, s, frac, zone = m.groups()
    epoch = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
    try:
        t = datetime.datetime(int(y), int(mo), int(d), int(h or 0), int(mi or 0), int(s or 0),
                              tzinfo=datetime.timezone.utc)
    except ValueError:
        return None
    ms = (t - epoch) // datetime.timedelta(milliseconds=1) + (int((frac + "00")[:3]) if frac else 0)
    if zone and zone != "Z":
        if int(zone[1:3]) > 23 or int(zone[4:6]) > 59:
            return None
        ms -= (-1 if zone[0] == "-" else 1) * (int(zone[1:3]) * 60 + int(zone[4:6])) * 60000
    return ms


def disordered_times(rng, n, steps, every, phase, spread=900):
    """n event times for a case's data (make_data.py), as (i, ms): from 0,
    each a step of rng.choice(steps) after the one before, but row i with
    i % every == phase up to spread - 1 ms earlier (out of order, inside a
    WATERMARK bound of spread ms). A generator: the caller draws its own
    values from rng between the rows, as it always did."""
    t = 0
    for i in range(n):
        t += rng.choice(steps)
        yield i, (t - rng.randrange(spread) if i % every == phase else t)

"""airref - reference helpers for the end-to-end tests (Python 3.11, stdlib only).

Written from the documentation only (LANGUAGE.md sections 2, 4 and 7 and the
generator comment in runtime/air.h), never from the C code, so that a bug in
the runtime cannot hide itself by being copied here.
"""

import csv
import io

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
# C arithmetic (LANGUAGE.md section 7): wrap-around, truncating division.
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


# --------------------------------------------------------------------------
# CSV output (LANGUAGE.md section 4).
# --------------------------------------------------------------------------


class AmbiguousValue(ValueError):
    """A value whose text two readings of the output contract could write
    differently; tests must choose data that avoids it."""


def fmt_double(v):
    """The shortest %.<p>g that reads back to v (what "shortest form that
    reads back" gives in C: 3.0 -> "3", 0.1 -> "0.1")."""
    if v != v or v in (float("inf"), float("-inf")):
        raise AmbiguousValue(f"non-finite double {v!r}")
    if v == 0 and str(v).startswith("-"):
        raise AmbiguousValue("negative zero")
    for p in range(1, 18):
        s = "%.*g" % (p, v)
        if float(s) == v:
            break
    # 100.0 is "1e+02" by the %g rule but "100" by other shortest printers;
    # keep test data away from exponents so either is right.
    if "e" in s:
        raise AmbiguousValue(f"double {v!r} would print with an exponent ({s})")
    return s


def fmt_str(s):
    if s == "":
        raise AmbiguousValue("empty string (quoted or not is unspecified)")
    if any(c in s for c in ',"\r\n') or s[0] == " " or s[-1] == " ":
        return '"' + s.replace('"', '""') + '"'
    return s


def fmt_bool(b):
    return "true" if b else "false"


def fmt_value(v):
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
# CSV input.
# --------------------------------------------------------------------------


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


def parse_int(s, bits):
    """A whole-field decimal integer in range for `bits`, else None."""
    t = s[1:] if s[:1] in "+-" else s
    if not t or not t.isascii() or not t.isdigit():
        return None
    v = int(s)
    lim = 1 << (bits - 1)
    return v if -lim <= v < lim else None


def parse_double(s):
    if not s or s != s.strip():
        return None
    try:
        return float(s)
    except ValueError:
        return None

"""Writes data.csv for csv_numbers (run once; the CSV is committed).

Numbers at the edges of what a csv field may hold: DOUBLEs that strtod
alone would read silently wrong (1e400 as inf, 1e-400 as 0, hex 0x1p4 as
16, "1." as 1), TIMESTAMPs just outside years 1 to 9999 and at both ends
of that range, and a VARCHAR holding a NUL byte.
"""
ROWS = [
    "k,x,ts",
    "a,1.5,-62135596800000",     # the first ms of year 1: good
    "a,2.5e1,1000",
    "b,.25,1500",
    "b,1e400,2000",              # DOUBLE out of range
    "b,1e-400,2100",             # DOUBLE out of range
    "a,0x1p4,2200",              # not a valid DOUBLE
    "a,1.,2300",                 # not a valid DOUBLE
    "c,inf,2400",
    "c,+Infinity,2500",
    "a,-0.75,9223372036854775807",  # TIMESTAMP out of range
    "a,1,-62135596800001",       # TIMESTAMP out of range
    "a\0,1,3000",                # holds a NUL byte
    "b,-2.5E-1,12000",
    "c,0.5,12500",
    "a,3,253402300799999",       # the last ms of year 9999: good
]
with open("data.csv", "w", newline="") as f:
    f.write("\n".join(ROWS) + "\n")

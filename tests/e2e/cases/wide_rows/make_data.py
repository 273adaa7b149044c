"""Makes w.csv and t.csv for wide_rows (committed; run to regenerate): 300
VARCHAR(65535) columns, so that a row is 19.7 MB though the fields are short."""
N = 300
with open("w.csv", "w") as f:
    for i in range(12):
        fields = ["%s%d" % ("ab"[j % 2], (i * 7 + j) % 5) * (1 + (i + j) % 4) for j in range(N)]
        f.write(",".join(fields) + ",%d,%d\n" % (i % 3, i * 700))
with open("t.csv", "w") as f:
    for k in range(3):
        f.write("%d,%s\n" % (k, "wide" * (k + 1)))

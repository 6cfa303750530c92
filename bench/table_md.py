#!/usr/bin/env python3
"""Print the result tables of docs/PERFORMANCE.md from a results CSV.

    python3 bench/table_md.py bench/results/latest.csv

Every figure comes from the one run the CSV holds (the harness writes the
limits, the baseline and aclrt in one process).
"""
import csv
import math
import sys


def num(v):
    if v in ("", None):
        return "-"
    x = float(v)
    if math.isnan(x):
        return "-"
    if abs(x) >= 1e6:
        return "%.3g" % x
    if abs(x) >= 100:
        return "%.0f" % x
    if abs(x) >= 10:
        return "%.1f" % x
    return "%.2f" % x


def ratio(v):
    if v in ("", None):
        return "-"
    x = float(v)
    return ("%.0fx" % x) if x >= 100 else ("%.2fx" % x)


def main():
    rows = list(csv.DictReader(open(sys.argv[1] if len(sys.argv) > 1 else "bench/results/latest.csv")))
    by = {r["name"]: r for r in rows}
    print("| case | unit | iterations | p50 | p90 | p99 | max | limit p50 | x limit | baseline p50 | speedup |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        if r["kind"] != "aclrt":
            continue
        print("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["name"], r["unit"], r["iterations"], num(r["p50"]), num(r["p90"]), num(r["p99"]), num(r["max"]),
            num(r["limit_p50"]), ratio(r["x_limit"]), num(r["baseline_p50"]), ratio(r["speedup_vs_baseline"])))
    print()
    print("| limit / baseline | unit | iterations | p50 | p90 | p99 | max |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for kind in ("clock", "limit", "baseline"):
        for r in rows:
            if r["kind"] == kind:
                print("| %s | %s | %s | %s | %s | %s | %s |" % (
                    r["name"], r["unit"], r["iterations"], num(r["p50"]), num(r["p90"]), num(r["p99"]), num(r["max"])))
    print()
    print("notes:")
    for r in rows:
        if r["note"]:
            print("- %s: %s" % (r["name"], r["note"]))
    del by


if __name__ == "__main__":
    main()

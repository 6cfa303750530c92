#!/usr/bin/env python3
"""Print the result tables of docs/PERFORMANCE.md from a results CSV, or
from the repeated runs of `make bench` (repeat.json).

    python3 bench/table_md.py bench/results/latest.csv
    python3 bench/table_md.py bench/results/repeat.json

From a CSV, every figure comes from the one run it holds (the harness writes
the limits, the baseline and aclrt in one process). From repeat.json, each
case's median p50 over the runs, its spread (largest / smallest) and every
run's p50, per placement, aclrt next to the naive baseline's median.
"""
import csv
import json
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


def repeat_tables(path):
    j = json.load(open(path))
    for placement, p in j["placements"].items():
        cases = dict(p["cases"]) if isinstance(p["cases"], list) else p["cases"]
        print("placement %s, %d runs (%s): headline cases within 1.25x over the runs: %d of %d; all: %d of %d" % (
            placement, j["repeat"], p["machine"]["line"] if isinstance(p["machine"], dict) else dict(p["machine"])["line"],
            p["headline_within"][0], p["headline_within"][1], p["all_within"][0], p["all_within"][1]))
        if p.get("limits_spread"):
            print("the physical limits moved up to %.2fx over the same runs (%s)" % (
                p["limits_spread"]["spread"], p["limits_spread"]["case"]))
        print()
        print("| case | unit | median p50 | spread | runs | naive median | naive spread |")
        print("|---|---|---:|---:|---|---:|---:|")
        for name, c in cases.items():
            if name.startswith("baseline_"):
                continue
            b = cases.get("baseline_" + name)
            print("| %s | %s | %s | %s | %s | %s | %s |" % (
                name, c["unit"], num(c["median"]), ratio(c["spread"]), " / ".join(num(v) for v in c["p50_runs"]),
                num(b["median"]) if b else "-", ratio(b["spread"]) if b else "-"))
        print()


def main():
    if len(sys.argv) > 1 and sys.argv[1].endswith(".json"):
        repeat_tables(sys.argv[1])
        return
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

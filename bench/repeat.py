#!/usr/bin/env python3
"""Run the benchmark harness several times in several placements; print the spread and the targets.

    repeat.py --bin BIN [--repeat N] [--placements "two one"] [--out DIR] [--data DIR] [--quick]

Each run is one process of the harness (`BIN --placement P --out DIR/runs/P-i`),
run one after another, so that nothing else of the benchmark runs meanwhile.
Then, for every case of every placement:

  median   the median of the runs' p50s (what the tables and targets use)
  spread   the largest p50 over the smallest (1.00: the runs agree)

and the targets (`BIN --targets`) evaluated on the median of each run's
figure (p50, x limit or speedup, each taken within its own run). The cases of
the first placement keep their names in DIR/latest.json and latest.csv; those
of the others get "@PLACEMENT" after their name. Each case's row there is the
one of its median run (its limit and baseline figures from that same run).
DIR/repeat.json keeps every run's p50 per case. The plot data of the last run
of the first placement go to the --data directory.
"""
import argparse
import csv
import json
import math
import os
import shutil
import statistics
import subprocess
import sys

# The headline cases: each should agree within SPREAD_OK over the runs.
HEADLINE = [
    "query_event_status", "record_event", "sync_finished_stream", "launch_host_func", "launch_to_complete",
    "first_launch_sleeping", "cross_stream_hot", "cross_stream_asleep", "throughput_one_stream",
    "callback_round_trip", "model_replay_100",
]
SPREAD_OK = 1.25


def run_harness(binary, placement, i, args, run_dir, data_dir):
    os.makedirs(run_dir, exist_ok=True)
    cmd = [binary, "--placement", placement, "--out", run_dir, "--data", data_dir]
    if args.quick:
        cmd.append("--quick")
    if args.only:
        cmd += ["--only", args.only]
    log = os.path.join(run_dir, "output.txt")
    print("== run %d of %d, placement %s: %s" % (i, args.repeat, placement, " ".join(cmd)), flush=True)
    with open(log, "w") as f:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for line in p.stdout:
            f.write(line)
            if line.startswith("[") or line.startswith("placement:"):
                sys.stdout.write("   " + line)
                sys.stdout.flush()
        rc = p.wait()
    if rc == 2 and placement != "free":
        with open(log) as f:
            text = f.read()
        if "placement" in text and "expected" in text:
            print("   placement %s: not on this machine (%s)" % (placement, text.strip().splitlines()[-1]))
            return None
    if rc != 0:
        with open(log) as f:
            sys.stdout.write("".join(f.readlines()[-30:]))
        sys.exit("repeat.py: the harness failed (exit %d); its output: %s" % (rc, log))
    with open(os.path.join(run_dir, "latest.json")) as f:
        doc = json.load(f)
    with open(os.path.join(run_dir, "latest.csv")) as f:
        rows = list(csv.DictReader(f))
    return doc, rows


def finite(x):
    return x is not None and isinstance(x, (int, float)) and math.isfinite(x) and x > 0


def spread(values):
    v = [x for x in values if finite(x)]
    return max(v) / min(v) if len(v) >= 2 else 1.0


def median_index(values):
    """The index of the run holding the median (the lower one of an even count)."""
    order = sorted(range(len(values)), key=lambda k: values[k] if finite(values[k]) else math.inf)
    return order[(len(order) - 1) // 2]


def target_value(kind, case):
    p50, lim, base = case["p50"], case["limit_p50"], case["baseline_p50"]
    if kind.startswith("p50"):
        return p50
    if kind.startswith("x_limit"):
        return p50 / lim if finite(p50) and finite(lim) else None
    if not (finite(p50) and finite(base)):
        return None
    return p50 / base if case["unit"] == "Mtasks/s" else base / p50


def read_targets(binary):
    out = subprocess.run([binary, "--targets"], check=True, capture_output=True, text=True).stdout
    targets = []
    for line in out.splitlines():
        name, kind, value, text = line.split("\t")
        targets.append((name, kind, float(value), text))
    return targets


def fmt(x):
    if not finite(x):
        return "-"
    if x >= 1e5:
        return "%.3g" % x
    if x >= 100:
        return "%.0f" % x
    if x >= 10:
        return "%.1f" % x
    return "%.2f" % x


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--placements", default="two one")
    ap.add_argument("--out", default="bench/results")
    ap.add_argument("--data", default=None)
    ap.add_argument("--only", default=None)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    if args.repeat < 1:
        sys.exit("repeat.py: --repeat must be at least 1")
    placements = args.placements.split()
    data = args.data or args.out
    runs_root = os.path.join(args.out, "runs")
    shutil.rmtree(runs_root, ignore_errors=True)

    results = {}  # placement -> list of (doc, rows)
    for p in placements:
        for i in range(1, args.repeat + 1):
            run_dir = os.path.join(runs_root, "%s-%d" % (p, i))
            got = run_harness(args.bin, p, i, args, run_dir, run_dir)
            if got is None:
                break
            results.setdefault(p, []).append(got)
    placements = [p for p in placements if p in results]
    if not placements:
        sys.exit("repeat.py: no placement ran")
    first = placements[0]
    # The first placement's last run drew the plot data: copy it where the plot looks.
    last_dir = os.path.join(runs_root, "%s-%d" % (first, len(results[first])))
    os.makedirs(data, exist_ok=True)
    for name in os.listdir(last_dir):
        if name.endswith(".dat"):
            shutil.copy(os.path.join(last_dir, name), os.path.join(data, name))

    targets = read_targets(args.bin)
    summary = {"repeat": args.repeat, "placements": {}}
    merged_cases, merged_rows = [], []
    print()
    print("Spread of %d run%s (p50 of each run; spread = largest / smallest; * over %.2f)" %
          (args.repeat, "" if args.repeat == 1 else "s", SPREAD_OK))
    for p in placements:
        runs = results[p]
        names = [c["name"] for c in runs[0][0]["cases"]]
        by_run = [{c["name"]: c for c in doc["cases"]} for doc, _ in runs]
        rows_by_run = [{r["name"]: r for r in rows} for _, rows in runs]
        m = runs[0][0]["machine"]
        where = " (harness on CPU %s, runtimes on CPU %s)" % (m.get("harness_cpus"), m.get("runtime_cpus")) \
            if m.get("harness_cpus") else ""
        print("\nplacement %s%s" % (p, where))
        print("  %-44s %-9s %10s %8s  %s" % ("case", "unit", "median", "spread", "runs"))
        place = {}
        over = 0
        counted = 0
        for name in names:
            cases = [r.get(name) for r in by_run]
            if any(c is None for c in cases):
                continue
            vals = [c["p50"] for c in cases]
            fin = [v for v in vals if finite(v)]
            med = statistics.median(fin) if fin else None
            sp = spread(vals)
            flag = "*" if sp > SPREAD_OK else " "
            if not name.startswith("baseline_"):
                counted += 1
                over += sp > SPREAD_OK
            print("  %-44s %-9s %10s %7.2f%s  %s" % (name, cases[0]["unit"], fmt(med), sp, flag,
                                                    " / ".join(fmt(v) for v in vals)))
            place[name] = {"unit": cases[0]["unit"], "p50_runs": vals, "median": med, "spread": sp}
            k = median_index(vals)
            suffix = "" if p == first else "@" + p
            case = dict(cases[k])
            case["name"] = name + suffix
            merged_cases.append(case)
            row = dict(rows_by_run[k].get(name, {}))
            if row:
                row["name"] = name + suffix
                merged_rows.append(row)
        heads = [h for h in HEADLINE if h in place]
        heads_ok = [h for h in heads if place[h]["spread"] <= SPREAD_OK]
        print("  within %.2f x over the runs: headline cases %d of %d; all cases %d of %d (%.0f%%)" %
              (SPREAD_OK, len(heads_ok), len(heads), counted - over, counted,
               100.0 * (counted - over) / counted if counted else 0))
        # The machine's own figures move too: the runtime's spread reads against theirs.
        limits = [(place[n]["spread"], n) for n in place if n.startswith("limit_") and finite(place[n]["spread"])]
        limit_worst = max(limits) if limits else None
        if limit_worst is not None:
            print("  the physical limits (the machine itself) moved up to %.2f x over the runs (%s)" % limit_worst)
        print("\n  targets, on the median of the runs:")
        tgt = []
        for name, kind, value, text in targets:
            if name not in place:
                continue
            per_run = [target_value(kind, r[name]) for r in by_run]
            fin = [v for v in per_run if finite(v)]
            v = statistics.median(fin) if fin else None
            met = None if v is None else (v <= value if kind.endswith("at_most") else v >= value)
            shown = ("%s %s" % (fmt(v), place[name]["unit"])) if kind.startswith("p50") else (fmt(v) + "x")
            print("    %-34s %-50s %16s  %s" % (name, text, shown, "n/a" if met is None else
                                                 ("met" if met else "NOT met")))
            tgt.append({"name": name, "target": text, "median": v, "met": met,
                        "runs": per_run})
        summary["placements"][p] = {"machine": m, "cases": place, "targets": tgt,
                                    "headline_within": [len(heads_ok), len(heads)],
                                    "all_within": [counted - over, counted],
                                    "limits_spread": None if limit_worst is None else
                                    {"case": limit_worst[1], "spread": limit_worst[0]}}

    doc = results[first][-1][0]
    doc["machine"]["repeat"] = args.repeat
    doc["machine"]["placements"] = placements
    doc["cases"] = merged_cases
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "latest.json"), "w") as f:
        json.dump(doc, f, indent=1)
    if merged_rows:
        with open(os.path.join(args.out, "latest.csv"), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(merged_rows[0].keys()))
            w.writeheader()
            w.writerows(merged_rows)
    with open(os.path.join(args.out, "repeat.json"), "w") as f:
        json.dump(summary, f, indent=1)
    print("\nwrote %s/latest.json, latest.csv (medians; \"@PLACEMENT\" for the placements after the first), "
          "repeat.json (every run), runs/ (each run's output)" % args.out)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""scripts/gpu_report.py OUT MODE SECONDS - report.md and report.json of make gpu-check.

Reads what scripts/gpu_check.sh left in OUT: environment.txt (the machine), results.tsv (one line
per step: step, name, status, seconds, log) and bench.txt (the cuda benchmark). Failed steps get
the end of their log in report.md, and their failed checks on standard output (where CI's last
lines show them). Exit status 1 when any step did not pass.
"""
import json
import os
import re
import sys


def tail(path, lines=25):
    try:
        with open(path, errors="replace") as f:
            return f.read().splitlines()[-lines:]
    except OSError:
        return []


def bench_rows(path):
    """The benchmark's rows: name, aclrt ns, driver call, driver ns, ratio."""
    rows, model = [], []
    try:
        text = open(path).read().splitlines()
    except OSError:
        return rows, model, []
    row = re.compile(r"^(.+?)\s{2,}([\d.]+) ns\s+(.+?)\s{2,}([\d.]+) ns\s+x([\d.]+)$")
    mrow = re.compile(r"^(.+?)\s{2,}replay\s+([\d.]+) us\s+launches\s+([\d.]+) us\s+x([\d.]+)$")
    for line in text:
        m = row.match(line)
        if m:
            rows.append({"aclrt": m[1].strip(), "aclrt_ns": float(m[2]), "driver": m[3].strip(),
                         "driver_ns": float(m[4]), "speedup": float(m[5])})
            continue
        m = mrow.match(line)
        if m:
            model.append({"what": m[1].strip(), "replay_us": float(m[2]), "launches_us": float(m[3]),
                          "ratio": float(m[4])})
    return rows, model, text


def main():
    out, mode, seconds = sys.argv[1], sys.argv[2], int(sys.argv[3])
    env = [l.rstrip("\n") for l in open(os.path.join(out, "environment.txt"), errors="replace")]
    results = []
    for line in open(os.path.join(out, "results.tsv")):
        step, name, status, secs, log = line.rstrip("\n").split("\t")
        results.append({"step": step, "name": name, "status": status, "seconds": float(secs), "log": log})
    rows, model, bench_text = bench_rows(os.path.join(out, "bench.txt"))
    failed = [r for r in results if r["status"] not in ("pass", "skip")]

    report = {"mode": mode, "seconds": seconds, "environment": env, "results": results,
              "passed": len(results) - len(failed), "failed": len(failed), "bench": rows, "model": model}
    with open(os.path.join(out, "report.json"), "w") as f:
        json.dump(report, f, indent=1)

    md = ["# make gpu-check", ""]
    if mode == "double":
        md += ["**No GPU: every step ran against the driver test double (tests/cuda_fake/).** Its",
               "figures say only that the harness works.", ""]
    md += ["```"] + env + ["```", "",
           f"{len(results) - len(failed)} of {len(results)} steps passed in {seconds} s.", "",
           "| step | program | result | s |", "| --- | --- | --- | --- |"]
    md += [f"| {r['step']} | {r['name']} | {r['status']} | {r['seconds']} |" for r in results]
    if bench_text:
        md += ["", "## Benchmark", "", "```"] + bench_text + ["```"]
    for r in failed:
        md += ["", f"## {r['step']}: {r['name']}: {r['status']}", "", "```"]
        md += tail(os.path.join(out, "logs", r["log"])) + ["```"]
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    # What failed, in a few lines each, where a log's last lines on the terminal show them.
    for r in failed:
        lines = tail(os.path.join(out, "logs", r["log"]), 400)
        said = [l for l in lines if re.match(r"\s*(FAIL|check:|expected|runtime said|peer:|timeout|ERROR)", l)]
        print(f"gpu-check: {r['step']} {r['name']}: {r['status']}")
        for l in (said or lines)[-8:]:
            print(f"  | {l}")
    print(f"gpu-check ({mode}): {len(results) - len(failed)} of {len(results)} passed; "
          f"report in {os.path.join(out, 'report.md')}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

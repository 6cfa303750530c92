#!/usr/bin/env python3
"""Check that the harness wrote results of the documented shape (docs/PERFORMANCE.md).

    check_results.py latest.json [latest.csv]

Checks structure only: the JSON parses, has exactly {"machine", "quick",
"cases"}, every case has exactly the nine agreed fields with the right types,
and every required case name is there; the CSV parses and names the same
cases. It never checks a timing value (figures from a noisy machine are
figures, not failures).
"""
import csv
import json
import math
import sys

REQUIRED = [
    "query_event_status", "record_event", "launch_host_func", "launch_host_kernel",
    "sync_finished_stream", "launch_to_complete", "cross_stream_hot", "cross_stream_asleep",
    "first_launch_sleeping", "throughput_one_stream", "limit_handoff_oneway",
    "limit_futex_roundtrip", "limit_ring_op", "limit_ring_stream", "limit_atomic_inc",
]
FIELDS = {"name", "unit", "iterations", "p50", "p90", "p99", "max", "limit_p50", "baseline_p50"}
UNITS = {"throughput_one_stream": "Mtasks/s", "limit_ring_stream": "Mtasks/s"}


def fail(msg):
    print("FAIL: bench results: " + msg)
    sys.exit(1)


def number_or_null(v):
    return v is None or (isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v))


def main():
    if len(sys.argv) < 2:
        fail("usage: check_results.py latest.json [latest.csv]")
    try:
        with open(sys.argv[1]) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        fail("%s: %s" % (sys.argv[1], e))
    if not isinstance(doc, dict) or set(doc) != {"machine", "quick", "cases"}:
        fail("top level must be exactly {machine, quick, cases}")
    if not isinstance(doc["machine"], dict) or not isinstance(doc["quick"], bool):
        fail("machine must be an object and quick a boolean")
    cases = doc["cases"]
    if not isinstance(cases, list) or not cases:
        fail("cases must be a non-empty list")
    names = {}
    for c in cases:
        if not isinstance(c, dict) or set(c) != FIELDS:
            fail("case %r: fields must be exactly %s" % (c.get("name") if isinstance(c, dict) else c, sorted(FIELDS)))
        if not isinstance(c["name"], str) or not isinstance(c["unit"], str):
            fail("case %r: name and unit must be strings" % c["name"])
        if not isinstance(c["iterations"], int) or isinstance(c["iterations"], bool) or c["iterations"] < 0:
            fail("case %r: iterations must be a non-negative integer" % c["name"])
        for k in ("p50", "p90", "p99", "max", "limit_p50", "baseline_p50"):
            if not number_or_null(c[k]):
                fail("case %r: %s must be a finite number or null" % (c["name"], k))
        if c["name"] in names:
            fail("case %r appears twice" % c["name"])
        names[c["name"]] = c
    missing = [n for n in REQUIRED if n not in names]
    if missing:
        fail("missing cases: " + ", ".join(missing))
    for n, unit in UNITS.items():
        if names[n]["unit"] != unit:
            fail("case %s: unit must be %s" % (n, unit))
    empty = [n for n in REQUIRED if names[n]["p50"] is None]
    if len(sys.argv) > 2:
        try:
            with open(sys.argv[2], newline="") as f:
                rows = list(csv.DictReader(f))
        except (OSError, csv.Error) as e:
            fail("%s: %s" % (sys.argv[2], e))
        if {r["name"] for r in rows} != set(names):
            fail("the CSV and the JSON name different cases")
    print("bench results: %d cases, shape ok (%s)%s" % (
        len(cases), "quick" if doc["quick"] else "full",
        "; no samples this time for: " + ", ".join(empty) if empty else ""))


if __name__ == "__main__":
    main()

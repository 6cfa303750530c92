"""Per-call cost of acl.rt.query_event_status from Python (docs/PERFORMANCE.md).

    make python && PYTHONPATH=python/build python3 python/bench_overhead.py

The C figures to compare with are the harness's `query_event_status` and
`record_event` cases (make bench-build && build/bench/aclrt-bench --only
query_event_status, --only record_event), run in the same session. The event
is recorded on an idle stream, so every query finds it complete, and every
record is a record on an idle stream, as in the harness. record_event
releases and retakes the GIL (docs/PYTHON.md), query_event_status does not.
"""
import statistics
import sys
import timeit

import acl

NUMBER = 1_000_000
REPEAT = 15


def per_call_ns(stmt, setup_globals):
    times = timeit.repeat(stmt, globals=setup_globals, number=NUMBER, repeat=REPEAT)
    per_call = [t / NUMBER * 1e9 for t in times]
    return statistics.median(per_call), min(per_call)


def main():
    assert acl.init() in (acl.ACL_SUCCESS, acl.ACL_ERROR_REPEAT_INITIALIZE)
    assert acl.rt.set_device(0) == acl.ACL_SUCCESS
    stream, ret = acl.rt.create_stream()
    event, ret2 = acl.rt.create_event_ex_with_flag(acl.ACL_EVENT_SYNC)
    assert (ret, ret2) == (0, 0)
    assert acl.rt.record_event(event, stream) == 0 and acl.rt.synchronize_stream(stream) == 0
    assert acl.rt.query_event_status(event) == (acl.ACL_EVENT_RECORDED_STATUS_COMPLETE, 0)

    g = {"query": acl.rt.query_event_status, "record": acl.rt.record_event, "event": event, "stream": stream}
    cases = [
        ("timeit loop alone (pass)", "pass"),
        ("acl.rt.query_event_status(event)", "query(event)"),
        ("  ... and unpack: status, ret = ...", "status, ret = query(event)"),
        ("acl.rt.record_event(event, stream)", "record(event, stream)"),
    ]
    print(f"python {sys.version.split()[0]}, {NUMBER:,} calls x {REPEAT} repeats, ns per call")
    for name, stmt in cases:
        median, best = per_call_ns(stmt, g)
        print(f"{name:40s} median {median:7.1f}   min {best:7.1f}")

    acl.rt.destroy_event(event)
    acl.rt.destroy_stream(stream)
    acl.rt.reset_device(0)
    acl.finalize()


if __name__ == "__main__":
    main()

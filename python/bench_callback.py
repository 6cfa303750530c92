"""Callback round trip from Python (docs/PERFORMANCE.md, Python binding).

    make python && PYTHONPATH=python/build python3 python/bench_callback.py

What is timed: time.perf_counter_ns() just before acl.rt.launch_callback(fn,
..., ACL_CALLBACK_NO_BLOCK, stream) -> the same clock at the start of fn, in a
Python thread looping on acl.rt.process_report. The C figure to compare with
is the harness's `callback_round_trip` (make bench-build &&
build/bench/aclrt-bench --only callback_round_trip), run in the same session:
TSC before aclrtLaunchCallback -> TSC at the start of the callback in a
pthread looping on aclrtProcessReport.

On top of the C path, the Python one pays: the call of launch_callback (the
call record, two references, the GIL released around the launch and taken
back), and in the processing thread PyGILState_Ensure (the GIL handed over by
the launching thread) and the call of fn.

Two ways for the launching thread to wait for the stamp: blocking on a lock
(GIL released: the processing thread gets the GIL as soon as the launcher
blocks, and the launcher holds no CPU), and polling it with time.sleep(0)
(GIL handed over on every poll; the launcher keeps a CPU busy, like the C
harness's launcher, which spins on the stamp).
"""
import statistics
import sys
import threading
import time

import acl

ITERATIONS = 20_000
WARMUP = 2_000
REPEAT = 5


def main():
    assert acl.init() in (acl.ACL_SUCCESS, acl.ACL_ERROR_REPEAT_INITIALIZE)
    assert acl.rt.set_device(0) == acl.ACL_SUCCESS
    context, _ = acl.rt.get_context()
    stream, ret = acl.rt.create_stream()
    assert ret == 0
    stop = []

    def serve():
        acl.rt.set_context(context)
        while not stop:
            acl.rt.process_report(100)

    server = threading.Thread(target=serve, daemon=True)
    server.start()
    assert acl.rt.subscribe_report(server.ident, stream) == 0

    stamp = [0]
    done = threading.Lock()
    done.acquire()
    clock, sleep = time.perf_counter_ns, time.sleep
    launch, no_block = acl.rt.launch_callback, acl.ACL_CALLBACK_NO_BLOCK

    def callback(data):
        stamp[0] = clock()
        done.release()

    def run_blocking(n):
        """The launcher sleeps on a lock until the callback has run."""
        samples = []
        for _ in range(n):
            t0 = clock()
            launch(callback, None, no_block, stream)
            done.acquire()  # blocks with the GIL released until the callback has run
            samples.append(stamp[0] - t0)
        return samples

    def run_polling(n):
        """The launcher polls for the stamp, as the C harness does (time.sleep(0) hands the GIL over)."""
        samples = []
        for _ in range(n):
            stamp[0] = 0
            t0 = clock()
            launch(callback, None, no_block, stream)
            while stamp[0] == 0:
                sleep(0)
            done.acquire()  # released by the callback already: returns at once
            samples.append(stamp[0] - t0)
        return samples

    print(f"python {sys.version.split()[0]}, {ITERATIONS:,} callbacks x {REPEAT} runs (after {WARMUP:,} warm-up), "
          f"ns from before launch_callback to the start of fn")
    for name, run in (("launcher blocks on a lock", run_blocking), ("launcher polls (sleep(0))", run_polling)):
        print(name)
        run(WARMUP)
        medians = []
        for i in range(REPEAT):
            samples = sorted(run(ITERATIONS))
            p50, p90, p99 = (samples[int(len(samples) * q)] for q in (0.5, 0.9, 0.99))
            medians.append(p50)
            print(f"  run {i + 1}: p50 {p50 / 1000:7.2f} us   p90 {p90 / 1000:7.2f} us   p99 {p99 / 1000:7.2f} us")
        print(f"  median of the run medians: {statistics.median(medians) / 1000:.2f} us")

    stop.append(True)
    server.join()
    acl.rt.unsubscribe_report(server.ident, stream)
    acl.rt.destroy_stream(stream)
    acl.rt.reset_device(0)
    acl.finalize()


if __name__ == "__main__":
    main()

#!/usr/bin/env bash
# scripts/run_bounded.sh SECONDS PROGRAM [ARGS...]
#
# Runs one test program with a bound on its wall time, so that a hang fails
# the suite with a diagnosis instead of stalling it: past SECONDS, the stacks
# of every thread of the program are printed (gdb, when installed), then it
# is killed and the exit status is 124. Otherwise the program's own status.
set -u
limit=$1
shift
"$@" &
pid=$!
(
    # The sleep holds no stream of ours, and goes with the watchdog when the program ends first.
    sleep "$limit" </dev/null >/dev/null 2>&1 &
    sleeper=$!
    trap 'kill "$sleeper" 2>/dev/null; exit 0' TERM
    wait "$sleeper"
    kill -0 "$pid" 2>/dev/null || exit 0
    echo "TIMEOUT: $* did not finish within ${limit} s; its threads:" >&2
    if command -v gdb >/dev/null 2>&1; then
        # Bounded too: a debugger may itself hang on a process stuck in a driver.
        timeout -k 2 20 gdb -p "$pid" -batch -ex "set pagination off" -ex "thread apply all bt" 2>&1 |
            grep -v '^\[New LWP\|^\[Thread debugging\|^Using host libthread_db' >&2
    else
        echo "(gdb is not installed: no stacks)" >&2
    fi
    touch "/tmp/run_bounded.$pid.timeout"
    kill -9 "$pid" 2>/dev/null
) &
watchdog=$!
wait "$pid"
status=$?
kill "$watchdog" 2>/dev/null
wait "$watchdog" 2>/dev/null
if [ -e "/tmp/run_bounded.$pid.timeout" ]; then
    rm -f "/tmp/run_bounded.$pid.timeout"
    exit 124
fi
exit "$status"

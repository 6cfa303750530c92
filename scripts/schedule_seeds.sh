#!/usr/bin/env bash
# scripts/schedule_seeds.sh - run a program under the deterministic schedule with seeds 1..N,
# and name the first seed under which it fails.
#
#   scripts/schedule_seeds.sh N PROGRAM [ARGS...]
#
# Each run is PROGRAM ARGS with ACLRT_SCHEDULE=deterministic:SEED in its environment
# (docs/CONFIGURATION.md, "The deterministic schedule"), bounded by SCHEDULE_SEEDS_TIMEOUT seconds
# (60; a run that takes longer counts as failing: a hang). At the first run that fails, its
# output is printed, then the command that runs it again, and the exit status is 1. When every
# seed passes it says so, and the exit status is 0 (2: a usage error).
set -u

usage() {
    echo "usage: $0 N PROGRAM [ARGS...]   (N: how many seeds, 1..N)" >&2
    exit 2
}

[ $# -ge 2 ] || usage
n=$1
shift
case "$n" in '' | *[!0-9]*) usage ;; esac
[ "$n" -ge 1 ] || usage
limit=${SCHEDULE_SEEDS_TIMEOUT:-60}

log=$(mktemp "${TMPDIR:-/tmp}/schedule_seeds.XXXXXX")
trap 'rm -f "$log"' EXIT

for ((seed = 1; seed <= n; seed++)); do
    ACLRT_SCHEDULE="deterministic:$seed" timeout "$limit" "$@" >"$log" 2>&1
    status=$?
    if [ "$status" -ne 0 ]; then
        tail -n 40 "$log"
        if [ "$status" -eq 124 ]; then
            echo "seed $seed: still running after $limit s (a hang?)"
        else
            echo "seed $seed: exit status $status"
        fi
        printf 'reproduce with: ACLRT_SCHEDULE=deterministic:%s' "$seed"
        printf ' %q' "$@"
        printf '\n'
        exit 1
    fi
done
echo "all $n seeds passed: ACLRT_SCHEDULE=deterministic:1..$n $*"
exit 0

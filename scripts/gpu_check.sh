#!/usr/bin/env bash
# scripts/gpu_check.sh - the cuda backend checked whole in one go (make gpu-check).
#
#   scripts/gpu_check.sh          (make gpu-check sets the variables below)
#
#   GPU_CHECK_OUT   where report.md, report.json and logs.tar.gz go
#   GPU_CHECK_TESTS the suite's programs on a GPU (make's TESTS_gpu)
#   GPU_CHECK_DOUBLE_TESTS  the same on the driver test double (TESTS_cuda)
#   GPU_CHECK_DOUBLE_KERNEL the benchmark's no-op kernel on the double (a host shared object)
#   BUILD           make's build directory
#   GPU_CHECK_TIMEOUT  bound of one program, seconds (60)
#   GPU_CHECK_JOBS  programs run at once (the number of CPUs)
#
# On a machine with a GPU (libcuda.so.1 and nvidia-smi listing one), every step runs on it; without
# one, or with GPU_CHECK_DOUBLE=1, the same steps run against the driver test double and the report
# says so. Steps: the build (once with -Werror; if that fails, again without, the failure recorded),
# the shared suite, every program of examples/ on the cuda backend, examples/vector_add with its
# fatbin, the cuda benchmark next to the raw driver. Each step's result and time go to the report;
# the exit status is non-zero when any step failed.
#
# The machine may have no Concurrency Kit or liburcu (a GPU machine that reaches no package
# registry): make gpu-deps unpacks their Debian packages into gpu-deps/root, used here when
# present (carry the folder with the tree).
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=${BUILD:-build}
OUT=${GPU_CHECK_OUT:-$BUILD/gpu-check}
TIMEOUT=${GPU_CHECK_TIMEOUT:-60}
JOBS=${GPU_CHECK_JOBS:-$(nproc)}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
LOGS=$OUT/logs
rm -rf "$LOGS" && mkdir -p "$LOGS"
RESULTS=$OUT/results.tsv
: >"$RESULTS"
START=$(date +%s)

# The report, from what ran so far: at the end, or when the check is stopped (TERM, INT).
finish() {
    python3 scripts/gpu_report.py "$OUT" "$MODE" $(($(date +%s) - START))
    local status=$?
    tar -C "$OUT" -czf "$OUT/logs.tar.gz" logs environment.txt results.tsv 2>/dev/null
    return $status
}
trap 'echo "gpu-check: stopped"; result stopped "(the rest)" stopped 0 ""; finish; exit 1' TERM INT

# One result: step, name, status (pass, fail, timeout, skip), seconds, log file (relative to logs/).
result() { printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" >>"$RESULTS"; echo "[$1] $2: $3 (${4} s)"; }

if [ -d gpu-deps/root/usr/include ]; then
    deps=$ROOT/gpu-deps/root
    export CPATH=$deps/usr/include:$deps/usr/include/x86_64-linux-gnu${CPATH:+:$CPATH}
    export LIBRARY_PATH=$deps/usr/lib/x86_64-linux-gnu${LIBRARY_PATH:+:$LIBRARY_PATH}
    export LD_LIBRARY_PATH=$deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
# A hang's stacks: gdb, or cuda-gdb where only it is installed (scripts/run_bounded.sh).
if ! command -v gdb >/dev/null 2>&1 && command -v cuda-gdb >/dev/null 2>&1; then
    # A wrapper, not a link: cuda-gdb picks its binary by the name it was called with.
    mkdir -p "$OUT/bin" && printf '#!/bin/sh\nexec %s "$@"\n' "$(command -v cuda-gdb)" >"$OUT/bin/gdb" &&
        chmod +x "$OUT/bin/gdb" && export PATH=$PATH:$OUT/bin
fi

# The mode: a GPU, or the driver test double.
MODE=double
if [ "${GPU_CHECK_DOUBLE:-0}" != 1 ] && [ -z "${ACLRT_CUDA_LIBRARY:-}" ] && command -v nvidia-smi >/dev/null 2>&1 &&
    nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
    MODE=gpu
fi
{
    echo "mode: $MODE"
    echo "date: $(date -u +%FT%TZ)"
    echo "host: $(uname -srm), $(nproc) cpus"
    echo "cc: $(${CC:-cc} --version 2>&1 | head -1)"
    command -v nvcc >/dev/null && echo "nvcc: $(nvcc --version | tail -2 | head -1)"
    if [ "$MODE" = gpu ]; then
        nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv,noheader | sed 's/^/gpu: /'
        nvidia-smi -q 2>/dev/null | grep -i -m3 'CUDA Version\|Addressing Mode\|Persistence' | sed 's/^ */gpu: /'
    fi
} >"$OUT/environment.txt" 2>&1
cat "$OUT/environment.txt"

if [ "$MODE" = gpu ]; then
    VARIANT=gpu
    TESTS=${GPU_CHECK_TESTS:?}
    unset ACLRT_CUDA_LIBRARY
    MAKEVARS=(BACKEND=cuda)
    # HCCL runs through NCCL: the loader's libnccl.so.2, else the CUDA toolkit's copy.
    if [ -z "${ACLRT_NCCL_LIBRARY:-}" ] && ! ldconfig -p 2>/dev/null | grep -q 'libnccl\.so\.2'; then
        for f in /usr/local/cuda/lib64/libnccl.so.2 /usr/local/cuda/lib/libnccl.so.2 \
                 /usr/local/cuda/targets/*/lib/libnccl.so.2; do
            [ -e "$f" ] && { export ACLRT_NCCL_LIBRARY=$f; break; }
        done
    fi
    echo "gpu-check: NCCL: ${ACLRT_NCCL_LIBRARY:-libnccl.so.2, as the loader finds it}"
else
    VARIANT=cuda
    TESTS=${GPU_CHECK_DOUBLE_TESTS:?}
    export ACLRT_CUDA_LIBRARY=$ROOT/$BUILD/cuda/libcuda_fake.so
    export ACLRT_NCCL_LIBRARY=$ROOT/$BUILD/cuda/libnccl_fake.so
    MAKEVARS=()
fi

# The build: every program of the later steps.
targets=()
for t in $TESTS; do targets+=("$BUILD/$VARIANT/$t"); done
targets+=(examples "$BUILD/bench/aclrt-cuda-bench")
[ "$MODE" = double ] && targets+=("$BUILD/cuda/libcuda_fake.so" "$BUILD/cuda/libnccl_fake.so")
# The benchmark's stand-in kernel, as make names it (relative to the tree).
[ "$MODE" = double ] && targets+=(${GPU_CHECK_DOUBLE_KERNEL:+"${GPU_CHECK_DOUBLE_KERNEL#"$ROOT"/}"})
[ "$MODE" = gpu ] && targets+=("$BUILD/bench/cuda_nop.fatbin")
t0=$(date +%s)
if make -j"$(nproc)" --no-print-directory "${MAKEVARS[@]}" BUILD="$BUILD" "${targets[@]}" >"$LOGS/build.log" 2>&1; then
    result build "build (-Werror)" pass $(($(date +%s) - t0)) build.log
else
    result build "build (-Werror)" fail $(($(date +%s) - t0)) build.log
    # Again without -Werror, so that a new compiler's warning costs one line of the report only.
    mkdir -p "$OUT/bin"
    printf '#!/bin/sh\nfor a; do shift; [ "$a" = -Werror ] || set -- "$@" "$a"; done\nexec %s "$@"\n' \
        "$(command -v "${CC:-cc}")" >"$OUT/bin/cc-nowerror" && chmod +x "$OUT/bin/cc-nowerror"
    t0=$(date +%s)
    if make -j"$(nproc)" --no-print-directory "${MAKEVARS[@]}" BUILD="$BUILD" CC="$OUT/bin/cc-nowerror" \
        "${targets[@]}" >"$LOGS/build-nowerror.log" 2>&1; then
        result build "build (warnings allowed)" pass $(($(date +%s) - t0)) build-nowerror.log
    else
        result build "build (warnings allowed)" fail $(($(date +%s) - t0)) build-nowerror.log
    fi
fi

# One program, bounded; its status and time to the results.
run_one() { # step name log cmd...
    local step=$1 name=$2 log=$3 t0 rc status ms
    shift 3
    t0=$(date +%s%N)
    scripts/run_bounded.sh "$TIMEOUT" "$@" >"$LOGS/$log" 2>&1
    rc=$?
    case $rc in 0) status=pass ;; 124) status=timeout ;; *) status="fail($rc)" ;; esac
    ms=$((($(date +%s%N) - t0) / 1000000))
    result "$step" "$name" "$status" "$((ms / 1000)).$((ms % 1000 / 100))" "$log"
}
export -f run_one result
# Each case's name as it starts and ends (tests/check.h): a hang names its case.
export RESULTS LOGS TIMEOUT CHECK_VERBOSE=1

# The shared suite, JOBS programs at a time.
for t in $TESTS; do echo "$t"; done |
    xargs -P "$JOBS" -I{} bash -c "run_one suite {} suite-{}.log ./$BUILD/$VARIANT/{}"

# Every program of examples/, on the cuda backend.
export ACLRT_BACKEND=cuda
for e in examples/*.c; do
    e=$(basename "$e" .c)
    case $e in
    # HCCL examples: their ranks set device memory with the CPU; test_hccl_device runs HCCL on the GPU.
    hccl_*) result examples "$e" skip 0 "" ;;
    *) run_one examples "$e" "example-$e.log" "./$BUILD/examples/$e" ;;
    esac
done
vdir=$BUILD/examples/vector_add
if [ "$MODE" = gpu ]; then
    run_one examples "vector_add (fatbin)" example-vector_add.log "./$vdir/vector_add" "$vdir/vector_add.fatbin"
else
    run_one examples "vector_add (stand-in)" example-vector_add.log "./$vdir/vector_add" "$vdir/libvector_add.so"
fi
unset ACLRT_BACKEND

# The benchmark, next to the raw driver.
if [ "$MODE" = gpu ]; then
    kernel=$ROOT/$BUILD/bench/cuda_nop.fatbin quick=()
else
    kernel=${GPU_CHECK_DOUBLE_KERNEL:-} quick=(--quick)
fi
TIMEOUT=${GPU_CHECK_BENCH_TIMEOUT:-180} run_one bench "cuda benchmark" bench.log "./$BUILD/bench/aclrt-cuda-bench" "${quick[@]}" \
    ${kernel:+--kernel "$kernel"} --out "$OUT/bench.txt"

finish
exit $?

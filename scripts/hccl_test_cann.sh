#!/usr/bin/env bash
# scripts/hccl_test_cann.sh - CANN's HCCL test programs (hccl_test, from the
# oam-tools repository) built with their own Makefile against an aclrt
# install, each run under mpirun with its result check on.
#
# make test-hccl-cann installs into $BUILD/prefix-hccl and runs this. Settings
# (environment):
#   PREFIX          the install: include/, lib64/ (libhccl.so, libacl_rt.so, ...)
#   BUILD           the build folder (build): the source cache, the build, the logs
#   HCCL_TEST_SRC   hccl_test's folder (or an oam-tools checkout); else the cache
#                   $BUILD/oam-tools, cloned (depth 1) from OAM_TOOLS_URL when absent.
#                   Without a source (offline) the script says "skipped: ..." and exits 0.
#   MPI_HOME        an MPI with include/mpi.h and lib/libmpi.so; else one made in
#                   $BUILD/mpi-home from $MPICC (below)
#   MPICC, MPIRUN, MPIRUN_FLAGS, HCCL_NP (4)
#   HCCL_TEST_TIMEOUT  seconds one run may take (120); HCCL_TEST_JOBS: make -j (2)
#   HCCL_TEST_FULL=1   every data type and reduction the programs check, not a sample
#   HCCL_TEST_RUNS     the runs instead, ';'-separated "program|options" (options with -b -e -f)
#
# A run passes when mpirun exits 0 within the timeout, the root's table has one
# row per size, each "success", and no rank printed a failed check ("check result
# failed", "total err", "is not right", "is wrong", "no match datatype") or an
# error of an API call ("interface return err", "execute failed", "This is an
# error", "Error:"). The programs' exit status alone says nothing: main returns
# the status of its cleanup, not of the checks.
set -u

BUILD=${BUILD:-build}
NP=${HCCL_NP:-4}
MPICC=${MPICC:-mpicc}
MPIRUN=${MPIRUN:-mpirun}
MPIRUN_FLAGS=${MPIRUN_FLAGS:---oversubscribe}
TIMEOUT=${HCCL_TEST_TIMEOUT:-120}
JOBS=${HCCL_TEST_JOBS:-2}
URL=${OAM_TOOLS_URL:-https://github.com/hicann/oam-tools}
: "${PREFIX:?PREFIX: the aclrt install to build against}"
PREFIX=$(cd "$PREFIX" && pwd) || exit 1
mkdir -p "$BUILD"
BUILD=$(cd "$BUILD" && pwd)

skip() { echo "test-hccl-cann: skipped: $*"; exit 0; }
die() { echo "test-hccl-cann: FAIL: $*" >&2; exit 1; }

# --- the source -------------------------------------------------------------------------
src_of() { # a hccl_test folder, or a checkout holding one
    if [ -f "$1/Makefile" ] && [ -d "$1/opbase_test" ]; then echo "$1"
    elif [ -f "$1/src/hccl_test/Makefile" ]; then echo "$1/src/hccl_test"
    fi
}
if [ -n "${HCCL_TEST_SRC:-}" ]; then
    SRC=$(src_of "$HCCL_TEST_SRC")
    [ -n "$SRC" ] || die "HCCL_TEST_SRC=$HCCL_TEST_SRC holds no hccl_test (a Makefile and opbase_test/)"
else
    CACHE=$BUILD/oam-tools
    SRC=$(src_of "$CACHE")
    if [ -z "$SRC" ]; then
        command -v git >/dev/null 2>&1 || skip "no hccl_test source: HCCL_TEST_SRC is unset, $CACHE is empty, and git is not installed"
        rm -rf "$CACHE" "$CACHE.part"
        echo "test-hccl-cann: cloning $URL into $CACHE"
        if ! GIT_TERMINAL_PROMPT=0 timeout 300 git clone -q --depth 1 "$URL" "$CACHE.part" 2>"$BUILD/oam-tools.clone.log"; then
            rm -rf "$CACHE.part"
            skip "no hccl_test source: HCCL_TEST_SRC is unset and $URL could not be cloned" \
                 "($(tail -n 1 "$BUILD/oam-tools.clone.log"))"
        fi
        mv "$CACHE.part" "$CACHE"
        SRC=$(src_of "$CACHE")
        [ -n "$SRC" ] || die "$URL has no src/hccl_test"
    fi
fi
echo "test-hccl-cann: hccl_test from $SRC"

# --- MPI, laid out as the Makefile wants it: $MPI_HOME/include, $MPI_HOME/lib -------------
if [ -z "${MPI_HOME:-}" ]; then
    command -v "$MPICC" >/dev/null 2>&1 || skip "no MPI: $MPICC is not installed and MPI_HOME is unset"
    # Open MPI says where it is with --showme; MPICH with -show.
    incs=$("$MPICC" --showme:incdirs 2>/dev/null) || incs=$("$MPICC" -show 2>/dev/null | tr ' ' '\n' | sed -n 's/^-I//p')
    libs=$("$MPICC" --showme:libdirs 2>/dev/null) || libs=$("$MPICC" -show 2>/dev/null | tr ' ' '\n' | sed -n 's/^-L//p')
    inc=; lib=
    for d in $incs; do [ -f "$d/mpi.h" ] && { inc=$d; break; }; done
    for d in $libs /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib; do [ -e "$d/libmpi.so" ] && { lib=$d; break; }; done
    if [ -z "$inc" ] || [ -z "$lib" ]; then die "$MPICC names no folder with mpi.h and libmpi.so (set MPI_HOME)"; fi
    MPI_HOME=$BUILD/mpi-home
    rm -rf "$MPI_HOME" && mkdir -p "$MPI_HOME/lib" && ln -s "$inc" "$MPI_HOME/include" || exit 1
    # mpi.h brings in MPI's C++ bindings in a C++ program; the Makefile links -lmpi only. libmpi.so
    # here is a linker script: the C++ bindings' library (when MPI has one), then libmpi.
    cxx=
    for n in libmpi_cxx.so libmpicxx.so; do [ -e "$lib/$n" ] && cxx="$lib/$n"; done
    echo "INPUT($cxx $lib/libmpi.so)" >"$MPI_HOME/lib/libmpi.so"
fi

# --- the build: a copy, so that nothing is written into the source -----------------------
WORK=$BUILD/hccl_test
rm -rf "$WORK" && cp -r "$SRC" "$WORK" && rm -rf "${WORK:?}/bin" || exit 1
echo "test-hccl-cann: make ASCEND_DIR=$PREFIX MPI_HOME=$MPI_HOME (in $WORK)"
# MAKEFLAGS would hand this build our command line's variables: it gets none of them.
if ! (cd "$WORK" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -j"$JOBS" ASCEND_DIR="$PREFIX" MPI_HOME="$MPI_HOME") \
        >"$WORK/build.log" 2>&1; then
    grep -E 'error|Error' "$WORK/build.log" | head -n 30 >&2
    die "hccl_test does not build against $PREFIX (the log: $WORK/build.log)"
fi
PROGRAMS="all_reduce_test all_gather_test all_gatherv_test alltoall_test alltoallv_test alltoallvc_test
          broadcast_test reduce_test reduce_scatter_test reduce_scatterv_test scatter_test"
for p in $PROGRAMS; do [ -x "$WORK/bin/$p" ] || die "hccl_test built no bin/$p"; done

# --- the runs -----------------------------------------------------------------------------
REDUCING="all_reduce_test reduce_test reduce_scatter_test reduce_scatterv_test"
# The data types whose results the programs check (int128, uint16 and uint32 reductions, hif8 and
# fp8 reductions have no check there; reduce_scatter_v checks no uint64 or fp64). bfp16 prod is left
# out: the programs' bfloat16 conversion stores the number, not its bits, so their inputs are
# subnormals whose product is 0 (by IEEE rules, as here) while they expect the integer.
TYPES_MOVE="int8 int16 int32 fp16 fp32 int64 uint64 uint8 uint16 uint32 fp64 bfp16 hif8 fp8e4m3 fp8e5m2 fp8e8m0"
TYPES_REDUCE="int8 int16 int32 fp16 fp32 int64 uint64 uint8 fp64 bfp16"
if [ "${HCCL_TEST_FULL:-0}" != 1 ]; then
    TYPES_MOVE="int8 fp16 int64 bfp16 fp8e4m3"
    TYPES_REDUCE="int8 int32 fp16 int64 bfp16"
fi

# The runs: "program|options". First every program over 8 B .. 1 MiB (fp32, sum), then other
# data types, reductions and roots over a shorter range.
runs() {
    local p t o
    for p in $PROGRAMS; do echo "$p|-b 8 -e 1M -f 2"; done
    for p in $REDUCING; do
        for o in prod max min; do echo "$p|-b 8 -e 64K -f 8 -d fp32 -o $o"; done
        for t in $TYPES_REDUCE; do
            [ "$p" = reduce_scatterv_test ] && case $t in uint64 | fp64) continue ;; esac
            [ "$t" = fp32 ] || echo "$p|-b 8 -e 64K -f 8 -d $t -o sum"
            [ "${HCCL_TEST_FULL:-0}" = 1 ] || continue
            for o in max min; do echo "$p|-b 8 -e 64K -f 8 -d $t -o $o"; done
            [ "$t" = bfp16 ] || echo "$p|-b 8 -e 64K -f 8 -d $t -o prod"
        done
    done
    for p in $PROGRAMS; do
        case " $REDUCING " in *" $p "*) continue ;; esac
        for t in $TYPES_MOVE; do [ "$t" = fp32 ] || echo "$p|-b 8 -e 64K -f 8 -d $t"; done
    done
    for p in broadcast_test reduce_test scatter_test; do echo "$p|-b 8 -e 64K -f 8 -r $((NP - 1))"; done
}

# The rows the root prints for -b B -e E -f F: B, B*F, ... up to E.
rows_for() {
    local b e f n=0 s
    b=$(sed -n 's/.*-b \([^ ]*\).*/\1/p' <<<"$1"); e=$(sed -n 's/.*-e \([^ ]*\).*/\1/p' <<<"$1")
    f=$(sed -n 's/.*-f \([^ ]*\).*/\1/p' <<<"$1")
    b=$(numfmt --from=iec "${b^^}"); e=$(numfmt --from=iec "${e^^}")
    for ((s = b; s <= e; s *= f)); do n=$((n + 1)); done
    echo "$n"
}

LOGS=$WORK/logs
mkdir -p "$LOGS"
export LD_LIBRARY_PATH="$PREFIX/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
unset ACLRT_HCCL_MPI_PLUGIN # the runtime finds the engine next to itself, in $PREFIX/lib64
declare -A n_runs n_fail secs
failed=0 total=0 i=0
while IFS='|' read -r p opts; do
    i=$((i + 1))
    log=$LOGS/$(printf '%03d' "$i")-$p.log
    start=$(date +%s.%N)
    # shellcheck disable=SC2086 # MPIRUN_FLAGS and opts are word lists
    timeout -k 10 "$TIMEOUT" "$MPIRUN" $MPIRUN_FLAGS -x LD_LIBRARY_PATH -np "$NP" "$WORK/bin/$p" $opts -c 1 \
        </dev/null >"$log" 2>&1
    rc=$?
    t=$(echo "$(date +%s.%N) - $start" | bc)
    want=$(rows_for "$opts")
    ok=$(grep -cE '^[0-9]+ +\| .*\| success$' "$log")
    rows=$(grep -cE '^[0-9]+ +\| ' "$log")
    why=
    if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then why="did not finish within $TIMEOUT s"
    elif [ "$rc" != 0 ]; then why="exit status $rc"
    elif grep -qE 'check result failed|total err|is not right|is wrong|no match datatype|interface return err|execute failed|This is an error|Error:' "$log"; then
        why="a failed check or call: $(grep -m1 -E 'check result failed|total err|is not right|is wrong|no match datatype|interface return err|execute failed|This is an error|Error:' "$log")"
    elif [ "$ok" != "$want" ] || [ "$rows" != "$want" ]; then why="$ok of $rows rows success, $want sizes expected"
    fi
    total=$((total + 1))
    n_runs[$p]=$((${n_runs[$p]:-0} + 1))
    secs[$p]=$(echo "${secs[$p]:-0} + $t" | bc)
    if [ -n "$why" ]; then
        failed=$((failed + 1))
        n_fail[$p]=$((${n_fail[$p]:-0} + 1))
        printf 'FAIL  %-22s %-36s %6.1f s  %s\n' "$p" "$opts" "$t" "$why"
        tail -n 15 "$log" | sed 's/^/      | /'
    else
        printf 'ok    %-22s %-36s %6.1f s\n' "$p" "$opts" "$t"
    fi
done < <(if [ -n "${HCCL_TEST_RUNS:-}" ]; then tr ';' '\n' <<<"$HCCL_TEST_RUNS"; else runs; fi)

echo
echo "test-hccl-cann: $NP processes, each run with -c 1 (the logs: $LOGS)"
printf '%-22s %-6s %5s %9s\n' program result runs seconds
for p in $PROGRAMS; do
    r=pass
    [ -n "${n_runs[$p]:-}" ] || r=-
    [ -n "${n_fail[$p]:-}" ] && r="FAIL(${n_fail[$p]})"
    printf '%-22s %-6s %5d %9.1f\n' "$p" "$r" "${n_runs[$p]:-0}" "${secs[$p]:-0}"
done
[ "$failed" = 0 ] || die "$failed of $total runs failed"
echo "test-hccl-cann: all $total runs of the 11 programs passed their checks (ok)"

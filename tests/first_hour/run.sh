#!/usr/bin/env bash
# tests/first_hour/run.sh SCRATCH - the first hour of a user, as the README tells it.
#
# From a clean copy of the tree (the files git tracks, and new ones it does not ignore) in
# SCRATCH/src, runs the README's commands as written, each in the directory a user would:
#   - the ten-line program of the README (its "Ten lines" section, saved as hello.c) with
#     the README's compile line;
#   - the build lines in the first comment of examples/pipeline.c and
#     examples/vector_add/main.c, and the programs they build;
#   - make install PREFIX=$HOME/aclrt, then a C program built with pkg-config and a C++
#     program built with -I$PREFIX/include -L$PREFIX/lib64 -lascendcl, in a directory of
#     their own, run with the loader path the README gives;
#   - pip install into a fresh virtual environment, then import acl from another directory;
#   - make python for python3 and for a second Python (FIRST_HOUR_PYTHON2, or the first
#     python3.1X found that differs from python3; skipped, saying so, when there is none),
#     each module imported by its own interpreter;
#   - last, that README.md shows every command run here, verbatim.
# HOME is SCRATCH/home for the commands, so that $HOME/aclrt and ~/aclrt-venv stay in SCRATCH.
# One "ok" line per step; a failing step prints its command and the end of its output.
set -euo pipefail

[ $# -eq 1 ] || { echo "usage: $0 SCRATCH_DIRECTORY" >&2; exit 2; }
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$1"
SCRATCH=$(cd "$1" && pwd)
case "$SCRATCH" in "$ROOT" | / | "$HOME") echo "first-hour: refusing to use $SCRATCH as scratch" >&2; exit 2 ;; esac
rm -rf "${SCRATCH:?}"
SRC=$SCRATCH/src
USER_HOME=$SCRATCH/home
APP=$SCRATCH/app
LOGS=$SCRATCH/logs
BIN=$SCRATCH/bin
mkdir -p "$SRC" "$USER_HOME" "$APP" "$LOGS" "$BIN"

# The commands this script runs as the README writes them (checked against README.md last).
HELLO_CC='cc -std=c11 -I. hello.c -lck -lurcu-cds -lurcu-bp -lurcu-common -lpthread -lm -ldl && ./a.out'
INSTALL='make install PREFIX=$HOME/aclrt'
PKGCONFIG_CC='cc -std=c11 hello.c -o hello $(PKG_CONFIG_PATH=$HOME/aclrt/lib/pkgconfig pkg-config --cflags --libs aclrt) && ./hello'
CANN_CXX='g++ main.cpp -o main -I$HOME/aclrt/include -L$HOME/aclrt/lib64 -lascendcl && LD_LIBRARY_PATH=$HOME/aclrt/lib64 ./main'
PIP_INSTALL='python3 -m venv --system-site-packages ~/aclrt-venv && ~/aclrt-venv/bin/pip install --no-build-isolation .'
IMPORT='cd ~ && ~/aclrt-venv/bin/python -c "import acl; print(acl.init(), acl.get_soc_name(), acl.finalize())"'
README_COMMANDS=("$HELLO_CC" "$INSTALL" "$PKGCONFIG_CC" "$CANN_CXX" "$PIP_INSTALL" "$IMPORT")

step_no=0
step_start=0
fail() {
    echo "first-hour: FAIL: $*" >&2
    exit 1
}
begin() {
    step_no=$((step_no + 1))
    step_log=$LOGS/$(printf '%02d' "$step_no")-$1.log
    step_start=$SECONDS
}
ok() {
    echo "first-hour: $* ($((SECONDS - step_start)) s) (ok)"
}
# run DIR COMMAND: runs the command as a user's shell would, in DIR, with HOME=$USER_HOME and
# python3 the interpreter chosen below; its output goes to the step's log. On failure: the
# command and the end of the log.
run() {
    local dir=$1 cmd=$2
    printf '$ %s\n' "$cmd" >>"$step_log"
    if ! (cd "$dir" && HOME=$USER_HOME PATH=$BIN:$PATH bash -c "$cmd") >>"$step_log" 2>&1; then
        echo "first-hour: FAIL: in ${dir#"$SCRATCH"/}: $cmd" >&2
        tail -n 30 "$step_log" >&2
        echo "first-hour: (the whole output: $step_log)" >&2
        exit 1
    fi
}
# expect TEXT: the step's output so far contains TEXT.
expect() {
    grep -qF -- "$1" "$step_log" || { tail -n 30 "$step_log" >&2; fail "the output does not say '$1' ($step_log)"; }
}

# --- python3: the one on PATH when it can build a wheel offline, else /usr/bin/python3 (Debian's,
# with python3-setuptools, python3-wheel, python3-venv, python3-dev). The commands see it as python3.
wheel_ready() {
    "$1" -c 'import ensurepip, os, setuptools, sysconfig, wheel, sys
assert sys.version_info >= (3, 10)
assert os.path.exists(sysconfig.get_paths()["include"] + "/Python.h")' >/dev/null 2>&1
}
PY=""
for p in python3 /usr/bin/python3; do
    exe=$(command -v "$p" >/dev/null 2>&1 && "$p" -c 'import sys; print(sys.executable)' 2>/dev/null) || continue
    if wheel_ready "$exe"; then PY=$exe; break; fi
done
[ -n "$PY" ] || fail "no python3 (3.10+) with setuptools, wheel, venv and Python.h; Debian:" \
    "apt-get install -y python3-dev python3-venv python3-setuptools python3-wheel"
printf '#!/bin/sh\nexec "%s" "$@"\n' "$PY" >"$BIN/python3"
chmod +x "$BIN/python3"
path_py=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null || echo none)
if [ "$path_py" != "$PY" ]; then
    echo "first-hour: note: python3 on PATH ($path_py) cannot build the module offline; python3 is $PY here"
fi

# --- 1. a clean copy of the tree
begin copy
if git -C "$ROOT" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    (cd "$ROOT" && git ls-files -z --cached --others --exclude-standard |
        while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
        tar --null -T - -cf -) | tar -C "$SRC" -xf -
else
    (cd "$ROOT" && tar --exclude='./build*' --exclude=./dist --exclude=./python/build \
        --exclude='*.o' --exclude='*.so' -cf - .) | tar -C "$SRC" -xf -
fi
[ -f "$SRC/aclrt.h" ] && [ -f "$SRC/README.md" ] || fail "the copy of the tree in $SRC has no aclrt.h or README.md"
ok "a clean copy of the tree: $(find "$SRC" -type f | wc -l) files in ${SRC#"$ROOT"/}"

# --- 2. the README's ten lines
begin hello
awk '/^## Ten lines/ { section = 1; next }
     section && /^```c/ { code = 1; next }
     code && /^```/ { exit }
     code { print }' "$SRC/README.md" >"$SRC/hello.c"
grep -q 'ACLRT_IMPLEMENTATION' "$SRC/hello.c" ||
    fail "README.md: no C program in a section \"## Ten lines\" that defines ACLRT_IMPLEMENTATION"
run "$SRC" "$HELLO_CC"
expect "synchronized: 0"
ok "the README's ten lines, saved as hello.c: $HELLO_CC"

# --- 3, 4. two examples, with the build lines of their first comments
example() {
    local file=$1 name=$2 lines=()
    begin "$name"
    mapfile -t lines < <(sed -n '1,/\*\//p' "$SRC/$file" | sed -n 's/^ \*   \(cc .*\)$/\1/p')
    [ ${#lines[@]} -gt 0 ] || fail "$file: its first comment gives no build line (' *   cc ...')"
    for line in "${lines[@]}"; do run "$SRC" "$line"; done
    ok "$file: the build line$([ ${#lines[@]} -gt 1 ] && echo s) of its first comment build and run it"
}
example examples/pipeline.c pipeline
expect "all correct"
example examples/vector_add/main.c vector_add
expect ": ok"

# --- 5. make install
begin install
run "$SRC" "$INSTALL"
[ -f "$USER_HOME/aclrt/lib64/libascendcl.so" ] && [ -f "$USER_HOME/aclrt/lib/pkgconfig/aclrt.pc" ] ||
    fail "make install PREFIX=\$HOME/aclrt: no lib64/libascendcl.so or lib/pkgconfig/aclrt.pc"
ok "$INSTALL"

# --- 6, 7. programs against the installed tree, away from the source tree
cp "$SRC/hello.c" "$APP/hello.c"
cp "$SRC/tests/cpp_program.cpp" "$APP/main.cpp"
begin pkg-config
run "$APP" "$PKGCONFIG_CC"
expect "synchronized: 0"
ok "the ten lines against the installed headers: $PKGCONFIG_CC"
begin cann
run "$APP" "$CANN_CXX"
ok "an ACL C++ program against libascendcl.so: $CANN_CXX"

# --- 8, 9. pip install into a fresh virtual environment, import from another directory
begin pip
run "$SRC" "$PIP_INSTALL"
ok "$PIP_INSTALL ($PY)"
begin import
run "$SRC" "$IMPORT"
expect "0 Ascend910B1 0"
ok "import acl from another directory: $IMPORT"

# --- 10. make python for two interpreters: each compiles its own objects
begin python2
PY_TAG=$("$PY" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
PY2=""
for p in ${FIRST_HOUR_PYTHON2:-} python3.1{0..9} /usr/bin/python3.1{0..9} /usr/local/bin/python3.1{0..9}; do
    exe=$(command -v "$p" >/dev/null 2>&1 && "$p" -c 'import sys; print(sys.executable)' 2>/dev/null) || continue
    "$exe" -c 'import os, sys, sysconfig
assert sys.version_info >= (3, 10)
assert os.path.exists(sysconfig.get_paths()["include"] + "/Python.h")
assert sysconfig.get_config_var("EXT_SUFFIX") != sys.argv[1]' "$PY_TAG" >/dev/null 2>&1 || continue
    PY2=$exe
    break
done
if [ -z "$PY2" ]; then
    echo "first-hour: make python for a second Python: skipped: none found besides $PY" \
        "(3.10+ with Python.h; FIRST_HOUR_PYTHON2=<python> names one)"
else
    jobs=$(nproc 2>/dev/null || echo 2)
    run "$SRC" "make -j$jobs python PYTHON=$PY"
    run "$SRC" "make -j$jobs python PYTHON=$PY2"
    for p in "$PY" "$PY2"; do
        run "$USER_HOME" "PYTHONPATH=$SRC/python/build $p -c 'import acl; assert acl.init() == 0 and acl.finalize() == 0'"
    done
    ok "make python PYTHON=$PY, then PYTHON=$PY2: each module imports in its interpreter"
fi

# --- 11. the README shows what was run
begin readme
missing=0
for c in "${README_COMMANDS[@]}"; do
    grep -qF -- "$c" "$SRC/README.md" || { echo "first-hour: README.md does not show: $c" >&2; missing=1; }
done
[ $missing = 0 ] || fail "README.md does not show the commands above, which this script runs as the README's"
ok "README.md shows each command run here as the README's"

#!/bin/sh
# tests/cpp_impl_error.sh - a C++ translation unit that defines ACLRT_IMPLEMENTATION
# (tests/cpp_impl_error.cpp) must not compile, and must fail with aclrt's one
# clear #error, not with that error followed by the implementation's own.
#
# Usage: tests/cpp_impl_error.sh LOG CXX [FLAGS...]   (from the repository root)
# LOG receives the compiler's output.
log=$1
shift
if "$@" -I. -c tests/cpp_impl_error.cpp -o /dev/null >"$log" 2>&1; then
    echo "FAIL: defining ACLRT_IMPLEMENTATION in C++ compiled"
    exit 1
fi
if ! grep -q "implementation is C11" "$log"; then
    cat "$log"
    echo "FAIL: the compiler did not stop with aclrt's #error"
    exit 1
fi
errors=$(grep -c "error:" "$log")
if [ "$errors" -gt 2 ]; then
    head -n 40 "$log"
    echo "FAIL: $errors errors; aclrt's #error should be the only one"
    exit 1
fi
echo "C++ translation unit with ACLRT_IMPLEMENTATION: one clear #error ($errors error lines) (ok)"

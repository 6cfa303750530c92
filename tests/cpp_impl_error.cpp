// Must NOT compile: the implementation is C11 and belongs in a .c file.
// tests/cpp_impl_error.sh (run by `make test-cpp`) checks that the compiler stops
// with aclrt's clear #error, and with no other error after it.
#define ACLRT_IMPLEMENTATION
#include "aclrt.h"

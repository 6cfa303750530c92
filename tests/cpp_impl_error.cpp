// Must NOT compile: the implementation is C11 and belongs in a .c file.
// `make test-cpp` checks that the compiler stops with aclrt's clear #error.
#define ACLRT_IMPLEMENTATION
#include "aclrt.h"

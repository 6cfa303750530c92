/*
 * scripts/ascendcl.c - the implementation as a shared library, for programs
 * and build files written for a CANN package: `make install` builds it into
 * $(PREFIX)/lib64/libascendcl.so, next to the headers in $(PREFIX)/include,
 * so that `-I$PREFIX/include -L$PREFIX/lib64 -lascendcl` (and CMake's
 * find_package(aclrt), target aclrt::aclrt) link it unchanged.
 */
#define ACLRT_IMPLEMENTATION
#include "aclrt.h"

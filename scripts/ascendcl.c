/*
 * scripts/ascendcl.c - the implementation as a shared library, for programs
 * and build files written for a CANN package: `make install` builds it into
 * $(PREFIX)/lib64/libascendcl.so, next to the headers in $(PREFIX)/include,
 * so that `-I$PREFIX/include -L$PREFIX/lib64 -lascendcl` (and CMake's
 * find_package(aclrt), target aclrt::aclrt) link it unchanged. A link to it,
 * $(PREFIX)/lib/libascendcl.so, is where the system's linker and loader look
 * (for /usr/local on Debian, after the ldconfig that `sudo make install` runs).
 * It is linked with Concurrency Kit, liburcu, pthreads, libm and libdl, so a
 * program links -lascendcl alone.
 */
#define ACLRT_IMPLEMENTATION
#include "aclrt.h"

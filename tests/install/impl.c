/*
 * tests/install/impl.c - the implementation unit of a header-only program
 * built against an installed aclrt (CMake's aclrt::headers target).
 */
#define ACLRT_IMPLEMENTATION
#include "aclrt.h"

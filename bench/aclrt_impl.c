/* bench/aclrt_impl.c - the one implementation unit of aclrt in the harness (C11, -O2). */
#define ACLRT_IMPLEMENTATION
#include "aclrt.h"

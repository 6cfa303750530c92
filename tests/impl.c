/* The implementation unit every test links with: one C file defines ACLRT_IMPLEMENTATION. */
#define ACLRT_IMPLEMENTATION
#include "aclrt.h"

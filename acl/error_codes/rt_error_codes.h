/* Compatibility include: error codes live in aclrt.h. */
#include "../../aclrt.h"

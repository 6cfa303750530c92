/* Compatibility include: real ACL programs include "acl/error_codes/ge_error_codes.h"; its codes live in aclrt.h. */
#include "../../aclrt.h"

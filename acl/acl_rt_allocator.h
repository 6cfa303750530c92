/* Compatibility include: real ACL programs include "acl/acl_rt_allocator.h"; aclrt provides it in aclrt.h. */
#include "../aclrt.h"

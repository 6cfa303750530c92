/* Compatibility include: real ACL programs include "acl/acl_rt_memory_soma.h"; aclrt provides it in aclrt.h. */
#include "../aclrt.h"

/* Compatibility include: real ACL programs include "acl/acl_base_rt.h"; aclrt provides it in aclrt.h. */
#include "../aclrt.h"

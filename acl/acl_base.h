/* Compatibility include: real ACL programs include "acl/acl_base.h"; aclrt provides it in aclrt.h. */
#include "../aclrt.h"

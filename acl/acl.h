/* Compatibility include: real ACL programs include "acl/acl.h"; aclrt provides it in aclrt.h. */
#include "../aclrt.h"

/* Compatibility include: real ACL programs include "acl/acl_prof.h"; aclrt provides it in aclrt.h. */
#include "../aclrt.h"

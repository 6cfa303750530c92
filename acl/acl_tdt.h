/* Compatibility include: real ACL programs include "acl/acl_tdt.h"; aclrt provides it in aclrt.h. */
#include "../aclrt.h"

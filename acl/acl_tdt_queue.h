/* Compatibility include: real ACL programs include "acl/acl_tdt_queue.h"; aclrt provides it in aclrt.h. */
#include "../aclrt.h"

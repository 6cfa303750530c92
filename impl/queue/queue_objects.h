/*
 * impl/queue/queue_objects.h - queue attributes, routes, route lists and
 * route queries: the plain objects that acl/acl_tdt_queue.h's calls take.
 *
 * They are the caller's memory (malloc), checked for NULL only, as in the
 * runtime. Set and get calls copy one value of the type's exact size: a
 * set with another `len` is ACL_ERROR_INVALID_PARAM, a get needs at least
 * that many bytes and says how many it wrote.
 */
#ifndef ACLRT_IMPL_QUEUE_QUEUE_OBJECTS_H
#define ACLRT_IMPL_QUEUE_QUEUE_OBJECTS_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/thread.h"

#define ACLRT_QUEUE_NAME_LEN 128u     /* a queue's name, its terminating NUL included */
#define ACLRT_QUEUE_DEFAULT_DEPTH 8u
#define ACLRT_QUEUE_MAX_DEPTH 8192u

struct tagMemQueueAttr {
    char name[ACLRT_QUEUE_NAME_LEN];
    uint32_t depth;
};

struct acltdtQueueRoute {
    uint32_t srcId;
    uint32_t dstId;
    int32_t status; /* ACL_TDT_QUEUE_ROUTE_* */
};

struct acltdtQueueRouteList {
    struct acltdtQueueRoute *routes;
    size_t count, cap;
};

struct acltdtQueueRouteQueryInfo {
    acltdtQueueRouteQueryMode mode;
    uint32_t srcId, dstId;
    bool has_mode, has_src, has_dst;
};

/* Copy a set call's value of exactly `want` bytes. */
static aclError aclrt_qobj_set(const void *param, size_t len, void *dst, size_t want, const char *what)
{
    if (param == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "param is NULL");
    if (len != want)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "len %zu is not the size of %s (%zu)", len, what, want);
    memcpy(dst, param, want);
    return ACL_SUCCESS;
}

/* Copy a get call's value of `have` bytes out. */
static aclError aclrt_qobj_get(const void *src, size_t have, void *param, size_t len, size_t *ret, const char *what)
{
    if (param == NULL || ret == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL", param == NULL ? "param" : "paramRetSize");
    if (len < have)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "len %zu is less than the size of %s (%zu)", len, what, have);
    memcpy(param, src, have);
    *ret = have;
    return ACL_SUCCESS;
}

ACLRT_API acltdtQueueAttr *acltdtCreateQueueAttr(void)
{
    ACLRT_ENTER();
    acltdtQueueAttr *a = (acltdtQueueAttr *)calloc(1, sizeof *a);
    if (a == NULL) {
        aclrt_fail(ACL_ERROR_BAD_ALLOC, "no memory for a queue attribute");
        return NULL;
    }
    a->depth = ACLRT_QUEUE_DEFAULT_DEPTH;
    return a;
}

ACLRT_API aclError acltdtDestroyQueueAttr(const acltdtQueueAttr *attr)
{
    ACLRT_ENTER();
    if (attr == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "attr is NULL");
    free((void *)(uintptr_t)attr);
    return ACL_SUCCESS;
}

ACLRT_API aclError acltdtSetQueueAttr(acltdtQueueAttr *attr, acltdtQueueAttrType type, size_t len, const void *param)
{
    ACLRT_ENTER();
    if (attr == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "attr is NULL");
    switch (type) {
    case ACL_TDT_QUEUE_NAME_PTR: {
        const char *name = NULL;
        aclError rc = aclrt_qobj_set(param, len, (void *)&name, sizeof name, "a name pointer");
        if (rc != ACL_SUCCESS)
            return rc;
        if (name == NULL)
            return aclrt_fail(ACL_ERROR_INVALID_PARAM, "the name pointer is NULL");
        size_t n = strnlen(name, ACLRT_QUEUE_NAME_LEN);
        if (n >= ACLRT_QUEUE_NAME_LEN)
            return aclrt_fail(ACL_ERROR_INVALID_PARAM, "the name is longer than %u bytes", ACLRT_QUEUE_NAME_LEN - 1);
        memcpy(attr->name, name, n + 1);
        return ACL_SUCCESS;
    }
    case ACL_TDT_QUEUE_DEPTH_UINT32: {
        uint32_t depth = 0;
        aclError rc = aclrt_qobj_set(param, len, &depth, sizeof depth, "uint32_t");
        if (rc != ACL_SUCCESS)
            return rc;
        if (depth == 0 || depth > ACLRT_QUEUE_MAX_DEPTH)
            return aclrt_fail(ACL_ERROR_INVALID_PARAM, "depth %u is out of range (1 to %u)", depth,
                              ACLRT_QUEUE_MAX_DEPTH);
        attr->depth = depth;
        return ACL_SUCCESS;
    }
    }
    return aclrt_fail(ACL_ERROR_INVALID_PARAM, "type %d is not a queue attribute", (int)type);
}

ACLRT_API aclError acltdtGetQueueAttr(const acltdtQueueAttr *attr, acltdtQueueAttrType type, size_t len,
                                      size_t *paramRetSize, void *param)
{
    ACLRT_ENTER();
    if (attr == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "attr is NULL");
    switch (type) {
    case ACL_TDT_QUEUE_NAME_PTR: {
        const char *name = attr->name; /* points into the attribute: valid while it lives */
        return aclrt_qobj_get(&name, sizeof name, param, len, paramRetSize, "a name pointer");
    }
    case ACL_TDT_QUEUE_DEPTH_UINT32:
        return aclrt_qobj_get(&attr->depth, sizeof attr->depth, param, len, paramRetSize, "uint32_t");
    }
    return aclrt_fail(ACL_ERROR_INVALID_PARAM, "type %d is not a queue attribute", (int)type);
}

ACLRT_API acltdtQueueRoute *acltdtCreateQueueRoute(uint32_t srcId, uint32_t dstId)
{
    ACLRT_ENTER();
    acltdtQueueRoute *r = (acltdtQueueRoute *)calloc(1, sizeof *r);
    if (r == NULL) {
        aclrt_fail(ACL_ERROR_BAD_ALLOC, "no memory for a route");
        return NULL;
    }
    r->srcId = srcId;
    r->dstId = dstId;
    r->status = ACL_TDT_QUEUE_ROUTE_UNBIND;
    return r;
}

ACLRT_API aclError acltdtDestroyQueueRoute(const acltdtQueueRoute *route)
{
    ACLRT_ENTER();
    if (route == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "route is NULL");
    free((void *)(uintptr_t)route);
    return ACL_SUCCESS;
}

ACLRT_API aclError acltdtGetQueueRouteParam(const acltdtQueueRoute *route, acltdtQueueRouteParamType type,
                                            size_t len, size_t *paramRetSize, void *param)
{
    ACLRT_ENTER();
    if (route == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "route is NULL");
    switch (type) {
    case ACL_TDT_QUEUE_ROUTE_SRC_UINT32:
        return aclrt_qobj_get(&route->srcId, sizeof(uint32_t), param, len, paramRetSize, "uint32_t");
    case ACL_TDT_QUEUE_ROUTE_DST_UINT32:
        return aclrt_qobj_get(&route->dstId, sizeof(uint32_t), param, len, paramRetSize, "uint32_t");
    case ACL_TDT_QUEUE_ROUTE_STATUS_INT32:
        return aclrt_qobj_get(&route->status, sizeof(int32_t), param, len, paramRetSize, "int32_t");
    }
    return aclrt_fail(ACL_ERROR_INVALID_PARAM, "type %d is not a route parameter", (int)type);
}

ACLRT_API acltdtQueueRouteList *acltdtCreateQueueRouteList(void)
{
    ACLRT_ENTER();
    acltdtQueueRouteList *l = (acltdtQueueRouteList *)calloc(1, sizeof *l);
    if (l == NULL)
        aclrt_fail(ACL_ERROR_BAD_ALLOC, "no memory for a route list");
    return l;
}

ACLRT_API aclError acltdtDestroyQueueRouteList(const acltdtQueueRouteList *routeList)
{
    ACLRT_ENTER();
    if (routeList == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "routeList is NULL");
    free(routeList->routes);
    free((void *)(uintptr_t)routeList);
    return ACL_SUCCESS;
}

/* Append a copy of a route; false when out of memory. */
ACLRT_INTERNAL bool aclrt_route_list_push(acltdtQueueRouteList *l, struct acltdtQueueRoute r)
{
    if (l->count == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 4;
        struct acltdtQueueRoute *n =
            (struct acltdtQueueRoute *)realloc(l->routes, cap * sizeof *n);
        if (n == NULL)
            return false;
        l->routes = n;
        l->cap = cap;
    }
    l->routes[l->count++] = r;
    return true;
}

ACLRT_API aclError acltdtAddQueueRoute(acltdtQueueRouteList *routeList, const acltdtQueueRoute *route)
{
    ACLRT_ENTER();
    if (routeList == NULL || route == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL", routeList == NULL ? "routeList" : "route");
    if (!aclrt_route_list_push(routeList, *route))
        return aclrt_fail(ACL_ERROR_BAD_ALLOC, "no memory for another route");
    return ACL_SUCCESS;
}

ACLRT_API aclError acltdtGetQueueRoute(const acltdtQueueRouteList *routeList, size_t index, acltdtQueueRoute *route)
{
    ACLRT_ENTER();
    if (routeList == NULL || route == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL", routeList == NULL ? "routeList" : "route");
    if (index >= routeList->count)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "index %zu is not below the list's %zu routes", index,
                          routeList->count);
    *route = routeList->routes[index];
    return ACL_SUCCESS;
}

ACLRT_API size_t acltdtGetQueueRouteNum(const acltdtQueueRouteList *routeList)
{
    ACLRT_ENTER();
    if (routeList == NULL) {
        aclrt_fail(ACL_ERROR_INVALID_PARAM, "routeList is NULL");
        return 0;
    }
    return routeList->count;
}

ACLRT_API acltdtQueueRouteQueryInfo *acltdtCreateQueueRouteQueryInfo(void)
{
    ACLRT_ENTER();
    acltdtQueueRouteQueryInfo *q = (acltdtQueueRouteQueryInfo *)calloc(1, sizeof *q);
    if (q == NULL)
        aclrt_fail(ACL_ERROR_BAD_ALLOC, "no memory for a route query");
    return q;
}

ACLRT_API aclError acltdtDestroyQueueRouteQueryInfo(const acltdtQueueRouteQueryInfo *info)
{
    ACLRT_ENTER();
    if (info == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "info is NULL");
    free((void *)(uintptr_t)info);
    return ACL_SUCCESS;
}

ACLRT_API aclError acltdtSetQueueRouteQueryInfo(acltdtQueueRouteQueryInfo *param,
                                                acltdtQueueRouteQueryInfoParamType type, size_t len,
                                                const void *value)
{
    ACLRT_ENTER();
    if (param == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "param is NULL");
    aclError rc;
    switch (type) {
    case ACL_TDT_QUEUE_ROUTE_QUERY_MODE_ENUM: {
        acltdtQueueRouteQueryMode mode = ACL_TDT_QUEUE_ROUTE_QUERY_SRC;
        rc = aclrt_qobj_set(value, len, &mode, sizeof mode, "acltdtQueueRouteQueryMode");
        if (rc == ACL_SUCCESS && mode != ACL_TDT_QUEUE_ROUTE_QUERY_SRC && mode != ACL_TDT_QUEUE_ROUTE_QUERY_DST &&
            mode != ACL_TDT_QUEUE_ROUTE_QUERY_SRC_AND_DST && mode != ACL_TDT_QUEUE_ROUTE_QUERY_ABNORMAL)
            rc = aclrt_fail(ACL_ERROR_INVALID_PARAM, "mode %d is not a route query mode", (int)mode);
        if (rc == ACL_SUCCESS) {
            param->mode = mode;
            param->has_mode = true;
        }
        return rc;
    }
    case ACL_TDT_QUEUE_ROUTE_QUERY_SRC_ID_UINT32:
        rc = aclrt_qobj_set(value, len, &param->srcId, sizeof(uint32_t), "uint32_t");
        param->has_src |= rc == ACL_SUCCESS;
        return rc;
    case ACL_TDT_QUEUE_ROUTE_QUERY_DST_ID_UINT32:
        rc = aclrt_qobj_set(value, len, &param->dstId, sizeof(uint32_t), "uint32_t");
        param->has_dst |= rc == ACL_SUCCESS;
        return rc;
    }
    return aclrt_fail(ACL_ERROR_INVALID_PARAM, "type %d is not a route query parameter", (int)type);
}

#endif /* ACLRT_IMPL_QUEUE_QUEUE_OBJECTS_H */

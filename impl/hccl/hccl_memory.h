/*
 * impl/hccl/hccl_memory.h - memory a communicator is told of: the virtual
 * range of zero-copy buffers (HcclCommSetMemoryRange), the mappings active
 * in it (HcclCommActivateCommMemory), and symmetric windows
 * (HcclCommSymWinRegister). On a device these let HCCL map peers' buffers;
 * here every rank reads the others' memory directly (in-process) or MPI
 * moves it, so the calls are bookkeeping with HCCL's rules: a mapping lies
 * in a range that was set, a range is unset only once nothing is active in
 * it, a window is found by any pointer inside it, each handle is released
 * once. Destroying the communicator drops what is left.
 */
#ifndef ACLRT_IMPL_HCCL_HCCL_MEMORY_H
#define ACLRT_IMPL_HCCL_HCCL_MEMORY_H

#include "../core/base.h"
#include "../core/thread.h"
#include "hccl_comm.h"

#include <pthread.h>
#include <stdlib.h>

/* The region of c of `kind` holding [p, p + size) (lock held); NULL if none. */
static struct aclrt_hccl_region *aclrt_hccl_region_find(struct aclrt_hccl_comm *c, enum aclrt_hccl_region_kind kind,
                                                        const void *p, size_t size)
{
    const char *b = (const char *)p;
    for (struct aclrt_hccl_region *g = c->regions; g != NULL; g = g->next)
        if (g->kind == kind && b >= g->base && size <= g->size && (size_t)(b - g->base) <= g->size - size)
            return g;
    return NULL;
}

/* Whether a mapping is active inside range g (lock held). */
static bool aclrt_hccl_region_active_in(struct aclrt_hccl_comm *c, const struct aclrt_hccl_region *g)
{
    for (struct aclrt_hccl_region *a = c->regions; a != NULL; a = a->next)
        if (a->kind == ACLRT_HCCL_ACTIVE && a->base >= g->base && (size_t)(a->base - g->base) < g->size)
            return true;
    return false;
}

static HcclResult aclrt_hccl_region_add(struct aclrt_hccl_comm *c, enum aclrt_hccl_region_kind kind, void *base,
                                        size_t size, struct aclrt_hccl_region **out)
{
    struct aclrt_hccl_region *g = (struct aclrt_hccl_region *)calloc(1, sizeof *g);
    if (g == NULL)
        return aclrt_hccl_fail(HCCL_E_MEMORY, "out of memory");
    g->kind = kind, g->base = (char *)base, g->size = size, g->comm = c;
    g->next = c->regions;
    c->regions = g;
    if (out != NULL)
        *out = g;
    return HCCL_SUCCESS;
}

static void aclrt_hccl_region_unlink(struct aclrt_hccl_comm *c, struct aclrt_hccl_region *g)
{
    for (struct aclrt_hccl_region **p = &c->regions; *p != NULL; p = &(*p)->next)
        if (*p == g) {
            *p = g->next;
            free(g);
            return;
        }
}

ACLRT_API HcclResult HcclCommSetMemoryRange(HcclComm comm, void *baseVirPtr, size_t size, size_t alignment,
                                            uint64_t flags)
{
    ACLRT_ENTER();
    (void)flags;
    struct aclrt_hccl_comm *c;
    HcclResult r = aclrt_hccl_comm_get(comm, &c);
    if (r != HCCL_SUCCESS)
        return r;
    if (baseVirPtr == NULL)
        return aclrt_hccl_fail(HCCL_E_PTR, "baseVirPtr is NULL");
    if (size == 0)
        return aclrt_hccl_fail(HCCL_E_PARA, "size is 0");
    if (alignment != 0 && (alignment & (alignment - 1)) != 0)
        return aclrt_hccl_fail(HCCL_E_PARA, "alignment %zu is not a power of two", alignment);
    pthread_mutex_lock(&c->regions_lock);
    if (aclrt_hccl_region_find(c, ACLRT_HCCL_RANGE, baseVirPtr, 1) != NULL)
        r = aclrt_hccl_fail(HCCL_E_PARA, "a range holding %p is set already", baseVirPtr);
    else
        r = aclrt_hccl_region_add(c, ACLRT_HCCL_RANGE, baseVirPtr, size, NULL);
    pthread_mutex_unlock(&c->regions_lock);
    return r;
}

ACLRT_API HcclResult HcclCommUnsetMemoryRange(HcclComm comm, void *baseVirPtr)
{
    ACLRT_ENTER();
    struct aclrt_hccl_comm *c;
    HcclResult r = aclrt_hccl_comm_get(comm, &c);
    if (r != HCCL_SUCCESS)
        return r;
    if (baseVirPtr == NULL)
        return aclrt_hccl_fail(HCCL_E_PTR, "baseVirPtr is NULL");
    pthread_mutex_lock(&c->regions_lock);
    struct aclrt_hccl_region *g = aclrt_hccl_region_find(c, ACLRT_HCCL_RANGE, baseVirPtr, 0);
    if (g == NULL || g->base != (char *)baseVirPtr)
        r = aclrt_hccl_fail(HCCL_E_PARA, "no range starts at %p (HcclCommSetMemoryRange)", baseVirPtr);
    else if (aclrt_hccl_region_active_in(c, g))
        r = aclrt_hccl_fail(HCCL_E_PARA, "memory in the range at %p is still active (HcclCommDeactivateCommMemory)",
                            baseVirPtr);
    else
        aclrt_hccl_region_unlink(c, g);
    pthread_mutex_unlock(&c->regions_lock);
    return r;
}

ACLRT_API HcclResult HcclCommActivateCommMemory(HcclComm comm, void *virPtr, size_t size, size_t offset,
                                                aclrtDrvMemHandle handle, uint64_t flags)
{
    ACLRT_ENTER();
    (void)offset, (void)flags;
    struct aclrt_hccl_comm *c;
    HcclResult r = aclrt_hccl_comm_get(comm, &c);
    if (r != HCCL_SUCCESS)
        return r;
    if (virPtr == NULL || handle == NULL)
        return aclrt_hccl_fail(HCCL_E_PTR, "%s is NULL", virPtr == NULL ? "virPtr" : "handle");
    if (size == 0)
        return aclrt_hccl_fail(HCCL_E_PARA, "size is 0");
    pthread_mutex_lock(&c->regions_lock);
    if (aclrt_hccl_region_find(c, ACLRT_HCCL_RANGE, virPtr, size) == NULL)
        r = aclrt_hccl_fail(HCCL_E_PARA, "[%p, +%zu) lies in no range set by HcclCommSetMemoryRange", virPtr, size);
    else if (aclrt_hccl_region_find(c, ACLRT_HCCL_ACTIVE, virPtr, 1) != NULL)
        r = aclrt_hccl_fail(HCCL_E_PARA, "%p is active already", virPtr);
    else
        r = aclrt_hccl_region_add(c, ACLRT_HCCL_ACTIVE, virPtr, size, NULL);
    pthread_mutex_unlock(&c->regions_lock);
    return r;
}

ACLRT_API HcclResult HcclCommDeactivateCommMemory(HcclComm comm, void *virPtr)
{
    ACLRT_ENTER();
    struct aclrt_hccl_comm *c;
    HcclResult r = aclrt_hccl_comm_get(comm, &c);
    if (r != HCCL_SUCCESS)
        return r;
    if (virPtr == NULL)
        return aclrt_hccl_fail(HCCL_E_PTR, "virPtr is NULL");
    pthread_mutex_lock(&c->regions_lock);
    struct aclrt_hccl_region *g = aclrt_hccl_region_find(c, ACLRT_HCCL_ACTIVE, virPtr, 0);
    if (g == NULL || g->base != (char *)virPtr)
        r = aclrt_hccl_fail(HCCL_E_PARA, "%p is not active (HcclCommActivateCommMemory)", virPtr);
    else
        aclrt_hccl_region_unlink(c, g);
    pthread_mutex_unlock(&c->regions_lock);
    return r;
}

ACLRT_API HcclResult HcclCommSymWinRegister(HcclComm comm, void *addr, uint64_t size, HcclCommSymWindow *winHandle,
                                            uint32_t flag)
{
    ACLRT_ENTER();
    (void)flag;
    struct aclrt_hccl_comm *c;
    HcclResult r = aclrt_hccl_comm_get(comm, &c);
    if (r != HCCL_SUCCESS)
        return r;
    if (addr == NULL || winHandle == NULL)
        return aclrt_hccl_fail(HCCL_E_PTR, "%s is NULL", addr == NULL ? "addr" : "winHandle");
    if (size == 0)
        return aclrt_hccl_fail(HCCL_E_PARA, "size is 0");
    struct aclrt_hccl_region *g = NULL;
    pthread_mutex_lock(&c->regions_lock);
    r = aclrt_hccl_region_add(c, ACLRT_HCCL_WINDOW, addr, (size_t)size, &g);
    pthread_mutex_unlock(&c->regions_lock);
    if (r == HCCL_SUCCESS)
        *winHandle = g;
    return r;
}

/* The live communicator holding window w (live list lock held); NULL if w is no live window. */
static struct aclrt_hccl_comm *aclrt_hccl_window_owner(HcclCommSymWindow w)
{
    for (struct aclrt_hccl_comm *c = aclrt_hccl_live; c != NULL; c = c->next) {
        pthread_mutex_lock(&c->regions_lock);
        bool found = false;
        for (struct aclrt_hccl_region *g = c->regions; g != NULL && !found; g = g->next)
            found = g == (struct aclrt_hccl_region *)w && g->kind == ACLRT_HCCL_WINDOW;
        pthread_mutex_unlock(&c->regions_lock);
        if (found)
            return c;
    }
    return NULL;
}

ACLRT_API HcclResult HcclCommSymWinDeregister(HcclCommSymWindow winHandle)
{
    ACLRT_ENTER();
    if (winHandle == NULL)
        return aclrt_hccl_fail(HCCL_E_PTR, "winHandle is NULL");
    pthread_mutex_lock(&aclrt_hccl_live_lock);
    struct aclrt_hccl_comm *c = aclrt_hccl_window_owner(winHandle);
    if (c != NULL) {
        pthread_mutex_lock(&c->regions_lock);
        aclrt_hccl_region_unlink(c, (struct aclrt_hccl_region *)winHandle);
        pthread_mutex_unlock(&c->regions_lock);
    }
    pthread_mutex_unlock(&aclrt_hccl_live_lock);
    if (c == NULL)
        return aclrt_hccl_fail(HCCL_E_PARA, "winHandle %p is no registered window", winHandle);
    return HCCL_SUCCESS;
}

ACLRT_API HcclResult HcclCommSymWinGet(HcclComm comm, void *ptr, size_t size, HcclCommSymWindow *winHandle,
                                       size_t *offset)
{
    ACLRT_ENTER();
    struct aclrt_hccl_comm *c;
    HcclResult r = aclrt_hccl_comm_get(comm, &c);
    if (r != HCCL_SUCCESS)
        return r;
    if (ptr == NULL || winHandle == NULL || offset == NULL)
        return aclrt_hccl_fail(HCCL_E_PTR, "%s is NULL", ptr == NULL ? "ptr" : winHandle == NULL ? "winHandle" : "offset");
    pthread_mutex_lock(&c->regions_lock);
    struct aclrt_hccl_region *g = aclrt_hccl_region_find(c, ACLRT_HCCL_WINDOW, ptr, size);
    if (g != NULL) {
        *winHandle = g;
        *offset = (size_t)((char *)ptr - g->base);
    }
    pthread_mutex_unlock(&c->regions_lock);
    if (g == NULL)
        return aclrt_hccl_fail(HCCL_E_NOT_FOUND, "[%p, +%zu) lies in no registered window", ptr, size);
    return HCCL_SUCCESS;
}

#endif /* ACLRT_IMPL_HCCL_HCCL_MEMORY_H */

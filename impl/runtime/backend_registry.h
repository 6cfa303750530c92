/*
 * impl/runtime/backend_registry.h - which backends exist, and which one runs.
 *
 *   - Built-in backends are listed where the implementation is assembled:
 *     aclrt.h, after including the core and the backends, writes
 *     ACLRT_BUILTIN_BACKENDS(&aclrt_backend_host, ...), which completes
 *     aclrt_builtin_backends. The core never names a backend.
 *   - Embedders register their own (aclrtxRegisterBackend, a public,
 *     versioned struct): up to ACLRT_MAX_REGISTERED_BACKENDS names, each
 *     run by the built-in "host" backend's machinery with external progress
 *     and the embedder's hooks (backends/host/host.h).
 *   - The runtime picks one by name when it starts (aclrt.backend in the
 *     aclInit JSON, or ACLRT_BACKEND); an unknown name is an error of
 *     aclInit, or of the first call that starts the runtime.
 * Registration and selection serialize on the runtime's lifecycle lock.
 */
#ifndef ACLRT_IMPL_RUNTIME_BACKEND_REGISTRY_H
#define ACLRT_IMPL_RUNTIME_BACKEND_REGISTRY_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/thread.h"
#include "../../backends/backend.h"
#include "runtime.h"

#define ACLRT_MAX_REGISTERED_BACKENDS 8
#define ACLRT_HOST_BACKEND_NAME "host"

/*
 * The built-in backends, a NULL-terminated list. This is a tentative
 * definition (no backend): aclrt.h completes it with ACLRT_BUILTIN_BACKENDS
 * once the core and the backends are defined, so the core never names one.
 */
static const struct aclrt_backend *const *aclrt_builtin_backends;

#define ACLRT_BUILTIN_BACKENDS(...)                                                                 \
    static const struct aclrt_backend *const aclrt_builtin_backend_list[] = {__VA_ARGS__, NULL};   \
    static const struct aclrt_backend *const *aclrt_builtin_backends = aclrt_builtin_backend_list;

/* The i-th built-in backend, NULL past the last. */
ACLRT_INLINE const struct aclrt_backend *aclrt_builtin_backend(size_t i)
{
    const struct aclrt_backend *const *list = aclrt_builtin_backends;
    for (size_t k = 0; list != NULL && list[k] != NULL; k++)
        if (k == i)
            return list[k];
    return NULL;
}

struct aclrt_registered_backend {
    bool used;
    char name[ACLRTX_BACKEND_NAME_MAX + 1];
    aclrtxBackend desc; /* desc.name points at `name` */
};

static struct aclrt_registered_backend aclrt_registered_backends[ACLRT_MAX_REGISTERED_BACKENDS];

static const struct aclrt_backend *aclrt_builtin_find(const char *name)
{
    const struct aclrt_backend *b;
    for (size_t i = 0; (b = aclrt_builtin_backend(i)) != NULL; i++)
        if (strcmp(b->name, name) == 0)
            return b;
    return NULL;
}

/* A registered backend by name (lifecycle lock held). */
static struct aclrt_registered_backend *aclrt_registered_find(const char *name)
{
    for (size_t i = 0; i < ACLRT_MAX_REGISTERED_BACKENDS; i++)
        if (aclrt_registered_backends[i].used && strcmp(aclrt_registered_backends[i].name, name) == 0)
            return &aclrt_registered_backends[i];
    return NULL;
}

/* The names that exist, for messages: "host, cuda, mine". */
static void aclrt_backend_names(char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
    const struct aclrt_backend *b;
    for (size_t i = 0; (b = aclrt_builtin_backend(i)) != NULL && n < size; i++)
        n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? ", " : "", b->name);
    for (size_t i = 0; i < ACLRT_MAX_REGISTERED_BACKENDS && n < size; i++)
        if (aclrt_registered_backends[i].used)
            n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? ", " : "", aclrt_registered_backends[i].name);
}

/*
 * The backend called `name` (lifecycle lock held): a built-in one, or the
 * host backend serving a registered one (*embedder set). Fails with
 * ACL_ERROR_RT_NO_DEVICE and a message naming what exists.
 */
ACLRT_INTERNAL aclError aclrt_backend_select(const char *name, const struct aclrt_backend **out,
                                     const aclrtxBackend **embedder)
{
    *embedder = NULL;
    *out = aclrt_builtin_find(name);
    if (*out != NULL)
        return ACL_SUCCESS;
    struct aclrt_registered_backend *r = aclrt_registered_find(name);
    if (r != NULL && (*out = aclrt_builtin_find(ACLRT_HOST_BACKEND_NAME)) != NULL) {
        *embedder = &r->desc;
        return ACL_SUCCESS;
    }
    char names[256];
    aclrt_backend_names(names, sizeof names);
    return aclrt_fail(ACL_ERROR_RT_NO_DEVICE, "backend \"%s\" is not available (available: %s)", name, names);
}

static aclError aclrt_backend_check_desc(const aclrtxBackend *b)
{
    if (b->version != ACLRTX_BACKEND_VERSION)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "backend version %u is not ACLRTX_BACKEND_VERSION (%u)",
                          b->version, ACLRTX_BACKEND_VERSION);
    if (b->size != sizeof(aclrtxBackend))
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "backend size %u is not sizeof(aclrtxBackend) (%zu)", b->size,
                          sizeof(aclrtxBackend));
    if (b->name == NULL || b->open == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "backend %s is NULL", b->name == NULL ? "name" : "open");
    size_t len = strlen(b->name);
    if (len == 0 || len > ACLRTX_BACKEND_NAME_MAX)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "backend name of %zu bytes (1 to %d)", len,
                          ACLRTX_BACKEND_NAME_MAX);
    if ((b->memAlloc == NULL) != (b->memFree == NULL))
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "backend \"%s\" sets one of memAlloc and memFree", b->name);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtxRegisterBackend(const aclrtxBackend *backend)
{
    ACLRT_ENTER();
    if (backend == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "backend is NULL");
    aclError rc = aclrt_backend_check_desc(backend);
    if (rc != ACL_SUCCESS)
        return rc;
    pthread_mutex_lock(&aclrt_rt.lifecycle_lock);
    struct aclrt_registered_backend *free_slot = NULL;
    for (size_t i = 0; i < ACLRT_MAX_REGISTERED_BACKENDS && free_slot == NULL; i++)
        if (!aclrt_registered_backends[i].used)
            free_slot = &aclrt_registered_backends[i];
    if (aclrt_builtin_find(backend->name) != NULL || aclrt_registered_find(backend->name) != NULL)
        rc = aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "a backend called \"%s\" exists already", backend->name);
    else if (free_slot == NULL)
        rc = aclrt_fail(ACL_ERROR_RT_OVER_LIMIT, "%d backends are registered already (the limit)",
                        ACLRT_MAX_REGISTERED_BACKENDS);
    else {
        free_slot->used = true;
        strcpy(free_slot->name, backend->name);
        free_slot->desc = *backend;
        free_slot->desc.name = free_slot->name;
    }
    pthread_mutex_unlock(&aclrt_rt.lifecycle_lock);
    return rc;
}

ACLRT_API aclError aclrtxUnregisterBackend(const char *name)
{
    ACLRT_ENTER();
    if (name == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "name is NULL");
    pthread_mutex_lock(&aclrt_rt.lifecycle_lock);
    aclError rc = ACL_SUCCESS;
    struct aclrt_registered_backend *r = aclrt_registered_find(name);
    if (r == NULL)
        rc = aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "no registered backend is called \"%s\"", name);
    else if (aclrt_runtime_started() && aclrt_rt.embedder == &r->desc)
        rc = aclrt_fail(ACL_ERROR_RT_RESOURCE_ALLOC_FAIL,
                        "backend \"%s\" runs the runtime now; unregister it after aclFinalize", name);
    else
        memset(r, 0, sizeof *r);
    pthread_mutex_unlock(&aclrt_rt.lifecycle_lock);
    return rc;
}

#endif /* ACLRT_IMPL_RUNTIME_BACKEND_REGISTRY_H */

/*
 * impl/runtime/hooks.h - hook lists: user functions the runtime calls when something
 * happens (a task fails, a stream is created or destroyed, a device is set
 * or reset).
 *
 * Registration is rare and takes the list's mutex; firing copies the list
 * under the mutex and calls the copies after releasing it, so a hook may
 * register or unregister hooks (even itself) without deadlocking, and an
 * unregistered hook may still be called by a notification that had already
 * started, as the ACL documentation says. An empty list is one relaxed load.
 *
 * A hook is keyed by its name (stream/device state callbacks) or, without a
 * name, by its function pointer (exception callbacks).
 */
#ifndef ACLRT_IMPL_RUNTIME_HOOKS_H
#define ACLRT_IMPL_RUNTIME_HOOKS_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/thread.h"

#define ACLRT_HOOK_NAME_MAX 128 /* bytes, with the terminating NUL */

union aclrt_hook_fn {
    aclrtExceptionInfoCallback exception;
    aclrtStreamStateCallback stream_state;
    aclrtDeviceStateCallback device_state;
    aclrtDeviceTaskAbortCallback task_abort;
};

struct aclrt_hook {
    char name[ACLRT_HOOK_NAME_MAX]; /* "" for hooks keyed by function */
    union aclrt_hook_fn fn;
    void *args;
};

struct aclrt_hook_list {
    pthread_mutex_t lock;
    struct aclrt_hook *hooks;
    size_t cap;
    _Atomic size_t count; /* written under the lock; read unlocked only as an emptiness hint */
};

#define ACLRT_HOOK_LIST_INIT {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0}

/* The index of the hook with this key, or -1. Caller holds the lock. */
static ptrdiff_t aclrt_hook_find_locked(struct aclrt_hook_list *l, const char *name, union aclrt_hook_fn fn)
{
    size_t n = atomic_load_explicit(&l->count, memory_order_relaxed);
    for (size_t i = 0; i < n; i++) {
        const struct aclrt_hook *h = &l->hooks[i];
        if (name != NULL ? strcmp(h->name, name) == 0 : h->fn.exception == fn.exception)
            return (ptrdiff_t)i;
    }
    return -1;
}

/*
 * Add a hook. A hook with the same key is replaced when `replace`, else the
 * call fails with ACL_ERROR_RT_PARAM_INVALID ("already registered"). Returns
 * an ACL code (with message on failure).
 */
ACLRT_INTERNAL aclError aclrt_hook_add(struct aclrt_hook_list *l, const char *name, union aclrt_hook_fn fn,
                                       void *args, bool replace)
{
    if (name != NULL && strlen(name) >= ACLRT_HOOK_NAME_MAX)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "registration name is longer than %d bytes",
                          ACLRT_HOOK_NAME_MAX - 1);
    aclError rc = ACL_SUCCESS;
    pthread_mutex_lock(&l->lock);
    size_t n = atomic_load_explicit(&l->count, memory_order_relaxed);
    ptrdiff_t at = aclrt_hook_find_locked(l, name, fn);
    if (at >= 0 && !replace) {
        rc = aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "\"%s\" is already registered (unregister it first)", name);
    } else if (at < 0 && n == l->cap) {
        size_t cap = l->cap == 0 ? 4 : l->cap * 2;
        struct aclrt_hook *grown = (struct aclrt_hook *)realloc(l->hooks, cap * sizeof *grown);
        if (grown == NULL)
            rc = aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory registering a callback");
        else {
            l->hooks = grown;
            l->cap = cap;
        }
    }
    if (rc == ACL_SUCCESS) {
        struct aclrt_hook *h = &l->hooks[at >= 0 ? (size_t)at : n];
        snprintf(h->name, sizeof h->name, "%s", name != NULL ? name : "");
        h->fn = fn;
        h->args = args;
        if (at < 0)
            atomic_store_explicit(&l->count, n + 1, memory_order_relaxed);
    }
    pthread_mutex_unlock(&l->lock);
    return rc;
}

/* Remove the hook with this key; true if there was one. */
ACLRT_INTERNAL bool aclrt_hook_remove(struct aclrt_hook_list *l, const char *name, union aclrt_hook_fn fn)
{
    pthread_mutex_lock(&l->lock);
    ptrdiff_t at = aclrt_hook_find_locked(l, name, fn);
    if (at >= 0) {
        size_t n = atomic_load_explicit(&l->count, memory_order_relaxed) - 1;
        l->hooks[at] = l->hooks[n];
        atomic_store_explicit(&l->count, n, memory_order_relaxed);
    }
    pthread_mutex_unlock(&l->lock);
    return at >= 0;
}

/*
 * A copy of the list to call without the lock: `*out` is `buf` (room for
 * `cap` hooks) or, for longer lists, a malloc'ed array the caller frees when
 * it differs from `buf`. Returns the number of hooks copied.
 */
ACLRT_INTERNAL size_t aclrt_hook_snapshot(struct aclrt_hook_list *l, struct aclrt_hook *buf, size_t cap,
                                          struct aclrt_hook **out)
{
    *out = buf;
    if (atomic_load_explicit(&l->count, memory_order_relaxed) == 0)
        return 0;
    pthread_mutex_lock(&l->lock);
    size_t n = atomic_load_explicit(&l->count, memory_order_relaxed);
    if (n > cap) {
        struct aclrt_hook *big = (struct aclrt_hook *)malloc(n * sizeof *big);
        if (big != NULL)
            *out = big;
        else
            n = cap; /* out of memory: call the first ones */
    }
    memcpy(*out, l->hooks, n * sizeof **out);
    pthread_mutex_unlock(&l->lock);
    return n;
}

/* Forget every hook (aclFinalize). */
ACLRT_INTERNAL void aclrt_hook_clear(struct aclrt_hook_list *l)
{
    pthread_mutex_lock(&l->lock);
    free(l->hooks);
    l->hooks = NULL;
    l->cap = 0;
    atomic_store_explicit(&l->count, 0, memory_order_relaxed);
    pthread_mutex_unlock(&l->lock);
}

/* ------------------------------------------------------------------------
 * Stream and device state callbacks (aclrtRegStreamStateCallback,
 * aclrtRegDeviceStateCallback): keyed by name; a NULL callback unregisters.
 * They run on the thread making the create/destroy/set/reset call, before
 * (PRE) or after (POST) it.
 * ------------------------------------------------------------------------ */

static struct aclrt_hook_list aclrt_stream_state_hooks = ACLRT_HOOK_LIST_INIT;
static struct aclrt_hook_list aclrt_device_state_hooks = ACLRT_HOOK_LIST_INIT;
/* aclrtSetDeviceTaskAbortCallback's, by name; aclrtDeviceTaskAbort calls them (system/device_abort.h). */
static struct aclrt_hook_list aclrt_task_abort_hooks = ACLRT_HOOK_LIST_INIT;

#define ACLRT_HOOK_STACK 8

ACLRT_INTERNAL void aclrt_fire_stream_state(void *stream_handle, aclrtStreamState state)
{
    struct aclrt_hook buf[ACLRT_HOOK_STACK], *hooks;
    size_t n = aclrt_hook_snapshot(&aclrt_stream_state_hooks, buf, ACLRT_HOOK_STACK, &hooks);
    for (size_t i = 0; i < n; i++)
        hooks[i].fn.stream_state(stream_handle, state, hooks[i].args);
    if (hooks != buf)
        free(hooks);
}

ACLRT_INTERNAL void aclrt_fire_device_state(int32_t device, aclrtDeviceState state)
{
    struct aclrt_hook buf[ACLRT_HOOK_STACK], *hooks;
    size_t n = aclrt_hook_snapshot(&aclrt_device_state_hooks, buf, ACLRT_HOOK_STACK, &hooks);
    for (size_t i = 0; i < n; i++)
        hooks[i].fn.device_state(device, state, hooks[i].args);
    if (hooks != buf)
        free(hooks);
}

ACLRT_INTERNAL aclError aclrt_state_hook_register(struct aclrt_hook_list *l, const char *regName,
                                                  union aclrt_hook_fn fn, bool unregister, void *args)
{
    if (regName == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "regName is NULL");
    if (regName[0] == '\0')
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "regName is empty");
    if (unregister) {
        aclrt_hook_remove(l, regName, fn); /* an unknown name is not an error */
        return ACL_SUCCESS;
    }
    return aclrt_hook_add(l, regName, fn, args, false);
}

ACLRT_API aclError aclrtRegStreamStateCallback(const char *regName, aclrtStreamStateCallback callback, void *args)
{
    ACLRT_ENTER();
    union aclrt_hook_fn fn;
    fn.stream_state = callback;
    return aclrt_state_hook_register(&aclrt_stream_state_hooks, regName, fn, callback == NULL, args);
}

ACLRT_API aclError aclrtRegDeviceStateCallback(const char *regName, aclrtDeviceStateCallback callback, void *args)
{
    ACLRT_ENTER();
    union aclrt_hook_fn fn;
    fn.device_state = callback;
    return aclrt_state_hook_register(&aclrt_device_state_hooks, regName, fn, callback == NULL, args);
}

#endif /* ACLRT_IMPL_RUNTIME_HOOKS_H */

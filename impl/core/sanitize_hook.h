/*
 * impl/core/sanitize_hook.h - where the stream-ordering sanitizer
 * (impl/sanitize/) hears about what a program does: the task records its
 * streams get, the event records and waits that order streams, the host's
 * synchronizes, its own reads and writes of device memory, allocations and
 * frees.
 *
 * The calls sit in the layers that do these things, far below the
 * sanitizer, so they go through a table of functions: `aclrt_san` points at
 * it while the sanitizer is on (aclrt.sanitize, ACLRT_SANITIZE) and is NULL
 * otherwise. Off, a hook costs one load and a branch not taken. Which table
 * that is, is said where the implementation is assembled: aclrt.h writes
 * ACLRT_SANITIZER(&aclrt_san_ops), completing the tentative definition of
 * aclrt_san_table below, so the core never names the sanitizer.
 */
#ifndef ACLRT_IMPL_CORE_SANITIZE_HOOK_H
#define ACLRT_IMPL_CORE_SANITIZE_HOOK_H

#include "base.h"

struct aclrt_stream;
struct aclrt_task;

/* What a host access does to the bytes (also aclrtxDeclareAccess's modes). */
#define ACLRT_SAN_READ 1u
#define ACLRT_SAN_WRITE 2u

struct aclrt_san_ops {
    /* Task record t is about to be committed to s as task `number` (the stream's count, from 1). */
    void (*task)(struct aclrt_stream *s, const struct aclrt_task *t, uint64_t number);
    /* A record of `event` captured s's work up to task `target`. */
    void (*record)(struct aclrt_stream *s, uint64_t target, const void *event);
    /*
     * Whatever follows on `waiter` is ordered after task `target` of `on`;
     * waiter NULL: the calling thread (the host, or the task it runs).
     */
    void (*edge)(struct aclrt_stream *waiter, struct aclrt_stream *on, uint64_t target);
    /* The calling thread waited for every stream of device `device` (-1: of every device). */
    void (*edge_all)(int32_t device);
    /* The calling thread waited for the latest record of `key` (an IPC event's segment). */
    void (*edge_key)(const void *key);
    /* The calling thread reads or writes (ACLRT_SAN_*) n bytes at p, now. */
    void (*access)(const void *p, size_t n, unsigned mode);
    /* A block of memory came (`what` names the call) or went. */
    void (*alloc)(const void *p, size_t n, const char *what);
    void (*release)(const void *p);
    /* aclFinalize: report a summary; returns the exit status to leave with, or -1 to go on. */
    int (*finalize)(void);
    /* The runtime starts with the sanitizer on (ACLRT_SANITIZE_* bits): a clean slate. */
    void (*start)(uint32_t flags);
    /* In a forked child (its only thread): the sanitizer's lock made usable, what it knew forgotten. */
    void (*fork_child)(void);
};

/* The sanitizer's table: a tentative definition (none) that aclrt.h completes with ACLRT_SANITIZER. */
static const struct aclrt_san_ops *aclrt_san_table;

#define ACLRT_SANITIZER(ops) static const struct aclrt_san_ops *aclrt_san_table = (ops);

/*
 * The table while the sanitizer is on, else NULL. Set when the runtime
 * starts, before any stream exists (release; the hooks' acquire loads pair
 * with it).
 */
static _Atomic(const struct aclrt_san_ops *) aclrt_san;

/* Turn the sanitizer on (flags: ACLRT_SANITIZE_* bits) or off (0): the runtime's start, from its configuration. */
ACLRT_INLINE void aclrt_san_switch(uint32_t flags)
{
    const struct aclrt_san_ops *ops = flags != 0 ? aclrt_san_table : NULL;
    if (ops != NULL)
        ops->start(flags);
    atomic_store_explicit(&aclrt_san, ops, memory_order_release);
}

/* Call hook `op` of the sanitizer if it is on. */
#define ACLRT_SAN(op, ...)                                                                                  \
    do {                                                                                                   \
        const struct aclrt_san_ops *aclrt_san_ops_ = atomic_load_explicit(&aclrt_san, memory_order_acquire); \
        if (ACLRT_UNLIKELY(aclrt_san_ops_ != NULL))                                                        \
            aclrt_san_ops_->op(__VA_ARGS__);                                                               \
    } while (0)

#endif /* ACLRT_IMPL_CORE_SANITIZE_HOOK_H */

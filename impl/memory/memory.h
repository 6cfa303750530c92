/*
 * impl/memory/memory.h - device and pinned host memory: allocation, the registry
 * of allocations, and frees that wait for the work launched before them.
 *
 * Allocations are recorded in a registry (a table sorted by address), so that
 *   - aclrtFree / aclrtFreeHost of a pointer that is not a live allocation of
 *     the right kind is an error code, not heap corruption;
 *   - aclrtMemcpyAsync can tell pinned memory (ours) from pageable memory:
 *     with pageable memory it returns only after the copy is done, as the
 *     runtime documents;
 *   - a kernel launch can check that its arguments are device memory.
 * Allocating and freeing change it under a reader-writer lock, as do the
 * few readers that walk it whole. The lookups of one address, which launches
 * and copies make, take no lock: a sequence lock (the count is odd while a
 * writer changes the table; a lookup that saw it move looks again), every
 * entry read and written with atomics, and a table that grows into a new
 * one, the old one kept (never written again; their sizes add up to less
 * than the live table's), so a lookup never reads freed memory.
 * The host backend's "device" memory is host memory; the sizes and alignment
 * follow the runtime (64-byte aligned, rounded up). Sizes are checked here,
 * before anything rounds them (aclrt_mem_size_check).
 */
#ifndef ACLRT_IMPL_MEMORY_MEMORY_H
#define ACLRT_IMPL_MEMORY_MEMORY_H

#include "../core/base.h"
#include "../core/config.h"
#include "../core/error.h"
#include "../core/handle.h"
#include "../core/sanitize_hook.h"
#include "../core/seq.h"
#include "../core/thread.h"
#include "../../backends/backend.h"
#include "../runtime/runtime.h"
#include "../stream/snapshot_gate.h"
#include "../stream/stream.h"
#include "../context/context.h"

#include <sys/sysinfo.h>

enum aclrt_mem_kind {
    ACLRT_MEM_DEVICE = 1,
    ACLRT_MEM_HOST = 2,
    ACLRT_MEM_MAPPED = 3, /* physical memory mapped into a reserved range (vmm.h); device NULL: the host's */
    ACLRT_MEM_RUNTIME = 4, /* device memory the runtime owns (a model's condition, cond.h): aclrtFree refuses it */
    ACLRT_MEM_MANAGED = 5, /* aclrtMemAllocManaged (managed.h): pinned host memory of a device, freed by aclrtFree */
    ACLRT_MEM_IMPORTED = 6, /* device memory of another process opened by the backend's driver (ipc_mem.h): aclrtFree
                               refuses it, aclrtIpcMemClose ends it */
};

struct aclrt_allocation {
    uintptr_t base;
    size_t size;
    enum aclrt_mem_kind kind;
    struct aclrt_device *device;
};

/* The allocations sorted by base; a table is replaced by a larger one when it is full, never shrunk. */
struct aclrt_mem_table {
    size_t capacity;
    _Atomic size_t count;                /* <= capacity, always */
    struct aclrt_mem_table *retired_next; /* the tables it replaced (under the lock) */
    struct aclrt_allocation items[];
};

static struct {
    pthread_rwlock_t lock; /* writers, and the readers that walk the table */
    _Atomic uint64_t seq;  /* odd while a writer changes the table's entries (aclrt_mem_lookup) */
    _Atomic(struct aclrt_mem_table *) table; /* NULL until the first allocation */
    struct aclrt_mem_table *retired;         /* tables replaced by larger ones, kept (see the top of this file) */
    /* Mapped memory is owned by physmem.h, which sets this (under the lock) to release it all at aclFinalize. */
    void (*release_mapped)(void);
    /* Device memory per device and owner (aclrt_mem_usage), now and at its peak; under the lock. */
    struct aclrt_mem_usage {
        size_t current, peak;
    } usage[ACLRT_MAX_DEVICES][2];
} aclrt_mem = {.lock = PTHREAD_RWLOCK_INITIALIZER};

/* An entry's fields, read and written with atomics: lookups read them while a writer moves entries (relaxed). */
ACLRT_INLINE struct aclrt_allocation aclrt_mem_item_read(const struct aclrt_allocation *p)
{
    struct aclrt_allocation a;
    a.base = __atomic_load_n(&p->base, __ATOMIC_RELAXED);
    a.size = __atomic_load_n(&p->size, __ATOMIC_RELAXED);
    a.kind = __atomic_load_n(&p->kind, __ATOMIC_RELAXED);
    a.device = __atomic_load_n(&p->device, __ATOMIC_RELAXED);
    return a;
}

ACLRT_INLINE void aclrt_mem_item_write(struct aclrt_allocation *p, struct aclrt_allocation a)
{
    __atomic_store_n(&p->base, a.base, __ATOMIC_RELAXED);
    __atomic_store_n(&p->size, a.size, __ATOMIC_RELAXED);
    __atomic_store_n(&p->kind, a.kind, __ATOMIC_RELAXED);
    __atomic_store_n(&p->device, a.device, __ATOMIC_RELAXED);
}

/* The table now (under the lock; NULL: nothing was ever allocated) and its entry count. */
ACLRT_INLINE struct aclrt_mem_table *aclrt_mem_table_locked(size_t *count)
{
    struct aclrt_mem_table *t = atomic_load_explicit(&aclrt_mem.table, memory_order_relaxed);
    *count = t != NULL ? atomic_load_explicit(&t->count, memory_order_relaxed) : 0;
    return t;
}

/* A writer begins and ends a change of the table's entries (under the write lock). */
static void aclrt_mem_write_begin(void)
{
    uint64_t s = atomic_load_explicit(&aclrt_mem.seq, memory_order_relaxed);
    atomic_store_explicit(&aclrt_mem.seq, s + 1, memory_order_relaxed);
    /* Release fence: a lookup that reads an entry this change writes then sees the odd count (its acquire fence). */
    atomic_thread_fence(memory_order_release);
}

static void aclrt_mem_write_end(void)
{
    uint64_t s = atomic_load_explicit(&aclrt_mem.seq, memory_order_relaxed);
    /* Release: pairs with the lookup's acquire load of the count; the entries are written before. */
    atomic_store_explicit(&aclrt_mem.seq, s + 1, memory_order_release);
}

/* Which usage counter an allocation counts in: 0 the program's device memory, 1 the runtime's; -1 none. */
static int aclrt_mem_usage_slot(enum aclrt_mem_kind kind, const struct aclrt_device *dev)
{
    if (dev == NULL || dev->id >= ACLRT_MAX_DEVICES)
        return -1;
    return kind == ACLRT_MEM_DEVICE ? 0 : kind == ACLRT_MEM_RUNTIME ? 1 : -1;
}

/* Count an allocation in (sign 1) or out (-1) of its device's usage; under the write lock. */
static void aclrt_mem_usage_add(const struct aclrt_allocation *a, int sign)
{
    int slot = aclrt_mem_usage_slot(a->kind, a->device);
    if (slot < 0)
        return;
    struct aclrt_mem_usage *u = &aclrt_mem.usage[a->device->id][slot];
    if (sign > 0) {
        u->current += a->size;
        if (u->current > u->peak)
            u->peak = u->current;
    } else {
        u->current -= a->size;
    }
}

/* The device memory of `dev` in use now and at its peak: slot 0 the program's (aclrtMalloc), 1 the runtime's. */
ACLRT_INTERNAL void aclrt_mem_usage(const struct aclrt_device *dev, size_t current[2], size_t peak[2])
{
    pthread_rwlock_rdlock(&aclrt_mem.lock);
    for (int i = 0; i < 2; i++) {
        current[i] = aclrt_mem.usage[dev->id][i].current;
        peak[i] = aclrt_mem.usage[dev->id][i].peak;
    }
    pthread_rwlock_unlock(&aclrt_mem.lock);
}

/* Index of the first of the n entries of t with base > addr. */
ACLRT_INTERNAL size_t aclrt_mem_upper(const struct aclrt_mem_table *t, size_t n, uintptr_t addr)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (__atomic_load_n(&t->items[mid].base, __ATOMIC_RELAXED) <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/*
 * The allocation the calling thread's last lookup found, and the registry's
 * sequence count then (even; 0: none yet). While the count has not moved,
 * the registry is as that lookup read it, so an address inside the same
 * allocation has the same answer: a launch that passes the same arguments
 * again reads one count instead of searching.
 */
static _Thread_local struct {
    uint64_t seq;
    struct aclrt_allocation a;
} aclrt_mem_last ACLRT_TLS_MODEL;

/*
 * The allocation with the greatest base <= addr (*out: a copy), without a
 * lock: false if there is none. A sequence lock read (see the top of this
 * file): a lookup that overlapped a change looks again.
 */
static bool aclrt_mem_lookup(uintptr_t addr, struct aclrt_allocation *out)
{
    for (unsigned tries = 0;; tries++) {
        /* Acquire: pairs with the release store that ended the last change (aclrt_mem_write_end). */
        uint64_t s0 = atomic_load_explicit(&aclrt_mem.seq, memory_order_acquire);
        if (ACLRT_UNLIKELY(s0 & 1)) { /* a writer is at work: it holds the table for a few stores */
            if (tries % 64 == 63)
                sched_yield();
            else
                aclrt_cpu_relax();
            continue;
        }
        if (ACLRT_LIKELY(s0 == aclrt_mem_last.seq) && addr - aclrt_mem_last.a.base < aclrt_mem_last.a.size) {
            *out = aclrt_mem_last.a; /* no change since this thread found it (above) */
            return true;
        }
        /* Acquire: pairs with the release store that published the table; its entries come with it. */
        const struct aclrt_mem_table *t = atomic_load_explicit(&aclrt_mem.table, memory_order_acquire);
        bool found = false;
        if (t != NULL) {
            size_t at = aclrt_mem_upper(t, atomic_load_explicit(&t->count, memory_order_relaxed), addr);
            if (at > 0) {
                *out = aclrt_mem_item_read(&t->items[at - 1]);
                found = true;
            }
        }
        /* Acquire fence: the reads above come before the look at the count again (pairs with write_begin's fence). */
        atomic_thread_fence(memory_order_acquire);
        if (ACLRT_LIKELY(atomic_load_explicit(&aclrt_mem.seq, memory_order_relaxed) == s0)) {
            if (found && addr - out->base < out->size) {
                aclrt_mem_last.seq = s0;
                aclrt_mem_last.a = *out;
            }
            return found;
        }
    }
}

/* A table of twice the room, with t's n entries (NULL: no memory). */
static struct aclrt_mem_table *aclrt_mem_table_grow(const struct aclrt_mem_table *t, size_t n)
{
    size_t cap = t != NULL ? t->capacity * 2 : 64;
    struct aclrt_mem_table *g =
        (struct aclrt_mem_table *)malloc(sizeof *g + cap * sizeof g->items[0]);
    if (g == NULL)
        return NULL;
    g->capacity = cap;
    g->retired_next = NULL;
    for (size_t i = 0; i < n; i++) /* nobody sees g yet; t's entries change only under the lock we hold */
        aclrt_mem_item_write(&g->items[i], aclrt_mem_item_read(&t->items[i]));
    atomic_init(&g->count, n);
    return g;
}

ACLRT_INTERNAL bool aclrt_mem_register(uintptr_t base, size_t size, enum aclrt_mem_kind kind, struct aclrt_device *dev)
{
    pthread_rwlock_wrlock(&aclrt_mem.lock);
    size_t n;
    struct aclrt_mem_table *t = aclrt_mem_table_locked(&n);
    bool ok = true;
    if (t == NULL || n == t->capacity) {
        struct aclrt_mem_table *g = aclrt_mem_table_grow(t, n);
        if (g == NULL) {
            ok = false;
        } else {
            /* Release: pairs with the lookups' acquire load; a lookup still in t reads t, which stays as it is. */
            atomic_store_explicit(&aclrt_mem.table, g, memory_order_release);
            if (t != NULL) {
                t->retired_next = aclrt_mem.retired;
                aclrt_mem.retired = t;
            }
            t = g;
        }
    }
    if (ok) {
        size_t at = aclrt_mem_upper(t, n, base);
        struct aclrt_allocation a = {base, size, kind, dev};
        aclrt_mem_write_begin();
        for (size_t i = n; i > at; i--)
            aclrt_mem_item_write(&t->items[i], aclrt_mem_item_read(&t->items[i - 1]));
        aclrt_mem_item_write(&t->items[at], a);
        atomic_store_explicit(&t->count, n + 1, memory_order_relaxed);
        aclrt_mem_write_end();
        aclrt_mem_usage_add(&a, 1);
    }
    pthread_rwlock_unlock(&aclrt_mem.lock);
    if (ok)
        ACLRT_SAN(alloc, (const void *)base, size, aclrt_tls.api);
    if (ok && kind == ACLRT_MEM_MAPPED && aclrt_rt.backend != NULL && aclrt_rt.backend->mem_mapped != NULL)
        aclrt_rt.backend->mem_mapped((void *)base, size, true);
    return ok;
}

/* Remove the allocation that starts at `base` and has `kind`; false if there is none. */
ACLRT_INTERNAL bool aclrt_mem_unregister(uintptr_t base, enum aclrt_mem_kind kind, struct aclrt_allocation *out)
{
    pthread_rwlock_wrlock(&aclrt_mem.lock);
    size_t n;
    struct aclrt_mem_table *t = aclrt_mem_table_locked(&n);
    size_t at = t != NULL ? aclrt_mem_upper(t, n, base) : 0;
    bool found = at > 0 && t->items[at - 1].base == base && t->items[at - 1].kind == kind;
    if (found) {
        *out = t->items[at - 1];
        aclrt_mem_usage_add(out, -1);
        aclrt_mem_write_begin();
        for (size_t i = at; i < n; i++)
            aclrt_mem_item_write(&t->items[i - 1], aclrt_mem_item_read(&t->items[i]));
        atomic_store_explicit(&t->count, n - 1, memory_order_relaxed);
        aclrt_mem_write_end();
    }
    pthread_rwlock_unlock(&aclrt_mem.lock);
    if (found)
        ACLRT_SAN(release, (const void *)base);
    if (found && kind == ACLRT_MEM_MAPPED && aclrt_rt.backend != NULL && aclrt_rt.backend->mem_mapped != NULL)
        aclrt_rt.backend->mem_mapped((void *)out->base, out->size, false);
    return found;
}

/* The bytes of device memory allocated on `dev` and not freed (aclrtMalloc and the runtime's own). */
ACLRT_INTERNAL size_t aclrt_mem_device_bytes(const struct aclrt_device *dev)
{
    size_t bytes = 0, n;
    pthread_rwlock_rdlock(&aclrt_mem.lock);
    const struct aclrt_mem_table *t = aclrt_mem_table_locked(&n);
    for (size_t i = 0; i < n; i++) {
        const struct aclrt_allocation *a = &t->items[i];
        if (a->device == dev && (a->kind == ACLRT_MEM_DEVICE || a->kind == ACLRT_MEM_RUNTIME))
            bytes += a->size;
    }
    pthread_rwlock_unlock(&aclrt_mem.lock);
    return bytes;
}

/* The allocation that holds the byte at addr, if any (*out: a copy of its entry). */
ACLRT_INTERNAL bool aclrt_mem_find(const void *addr, struct aclrt_allocation *out)
{
    uintptr_t a = (uintptr_t)addr;
    struct aclrt_allocation e;
    if (!aclrt_mem_lookup(a, &e) || a - e.base >= e.size)
        return false;
    *out = e;
    return true;
}

/* Does [addr, addr+len) lie inside one of our allocations (pinned)? */
ACLRT_INTERNAL bool aclrt_mem_is_ours(const void *addr, size_t len)
{
    uintptr_t a = (uintptr_t)addr;
    struct aclrt_allocation e;
    return aclrt_mem_lookup(a, &e) && a - e.base + len <= e.size;
}

/* The device whose memory (aclrtMalloc, or mapped device memory) holds [addr, addr+len), or NULL (not ours). */
ACLRT_INTERNAL struct aclrt_device *aclrt_mem_device_of(const void *addr, size_t len)
{
    uintptr_t a = (uintptr_t)addr;
    struct aclrt_allocation e;
    if (aclrt_mem_lookup(a, &e) && e.kind != ACLRT_MEM_HOST && a - e.base + len <= e.size)
        return e.device;
    return NULL;
}

/*
 * A free waits for the work launched before it. aclrtFree and aclrtFreeHost
 * return at once, as in the runtime, but a task launched earlier may still
 * read or write the memory (CANN's samples launch a kernel, then free what
 * it reads without synchronizing; a device has dispatched the kernel by
 * then). The allocation leaves the registry at once (a second free, or a
 * copy, no longer knows it), and its memory goes back only when every
 * stream that had unfinished work at the free has completed that work:
 * checked at the next allocation or free, and at aclFinalize, which returns
 * it all. Counts never go back (stream.h), so a stream destroyed meanwhile
 * is waited for through its slot's count, which reaches the target when its
 * last task completes or is discarded.
 */
struct aclrt_mem_fence {
    struct aclrt_stream *s;
    uint64_t target;
};

struct aclrt_mem_deferred {
    struct aclrt_mem_deferred *next;
    struct aclrt_allocation a;
    void (*release)(void *arg); /* not NULL: called instead of freeing `a` (aclrt_mem_after_work) */
    void *release_arg;
    size_t fences;
    struct aclrt_mem_fence fence[];
};

static struct {
    pthread_mutex_t lock;
    struct aclrt_mem_deferred *head; /* under the lock */
    _Atomic size_t count;            /* written under the lock; read without it as a hint */
} aclrt_mem_deferred = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Pinned host memory: the backend's, or 64-byte aligned host memory. */
ACLRT_INTERNAL aclError aclrt_host_alloc(size_t size, void **out)
{
    const struct aclrt_backend *b = aclrt_rt.backend; /* NULL before the runtime first starts */
    if (b != NULL && b->host_alloc != NULL)
        return b->host_alloc(size, out);
    if (size > SIZE_MAX - 64)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    *out = aligned_alloc(64, (size + 63) & ~(size_t)63);
    return *out != NULL ? ACL_SUCCESS : ACL_ERROR_RT_MEMORY_ALLOCATION;
}

ACLRT_INTERNAL void aclrt_host_free(void *p)
{
    const struct aclrt_backend *b = aclrt_rt.backend;
    if (b != NULL && b->host_free != NULL)
        b->host_free(p);
    else
        free(p);
}

static void aclrt_mem_release(const struct aclrt_allocation *a)
{
    if (a->kind == ACLRT_MEM_DEVICE || a->kind == ACLRT_MEM_RUNTIME)
        aclrt_rt.backend->mem_free(a->device, (void *)a->base);
    else if (a->kind == ACLRT_MEM_HOST || a->kind == ACLRT_MEM_MANAGED)
        aclrt_host_free((void *)a->base);
}

static bool aclrt_mem_fences_passed(const struct aclrt_mem_deferred *d)
{
    for (size_t i = 0; i < d->fences; i++)
        if (!aclrt_seq_reached(&d->fence[i].s->completed, d->fence[i].target))
            return false;
    return true;
}

/* Return the deferred frees whose work is done (all of them: `all`, at aclFinalize, after teardown). */
static void aclrt_mem_reap(bool all)
{
    if (!all && atomic_load_explicit(&aclrt_mem_deferred.count, memory_order_relaxed) == 0)
        return; /* a hint only: a free being deferred right now is reaped by a later call */
    struct aclrt_mem_deferred *done = NULL;
    pthread_mutex_lock(&aclrt_mem_deferred.lock);
    for (struct aclrt_mem_deferred **at = &aclrt_mem_deferred.head; *at != NULL;) {
        struct aclrt_mem_deferred *d = *at;
        if (all || aclrt_mem_fences_passed(d)) {
            *at = d->next;
            atomic_store_explicit(&aclrt_mem_deferred.count,
                                  atomic_load_explicit(&aclrt_mem_deferred.count, memory_order_relaxed) - 1,
                                  memory_order_relaxed);
            d->next = done;
            done = d;
        } else {
            at = &d->next;
        }
    }
    pthread_mutex_unlock(&aclrt_mem_deferred.lock);
    while (done != NULL) {
        struct aclrt_mem_deferred *d = done;
        done = d->next;
        if (d->release != NULL)
            d->release(d->release_arg);
        else
            aclrt_mem_release(&d->a);
        free(d);
    }
}

/*
 * Free an allocation that has left the registry (a), or call release(arg)
 * (release not NULL: memory of another kind, an IPC import's mapping): now
 * if no stream has unfinished work, else once the work of that moment is
 * done.
 */
ACLRT_INTERNAL void aclrt_mem_after_work(const struct aclrt_allocation *a, void (*release)(void *arg), void *arg)
{
    /*
     * Every slot of the stream table, alive or not: a stream destroyed with
     * aclrtDestroyStreamForce still runs what it was given. The counts are
     * atomics that a new life of the slot continues, never rewinds, so
     * reading them races with nothing.
     */
    /* Acquire: pairs with the release that grew the table (handle.h). */
    uint32_t n = atomic_load_explicit(&aclrt_streams.high_water, memory_order_acquire);
    struct aclrt_mem_fence buf[32], *fence = buf;
    size_t busy = 0, cap = sizeof buf / sizeof buf[0];
    for (uint32_t i = 0; i < n; i++) {
        struct aclrt_stream *s = (struct aclrt_stream *)(void *)aclrt_table_slot(&aclrt_streams, i);
        if (s == NULL)
            continue;
        uint64_t submitted = aclrt_stream_submitted(s);
        if (aclrt_stream_reached(s, submitted)) /* the count, or a device's word */
            continue;
        if (busy == cap) {
            struct aclrt_mem_fence *more =
                (struct aclrt_mem_fence *)malloc(2 * cap * sizeof *more);
            if (more == NULL)
                break; /* the fences so far; the rest of the work is not waited for */
            memcpy(more, fence, busy * sizeof *more);
            if (fence != buf)
                free(fence);
            fence = more;
            cap *= 2;
        }
        fence[busy++] = (struct aclrt_mem_fence){s, submitted};
    }
    struct aclrt_mem_deferred *d = NULL;
    if (busy > 0 && (d = (struct aclrt_mem_deferred *)malloc(sizeof *d + busy * sizeof d->fence[0])) != NULL) {
        if (a != NULL)
            d->a = *a;
        d->release = release;
        d->release_arg = arg;
        d->fences = busy;
        memcpy(d->fence, fence, busy * sizeof *fence);
        pthread_mutex_lock(&aclrt_mem_deferred.lock);
        d->next = aclrt_mem_deferred.head;
        aclrt_mem_deferred.head = d;
        atomic_store_explicit(&aclrt_mem_deferred.count,
                              atomic_load_explicit(&aclrt_mem_deferred.count, memory_order_relaxed) + 1,
                              memory_order_relaxed);
        pthread_mutex_unlock(&aclrt_mem_deferred.lock);
    }
    if (fence != buf)
        free(fence);
    if (d == NULL && release != NULL)
        release(arg); /* nothing unfinished (or no memory to defer it: released now, as before) */
    else if (d == NULL)
        aclrt_mem_release(a);
    aclrt_mem_reap(false);
}

ACLRT_INTERNAL void aclrt_mem_free_after_work(const struct aclrt_allocation *a)
{
    aclrt_mem_after_work(a, NULL, NULL);
}

/* Free everything still allocated (aclFinalize). */
ACLRT_INTERNAL void aclrt_mem_release_all(void)
{
    aclrt_mem_reap(true);
    pthread_rwlock_wrlock(&aclrt_mem.lock);
    size_t n;
    struct aclrt_mem_table *t = aclrt_mem_table_locked(&n);
    for (size_t i = 0; i < n; i++)
        aclrt_mem_release(&t->items[i]);
    if (t != NULL) { /* the table stays, empty, for a later aclInit (a lookup may still be in it) */
        aclrt_mem_write_begin();
        atomic_store_explicit(&t->count, 0, memory_order_relaxed);
        aclrt_mem_write_end();
    }
    memset(aclrt_mem.usage, 0, sizeof aclrt_mem.usage);
    void (*release_mapped)(void) = aclrt_mem.release_mapped;
    pthread_rwlock_unlock(&aclrt_mem.lock);
    if (release_mapped != NULL)
        release_mapped(); /* physical memory, reservations and their mappings */
}

/*
 * Size limits, checked before any rounding. Rounding a size up (here: to 64
 * bytes; in the host backend's mem_alloc: to 32, plus 32, then to 64, at
 * most 126 bytes more) wraps around near SIZE_MAX, and a wrapped size is a
 * tiny allocation that succeeds: no size above SIZE_MAX - ACLRT_MEM_ROUND_MAX
 * ever reaches an allocator. Sizes from ACLRT_MEM_SYSINFO_FROM on must also
 * fit in the machine's memory, RAM plus swap (sysinfo): the kernel's default
 * overcommit heuristic refuses larger ones too, but with overcommit "always"
 * the kernel would grant them, and the sanitizers' allocators abort the
 * program instead of failing. Smaller sizes skip the system call: every
 * machine has that much.
 */
#define ACLRT_MEM_ROUND_MAX 128u
#define ACLRT_MEM_SYSINFO_FROM ((size_t)64 << 20)

/* RAM + swap in bytes, saturating; 0 if the system does not say. */
static uint64_t aclrt_mem_machine_bytes(void)
{
    struct sysinfo si;
    if (sysinfo(&si) != 0)
        return 0;
    uint64_t unit = si.mem_unit != 0 ? si.mem_unit : 1;
    uint64_t units = (uint64_t)si.totalram + (uint64_t)si.totalswap;
    if (units < (uint64_t)si.totalram || units > UINT64_MAX / unit)
        return UINT64_MAX;
    return units * unit;
}

/* ACL_ERROR_RT_MEMORY_ALLOCATION (with message) for a size no allocation can have; `what` names the memory. */
ACLRT_INTERNAL aclError aclrt_mem_size_check(size_t size, const char *what)
{
    if (size > SIZE_MAX - ACLRT_MEM_ROUND_MAX)
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "cannot allocate %zu bytes of %s: no address space is that large",
                          size, what);
    if (size >= ACLRT_MEM_SYSINFO_FROM) {
        uint64_t machine = aclrt_mem_machine_bytes();
        if (machine != 0 && (uint64_t)size > machine)
            return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION,
                              "cannot allocate %zu bytes of %s: more than this machine's memory (RAM + swap: %llu bytes)",
                              size, what, (unsigned long long)machine);
    }
    return ACL_SUCCESS;
}

/* aclrtMalloc and its variants (alloc_variants.h): `size` bytes of the current device's memory. */
ACLRT_INTERNAL aclError aclrt_malloc_device(void **devPtr, size_t size)
{
    if (devPtr == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "devPtr (output) is NULL");
    if (size == 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "size is 0");
    if (size > SIZE_MAX - 64) /* the ACL layer's own check: rounding up to 32 plus 32 bytes would overflow */
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "size %zu is too large (rounding it up overflows)", size);
    struct aclrt_context *ctx;
    aclError rc = aclrt_current_context(&ctx);
    if (rc != ACL_SUCCESS)
        return rc;
    if ((rc = aclrt_mem_size_check(size, "device memory")) != ACL_SUCCESS)
        return rc;
    aclrt_mem_reap(false);
    void *p;
    if (aclrt_rt.backend->mem_alloc(ctx->device, size, &p) != ACL_SUCCESS)
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "cannot allocate %zu bytes of device memory", size);
    if (!aclrt_mem_register((uintptr_t)p, size, ACLRT_MEM_DEVICE, ctx->device)) {
        aclrt_rt.backend->mem_free(ctx->device, p);
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory recording an allocation");
    }
    *devPtr = p;
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    ACLRT_ENTER();
    (void)policy; /* page-size policies have no meaning for host memory; unknown ones are accepted, as in the runtime */
    aclrt_snapshot_gate(); /* a locked process allocates after its snapshot (snapshot_gate.h) */
    return aclrt_malloc_device(devPtr, size);
}

ACLRT_API aclError aclrtFree(void *devPtr)
{
    ACLRT_ENTER();
    if (devPtr == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "devPtr is NULL");
    aclrt_snapshot_gate();
    struct aclrt_allocation a;
    if (!aclrt_mem_unregister((uintptr_t)devPtr, ACLRT_MEM_DEVICE, &a) &&
        !aclrt_mem_unregister((uintptr_t)devPtr, ACLRT_MEM_MANAGED, &a))
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "%p was not returned by aclrtMalloc or aclrtMemAllocManaged (or was already freed)", devPtr);
    aclrt_mem_free_after_work(&a);
    return ACL_SUCCESS;
}

/* aclrtMallocHost and aclrtMallocHostWithCfg: `size` bytes of pinned host memory. */
ACLRT_INTERNAL aclError aclrt_malloc_host(void **hostPtr, size_t size)
{
    if (hostPtr == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "hostPtr (output) is NULL");
    if (size == 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "size is 0");
    aclError rc = aclrt_mem_size_check(size, "host memory");
    if (rc != ACL_SUCCESS)
        return rc;
    aclrt_mem_reap(false);
    void *p;
    if (aclrt_host_alloc(size, &p) != ACL_SUCCESS)
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "cannot allocate %zu bytes of host memory", size);
    if (!aclrt_mem_register((uintptr_t)p, size, ACLRT_MEM_HOST, NULL)) {
        aclrt_host_free(p);
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory recording an allocation");
    }
    *hostPtr = p;
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtMallocHost(void **hostPtr, size_t size)
{
    ACLRT_ENTER();
    return aclrt_malloc_host(hostPtr, size);
}

ACLRT_API aclError aclrtFreeHost(void *hostPtr)
{
    ACLRT_ENTER();
    if (hostPtr == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "hostPtr is NULL");
    struct aclrt_allocation a;
    if (!aclrt_mem_unregister((uintptr_t)hostPtr, ACLRT_MEM_HOST, &a))
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "%p was not returned by aclrtMallocHost (or was already freed)", hostPtr);
    aclrt_mem_free_after_work(&a);
    return ACL_SUCCESS;
}

#endif /* ACLRT_IMPL_MEMORY_MEMORY_H */

/*
 * impl/core/registry.h - registries: names that map to objects (report threads
 * by thread id, HCOM groups by name), in liburcu's lock-free hash table
 * (rculfhash) with the "bulletproof" RCU flavour, which needs no per-thread
 * registration: any thread of the user's program may look up.
 *
 *   - Lookups are lock-free: aclrt_rcu_read_lock(), aclrt_registry_find(),
 *     use the object, aclrt_rcu_read_unlock(). An object found inside the
 *     read section stays valid until the section ends.
 *   - Changes are rare (subscribe, create a group) and serialize on the
 *     registry's own mutex; a removed node is freed only after
 *     aclrt_registry_remove() has waited for a grace period, so no reader
 *     still holds it.
 *
 * ThreadSanitizer does not see liburcu's synchronization (an uninstrumented
 * library), so the hand-offs are stated: a node's contents are released
 * before it is added and acquired after it is found; readers release at the
 * end of their section and the remover acquires after the grace period.
 */
#ifndef ACLRT_IMPL_CORE_REGISTRY_H
#define ACLRT_IMPL_CORE_REGISTRY_H

#include "base.h"

#include <urcu/urcu-bp.h>
#include <urcu/rculfhash.h>

#define ACLRT_REGISTRY_BUCKETS 1024 /* a power of two */

/* Every registered object starts with this. */
struct aclrt_registry_node {
    struct cds_lfht_node node;
    uint64_t hash;
};

struct aclrt_registry {
    struct cds_lfht *table; /* NULL until the first add */
    pthread_mutex_t lock;   /* adders and removers */
};

#define ACLRT_REGISTRY_INIT {NULL, PTHREAD_MUTEX_INITIALIZER}

/* Is this node the one `key` names? */
typedef bool (*aclrt_registry_match_fn)(const struct aclrt_registry_node *node, const void *key);

/* The address readers release and removers acquire (see the top of this file). */
static char aclrt_rcu_tsan_token;

ACLRT_INLINE void aclrt_rcu_read_lock(void)
{
    urcu_bp_read_lock();
}

ACLRT_INLINE void aclrt_rcu_read_unlock(void)
{
    ACLRT_TSAN_RELEASE(&aclrt_rcu_tsan_token);
    urcu_bp_read_unlock();
}

/* 64-bit FNV-1a, then a final mix: hashes for names and for integer ids. */
ACLRT_INLINE uint64_t aclrt_hash_bytes(const void *data, size_t n)
{
    const unsigned char *p = (const unsigned char *)data;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

struct aclrt_registry_match_ctx {
    aclrt_registry_match_fn match;
    const void *key;
};

static int aclrt_registry_match_thunk(struct cds_lfht_node *node, const void *arg)
{
    const struct aclrt_registry_match_ctx *m = (const struct aclrt_registry_match_ctx *)arg;
    struct aclrt_registry_node *candidate = caa_container_of(node, struct aclrt_registry_node, node);
    ACLRT_TSAN_ACQUIRE(candidate); /* the key is read before the lookup returns: pairs with the add's release */
    return m->match(candidate, m->key);
}

/* Inside a read section: the node `key` names, or NULL. */
ACLRT_INLINE struct aclrt_registry_node *aclrt_registry_find(struct aclrt_registry *r, uint64_t hash,
                                                             aclrt_registry_match_fn match, const void *key)
{
    /* Acquire: the table pointer is published by a release store in aclrt_registry_add. */
    struct cds_lfht *table = __atomic_load_n(&r->table, __ATOMIC_ACQUIRE);
    if (table == NULL)
        return NULL;
    struct aclrt_registry_match_ctx m = {match, key};
    struct cds_lfht_iter it;
    cds_lfht_lookup(table, (unsigned long)hash, aclrt_registry_match_thunk, &m, &it);
    struct cds_lfht_node *node = cds_lfht_iter_get_node(&it);
    if (node == NULL)
        return NULL;
    struct aclrt_registry_node *found = caa_container_of(node, struct aclrt_registry_node, node);
    ACLRT_TSAN_ACQUIRE(found); /* pairs with the release in aclrt_registry_add */
    return found;
}

/*
 * Add `node` unless a node with the same key is there; returns the node that
 * is registered afterwards (ours, or the one already there). NULL when the
 * table cannot be created. The caller holds r->lock (aclrt_registry_lock).
 */
ACLRT_INTERNAL struct aclrt_registry_node *aclrt_registry_add_locked(struct aclrt_registry *r,
                                                                     struct aclrt_registry_node *node,
                                                                     aclrt_registry_match_fn match, const void *key)
{
    if (r->table == NULL) {
        /*
         * A fixed size, no CDS_LFHT_AUTO_RESIZE: resizing runs on liburcu's
         * worker thread, which hands memory to and from the caller through
         * synchronization ThreadSanitizer cannot see (it reports the
         * worker's free of the caller's calloc as a race, in liburcu's own
         * code, where no annotation of ours can reach). Registries hold few
         * names (HCOM groups, report threads); 1024 buckets keep chains short.
         */
        struct cds_lfht *table = cds_lfht_new_flavor(ACLRT_REGISTRY_BUCKETS, ACLRT_REGISTRY_BUCKETS,
                                                     ACLRT_REGISTRY_BUCKETS, 0, &urcu_bp_flavor, NULL);
        if (table == NULL)
            return NULL;
        __atomic_store_n(&r->table, table, __ATOMIC_RELEASE); /* pairs with the acquire in aclrt_registry_find */
    }
    struct aclrt_registry_match_ctx m = {match, key};
    ACLRT_TSAN_RELEASE(node); /* pairs with the acquire in aclrt_registry_find */
    aclrt_rcu_read_lock();
    struct cds_lfht_node *got =
        cds_lfht_add_unique(r->table, (unsigned long)node->hash, aclrt_registry_match_thunk, &m, &node->node);
    aclrt_rcu_read_unlock();
    struct aclrt_registry_node *registered = caa_container_of(got, struct aclrt_registry_node, node);
    ACLRT_TSAN_ACQUIRE(registered);
    return registered;
}

ACLRT_INLINE void aclrt_registry_lock(struct aclrt_registry *r)
{
    pthread_mutex_lock(&r->lock);
}

ACLRT_INLINE void aclrt_registry_unlock(struct aclrt_registry *r)
{
    pthread_mutex_unlock(&r->lock);
}

/*
 * Remove a registered node (caller holds r->lock) and wait until no reader
 * can still see it: afterwards the caller may free it. Must not be called
 * inside a read section.
 */
ACLRT_INTERNAL void aclrt_registry_remove_locked(struct aclrt_registry *r, struct aclrt_registry_node *node)
{
    aclrt_rcu_read_lock();
    cds_lfht_del(r->table, &node->node);
    aclrt_rcu_read_unlock();
    urcu_bp_synchronize_rcu();
    ACLRT_TSAN_ACQUIRE(&aclrt_rcu_tsan_token);
}

/* Call visit(node, data) for every node (caller holds r->lock; visit must not remove nodes). */
ACLRT_INTERNAL void aclrt_registry_foreach_locked(struct aclrt_registry *r,
                                                  void (*visit)(struct aclrt_registry_node *node, void *data),
                                                  void *data)
{
    if (r->table == NULL)
        return;
    struct cds_lfht_iter it;
    aclrt_rcu_read_lock();
    for (cds_lfht_first(r->table, &it); cds_lfht_iter_get_node(&it) != NULL; cds_lfht_next(r->table, &it)) {
        struct aclrt_registry_node *n = caa_container_of(cds_lfht_iter_get_node(&it), struct aclrt_registry_node, node);
        ACLRT_TSAN_ACQUIRE(n);
        visit(n, data);
    }
    aclrt_rcu_read_unlock();
}

typedef void (*aclrt_registry_free_fn)(struct aclrt_registry_node *node);

/* Remove and free every node, then free the table (aclFinalize). */
ACLRT_INTERNAL void aclrt_registry_clear_locked(struct aclrt_registry *r, aclrt_registry_free_fn free_node)
{
    if (r->table == NULL)
        return;
    for (;;) {
        struct cds_lfht_iter it;
        aclrt_rcu_read_lock();
        cds_lfht_first(r->table, &it);
        struct cds_lfht_node *node = cds_lfht_iter_get_node(&it);
        aclrt_rcu_read_unlock();
        if (node == NULL)
            break;
        struct aclrt_registry_node *n = caa_container_of(node, struct aclrt_registry_node, node);
        aclrt_registry_remove_locked(r, n);
        free_node(n);
    }
    cds_lfht_destroy(r->table, NULL);
    __atomic_store_n(&r->table, NULL, __ATOMIC_RELEASE); /* finalize: nobody looks up meanwhile; release as at the add */
}

#endif /* ACLRT_IMPL_CORE_REGISTRY_H */

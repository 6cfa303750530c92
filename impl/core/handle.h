/*
 * impl/core/handle.h - handle tables: every object lives in a slot that never
 * moves, and the handle the user holds says which slot and which life of it.
 *
 * A handle is a 64-bit value (the user sees it as `void *`):
 *
 *     63      56 55  52 51            28 27                 0
 *     [ magic  ][ kind ][ generation    ][ slot index         ]
 *
 * Every entry point validates a handle (magic, kind, index in range,
 * generation equal to the slot's current one) before touching the object,
 * so a destroyed, stale or garbage handle gets an error code, never a crash:
 * slots are memory that stays valid for the life of the process, and a
 * freed slot's generation moves on, so old handles stop matching.
 *
 * Tables grow in chunks of ACLRT_TABLE_CHUNK slots; a chunk, once installed,
 * is never moved or freed. Free slots form a lock-free stack whose head
 * carries an ABA tag.
 *
 * Slot invariants:
 *   - `generation` is (life << 1) | alive, life counted modulo 2^24 (the
 *     handle's bits): a handle kept across 16 million reuses of its slot
 *     could match again; nothing else can.
 *   - alive slots are not on the free stack; dead ones are, or are about to
 *     be (a stream whose executor still holds it is pushed by the executor).
 */
#ifndef ACLRT_IMPL_CORE_HANDLE_H
#define ACLRT_IMPL_CORE_HANDLE_H

#include "base.h"

#define ACLRT_HANDLE_MAGIC 0xACull
#define ACLRT_HANDLE_INDEX_BITS 28
#define ACLRT_HANDLE_GEN_BITS 24
#define ACLRT_HANDLE_INDEX_MASK ((1ull << ACLRT_HANDLE_INDEX_BITS) - 1)
#define ACLRT_HANDLE_GEN_MASK ((1ull << ACLRT_HANDLE_GEN_BITS) - 1)

#define ACLRT_TABLE_CHUNK_SHIFT 8
#define ACLRT_TABLE_CHUNK (1u << ACLRT_TABLE_CHUNK_SHIFT)
#define ACLRT_TABLE_MAX_CHUNKS 4096 /* up to 1,048,576 slots per kind */

enum aclrt_kind {
    ACLRT_KIND_CONTEXT = 1,
    ACLRT_KIND_STREAM = 2,
    ACLRT_KIND_EVENT = 3,
    ACLRT_KIND_NOTIFY = 4,
    ACLRT_KIND_CNT_NOTIFY = 5,
    ACLRT_KIND_BINARY = 6,   /* binary.h */
    ACLRT_KIND_FUNCTION = 7, /* binary.h */
    ACLRT_KIND_ARGS = 8,     /* kernel_args.h */
    ACLRT_KIND_PARAM = 9,    /* kernel_args.h: a parameter of an args handle (no table of its own) */
    ACLRT_KIND_MODEL = 10,   /* model.h: aclmdlRI */
    ACLRT_KIND_LABEL = 11,   /* label.h: aclrtLabel */
    ACLRT_KIND_LABEL_LIST = 12, /* label.h: aclrtLabelList */
    ACLRT_KIND_MODEL_STREAM = 13, /* model_tasks.h: a captured model's stream (no table of its own) */
    ACLRT_KIND_MODEL_TASK = 14,   /* model_tasks.h: a model's task (no table of its own) */
    ACLRT_KIND_COND = 15,         /* model_cond.h: aclmdlRICondHandle (no table of its own) */
};

/* Every object struct starts with this header. */
struct aclrt_slot {
    _Atomic uint32_t generation; /* (life << 1) | alive */
    _Atomic uint32_t next_free;  /* free stack link: index + 1, 0 = end */
    uint32_t index;              /* position in the table, set once when the chunk is made */
};

struct aclrt_table {
    const char *name;
    uint32_t kind;
    uint32_t slot_size;
    _Atomic(unsigned char *) chunks[ACLRT_TABLE_MAX_CHUNKS];
    _Atomic uint64_t free_head;  /* (aba tag << 32) | (index + 1) */
    _Atomic uint32_t high_water; /* slots ever handed out */
};

#define ACLRT_TABLE_INIT(kind_, type_, name_) \
    { .name = (name_), .kind = (kind_), .slot_size = sizeof(type_) }

ACLRT_INLINE void *aclrt_handle_encode(uint32_t kind, uint32_t index, uint32_t life)
{
    uint64_t h = (ACLRT_HANDLE_MAGIC << 56) | ((uint64_t)kind << 52) |
                 (((uint64_t)life & ACLRT_HANDLE_GEN_MASK) << ACLRT_HANDLE_INDEX_BITS) | index;
    return (void *)(uintptr_t)h;
}

/* The slot at `index` of a table whose slots are `slot_size` bytes (a constant where the caller knows the type). */
ACLRT_INLINE struct aclrt_slot *aclrt_table_slot_sized(struct aclrt_table *t, uint32_t index, size_t slot_size)
{
    /* Acquire: pairs with the release CAS that installs the chunk. */
    unsigned char *chunk = atomic_load_explicit(&t->chunks[index >> ACLRT_TABLE_CHUNK_SHIFT],
                                                memory_order_acquire);
    if (ACLRT_UNLIKELY(chunk == NULL))
        return NULL;
    return (struct aclrt_slot *)(chunk + (size_t)(index & (ACLRT_TABLE_CHUNK - 1)) * slot_size);
}

ACLRT_INLINE struct aclrt_slot *aclrt_table_slot(struct aclrt_table *t, uint32_t index)
{
    return aclrt_table_slot_sized(t, index, t->slot_size);
}

/*
 * The object a handle names, or NULL if the handle is not a live object of
 * this table. Acquire on the generation pairs with the release in
 * aclrt_table_publish: a caller that sees the slot alive sees it initialised.
 */
ACLRT_INLINE void *aclrt_table_lookup(struct aclrt_table *t, const void *handle)
{
    uint64_t h = (uint64_t)(uintptr_t)handle;
    if (ACLRT_UNLIKELY((h >> 56) != ACLRT_HANDLE_MAGIC || ((h >> 52) & 0xF) != t->kind))
        return NULL;
    uint32_t index = (uint32_t)(h & ACLRT_HANDLE_INDEX_MASK);
    if (ACLRT_UNLIKELY(index >= atomic_load_explicit(&t->high_water, memory_order_acquire)))
        return NULL;
    struct aclrt_slot *slot = aclrt_table_slot(t, index);
    if (ACLRT_UNLIKELY(slot == NULL))
        return NULL;
    uint32_t want = (uint32_t)(((h >> ACLRT_HANDLE_INDEX_BITS) & ACLRT_HANDLE_GEN_MASK) << 1) | 1u;
    if (ACLRT_UNLIKELY(atomic_load_explicit(&slot->generation, memory_order_acquire) != want))
        return NULL;
    return slot;
}

/* Is a slot pointer (not a handle) still the same live object? */
ACLRT_INLINE bool aclrt_slot_alive(const struct aclrt_slot *slot, uint32_t generation)
{
    return atomic_load_explicit(&slot->generation, memory_order_acquire) == generation;
}

ACLRT_INLINE uint32_t aclrt_slot_index(const struct aclrt_slot *slot)
{
    return slot->index;
}

/* The handle of a live slot (the object's own generation). */
ACLRT_INLINE void *aclrt_slot_handle(const struct aclrt_table *t, const struct aclrt_slot *slot)
{
    uint32_t gen = atomic_load_explicit(&slot->generation, memory_order_relaxed);
    return aclrt_handle_encode(t->kind, aclrt_slot_index(slot), gen >> 1);
}

static bool aclrt_table_ensure_chunk(struct aclrt_table *t, uint32_t c)
{
    if (atomic_load_explicit(&t->chunks[c], memory_order_acquire) != NULL)
        return true;
    size_t bytes = (size_t)ACLRT_TABLE_CHUNK * t->slot_size;
    unsigned char *chunk = (unsigned char *)aligned_alloc(ACLRT_CACHELINE, bytes);
    if (chunk == NULL)
        return false;
    memset(chunk, 0, bytes);
    for (uint32_t i = 0; i < ACLRT_TABLE_CHUNK; i++) {
        struct aclrt_slot *s = (struct aclrt_slot *)(void *)(chunk + (size_t)i * t->slot_size);
        s->index = (c << ACLRT_TABLE_CHUNK_SHIFT) + i;
    }
    unsigned char *expected = NULL;
    /* Release: publishes the zeroed chunk; pairs with aclrt_table_slot. */
    if (!atomic_compare_exchange_strong_explicit(&t->chunks[c], &expected, chunk,
                                                 memory_order_release, memory_order_acquire))
        free(chunk); /* another thread installed it first */
    return true;
}

/*
 * Take a free slot (dead, zero or recycled contents; the caller initialises
 * it and then calls aclrt_table_publish). NULL when the table is full or
 * memory runs out (quotas are the caller's business). Lock-free: a CAS on the free stack head, or a
 * fetch-add on the high-water mark.
 */
ACLRT_INTERNAL struct aclrt_slot *aclrt_table_alloc(struct aclrt_table *t)
{
    /* Acquire: pairs with the release in aclrt_table_free, so next_free is current. */
    uint64_t head = atomic_load_explicit(&t->free_head, memory_order_acquire);
    while ((uint32_t)head != 0) {
        struct aclrt_slot *slot = aclrt_table_slot(t, (uint32_t)head - 1);
        uint64_t next = ((head >> 32) + 1) << 32 |
                        atomic_load_explicit(&slot->next_free, memory_order_relaxed);
        if (atomic_compare_exchange_weak_explicit(&t->free_head, &head, next,
                                                  memory_order_acquire, memory_order_acquire))
            return slot;
    }
    uint32_t index = atomic_load_explicit(&t->high_water, memory_order_relaxed);
    for (;;) {
        if (index >= (uint32_t)ACLRT_TABLE_MAX_CHUNKS * ACLRT_TABLE_CHUNK)
            return NULL;
        if (!aclrt_table_ensure_chunk(t, index >> ACLRT_TABLE_CHUNK_SHIFT))
            return NULL;
        if (atomic_compare_exchange_weak_explicit(&t->high_water, &index, index + 1,
                                                  memory_order_release, memory_order_relaxed))
            return aclrt_table_slot(t, index);
    }
}

/*
 * Make an initialised slot visible under a new life. Release: pairs with the
 * acquire in aclrt_table_lookup.
 */
ACLRT_INTERNAL void *aclrt_table_publish(struct aclrt_table *t, struct aclrt_slot *slot)
{
    uint32_t dead = atomic_load_explicit(&slot->generation, memory_order_relaxed) & ~1u;
    atomic_store_explicit(&slot->generation, dead | 1u, memory_order_release);
    return aclrt_handle_encode(t->kind, aclrt_slot_index(slot), dead >> 1);
}

/*
 * End the slot's life: its handle stops matching (the object may linger
 * until aclrt_table_free). Lives count modulo 2^24, the bits a handle has.
 */
ACLRT_INLINE void aclrt_table_retire(struct aclrt_slot *slot)
{
    uint32_t life = atomic_load_explicit(&slot->generation, memory_order_relaxed) >> 1;
    uint32_t next = (uint32_t)((life + 1) & ACLRT_HANDLE_GEN_MASK) << 1;
    /* Release: whoever sees the slot dead also sees the writes before retiring. */
    atomic_store_explicit(&slot->generation, next, memory_order_release);
}

/* Return a retired slot to the free stack. */
ACLRT_INTERNAL void aclrt_table_free(struct aclrt_table *t, struct aclrt_slot *slot)
{
    uint32_t index = aclrt_slot_index(slot);
    uint64_t head = atomic_load_explicit(&t->free_head, memory_order_relaxed);
    for (;;) {
        atomic_store_explicit(&slot->next_free, (uint32_t)head, memory_order_relaxed);
        uint64_t next = ((head >> 32) + 1) << 32 | (index + 1);
        /* Release: publishes next_free (and the dead object) to the next allocator. */
        if (atomic_compare_exchange_weak_explicit(&t->free_head, &head, next,
                                                  memory_order_release, memory_order_relaxed))
            return;
    }
}

/* Iterate over every slot ever handed out (alive or not). */
#define ACLRT_TABLE_FOREACH(t, type, var)                                                  \
    for (uint32_t var##_i = 0, var##_n = atomic_load_explicit(&(t)->high_water,           \
                                                              memory_order_acquire);       \
         var##_i < var##_n; var##_i++)                                                     \
        for (type *var = (type *)(void *)aclrt_table_slot((t), var##_i); var != NULL; var = NULL)

#endif /* ACLRT_IMPL_CORE_HANDLE_H */

/*
 * tests/test_allocator.c - pins "custom memory allocator" (docs/SEMANTICS.md,
 * Custom memory allocator): descriptors (create, destroy, the setters and
 * their checks), registration per stream (required parts, NULL and dead
 * streams, replacement, the copy it takes), aclrtAllocatorGetByStream and
 * aclrtAllocatorUnregister, stream handles that die or whose slot is reused,
 * aclFinalize, the CANN sample's flow (the program allocates through the
 * functions it gets back), and concurrent registrations and lookups.
 *
 * The callbacks are never called by the runtime; where a case calls them,
 * it does so itself, as the sample does.
 */
#define _POSIX_C_SOURCE 200809L

#include "check.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

static aclrtContext main_context;

/* ------------------------------------------------------------------------
 * Two allocators whose every callback is told apart by what it returns.
 * ------------------------------------------------------------------------ */

struct block {
    void *addr;
    size_t size;
};

struct counting_allocator {
    int allocs;
    int frees;
    int advised;
    size_t last_size;
    void *last_hint;
};

static void *alloc_a(aclrtAllocator allocator, size_t size)
{
    struct counting_allocator *state = (struct counting_allocator *)allocator;
    struct block *b = (struct block *)malloc(sizeof *b);
    if (b == NULL)
        return NULL;
    b->addr = malloc(size);
    if (b->addr == NULL) {
        free(b);
        return NULL;
    }
    b->size = size;
    state->allocs++;
    state->last_size = size;
    return b;
}

static void free_a(aclrtAllocator allocator, aclrtAllocatorBlock block)
{
    struct counting_allocator *state = (struct counting_allocator *)allocator;
    struct block *b = (struct block *)block;
    free(b->addr);
    free(b);
    state->frees++;
}

static void *alloc_advise_a(aclrtAllocator allocator, size_t size, aclrtAllocatorAddr addr)
{
    struct counting_allocator *state = (struct counting_allocator *)allocator;
    state->advised++;
    state->last_hint = addr;
    return alloc_a(allocator, size);
}

static void *get_addr_a(aclrtAllocatorBlock block)
{
    return ((struct block *)block)->addr;
}

/* The B family: never called; distinct bodies so that no two share an address. */
static void *alloc_b(aclrtAllocator allocator, size_t size)
{
    (void)allocator;
    return (void *)(uintptr_t)(size + 0xB1);
}

static void free_b(aclrtAllocator allocator, aclrtAllocatorBlock block)
{
    *(uintptr_t *)allocator = (uintptr_t)block; /* the last block freed */
}

static void *alloc_advise_b(aclrtAllocator allocator, size_t size, aclrtAllocatorAddr addr)
{
    (void)allocator;
    return (void *)((uintptr_t)addr + size + 0xB3);
}

static void *get_addr_b(aclrtAllocatorBlock block)
{
    return (void *)((uintptr_t)block + 0xB4);
}

static struct counting_allocator state_a;
static uintptr_t state_b;

/* A descriptor with the A (or B) family set, alloc-advise included. */
static aclrtAllocatorDesc full_desc(int family_b)
{
    aclrtAllocatorDesc d = aclrtAllocatorCreateDesc();
    CHECK(d != NULL);
    if (family_b) {
        CHECK_OK(aclrtAllocatorSetObjToDesc(d, &state_b));
        CHECK_OK(aclrtAllocatorSetAllocFuncToDesc(d, alloc_b));
        CHECK_OK(aclrtAllocatorSetFreeFuncToDesc(d, free_b));
        CHECK_OK(aclrtAllocatorSetAllocAdviseFuncToDesc(d, alloc_advise_b));
        CHECK_OK(aclrtAllocatorSetGetAddrFromBlockFuncToDesc(d, get_addr_b));
    } else {
        CHECK_OK(aclrtAllocatorSetObjToDesc(d, &state_a));
        CHECK_OK(aclrtAllocatorSetAllocFuncToDesc(d, alloc_a));
        CHECK_OK(aclrtAllocatorSetFreeFuncToDesc(d, free_a));
        CHECK_OK(aclrtAllocatorSetAllocAdviseFuncToDesc(d, alloc_advise_a));
        CHECK_OK(aclrtAllocatorSetGetAddrFromBlockFuncToDesc(d, get_addr_a));
    }
    return d;
}

struct got {
    aclrtAllocatorDesc desc;
    aclrtAllocator obj;
    aclrtAllocatorAllocFunc alloc;
    aclrtAllocatorFreeFunc free;
    aclrtAllocatorAllocAdviseFunc advise;
    aclrtAllocatorGetAddrFromBlockFunc get_addr;
};

static aclError get_all(aclrtStream s, struct got *g)
{
    memset(g, 0, sizeof *g);
    return aclrtAllocatorGetByStream(s, &g->desc, &g->obj, &g->alloc, &g->free, &g->advise, &g->get_addr);
}

/* Is `g` exactly the A (or B) family, registered from descriptor `d`? */
static int is_family(const struct got *g, aclrtAllocatorDesc d, int family_b)
{
    if (g->desc != d)
        return 0;
    if (family_b)
        return g->obj == (void *)&state_b && g->alloc == alloc_b && g->free == free_b &&
               g->advise == alloc_advise_b && g->get_addr == get_addr_b;
    return g->obj == (void *)&state_a && g->alloc == alloc_a && g->free == free_a && g->advise == alloc_advise_a &&
           g->get_addr == get_addr_a;
}

/* ------------------------------------------------------------------------
 * Descriptors
 * ------------------------------------------------------------------------ */

TEST(create_desc_returns_distinct_descriptors_each_destroyed_once)
{
    aclrtAllocatorDesc d1 = aclrtAllocatorCreateDesc();
    aclrtAllocatorDesc d2 = aclrtAllocatorCreateDesc();
    CHECK(d1 != NULL);
    CHECK(d2 != NULL);
    CHECK(d1 != d2);
    CHECK_OK(aclrtAllocatorDestroyDesc(d1));
    CHECK_OK(aclrtAllocatorDestroyDesc(d2));
    /* A destroyed descriptor is an error, not a double free. */
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtAllocatorDestroyDesc(d1));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "[aclrtAllocatorDestroyDesc]");
    /* Ids are not reused: a new descriptor is never equal to a destroyed one. */
    aclrtAllocatorDesc d3 = aclrtAllocatorCreateDesc();
    CHECK(d3 != NULL && d3 != d1 && d3 != d2);
    CHECK_OK(aclrtAllocatorDestroyDesc(d3));
}

TEST(destroy_desc_rejects_null_and_made_up_descriptors)
{
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtAllocatorDestroyDesc(NULL));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "allocatorDesc is NULL");
    int not_a_desc;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtAllocatorDestroyDesc(&not_a_desc));
    /* Shaped like a descriptor, never handed out. */
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtAllocatorDestroyDesc((aclrtAllocatorDesc)(uintptr_t)0xAD00000000123456ull));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "not a descriptor from aclrtAllocatorCreateDesc");
}

TEST(every_setter_rejects_a_null_descriptor)
{
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtAllocatorSetObjToDesc(NULL, &state_a));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "[aclrtAllocatorSetObjToDesc] allocatorDesc is NULL");
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtAllocatorSetAllocFuncToDesc(NULL, alloc_a));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "[aclrtAllocatorSetAllocFuncToDesc] allocatorDesc is NULL");
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtAllocatorSetFreeFuncToDesc(NULL, free_a));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "[aclrtAllocatorSetFreeFuncToDesc] allocatorDesc is NULL");
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtAllocatorSetAllocAdviseFuncToDesc(NULL, alloc_advise_a));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "[aclrtAllocatorSetAllocAdviseFuncToDesc] allocatorDesc is NULL");
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtAllocatorSetGetAddrFromBlockFuncToDesc(NULL, get_addr_a));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "[aclrtAllocatorSetGetAddrFromBlockFuncToDesc] allocatorDesc is NULL");
    /* Both NULL: the descriptor is named (the runtime checks it first). */
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtAllocatorSetAllocFuncToDesc(NULL, NULL));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "allocatorDesc is NULL");
}

TEST(every_setter_rejects_a_null_object_or_function_and_keeps_the_old_value)
{
    aclrtAllocatorDesc d = full_desc(0);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtAllocatorSetObjToDesc(d, NULL));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "the allocator is NULL");
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtAllocatorSetAllocFuncToDesc(d, NULL));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "the alloc function is NULL");
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtAllocatorSetFreeFuncToDesc(d, NULL));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "the free function is NULL");
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtAllocatorSetAllocAdviseFuncToDesc(d, NULL));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "the alloc-advise function is NULL");
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtAllocatorSetGetAddrFromBlockFuncToDesc(d, NULL));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "the get-address-from-block function is NULL");
    /* The refused calls changed nothing: the descriptor still registers as the A family. */
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    CHECK_OK(aclrtAllocatorRegister(s, d));
    struct got g;
    CHECK_OK(get_all(s, &g));
    CHECK(is_family(&g, d, 0));
    CHECK_OK(aclrtAllocatorUnregister(s));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtAllocatorDestroyDesc(d));
}

TEST(every_setter_rejects_a_destroyed_descriptor)
{
    aclrtAllocatorDesc d = aclrtAllocatorCreateDesc();
    CHECK(d != NULL);
    CHECK_OK(aclrtAllocatorDestroyDesc(d));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtAllocatorSetObjToDesc(d, &state_a));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtAllocatorSetAllocFuncToDesc(d, alloc_a));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtAllocatorSetFreeFuncToDesc(d, free_a));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtAllocatorSetAllocAdviseFuncToDesc(d, alloc_advise_a));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtAllocatorSetGetAddrFromBlockFuncToDesc(d, get_addr_a));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "(or was destroyed)");
}

/* ------------------------------------------------------------------------
 * Registration
 * ------------------------------------------------------------------------ */

TEST(register_rejects_a_null_stream_and_a_null_or_destroyed_descriptor)
{
    aclrtAllocatorDesc d = full_desc(0);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtAllocatorRegister(NULL, d));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "[aclrtAllocatorRegister] stream is NULL");
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtAllocatorRegister(s, NULL));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "allocatorDesc is NULL");
    CHECK_OK(aclrtAllocatorDestroyDesc(d));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtAllocatorRegister(s, d));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "(or was destroyed)");
    /* Nothing was registered by the refused calls. */
    aclrtAllocatorDesc out = NULL;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtAllocatorGetByStream(s, &out, NULL, NULL, NULL, NULL, NULL));
    CHECK(out == NULL);
    CHECK_OK(aclrtDestroyStream(s));
}

/* A descriptor with every part set except the one named. */
static aclrtAllocatorDesc desc_without(int part)
{
    aclrtAllocatorDesc d = aclrtAllocatorCreateDesc();
    CHECK(d != NULL);
    if (part != 0)
        CHECK_OK(aclrtAllocatorSetObjToDesc(d, &state_a));
    if (part != 1)
        CHECK_OK(aclrtAllocatorSetAllocFuncToDesc(d, alloc_a));
    if (part != 2)
        CHECK_OK(aclrtAllocatorSetFreeFuncToDesc(d, free_a));
    if (part != 3)
        CHECK_OK(aclrtAllocatorSetGetAddrFromBlockFuncToDesc(d, get_addr_a));
    if (part != 4)
        CHECK_OK(aclrtAllocatorSetAllocAdviseFuncToDesc(d, alloc_advise_a));
    return d;
}

TEST(register_rejects_a_descriptor_missing_a_required_part)
{
    static const char *const named[] = {"has no allocator", "has no alloc function", "has no free function",
                                        "has no get-address-from-block function"};
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    for (int part = 0; part < 4; part++) {
        aclrtAllocatorDesc d = desc_without(part);
        CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtAllocatorRegister(s, d));
        CHECK_STR_CONTAINS(aclGetRecentErrMsg(), named[part]);
        aclrtAllocatorDesc out = NULL;
        CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtAllocatorGetByStream(s, &out, NULL, NULL, NULL, NULL, NULL));
        CHECK_OK(aclrtAllocatorDestroyDesc(d));
    }
    /* A fresh descriptor misses everything: the allocator object is named first. */
    aclrtAllocatorDesc empty = aclrtAllocatorCreateDesc();
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtAllocatorRegister(s, empty));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "has no allocator");
    CHECK_OK(aclrtAllocatorDestroyDesc(empty));
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(register_without_alloc_advise_succeeds_and_get_returns_a_null_advise_function)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    aclrtAllocatorDesc d = desc_without(4);
    CHECK_OK(aclrtAllocatorRegister(s, d));
    struct got g;
    CHECK_OK(get_all(s, &g));
    CHECK(g.desc == d && g.obj == (void *)&state_a && g.alloc == alloc_a && g.free == free_a &&
          g.get_addr == get_addr_a);
    CHECK(g.advise == NULL);
    CHECK_OK(aclrtAllocatorUnregister(s));
    CHECK_OK(aclrtAllocatorDestroyDesc(d));
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(register_on_a_destroyed_or_made_up_stream_is_invalid_handle)
{
    aclrtAllocatorDesc d = full_desc(0);
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtAllocatorRegister(s, d));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "not a live stream");
    int not_a_stream;
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtAllocatorRegister(&not_a_stream, d));
    CHECK_OK(aclrtAllocatorDestroyDesc(d));
}

TEST(get_by_stream_returns_the_registered_descriptor_object_and_functions)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    aclrtAllocatorDesc d = full_desc(0);
    CHECK_OK(aclrtAllocatorRegister(s, d));
    struct got g;
    CHECK_OK(get_all(s, &g));
    CHECK(is_family(&g, d, 0));
    CHECK_OK(aclrtAllocatorUnregister(s));
    CHECK_OK(aclrtAllocatorDestroyDesc(d));
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(get_by_stream_needs_the_descriptor_output_and_fills_only_the_outputs_given)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    aclrtAllocatorDesc d = full_desc(0);
    CHECK_OK(aclrtAllocatorRegister(s, d));
    aclrtAllocator obj = NULL;
    aclrtAllocatorFreeFunc fr = NULL;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtAllocatorGetByStream(s, NULL, &obj, NULL, &fr, NULL, NULL));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "allocatorDesc (output) is NULL");
    CHECK(obj == NULL && fr == NULL);
    aclrtAllocatorDesc out = NULL;
    CHECK_OK(aclrtAllocatorGetByStream(s, &out, NULL, NULL, NULL, NULL, NULL));
    CHECK(out == d);
    CHECK_OK(aclrtAllocatorGetByStream(s, &out, &obj, NULL, &fr, NULL, NULL));
    CHECK(obj == (void *)&state_a && fr == free_a);
    CHECK_OK(aclrtAllocatorUnregister(s));
    CHECK_OK(aclrtAllocatorDestroyDesc(d));
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(get_and_unregister_reject_a_null_stream)
{
    aclrtAllocatorDesc out = NULL;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtAllocatorGetByStream(NULL, &out, NULL, NULL, NULL, NULL, NULL));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "[aclrtAllocatorGetByStream] stream is NULL");
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtAllocatorUnregister(NULL));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "[aclrtAllocatorUnregister] stream is NULL");
}

TEST(register_get_unregister_on_the_default_streams_handle)
{
    aclrtStream def = NULL;
    CHECK_OK(aclrtCtxGetCurrentDefaultStream(&def));
    CHECK(def != NULL);
    aclrtAllocatorDesc d = full_desc(1);
    CHECK_OK(aclrtAllocatorRegister(def, d));
    struct got g;
    CHECK_OK(get_all(def, &g));
    CHECK(is_family(&g, d, 1));
    /* NULL does not stand for the default stream here. */
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, get_all(NULL, &g));
    CHECK_OK(aclrtAllocatorUnregister(def));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, get_all(def, &g));
    CHECK_OK(aclrtAllocatorDestroyDesc(d));
}

TEST(registrations_are_per_stream)
{
    aclrtStream s1, s2, s3;
    CHECK_OK(aclrtCreateStream(&s1));
    CHECK_OK(aclrtCreateStream(&s2));
    CHECK_OK(aclrtCreateStream(&s3));
    aclrtAllocatorDesc da = full_desc(0), db = full_desc(1);
    CHECK_OK(aclrtAllocatorRegister(s1, da));
    CHECK_OK(aclrtAllocatorRegister(s2, db));
    struct got g;
    CHECK_OK(get_all(s1, &g));
    CHECK(is_family(&g, da, 0));
    CHECK_OK(get_all(s2, &g));
    CHECK(is_family(&g, db, 1));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, get_all(s3, &g));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "is not registered with any allocator");
    /* Unregistering one stream leaves the other. */
    CHECK_OK(aclrtAllocatorUnregister(s1));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, get_all(s1, &g));
    CHECK_OK(get_all(s2, &g));
    CHECK(is_family(&g, db, 1));
    CHECK_OK(aclrtAllocatorUnregister(s2));
    CHECK_OK(aclrtAllocatorDestroyDesc(da));
    CHECK_OK(aclrtAllocatorDestroyDesc(db));
    CHECK_OK(aclrtDestroyStream(s1));
    CHECK_OK(aclrtDestroyStream(s2));
    CHECK_OK(aclrtDestroyStream(s3));
}

TEST(registering_again_on_a_stream_replaces_the_registration)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    aclrtAllocatorDesc da = full_desc(0), db = full_desc(1);
    CHECK_OK(aclrtAllocatorRegister(s, da));
    CHECK_OK(aclrtAllocatorRegister(s, db));
    struct got g;
    CHECK_OK(get_all(s, &g));
    CHECK(is_family(&g, db, 1));
    CHECK_OK(aclrtAllocatorRegister(s, da));
    CHECK_OK(get_all(s, &g));
    CHECK(is_family(&g, da, 0));
    /* One registration, not a stack: one unregister removes it. */
    CHECK_OK(aclrtAllocatorUnregister(s));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, get_all(s, &g));
    CHECK_OK(aclrtAllocatorDestroyDesc(da));
    CHECK_OK(aclrtAllocatorDestroyDesc(db));
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(a_registration_is_a_copy_of_the_descriptor_taken_at_register)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    aclrtAllocatorDesc d = full_desc(0);
    CHECK_OK(aclrtAllocatorRegister(s, d));
    /* Changing the descriptor afterwards does not reach the registration... */
    CHECK_OK(aclrtAllocatorSetObjToDesc(d, &state_b));
    CHECK_OK(aclrtAllocatorSetAllocFuncToDesc(d, alloc_b));
    struct got g;
    CHECK_OK(get_all(s, &g));
    CHECK(is_family(&g, d, 0));
    /* ...nor does destroying it: the registration still answers, with the descriptor value it was given. */
    CHECK_OK(aclrtAllocatorDestroyDesc(d));
    CHECK_OK(get_all(s, &g));
    CHECK(is_family(&g, d, 0));
    CHECK_OK(aclrtAllocatorUnregister(s));
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(get_after_unregister_is_invalid_param_and_unregister_again_succeeds)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    /* A stream never registered: unregister does nothing and succeeds. */
    CHECK_OK(aclrtAllocatorUnregister(s));
    aclrtAllocatorDesc d = full_desc(0);
    CHECK_OK(aclrtAllocatorRegister(s, d));
    CHECK_OK(aclrtAllocatorUnregister(s));
    struct got g;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, get_all(s, &g));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "is not registered with any allocator");
    CHECK(g.desc == NULL && g.alloc == NULL); /* outputs untouched on failure */
    CHECK_OK(aclrtAllocatorUnregister(s));
    /* Registering after an unregister works again. */
    CHECK_OK(aclrtAllocatorRegister(s, d));
    CHECK_OK(get_all(s, &g));
    CHECK(is_family(&g, d, 0));
    CHECK_OK(aclrtAllocatorUnregister(s));
    CHECK_OK(aclrtAllocatorDestroyDesc(d));
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(get_on_a_destroyed_stream_is_invalid_handle_and_unregister_of_it_succeeds)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    aclrtAllocatorDesc d = full_desc(0);
    CHECK_OK(aclrtAllocatorRegister(s, d));
    CHECK_OK(aclrtDestroyStream(s)); /* without unregistering */
    struct got g;
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, get_all(s, &g));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "not a live stream");
    /* Documented: unregistering a stream that does not exist is a success. */
    CHECK_OK(aclrtAllocatorUnregister(s));
    CHECK_OK(aclrtAllocatorUnregister(s));
    int not_a_stream;
    CHECK_OK(aclrtAllocatorUnregister(&not_a_stream));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, get_all(&not_a_stream, &g));
    CHECK_OK(aclrtAllocatorDestroyDesc(d));
}

TEST(a_stream_created_in_a_destroyed_streams_slot_does_not_inherit_its_registration)
{
    aclrtStream old;
    CHECK_OK(aclrtCreateStream(&old));
    int32_t old_id = -1, new_id = -2;
    CHECK_OK(aclrtStreamGetId(old, &old_id));
    aclrtAllocatorDesc d = full_desc(0);
    CHECK_OK(aclrtAllocatorRegister(old, d));
    CHECK_OK(aclrtDestroyStream(old)); /* idle: its slot is free at once, and taken first by the next create */
    aclrtStream fresh;
    CHECK_OK(aclrtCreateStream(&fresh));
    CHECK_OK(aclrtStreamGetId(fresh, &new_id));
    CHECK_EQ(old_id, new_id); /* the same slot, so the case tests what it says */
    CHECK(fresh != old);      /* a new life of the slot: another handle */
    struct got g;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, get_all(fresh, &g));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "is not registered with any allocator");
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, get_all(old, &g));
    /* The new stream registers on its own, and the old handle's leftovers do not disturb it. */
    aclrtAllocatorDesc db = full_desc(1);
    CHECK_OK(aclrtAllocatorRegister(fresh, db));
    CHECK_OK(get_all(fresh, &g));
    CHECK(is_family(&g, db, 1));
    CHECK_OK(aclrtAllocatorUnregister(old)); /* the dead handle's entry only */
    CHECK_OK(get_all(fresh, &g));
    CHECK(is_family(&g, db, 1));
    CHECK_OK(aclrtAllocatorUnregister(fresh));
    CHECK_OK(aclrtAllocatorDestroyDesc(d));
    CHECK_OK(aclrtAllocatorDestroyDesc(db));
    CHECK_OK(aclrtDestroyStream(fresh));
}

struct other_thread_get {
    aclrtStream stream;
    aclError rc;
    struct got g;
};

static void *get_without_context_main(void *arg)
{
    struct other_thread_get *o = (struct other_thread_get *)arg;
    o->rc = get_all(o->stream, &o->g);
    return NULL;
}

TEST(a_stream_of_another_context_registers_and_any_thread_looks_it_up)
{
    aclrtContext other;
    CHECK_OK(aclrtCreateContext(&other, 0)); /* becomes current */
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    CHECK_OK(aclrtSetCurrentContext(main_context));
    aclrtAllocatorDesc d = full_desc(1);
    CHECK_OK(aclrtAllocatorRegister(s, d));
    /* A thread that never set a context. */
    struct other_thread_get o = {s, -1, {0}};
    pthread_t t;
    CHECK_EQ(0, pthread_create(&t, NULL, get_without_context_main, &o));
    pthread_join(t, NULL);
    CHECK_OK(o.rc);
    CHECK(is_family(&o.g, d, 1));
    CHECK_OK(aclrtAllocatorUnregister(s));
    CHECK_OK(aclrtAllocatorDestroyDesc(d));
    CHECK_OK(aclrtSetCurrentContext(other));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtDestroyContext(other));
    CHECK_OK(aclrtSetCurrentContext(main_context));
}

/* ------------------------------------------------------------------------
 * The CANN sample's flow
 * ------------------------------------------------------------------------ */

TEST(the_program_allocates_and_frees_through_the_functions_get_by_stream_returns)
{
    memset(&state_a, 0, sizeof state_a);
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    aclrtAllocatorDesc desc = full_desc(0);
    CHECK_OK(aclrtAllocatorRegister(s, desc));

    struct got g;
    CHECK_OK(get_all(s, &g));
    CHECK(g.alloc != NULL && g.free != NULL && g.get_addr != NULL && g.advise != NULL);
    aclrtAllocatorBlock block = g.alloc(g.obj, 256);
    CHECK(block != NULL);
    unsigned char *addr = (unsigned char *)g.get_addr(block);
    CHECK(addr != NULL);
    memset(addr, 0xAB, 256);
    CHECK_EQ(0xAB, addr[0]);
    CHECK_EQ(0xAB, addr[255]);
    static char hint;
    aclrtAllocatorBlock advised = g.advise(g.obj, 128, &hint);
    CHECK(advised != NULL);
    CHECK(g.get_addr(advised) != NULL && g.get_addr(advised) != (void *)addr);
    g.free(g.obj, advised);
    g.free(g.obj, block);

    /* Every call reached the allocator object that was registered. */
    CHECK_EQ(2, state_a.allocs);
    CHECK_EQ(2, state_a.frees);
    CHECK_EQ(1, state_a.advised);
    CHECK_EQ(128, state_a.last_size);
    CHECK(state_a.last_hint == (void *)&hint);
    CHECK(g.desc == desc);

    CHECK_OK(aclrtAllocatorUnregister(s));
    CHECK_OK(aclrtAllocatorDestroyDesc(desc));
    CHECK_OK(aclrtDestroyStream(s));
}

/* ------------------------------------------------------------------------
 * Concurrency
 * ------------------------------------------------------------------------ */

#define WRITER_ROUNDS 200

static struct {
    aclrtStream shared;
    aclrtAllocatorDesc da, db;
    atomic_int writers_left;
    atomic_int bad;
    atomic_long lookups;
} conc;

/* Register A and B in turn on the shared stream; also register and unregister an own stream. */
static void *conc_writer_main(void *arg)
{
    aclrtStream own = (aclrtStream)arg;
    struct got g;
    for (int i = 0; i < WRITER_ROUNDS; i++) {
        int b = i & 1;
        if (aclrtAllocatorRegister(conc.shared, b ? conc.db : conc.da) != ACL_SUCCESS)
            atomic_fetch_add(&conc.bad, 1);
        if (aclrtAllocatorRegister(own, b ? conc.da : conc.db) != ACL_SUCCESS)
            atomic_fetch_add(&conc.bad, 1);
        if (get_all(own, &g) != ACL_SUCCESS || !is_family(&g, b ? conc.da : conc.db, !b))
            atomic_fetch_add(&conc.bad, 1);
        if (aclrtAllocatorUnregister(own) != ACL_SUCCESS)
            atomic_fetch_add(&conc.bad, 1);
        if (get_all(own, &g) != ACL_ERROR_INVALID_PARAM)
            atomic_fetch_add(&conc.bad, 1);
    }
    atomic_fetch_sub(&conc.writers_left, 1);
    return NULL;
}

/* Every lookup on the shared stream finds a registration, and a whole one: A's parts or B's, never a mix. */
static void *conc_reader_main(void *arg)
{
    (void)arg;
    struct got g;
    do {
        if (get_all(conc.shared, &g) != ACL_SUCCESS ||
            !(is_family(&g, conc.da, 0) || is_family(&g, conc.db, 1)))
            atomic_fetch_add(&conc.bad, 1);
        atomic_fetch_add(&conc.lookups, 1);
    } while (atomic_load(&conc.writers_left) > 0);
    return NULL;
}

TEST(concurrent_registrations_and_lookups_see_whole_registrations)
{
    enum { WRITERS = 2, READERS = 2 };
    aclrtStream own[WRITERS];
    CHECK_OK(aclrtCreateStream(&conc.shared));
    for (int i = 0; i < WRITERS; i++)
        CHECK_OK(aclrtCreateStream(&own[i]));
    conc.da = full_desc(0);
    conc.db = full_desc(1);
    CHECK_OK(aclrtAllocatorRegister(conc.shared, conc.da)); /* registered all along */
    atomic_store(&conc.writers_left, WRITERS);
    atomic_store(&conc.bad, 0);
    atomic_store(&conc.lookups, 0);
    pthread_t w[WRITERS], r[READERS];
    for (int i = 0; i < READERS; i++)
        CHECK_EQ(0, pthread_create(&r[i], NULL, conc_reader_main, NULL));
    for (int i = 0; i < WRITERS; i++)
        CHECK_EQ(0, pthread_create(&w[i], NULL, conc_writer_main, own[i]));
    for (int i = 0; i < WRITERS; i++)
        pthread_join(w[i], NULL);
    for (int i = 0; i < READERS; i++)
        pthread_join(r[i], NULL);
    CHECK_EQ(0, atomic_load(&conc.bad));
    CHECK(atomic_load(&conc.lookups) >= READERS);
    struct got g;
    CHECK_OK(get_all(conc.shared, &g));
    CHECK(is_family(&g, conc.da, 0) || is_family(&g, conc.db, 1));
    CHECK_OK(aclrtAllocatorUnregister(conc.shared));
    CHECK_OK(aclrtAllocatorDestroyDesc(conc.da));
    CHECK_OK(aclrtAllocatorDestroyDesc(conc.db));
    for (int i = 0; i < WRITERS; i++)
        CHECK_OK(aclrtDestroyStream(own[i]));
    CHECK_OK(aclrtDestroyStream(conc.shared));
}

/* ------------------------------------------------------------------------
 * aclFinalize
 * ------------------------------------------------------------------------ */

TEST(registrations_end_with_finalize_and_descriptors_stay_usable)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    aclrtAllocatorDesc d = full_desc(0);
    CHECK_OK(aclrtAllocatorRegister(s, d));
    CHECK_OK(aclFinalize());
    CHECK_OK(aclInit(NULL));
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtGetCurrentContext(&main_context));
    struct got g;
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, get_all(s, &g));
    aclrtStream fresh;
    CHECK_OK(aclrtCreateStream(&fresh));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, get_all(fresh, &g));
    /* Descriptors are the program's: they outlive the runtime's registrations. */
    CHECK_OK(aclrtAllocatorRegister(fresh, d));
    CHECK_OK(get_all(fresh, &g));
    CHECK(is_family(&g, d, 0));
    CHECK_OK(aclrtAllocatorUnregister(fresh));
    CHECK_OK(aclrtAllocatorDestroyDesc(d));
    CHECK_OK(aclrtDestroyStream(fresh));
}

/* ------------------------------------------------------------------------
 * Runner
 * ------------------------------------------------------------------------ */

static void case_cleanup(void)
{
    aclrtSetCurrentContext(main_context);
    aclGetRecentErrMsg();
}

#define RUN_CASE(name)  \
    do {                \
        RUN(name);      \
        case_cleanup(); \
    } while (0)

int main(void)
{
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS ||
        aclrtGetCurrentContext(&main_context) != ACL_SUCCESS) {
        fprintf(stderr, "FAIL: cannot start the runtime: %s\n", aclGetRecentErrMsg());
        return 1;
    }

    RUN_CASE(create_desc_returns_distinct_descriptors_each_destroyed_once);
    RUN_CASE(destroy_desc_rejects_null_and_made_up_descriptors);
    RUN_CASE(every_setter_rejects_a_null_descriptor);
    RUN_CASE(every_setter_rejects_a_null_object_or_function_and_keeps_the_old_value);
    RUN_CASE(every_setter_rejects_a_destroyed_descriptor);

    RUN_CASE(register_rejects_a_null_stream_and_a_null_or_destroyed_descriptor);
    RUN_CASE(register_rejects_a_descriptor_missing_a_required_part);
    RUN_CASE(register_without_alloc_advise_succeeds_and_get_returns_a_null_advise_function);
    RUN_CASE(register_on_a_destroyed_or_made_up_stream_is_invalid_handle);
    RUN_CASE(get_by_stream_returns_the_registered_descriptor_object_and_functions);
    RUN_CASE(get_by_stream_needs_the_descriptor_output_and_fills_only_the_outputs_given);
    RUN_CASE(get_and_unregister_reject_a_null_stream);
    RUN_CASE(register_get_unregister_on_the_default_streams_handle);
    RUN_CASE(registrations_are_per_stream);
    RUN_CASE(registering_again_on_a_stream_replaces_the_registration);
    RUN_CASE(a_registration_is_a_copy_of_the_descriptor_taken_at_register);
    RUN_CASE(get_after_unregister_is_invalid_param_and_unregister_again_succeeds);
    RUN_CASE(get_on_a_destroyed_stream_is_invalid_handle_and_unregister_of_it_succeeds);
    RUN_CASE(a_stream_created_in_a_destroyed_streams_slot_does_not_inherit_its_registration);
    RUN_CASE(a_stream_of_another_context_registers_and_any_thread_looks_it_up);

    RUN_CASE(the_program_allocates_and_frees_through_the_functions_get_by_stream_returns);
    RUN_CASE(concurrent_registrations_and_lookups_see_whole_registrations);
    RUN_CASE(registrations_end_with_finalize_and_descriptors_stay_usable);

    if (check_failures == 0) {
        aclrtResetDevice(0);
        aclFinalize();
    }
    return check_report("allocator");
}

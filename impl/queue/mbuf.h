/*
 * impl/queue/mbuf.h - shared buffers (mbufs): heads over reference-counted
 * data areas, their user data, chains, and the acltdt* names for them.
 *
 * An mbuf handle is the address of its head (struct aclrt_mbuf). Every live
 * head is in one process-wide set, and every call looks its handle up there
 * under one lock before touching it, so a freed or garbage handle gets
 * ACL_ERROR_INVALID_PARAM, never a crash. Buffers are not a hot path: the
 * lock also orders the reference counts and the chain links.
 *
 * A head holds the valid length, the user data area and its chain links; a
 * data area is shared by the heads aclrtCopyBufRef made and is freed with
 * the last of them. A chain is a head (`owner` NULL) and the buffers
 * appended to it (`owner` the head), linked through `next`; only a head
 * that is no chain's member may be freed, and it frees its chain.
 */
#ifndef ACLRT_IMPL_QUEUE_MBUF_H
#define ACLRT_IMPL_QUEUE_MBUF_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/thread.h"

#define ACLRT_MBUF_MAX_SIZE (4ull << 30) /* a data area is at most 4 GiB */
#define ACLRT_MBUF_ALIGN 64u

struct aclrt_mbuf_area {
    uint32_t refs; /* heads over this area (under aclrt_mbufs.lock) */
    size_t size;
    unsigned char *data;
};

struct aclrt_mbuf {
    struct aclrt_mbuf_area *area;
    size_t len;                                  /* valid bytes, set by the user */
    unsigned char user[ACLRT_MBUF_USER_DATA_SIZE];
    struct aclrt_mbuf *next;                     /* the next buffer of the chain */
    struct aclrt_mbuf *owner;                    /* the chain's head, NULL for a head */
};

/* The live heads: an open-addressing set of pointers (NULL empty, 1 deleted). */
static struct {
    pthread_mutex_t lock;
    uintptr_t *slots;
    size_t cap, used; /* used counts deleted slots too */
} aclrt_mbufs = {.lock = PTHREAD_MUTEX_INITIALIZER};

#define ACLRT_MBUF_DELETED ((uintptr_t)1)

static size_t aclrt_mbuf_hash(uintptr_t p, size_t cap)
{
    uint64_t h = (uint64_t)p * 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 17) & (cap - 1);
}

static bool aclrt_mbuf_set_grow(void)
{
    size_t cap = aclrt_mbufs.cap ? aclrt_mbufs.cap * 2 : 64;
    uintptr_t *slots = (uintptr_t *)calloc(cap, sizeof *slots);
    if (slots == NULL)
        return false;
    size_t used = 0;
    for (size_t i = 0; i < aclrt_mbufs.cap; i++) {
        uintptr_t p = aclrt_mbufs.slots[i];
        if (p <= ACLRT_MBUF_DELETED)
            continue;
        size_t k = aclrt_mbuf_hash(p, cap);
        while (slots[k] != 0)
            k = (k + 1) & (cap - 1);
        slots[k] = p;
        used++;
    }
    free(aclrt_mbufs.slots);
    aclrt_mbufs.slots = slots;
    aclrt_mbufs.cap = cap;
    aclrt_mbufs.used = used;
    return true;
}

/* Under the lock. */
static bool aclrt_mbuf_set_add(struct aclrt_mbuf *m)
{
    if ((aclrt_mbufs.used + 1) * 2 > aclrt_mbufs.cap && !aclrt_mbuf_set_grow())
        return false;
    size_t k = aclrt_mbuf_hash((uintptr_t)m, aclrt_mbufs.cap);
    while (aclrt_mbufs.slots[k] > ACLRT_MBUF_DELETED)
        k = (k + 1) & (aclrt_mbufs.cap - 1);
    if (aclrt_mbufs.slots[k] == 0)
        aclrt_mbufs.used++;
    aclrt_mbufs.slots[k] = (uintptr_t)m;
    return true;
}

static size_t aclrt_mbuf_set_find(const void *p)
{
    if (aclrt_mbufs.cap == 0 || (uintptr_t)p <= ACLRT_MBUF_DELETED) /* NULL, or the deleted mark itself */
        return SIZE_MAX;
    size_t k = aclrt_mbuf_hash((uintptr_t)p, aclrt_mbufs.cap);
    while (aclrt_mbufs.slots[k] != 0) {
        if (aclrt_mbufs.slots[k] == (uintptr_t)p)
            return k;
        k = (k + 1) & (aclrt_mbufs.cap - 1);
    }
    return SIZE_MAX;
}

ACLRT_INTERNAL void aclrt_mbuf_lock(void)
{
    pthread_mutex_lock(&aclrt_mbufs.lock);
}

ACLRT_INTERNAL void aclrt_mbuf_unlock(void)
{
    pthread_mutex_unlock(&aclrt_mbufs.lock);
}

/* The live head a handle names, or NULL (under the lock). */
ACLRT_INTERNAL struct aclrt_mbuf *aclrt_mbuf_find(const void *handle)
{
    return aclrt_mbuf_set_find(handle) == SIZE_MAX ? NULL : (struct aclrt_mbuf *)(uintptr_t)handle;
}

/* A new lone head over `area` (taking one reference), or NULL (under the lock). */
static struct aclrt_mbuf *aclrt_mbuf_new_head(struct aclrt_mbuf_area *area)
{
    struct aclrt_mbuf *m = (struct aclrt_mbuf *)calloc(1, sizeof *m);
    if (m == NULL)
        return NULL;
    if (!aclrt_mbuf_set_add(m)) {
        free(m);
        return NULL;
    }
    m->area = area;
    area->refs++;
    return m;
}

/* A new buffer with a data area of `size` bytes, or NULL (under the lock). */
ACLRT_INTERNAL struct aclrt_mbuf *aclrt_mbuf_new(size_t size)
{
    struct aclrt_mbuf_area *a = (struct aclrt_mbuf_area *)calloc(1, sizeof *a);
    size_t bytes = (size + ACLRT_MBUF_ALIGN - 1) / ACLRT_MBUF_ALIGN * ACLRT_MBUF_ALIGN;
    unsigned char *data = a ? (unsigned char *)aligned_alloc(ACLRT_MBUF_ALIGN, bytes) : NULL;
    struct aclrt_mbuf *m = NULL;
    if (data != NULL) {
        memset(data, 0, bytes);
        a->size = size;
        a->data = data;
        m = aclrt_mbuf_new_head(a);
    }
    if (m == NULL) {
        free(data);
        free(a);
    }
    return m;
}

/* Drop one head (not its chain): out of the set, its area's reference with it. */
static void aclrt_mbuf_drop_one(struct aclrt_mbuf *m)
{
    size_t k = aclrt_mbuf_set_find(m);
    if (k != SIZE_MAX)
        aclrt_mbufs.slots[k] = ACLRT_MBUF_DELETED;
    if (--m->area->refs == 0) {
        free(m->area->data);
        free(m->area);
    }
    free(m);
}

/* Free a head and the buffers chained to it (under the lock). */
ACLRT_INTERNAL void aclrt_mbuf_free_chain(struct aclrt_mbuf *head)
{
    while (head != NULL) {
        struct aclrt_mbuf *next = head->next;
        aclrt_mbuf_drop_one(head);
        head = next;
    }
}

/* The head a public call names, or NULL after reporting it (under the lock). */
static struct aclrt_mbuf *aclrt_mbuf_arg(const void *handle, const char *what)
{
    struct aclrt_mbuf *m = aclrt_mbuf_find(handle);
    if (m == NULL)
        aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s %p is not a live buffer (from aclrtAllocBuf or aclrtCopyBufRef)",
                   what, handle);
    return m;
}

static aclError aclrt_mbuf_alloc(aclrtMbuf *buf, size_t size)
{
    if (buf == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "buf is NULL");
    if (size == 0 || size > ACLRT_MBUF_MAX_SIZE)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "size %zu is out of range (1 to 4 GiB)", size);
    aclrt_mbuf_lock();
    struct aclrt_mbuf *m = aclrt_mbuf_new(size);
    aclrt_mbuf_unlock();
    if (m == NULL)
        return aclrt_fail(ACL_ERROR_BAD_ALLOC, "no memory for a buffer of %zu bytes", size);
    *buf = m;
    return ACL_SUCCESS;
}

static aclError aclrt_mbuf_free_api(aclrtMbuf buf)
{
    aclError rc = ACL_SUCCESS;
    aclrt_mbuf_lock();
    struct aclrt_mbuf *m = aclrt_mbuf_arg(buf, "buf");
    if (m == NULL)
        rc = ACL_ERROR_INVALID_PARAM;
    else if (m->owner != NULL)
        rc = aclrt_fail(ACL_ERROR_INVALID_PARAM, "buf %p is in the chain of %p: free the chain's head", buf,
                        (void *)m->owner);
    else
        aclrt_mbuf_free_chain(m);
    aclrt_mbuf_unlock();
    return rc;
}

static aclError aclrt_mbuf_get_data(const aclrtMbuf buf, void **dataPtr, size_t *size)
{
    if (dataPtr == NULL || size == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL", dataPtr == NULL ? "dataPtr" : "size");
    aclrt_mbuf_lock();
    struct aclrt_mbuf *m = aclrt_mbuf_arg(buf, "buf");
    if (m != NULL) {
        *dataPtr = m->area->data;
        *size = m->area->size;
    }
    aclrt_mbuf_unlock();
    return m != NULL ? ACL_SUCCESS : ACL_ERROR_INVALID_PARAM;
}

static aclError aclrt_mbuf_get_len(aclrtMbuf buf, size_t *len)
{
    if (len == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "len is NULL");
    aclrt_mbuf_lock();
    struct aclrt_mbuf *m = aclrt_mbuf_arg(buf, "buf");
    if (m != NULL)
        *len = m->len;
    aclrt_mbuf_unlock();
    return m != NULL ? ACL_SUCCESS : ACL_ERROR_INVALID_PARAM;
}

static aclError aclrt_mbuf_set_len(aclrtMbuf buf, size_t len)
{
    aclError rc = ACL_SUCCESS;
    aclrt_mbuf_lock();
    struct aclrt_mbuf *m = aclrt_mbuf_arg(buf, "buf");
    if (m == NULL)
        rc = ACL_ERROR_INVALID_PARAM;
    else if (len > m->area->size)
        rc = aclrt_fail(ACL_ERROR_INVALID_PARAM, "len %zu is larger than the data area (%zu bytes)", len,
                        m->area->size);
    else
        m->len = len;
    aclrt_mbuf_unlock();
    return rc;
}

/* Checks common to the user data calls: the range [offset, offset + size) of the area. */
static aclError aclrt_mbuf_user_range(const void *ptr, size_t size, size_t offset)
{
    if (ptr == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "dataPtr is NULL");
    if (size > ACLRT_MBUF_USER_DATA_SIZE || offset > ACLRT_MBUF_USER_DATA_SIZE ||
        size + offset > ACLRT_MBUF_USER_DATA_SIZE)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM,
                          "size %zu + offset %zu is beyond the user data area of %u bytes", size, offset,
                          ACLRT_MBUF_USER_DATA_SIZE);
    return ACL_SUCCESS;
}

static aclError aclrt_mbuf_get_user(const aclrtMbuf buf, void *dataPtr, size_t size, size_t offset)
{
    aclError rc = aclrt_mbuf_user_range(dataPtr, size, offset);
    if (rc != ACL_SUCCESS)
        return rc;
    aclrt_mbuf_lock();
    struct aclrt_mbuf *m = aclrt_mbuf_arg(buf, "buf");
    if (m != NULL)
        memcpy(dataPtr, m->user + offset, size);
    aclrt_mbuf_unlock();
    return m != NULL ? ACL_SUCCESS : ACL_ERROR_INVALID_PARAM;
}

static aclError aclrt_mbuf_set_user(aclrtMbuf buf, const void *dataPtr, size_t size, size_t offset)
{
    aclError rc = aclrt_mbuf_user_range(dataPtr, size, offset);
    if (rc != ACL_SUCCESS)
        return rc;
    aclrt_mbuf_lock();
    struct aclrt_mbuf *m = aclrt_mbuf_arg(buf, "buf");
    if (m != NULL)
        memcpy(m->user + offset, dataPtr, size);
    aclrt_mbuf_unlock();
    return m != NULL ? ACL_SUCCESS : ACL_ERROR_INVALID_PARAM;
}

static aclError aclrt_mbuf_copy_ref(const aclrtMbuf buf, aclrtMbuf *newBuf)
{
    if (newBuf == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "newBuf is NULL");
    aclError rc = ACL_SUCCESS;
    aclrt_mbuf_lock();
    struct aclrt_mbuf *m = aclrt_mbuf_arg(buf, "buf");
    if (m == NULL) {
        rc = ACL_ERROR_INVALID_PARAM;
    } else {
        struct aclrt_mbuf *c = aclrt_mbuf_new_head(m->area);
        if (c == NULL) {
            rc = aclrt_fail(ACL_ERROR_BAD_ALLOC, "no memory for a buffer head");
        } else {
            c->len = m->len;
            memcpy(c->user, m->user, sizeof c->user);
            *newBuf = c;
        }
    }
    aclrt_mbuf_unlock();
    return rc;
}

static aclError aclrt_mbuf_append(aclrtMbuf headBuf, aclrtMbuf buf)
{
    aclError rc = ACL_SUCCESS;
    aclrt_mbuf_lock();
    struct aclrt_mbuf *h = aclrt_mbuf_arg(headBuf, "headBuf");
    struct aclrt_mbuf *m = h ? aclrt_mbuf_arg(buf, "buf") : NULL;
    if (m == NULL)
        rc = ACL_ERROR_INVALID_PARAM;
    else if (h->owner != NULL)
        rc = aclrt_fail(ACL_ERROR_INVALID_PARAM, "headBuf %p is a member of another chain, not a head", headBuf);
    else if (m == h || m->owner != NULL || m->next != NULL)
        rc = aclrt_fail(ACL_ERROR_INVALID_PARAM, "buf %p is already in a chain", buf);
    else {
        struct aclrt_mbuf *t = h;
        while (t->next != NULL)
            t = t->next;
        t->next = m;
        m->owner = h;
    }
    aclrt_mbuf_unlock();
    return rc;
}

static aclError aclrt_mbuf_chain_num(aclrtMbuf headBuf, uint32_t *num)
{
    if (num == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "num is NULL");
    aclError rc = ACL_SUCCESS;
    aclrt_mbuf_lock();
    struct aclrt_mbuf *h = aclrt_mbuf_arg(headBuf, "headBuf");
    if (h == NULL) {
        rc = ACL_ERROR_INVALID_PARAM;
    } else if (h->owner != NULL) {
        rc = aclrt_fail(ACL_ERROR_INVALID_PARAM, "headBuf %p is a member of a chain, not its head", headBuf);
    } else {
        uint32_t n = 0;
        for (struct aclrt_mbuf *t = h; t != NULL; t = t->next)
            n++;
        *num = n;
    }
    aclrt_mbuf_unlock();
    return rc;
}

static aclError aclrt_mbuf_from_chain(aclrtMbuf headBuf, uint32_t index, aclrtMbuf *buf)
{
    if (buf == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "buf is NULL");
    aclError rc = ACL_SUCCESS;
    aclrt_mbuf_lock();
    struct aclrt_mbuf *h = aclrt_mbuf_arg(headBuf, "headBuf");
    if (h == NULL) {
        rc = ACL_ERROR_INVALID_PARAM;
    } else if (h->owner != NULL) {
        rc = aclrt_fail(ACL_ERROR_INVALID_PARAM, "headBuf %p is a member of a chain, not its head", headBuf);
    } else {
        struct aclrt_mbuf *t = h;
        uint32_t i = 0;
        for (; t != NULL && i < index; i++)
            t = t->next;
        if (t == NULL)
            rc = aclrt_fail(ACL_ERROR_INVALID_PARAM, "index %u is not below the chain's %u buffers", index, i);
        else
            *buf = t;
    }
    aclrt_mbuf_unlock();
    return rc;
}

ACLRT_API aclError aclrtAllocBuf(aclrtMbuf *buf, size_t size)
{
    ACLRT_ENTER();
    return aclrt_mbuf_alloc(buf, size);
}

ACLRT_API aclError aclrtFreeBuf(aclrtMbuf buf)
{
    ACLRT_ENTER();
    return aclrt_mbuf_free_api(buf);
}

ACLRT_API aclError aclrtGetBufData(const aclrtMbuf buf, void **dataPtr, size_t *size)
{
    ACLRT_ENTER();
    return aclrt_mbuf_get_data(buf, dataPtr, size);
}

ACLRT_API aclError aclrtGetBufDataLen(aclrtMbuf buf, size_t *len)
{
    ACLRT_ENTER();
    return aclrt_mbuf_get_len(buf, len);
}

ACLRT_API aclError aclrtSetBufDataLen(aclrtMbuf buf, size_t len)
{
    ACLRT_ENTER();
    return aclrt_mbuf_set_len(buf, len);
}

ACLRT_API aclError aclrtGetBufUserData(const aclrtMbuf buf, void *dataPtr, size_t size, size_t offset)
{
    ACLRT_ENTER();
    return aclrt_mbuf_get_user(buf, dataPtr, size, offset);
}

ACLRT_API aclError aclrtSetBufUserData(aclrtMbuf buf, const void *dataPtr, size_t size, size_t offset)
{
    ACLRT_ENTER();
    return aclrt_mbuf_set_user(buf, dataPtr, size, offset);
}

ACLRT_API aclError aclrtCopyBufRef(const aclrtMbuf buf, aclrtMbuf *newBuf)
{
    ACLRT_ENTER();
    return aclrt_mbuf_copy_ref(buf, newBuf);
}

ACLRT_API aclError aclrtAppendBufChain(aclrtMbuf headBuf, aclrtMbuf buf)
{
    ACLRT_ENTER();
    return aclrt_mbuf_append(headBuf, buf);
}

ACLRT_API aclError aclrtGetBufChainNum(aclrtMbuf headBuf, uint32_t *num)
{
    ACLRT_ENTER();
    return aclrt_mbuf_chain_num(headBuf, num);
}

ACLRT_API aclError aclrtGetBufFromChain(aclrtMbuf headBuf, uint32_t index, aclrtMbuf *buf)
{
    ACLRT_ENTER();
    return aclrt_mbuf_from_chain(headBuf, index, buf);
}

/* acl/acl_tdt_queue.h's names for the same calls. */

ACLRT_API aclError acltdtAllocBuf(size_t size, uint32_t type, acltdtBuf *buf)
{
    ACLRT_ENTER();
    if (type != ACL_TDT_NORMAL_MEM)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "type %u is not supported (ACL_TDT_NORMAL_MEM only)", type);
    return aclrt_mbuf_alloc(buf, size);
}

ACLRT_API aclError acltdtFreeBuf(acltdtBuf buf)
{
    ACLRT_ENTER();
    return aclrt_mbuf_free_api(buf);
}

ACLRT_API aclError acltdtGetBufData(const acltdtBuf buf, void **dataPtr, size_t *size)
{
    ACLRT_ENTER();
    return aclrt_mbuf_get_data(buf, dataPtr, size);
}

ACLRT_API aclError acltdtSetBufDataLen(acltdtBuf buf, size_t len)
{
    ACLRT_ENTER();
    return aclrt_mbuf_set_len(buf, len);
}

ACLRT_API aclError acltdtGetBufDataLen(acltdtBuf buf, size_t *len)
{
    ACLRT_ENTER();
    return aclrt_mbuf_get_len(buf, len);
}

ACLRT_API aclError acltdtAppendBufChain(acltdtBuf headBuf, acltdtBuf buf)
{
    ACLRT_ENTER();
    return aclrt_mbuf_append(headBuf, buf);
}

ACLRT_API aclError acltdtGetBufChainNum(acltdtBuf headBuf, uint32_t *num)
{
    ACLRT_ENTER();
    return aclrt_mbuf_chain_num(headBuf, num);
}

ACLRT_API aclError acltdtGetBufFromChain(acltdtBuf headBuf, uint32_t index, acltdtBuf *buf)
{
    ACLRT_ENTER();
    return aclrt_mbuf_from_chain(headBuf, index, buf);
}

ACLRT_API aclError acltdtGetBufUserData(const acltdtBuf buf, void *dataPtr, size_t size, size_t offset)
{
    ACLRT_ENTER();
    return aclrt_mbuf_get_user(buf, dataPtr, size, offset);
}

ACLRT_API aclError acltdtSetBufUserData(acltdtBuf buf, const void *dataPtr, size_t size, size_t offset)
{
    ACLRT_ENTER();
    return aclrt_mbuf_set_user(buf, dataPtr, size, offset);
}

ACLRT_API aclError acltdtCopyBufRef(const acltdtBuf buf, acltdtBuf *newBuf)
{
    ACLRT_ENTER();
    return aclrt_mbuf_copy_ref(buf, newBuf);
}

#endif /* ACLRT_IMPL_QUEUE_MBUF_H */

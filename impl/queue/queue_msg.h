/*
 * impl/queue/queue_msg.h - a queue message: an mbuf chain, or bytes and
 * user data, laid out in one block that another process can read.
 *
 * The block is a header (the buffer count), then one record per buffer
 * (its data area's size, its valid length, its user data area), then the
 * data areas one after the other. Enqueuing copies a chain into a block
 * and frees the chain (the queue owns it now); dequeuing makes a new chain
 * from the block, so a message crosses processes by value.
 */
#ifndef ACLRT_IMPL_QUEUE_QUEUE_MSG_H
#define ACLRT_IMPL_QUEUE_QUEUE_MSG_H

#include "../core/base.h"
#include "../core/error.h"
#include "mbuf.h"

#define ACLRT_QMSG_MAGIC 0x6773716du /* "mqsg" */

struct aclrt_qmsg_head {
    uint32_t magic;
    uint32_t nbufs;
};

struct aclrt_qmsg_buf {
    uint64_t size;
    uint64_t len;
    unsigned char user[ACLRT_MBUF_USER_DATA_SIZE];
};

/*
 * The block (*out, malloc'd) of the chain `handle` heads; *n its size,
 * *bytes the chain's valid bytes.
 */
ACLRT_INTERNAL aclError aclrt_qmsg_from_chain(const void *handle, void **out, size_t *n, uint64_t *bytes)
{
    void *block = NULL;
    aclrt_mbuf_lock();
    struct aclrt_mbuf *h = aclrt_mbuf_find(handle);
    if (h == NULL || h->owner != NULL) {
        aclrt_mbuf_unlock();
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "buf %p is not a live buffer that heads its chain", handle);
    }
    uint32_t nbufs = 0;
    size_t total = sizeof(struct aclrt_qmsg_head);
    uint64_t valid = 0;
    for (struct aclrt_mbuf *m = h; m != NULL; m = m->next) {
        nbufs++;
        total += sizeof(struct aclrt_qmsg_buf) + m->area->size;
        valid += m->len;
    }
    block = malloc(total);
    if (block != NULL) {
        unsigned char *p = (unsigned char *)block;
        struct aclrt_qmsg_head head = {ACLRT_QMSG_MAGIC, nbufs};
        memcpy(p, &head, sizeof head);
        unsigned char *rec = p + sizeof head;
        unsigned char *data = rec + (size_t)nbufs * sizeof(struct aclrt_qmsg_buf);
        for (struct aclrt_mbuf *m = h; m != NULL; m = m->next) {
            struct aclrt_qmsg_buf b = {m->area->size, m->len, {0}};
            memcpy(b.user, m->user, sizeof b.user);
            memcpy(rec, &b, sizeof b);
            rec += sizeof b;
            memcpy(data, m->area->data, m->area->size);
            data += m->area->size;
        }
    }
    aclrt_mbuf_unlock();
    if (block == NULL)
        return aclrt_fail(ACL_ERROR_BAD_ALLOC, "no memory for a message of %zu bytes", total);
    *out = block;
    *n = total;
    *bytes = valid;
    return ACL_SUCCESS;
}

/* The block of one buffer holding `size` bytes and `usize` bytes of user data. */
ACLRT_INTERNAL void *aclrt_qmsg_from_data(const void *data, size_t size, const void *user, size_t usize, size_t *n)
{
    size_t total = sizeof(struct aclrt_qmsg_head) + sizeof(struct aclrt_qmsg_buf) + size;
    unsigned char *p = (unsigned char *)malloc(total);
    if (p == NULL) {
        aclrt_fail(ACL_ERROR_BAD_ALLOC, "no memory for a message of %zu bytes", total);
        return NULL;
    }
    struct aclrt_qmsg_head head = {ACLRT_QMSG_MAGIC, 1};
    struct aclrt_qmsg_buf b = {size, size, {0}};
    if (usize > 0)
        memcpy(b.user, user, usize);
    memcpy(p, &head, sizeof head);
    memcpy(p + sizeof head, &b, sizeof b);
    memcpy(p + sizeof head + sizeof b, data, size);
    *n = total;
    return p;
}

/* Is a block well formed (so that reading it stays inside it)? */
static bool aclrt_qmsg_valid(const unsigned char *p, size_t n)
{
    struct aclrt_qmsg_head head;
    if (n < sizeof head)
        return false;
    memcpy(&head, p, sizeof head);
    if (head.magic != ACLRT_QMSG_MAGIC || head.nbufs == 0 ||
        head.nbufs > (n - sizeof head) / sizeof(struct aclrt_qmsg_buf))
        return false;
    size_t need = sizeof head + (size_t)head.nbufs * sizeof(struct aclrt_qmsg_buf);
    for (uint32_t i = 0; i < head.nbufs; i++) {
        struct aclrt_qmsg_buf b;
        memcpy(&b, p + sizeof head + (size_t)i * sizeof b, sizeof b);
        if (b.len > b.size || b.size > n - need)
            return false;
        need += (size_t)b.size;
    }
    return need == n;
}

/* A new chain (*out) from a block. */
ACLRT_INTERNAL aclError aclrt_qmsg_to_chain(const void *block, size_t n, void **out)
{
    const unsigned char *p = (const unsigned char *)block;
    if (!aclrt_qmsg_valid(p, n))
        return aclrt_fail(ACL_ERROR_FAILURE, "a message of the queue is malformed");
    struct aclrt_qmsg_head head;
    memcpy(&head, p, sizeof head);
    const unsigned char *rec = p + sizeof head;
    const unsigned char *data = rec + (size_t)head.nbufs * sizeof(struct aclrt_qmsg_buf);
    struct aclrt_mbuf *first = NULL, *last = NULL;
    aclrt_mbuf_lock();
    for (uint32_t i = 0; i < head.nbufs; i++) {
        struct aclrt_qmsg_buf b;
        memcpy(&b, rec + (size_t)i * sizeof b, sizeof b);
        struct aclrt_mbuf *m = aclrt_mbuf_new(b.size ? (size_t)b.size : 1);
        if (m == NULL) {
            aclrt_mbuf_free_chain(first);
            aclrt_mbuf_unlock();
            return aclrt_fail(ACL_ERROR_BAD_ALLOC, "no memory for a buffer of %llu bytes",
                              (unsigned long long)b.size);
        }
        m->area->size = (size_t)b.size;
        m->len = (size_t)b.len;
        memcpy(m->user, b.user, sizeof m->user);
        memcpy(m->area->data, data, (size_t)b.size);
        data += b.size;
        if (first == NULL) {
            first = m;
        } else {
            last->next = m;
            m->owner = first;
        }
        last = m;
    }
    aclrt_mbuf_unlock();
    *out = first;
    return ACL_SUCCESS;
}

/*
 * Copy a block's valid bytes (each buffer's, in chain order) to `out`
 * (room for `cap`, enough: the slot said how many) and the first buffer's
 * user data to `user` (`usize` bytes).
 */
ACLRT_INTERNAL aclError aclrt_qmsg_to_data(const void *block, size_t n, void *out, size_t cap, void *user,
                                           size_t usize, size_t *written)
{
    const unsigned char *p = (const unsigned char *)block;
    if (!aclrt_qmsg_valid(p, n))
        return aclrt_fail(ACL_ERROR_FAILURE, "a message of the queue is malformed");
    struct aclrt_qmsg_head head;
    memcpy(&head, p, sizeof head);
    const unsigned char *rec = p + sizeof head;
    const unsigned char *data = rec + (size_t)head.nbufs * sizeof(struct aclrt_qmsg_buf);
    size_t done = 0;
    for (uint32_t i = 0; i < head.nbufs; i++) {
        struct aclrt_qmsg_buf b;
        memcpy(&b, rec + (size_t)i * sizeof b, sizeof b);
        if (i == 0 && usize > 0)
            memcpy(user, b.user, usize);
        size_t take = (size_t)b.len < cap - done ? (size_t)b.len : cap - done;
        memcpy((unsigned char *)out + done, data, take);
        done += take;
        data += b.size;
    }
    *written = done;
    return ACL_SUCCESS;
}

#endif /* ACLRT_IMPL_QUEUE_QUEUE_MSG_H */

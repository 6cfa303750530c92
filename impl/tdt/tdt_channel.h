/*
 * impl/tdt/tdt_channel.h - channels: bounded FIFOs of datasets between threads, opened by device and name.
 *
 * A channel is a mutex, one condition variable (on CLOCK_MONOTONIC, so a
 * timed wait is not moved by a change of the wall clock) and a FIFO of
 * messages. A message is one malloc'd block: the dataset's item records,
 * then each one's dims and bytes (64-byte aligned), copied by the send;
 * a receive hands the block to the dataset it fills, whose items point into
 * it. Every handle of a (device, name) pair is an end of the same channel,
 * counted in `handles`; the registry frees the channel with its last handle.
 * Channels are a rare path: waiters sleep on the one condition variable and
 * every change broadcasts.
 *
 * A handle counts the calls inside it (`busy`); acltdtDestroyChannel marks
 * it closing, wakes them (they return ACL_ERROR_FAILURE) and waits until
 * they have left before freeing it.
 */
#ifndef ACLRT_IMPL_TDT_TDT_CHANNEL_H
#define ACLRT_IMPL_TDT_TDT_CHANNEL_H

#include "../core/base.h"
#include "../core/clock.h"
#include "../core/error.h"
#include "../core/sanitize_hook.h"
#include "../core/thread.h"
#include "../../backends/backend.h"
#include "../runtime/runtime.h"
#include "../context/context.h"
#include "../memory/memory.h"
#include "../memory/memcpy.h"
#include "tdt_item.h"
#include "tdt_dataset.h"

#define ACLRT_TDT_HANDLE_MAGIC 0x74647443u /* "tdtC" */
#define ACLRT_TDT_NAME_MAX 128           /* with its terminating NUL, as CANN's queue names */
#define ACLRT_TDT_CAPACITY_MIN 2
#define ACLRT_TDT_CAPACITY_MAX 8192
#define ACLRT_TDT_ALIGN 64 /* each tensor's bytes in a message start at a multiple of this */

/* One item of a message; its dims and bytes are at offsets from the message's start. */
struct aclrt_tdt_entry {
    acltdtTensorType type;
    aclDataType data_type;
    uint16_t slice_num, slice_id;
    size_t dim_num, dims_off;
    size_t size, data_off;
};

struct aclrt_tdt_msg {
    struct aclrt_tdt_msg *next; /* the channel's FIFO */
    size_t count;
    struct aclrt_tdt_entry entries[];
};

struct aclrt_tdt_channel {
    struct aclrt_tdt_channel *next; /* the registry's list */
    uint32_t device;
    char name[ACLRT_TDT_NAME_MAX];
    size_t capacity;
    bool sized;    /* made by acltdtCreateChannelWithCapacity: can be queried and cleaned */
    unsigned handles; /* under the registry's lock */
    pthread_mutex_t lock;
    pthread_cond_t changed; /* a message came or went, the channel stopped, a handle is closing */
    struct aclrt_tdt_msg *head, *tail; /* under lock, as the rest below */
    size_t count;
    bool stopped;
};

struct acltdtChannelHandle {
    uint32_t magic;
    struct aclrt_tdt_channel *ch;
    unsigned busy; /* sends and receives inside the handle; under ch->lock */
    bool closing;  /* acltdtDestroyChannel has begun; under ch->lock */
};

static struct {
    pthread_mutex_t lock;
    struct aclrt_tdt_channel *list;
} aclrt_tdt_registry = {PTHREAD_MUTEX_INITIALIZER, NULL};

static bool aclrt_tdt_handle_ok(const acltdtChannelHandle *h)
{
    if (h == NULL) {
        aclrt_fail(ACL_ERROR_INVALID_PARAM, "handle is NULL");
        return false;
    }
    if (h->magic != ACLRT_TDT_HANDLE_MAGIC) {
        aclrt_fail(ACL_ERROR_INVALID_PARAM, "handle %p is not a channel (acltdtCreateChannel)", (const void *)h);
        return false;
    }
    return true;
}

static void aclrt_tdt_msgs_free(struct aclrt_tdt_msg *m)
{
    while (m != NULL) {
        struct aclrt_tdt_msg *next = m->next;
        free(m);
        m = next;
    }
}

static acltdtChannelHandle *aclrt_tdt_open(uint32_t deviceId, const char *name, size_t capacity, bool sized)
{
    if (name == NULL) {
        aclrt_fail(ACL_ERROR_INVALID_PARAM, "name is NULL");
        return NULL;
    }
    if (strnlen(name, ACLRT_TDT_NAME_MAX) >= ACLRT_TDT_NAME_MAX) {
        aclrt_fail(ACL_ERROR_INVALID_PARAM, "name is longer than %d characters", ACLRT_TDT_NAME_MAX - 1);
        return NULL;
    }
    if (sized && (capacity < ACLRT_TDT_CAPACITY_MIN || capacity > ACLRT_TDT_CAPACITY_MAX)) {
        aclrt_fail(ACL_ERROR_INVALID_PARAM, "capacity %zu is outside [%d, %d]", capacity, ACLRT_TDT_CAPACITY_MIN,
                   ACLRT_TDT_CAPACITY_MAX);
        return NULL;
    }
    struct aclrt_device *dev;
    if (deviceId > (uint32_t)INT32_MAX) {
        aclrt_fail(ACL_ERROR_RT_INVALID_DEVICEID, "device id %u is out of range", deviceId);
        return NULL;
    }
    if (aclrt_device_check((int32_t)deviceId, &dev) != ACL_SUCCESS)
        return NULL;
    acltdtChannelHandle *h = (acltdtChannelHandle *)calloc(1, sizeof *h);
    if (h == NULL) {
        aclrt_fail(ACL_ERROR_BAD_ALLOC, "out of memory for a channel handle");
        return NULL;
    }
    pthread_mutex_lock(&aclrt_tdt_registry.lock);
    struct aclrt_tdt_channel *ch = aclrt_tdt_registry.list;
    while (ch != NULL && (ch->device != deviceId || strcmp(ch->name, name) != 0))
        ch = ch->next;
    if (ch != NULL) {
        /* Another end of an open channel: it must be asked for as it was made. */
        if (ch->sized != sized || ch->capacity != capacity) {
            pthread_mutex_unlock(&aclrt_tdt_registry.lock);
            free(h);
            if (ch->sized)
                aclrt_fail(ACL_ERROR_INVALID_PARAM,
                           "channel \"%s\" of device %u is open with capacity %zu "
                           "(acltdtCreateChannelWithCapacity with that capacity opens it again)",
                           name, deviceId, ch->capacity);
            else
                aclrt_fail(ACL_ERROR_INVALID_PARAM,
                           "channel \"%s\" of device %u is open without a capacity (acltdtCreateChannel opens it "
                           "again)",
                           name, deviceId);
            return NULL;
        }
    } else {
        ch = (struct aclrt_tdt_channel *)calloc(1, sizeof *ch);
        pthread_condattr_t ca;
        if (ch == NULL || pthread_condattr_init(&ca) != 0) {
            pthread_mutex_unlock(&aclrt_tdt_registry.lock);
            free(ch);
            free(h);
            aclrt_fail(ACL_ERROR_BAD_ALLOC, "out of memory for a channel");
            return NULL;
        }
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        pthread_cond_init(&ch->changed, &ca);
        pthread_condattr_destroy(&ca);
        pthread_mutex_init(&ch->lock, NULL);
        ch->device = deviceId;
        snprintf(ch->name, sizeof ch->name, "%s", name);
        ch->capacity = capacity;
        ch->sized = sized;
        ch->next = aclrt_tdt_registry.list;
        aclrt_tdt_registry.list = ch;
    }
    ch->handles++;
    pthread_mutex_unlock(&aclrt_tdt_registry.lock);
    h->magic = ACLRT_TDT_HANDLE_MAGIC;
    h->ch = ch;
    return h;
}

ACLRT_API acltdtChannelHandle *acltdtCreateChannel(uint32_t deviceId, const char *name)
{
    ACLRT_ENTER();
    return aclrt_tdt_open(deviceId, name, ACLRTX_TDT_DEFAULT_CAPACITY, false);
}

ACLRT_API acltdtChannelHandle *acltdtCreateChannelWithCapacity(uint32_t deviceId, const char *name, size_t capacity)
{
    ACLRT_ENTER();
    return aclrt_tdt_open(deviceId, name, capacity, true);
}

ACLRT_API aclError acltdtDestroyChannel(acltdtChannelHandle *handle)
{
    ACLRT_ENTER();
    if (!aclrt_tdt_handle_ok(handle))
        return ACL_ERROR_INVALID_PARAM;
    struct aclrt_tdt_channel *ch = handle->ch;
    pthread_mutex_lock(&ch->lock);
    if (handle->closing) {
        pthread_mutex_unlock(&ch->lock);
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "handle %p is being destroyed by another thread", (void *)handle);
    }
    handle->closing = true;
    pthread_cond_broadcast(&ch->changed);
    while (handle->busy > 0)
        pthread_cond_wait(&ch->changed, &ch->lock);
    handle->magic = 0;
    pthread_mutex_unlock(&ch->lock);
    free(handle);

    pthread_mutex_lock(&aclrt_tdt_registry.lock);
    bool last = --ch->handles == 0;
    if (last) {
        struct aclrt_tdt_channel **p = &aclrt_tdt_registry.list;
        while (*p != ch)
            p = &(*p)->next;
        *p = ch->next;
    }
    pthread_mutex_unlock(&aclrt_tdt_registry.lock);
    if (last) {
        /* No handle is left, so no thread is inside the channel. */
        aclrt_tdt_msgs_free(ch->head);
        pthread_cond_destroy(&ch->changed);
        pthread_mutex_destroy(&ch->lock);
        free(ch);
    }
    return ACL_SUCCESS;
}

ACLRT_API aclError acltdtStopChannel(acltdtChannelHandle *handle)
{
    ACLRT_ENTER();
    if (!aclrt_tdt_handle_ok(handle))
        return ACL_ERROR_INVALID_PARAM;
    struct aclrt_tdt_channel *ch = handle->ch;
    pthread_mutex_lock(&ch->lock);
    ch->stopped = true;
    pthread_cond_broadcast(&ch->changed);
    pthread_mutex_unlock(&ch->lock);
    return ACL_SUCCESS;
}

ACLRT_API aclError acltdtCleanChannel(acltdtChannelHandle *handle)
{
    ACLRT_ENTER();
    if (!aclrt_tdt_handle_ok(handle))
        return ACL_ERROR_INVALID_PARAM;
    struct aclrt_tdt_channel *ch = handle->ch;
    if (!ch->sized)
        return aclrt_fail(ACL_ERROR_FEATURE_UNSUPPORTED,
                          "channel \"%s\" was made by acltdtCreateChannel; only a channel of "
                          "acltdtCreateChannelWithCapacity can be cleaned",
                          ch->name);
    pthread_mutex_lock(&ch->lock);
    struct aclrt_tdt_msg *drop = ch->head;
    ch->head = ch->tail = NULL;
    ch->count = 0;
    pthread_cond_broadcast(&ch->changed); /* room for blocked senders */
    pthread_mutex_unlock(&ch->lock);
    aclrt_tdt_msgs_free(drop);
    return ACL_SUCCESS;
}

ACLRT_API aclError acltdtQueryChannelSize(const acltdtChannelHandle *handle, size_t *size)
{
    ACLRT_ENTER();
    if (!aclrt_tdt_handle_ok(handle))
        return ACL_ERROR_INVALID_PARAM;
    if (size == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "size (output) is NULL");
    struct aclrt_tdt_channel *ch = handle->ch;
    if (!ch->sized)
        return aclrt_fail(ACL_ERROR_FEATURE_UNSUPPORTED,
                          "channel \"%s\" was made by acltdtCreateChannel; only a channel of "
                          "acltdtCreateChannelWithCapacity can be queried",
                          ch->name);
    pthread_mutex_lock(&ch->lock);
    *size = ch->count;
    pthread_mutex_unlock(&ch->lock);
    return ACL_SUCCESS;
}

static size_t aclrt_tdt_align(size_t n)
{
    return (n + ACLRT_TDT_ALIGN - 1) / ACLRT_TDT_ALIGN * ACLRT_TDT_ALIGN;
}

/* Copy a tensor's bytes into a message: device memory through the backend, after the device's runnable work. */
static aclError aclrt_tdt_copy_in(void *dst, const void *src, size_t n)
{
    if (n == 0)
        return ACL_SUCCESS;
    if (aclrt_mem_device_of(src, n) != NULL) {
        ACLRT_SAN(access, src, n, ACLRT_SAN_READ);
        aclrt_mem_settle_for(src, NULL, n);
        const struct aclrt_backend *b = aclrt_rt.backend;
        if (b != NULL && b->mem_copy != NULL)
            return b->mem_copy(dst, src, n, ACL_MEMCPY_DEVICE_TO_HOST);
    }
    memcpy(dst, src, n);
    return ACL_SUCCESS;
}

/* Where item i's dims go (8-byte aligned) and its bytes (64-byte aligned), from `at`; returns the end. */
static size_t aclrt_tdt_place(size_t at, const acltdtDataItem *it, size_t *dims_off, size_t *data_off)
{
    *dims_off = (at + 7) / 8 * 8;
    *data_off = aclrt_tdt_align(*dims_off + it->dim_num * sizeof(int64_t));
    return *data_off + it->size;
}

/* The message of a dataset in *out, or the error (reported). */
static aclError aclrt_tdt_pack(const acltdtDataset *ds, struct aclrt_tdt_msg **out)
{
    size_t n = ds->count, dims_off, data_off;
    size_t at = sizeof(struct aclrt_tdt_msg) + n * sizeof(struct aclrt_tdt_entry);
    for (size_t i = 0; i < n; i++) {
        const acltdtDataItem *it = ds->items[i];
        if (it->magic != ACLRT_TDT_ITEM_MAGIC)
            return aclrt_fail(ACL_ERROR_INVALID_PARAM, "item %zu of the dataset is no longer a data item", i);
        if (it->type != ACL_TENSOR_DATA_TENSOR && it->type != ACL_TENSOR_DATA_END_OF_SEQUENCE &&
            it->type != ACL_TENSOR_DATA_ABNORMAL)
            return aclrt_fail(ACL_ERROR_INVALID_PARAM,
                              "item %zu is of tdtType %d; a send takes TENSOR, END_OF_SEQUENCE and ABNORMAL items",
                              i, (int)it->type);
        if (it->data == NULL && it->size > 0)
            return aclrt_fail(ACL_ERROR_INVALID_PARAM, "item %zu has %zu bytes of data at NULL", i, it->size);
        if (it->size > SIZE_MAX / 4 || at > SIZE_MAX / 4)
            return aclrt_fail(ACL_ERROR_INVALID_PARAM, "item %zu's size %zu is too large", i, it->size);
        at = aclrt_tdt_place(at, it, &dims_off, &data_off);
    }
    struct aclrt_tdt_msg *m = (struct aclrt_tdt_msg *)aligned_alloc(ACLRT_TDT_ALIGN, aclrt_tdt_align(at));
    if (m == NULL)
        return aclrt_fail(ACL_ERROR_BAD_ALLOC, "out of memory for a message of %zu bytes", at);
    m->next = NULL;
    m->count = n;
    at = sizeof(struct aclrt_tdt_msg) + n * sizeof(struct aclrt_tdt_entry);
    for (size_t i = 0; i < n; i++) {
        const acltdtDataItem *it = ds->items[i];
        struct aclrt_tdt_entry *e = &m->entries[i];
        at = aclrt_tdt_place(at, it, &e->dims_off, &e->data_off);
        e->type = it->type;
        e->data_type = it->data_type;
        e->slice_num = it->slice_num;
        e->slice_id = it->slice_id;
        e->dim_num = it->dim_num;
        e->size = it->size;
        if (it->dim_num > 0)
            memcpy((char *)m + e->dims_off, it->dims, it->dim_num * sizeof(int64_t));
        aclError rc = aclrt_tdt_copy_in((char *)m + e->data_off, it->data, it->size);
        if (rc != ACL_SUCCESS) {
            free(m);
            return aclrt_fail(rc, "item %zu's %zu bytes could not be read", i, it->size);
        }
    }
    *out = m;
    return ACL_SUCCESS;
}

/* The items of a message, pointing into it (an array of m->count), or NULL when out of memory (reported). */
static acltdtDataItem **aclrt_tdt_unpack(struct aclrt_tdt_msg *m)
{
    acltdtDataItem **items = (acltdtDataItem **)malloc((m->count ? m->count : 1) * sizeof *items);
    if (items == NULL) {
        aclrt_fail(ACL_ERROR_BAD_ALLOC, "out of memory for %zu received items", m->count);
        return NULL;
    }
    for (size_t i = 0; i < m->count; i++) {
        const struct aclrt_tdt_entry *e = &m->entries[i];
        void *data = e->size > 0 ? (char *)m + e->data_off : NULL;
        items[i] = aclrt_tdt_item_new(e->type, (const int64_t *)((char *)m + e->dims_off), e->dim_num, e->data_type,
                                      data, e->size);
        if (items[i] == NULL) {
            while (i-- > 0)
                aclrt_tdt_item_free(items[i]);
            free(items);
            return NULL;
        }
        items[i]->slice_num = e->slice_num;
        items[i]->slice_id = e->slice_id;
    }
    return items;
}

/*
 * Enter a channel's call through a handle (ch->lock held); false when the
 * handle is being destroyed (reported).
 */
static bool aclrt_tdt_enter(acltdtChannelHandle *h)
{
    if (h->closing) {
        aclrt_fail(ACL_ERROR_FAILURE, "the channel handle is being destroyed");
        return false;
    }
    h->busy++;
    return true;
}

static void aclrt_tdt_leave(acltdtChannelHandle *h)
{
    if (--h->busy == 0 && h->closing)
        pthread_cond_broadcast(&h->ch->changed); /* acltdtDestroyChannel waits for this */
}

/*
 * Wait on the channel until it changes or the deadline passes (ch->lock
 * held): ACL_SUCCESS to look again (the caller checks for a stop first),
 * or `timeout_code` once the deadline has passed.
 */
static aclError aclrt_tdt_wait(acltdtChannelHandle *h, uint64_t deadline, aclError timeout_code)
{
    struct aclrt_tdt_channel *ch = h->ch;
    if (deadline == ACLRT_NO_DEADLINE) {
        pthread_cond_wait(&ch->changed, &ch->lock);
    } else {
        if (aclrt_now_ns() >= deadline)
            return timeout_code;
        struct timespec ts = aclrt_timespec_from_ns(deadline);
        pthread_cond_timedwait(&ch->changed, &ch->lock, &ts);
    }
    return ACL_SUCCESS;
}

/* Why a call cannot go on (ch->lock held): the channel stopped or the handle is closing; ACL_SUCCESS if neither. */
static aclError aclrt_tdt_check_open(const acltdtChannelHandle *h)
{
    if (h->ch->stopped)
        return aclrt_fail(ACL_ERROR_FAILURE, "channel \"%s\" is stopped (acltdtStopChannel)", h->ch->name);
    if (h->closing)
        return aclrt_fail(ACL_ERROR_FAILURE, "the channel handle is being destroyed (acltdtDestroyChannel)");
    return ACL_SUCCESS;
}

static aclError aclrt_tdt_timeout_check(int32_t timeout)
{
    if (timeout < -1)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "timeout %d is below -1 (-1: wait, 0: at once, > 0: ms)",
                          (int)timeout);
    return ACL_SUCCESS;
}

ACLRT_API aclError acltdtSendTensor(const acltdtChannelHandle *handle, const acltdtDataset *dataset, int32_t timeout)
{
    ACLRT_ENTER();
    if (!aclrt_tdt_handle_ok(handle) || !aclrt_tdt_dataset_ok(dataset))
        return ACL_ERROR_INVALID_PARAM;
    aclError rc = aclrt_tdt_timeout_check(timeout);
    if (rc != ACL_SUCCESS)
        return rc;
    if (dataset->count == 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "dataset has no items");
    struct aclrt_tdt_msg *m = NULL;
    if ((rc = aclrt_tdt_pack(dataset, &m)) != ACL_SUCCESS)
        return rc;
    /* The handle is const in CANN's signature; its call count is the runtime's, not the program's. */
    acltdtChannelHandle *h = (acltdtChannelHandle *)(uintptr_t)handle;
    struct aclrt_tdt_channel *ch = h->ch;
    uint64_t deadline = timeout < 0 ? ACLRT_NO_DEADLINE : aclrt_deadline_after_ms(timeout);
    pthread_mutex_lock(&ch->lock);
    if (!aclrt_tdt_enter(h)) {
        pthread_mutex_unlock(&ch->lock);
        free(m);
        return ACL_ERROR_FAILURE;
    }
    for (;;) {
        if ((rc = aclrt_tdt_check_open(h)) != ACL_SUCCESS)
            break;
        if (ch->count < ch->capacity) {
            if (ch->tail != NULL)
                ch->tail->next = m;
            else
                ch->head = m;
            ch->tail = m;
            ch->count++;
            m = NULL;
            pthread_cond_broadcast(&ch->changed);
            break;
        }
        if (timeout == 0 || (rc = aclrt_tdt_wait(h, deadline, ACL_ERROR_RT_QUEUE_FULL)) != ACL_SUCCESS) {
            rc = aclrt_fail(ACL_ERROR_RT_QUEUE_FULL, "channel \"%s\" is full (%zu datasets)%s", ch->name,
                            ch->capacity, timeout == 0 ? "" : " until the timeout");
            break;
        }
    }
    aclrt_tdt_leave(h);
    pthread_mutex_unlock(&ch->lock);
    free(m);
    return rc;
}

ACLRT_API aclError acltdtReceiveTensor(const acltdtChannelHandle *handle, acltdtDataset *dataset, int32_t timeout)
{
    ACLRT_ENTER();
    if (!aclrt_tdt_handle_ok(handle) || !aclrt_tdt_dataset_ok(dataset))
        return ACL_ERROR_INVALID_PARAM;
    aclError rc = aclrt_tdt_timeout_check(timeout);
    if (rc != ACL_SUCCESS)
        return rc;
    if (dataset->count > 0 && !dataset->received)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM,
                          "dataset holds %zu items of the program; a receive fills an empty dataset (or one an "
                          "earlier receive filled)",
                          dataset->count);
    acltdtChannelHandle *h = (acltdtChannelHandle *)(uintptr_t)handle; /* as in acltdtSendTensor */
    struct aclrt_tdt_channel *ch = h->ch;
    uint64_t deadline = timeout < 0 ? ACLRT_NO_DEADLINE : aclrt_deadline_after_ms(timeout);
    struct aclrt_tdt_msg *m = NULL;
    acltdtDataItem **items = NULL;
    pthread_mutex_lock(&ch->lock);
    if (!aclrt_tdt_enter(h)) {
        pthread_mutex_unlock(&ch->lock);
        return ACL_ERROR_FAILURE;
    }
    for (;;) {
        if ((rc = aclrt_tdt_check_open(h)) != ACL_SUCCESS)
            break;
        if (ch->head != NULL) {
            /* Make the items before taking the message, so that running out of memory loses nothing. */
            items = aclrt_tdt_unpack(ch->head);
            if (items == NULL) {
                rc = ACL_ERROR_BAD_ALLOC;
                break;
            }
            m = ch->head;
            ch->head = m->next;
            if (ch->head == NULL)
                ch->tail = NULL;
            ch->count--;
            m->next = NULL;
            pthread_cond_broadcast(&ch->changed); /* room for blocked senders */
            break;
        }
        if (timeout == 0 || (rc = aclrt_tdt_wait(h, deadline, ACL_ERROR_RT_QUEUE_EMPTY)) != ACL_SUCCESS) {
            rc = aclrt_fail(ACL_ERROR_RT_QUEUE_EMPTY, "channel \"%s\" is empty%s", ch->name,
                            timeout == 0 ? "" : " until the timeout");
            break;
        }
    }
    aclrt_tdt_leave(h);
    pthread_mutex_unlock(&ch->lock);
    if (m != NULL)
        aclrt_tdt_dataset_adopt(dataset, items, m->count, m);
    return rc;
}

#endif /* ACLRT_IMPL_TDT_TDT_CHANNEL_H */

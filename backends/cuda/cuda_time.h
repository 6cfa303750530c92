/*
 * backends/cuda/cuda_time.h - event timestamps from the GPU.
 *
 * A record of an event that takes timestamps is a stamp task on its stream
 * (the core always submits one: the EVENT_STAMP kind is ours). It records a
 * timing-enabled CUevent, one per event slot, kept for the backend's life
 * and re-recorded by each record of the event, and stores the stamp
 * "slot index + 1" in the event (aclrt_event_apply_stamp); the core asks the
 * backend for times (backends/backend.h, stamp_time / stamp_elapsed):
 *
 *   - aclrtEventElapsedTime: cuEventElapsedTime between the two CUevents
 *     (the GPU's interval, about half a microsecond of resolution);
 *   - aclrtEventGetTimestamp: the host's CLOCK_MONOTONIC at an anchor
 *     CUevent of the device, plus the GPU's interval from the anchor to the
 *     record. The anchor is recorded (and waited for) when the device
 *     starts, and again when it is older than ACLRT_CUDA_ANCHOR_NS, since
 *     the interval is a float in milliseconds.
 *
 * Only the record that is still the event's current one records the
 * CUevent (checked under the slot's lock, so a late stamp task of an older
 * record never moves it).
 */
#ifndef ACLRT_BACKENDS_CUDA_CUDA_TIME_H
#define ACLRT_BACKENDS_CUDA_CUDA_TIME_H

#include "../../impl/core/base.h"
#include "../../impl/core/clock.h"
#include "../../impl/core/handle.h"
#include "../../impl/task/task.h"
#include "../../impl/sync/event.h"
#include "cuda_device.h"
#include "cuda_driver.h"

#define ACLRT_CUDA_ANCHOR_NS (10 * ACLRT_NS_PER_S)

struct aclrt_cuda_stamp {
    pthread_mutex_t lock;
    aclrt_CUevent ev;             /* NULL until the first record */
    struct aclrt_cuda_device *cd; /* the device whose context ev belongs to */
};

struct aclrt_cuda_stamp_chunk {
    struct aclrt_cuda_stamp stamps[ACLRT_TABLE_CHUNK];
};

static struct aclrt_cuda_stamp_chunk *_Atomic aclrt_cuda_stamp_chunks[ACLRT_TABLE_MAX_CHUNKS];

/* The stamp record of event slot `index`, made on first use; NULL if out of memory. */
static struct aclrt_cuda_stamp *aclrt_cuda_stamp_at(uint32_t index, bool make)
{
    uint32_t n = index / ACLRT_TABLE_CHUNK;
    if (n >= ACLRT_TABLE_MAX_CHUNKS)
        return NULL;
    /* Acquire: pairs with the release that published the chunk. */
    struct aclrt_cuda_stamp_chunk *c = atomic_load_explicit(&aclrt_cuda_stamp_chunks[n], memory_order_acquire);
    if (c == NULL && make) {
        pthread_mutex_lock(&aclrt_cuda.lock);
        c = atomic_load_explicit(&aclrt_cuda_stamp_chunks[n], memory_order_relaxed);
        if (c == NULL && (c = (struct aclrt_cuda_stamp_chunk *)calloc(1, sizeof *c)) != NULL) {
            for (uint32_t i = 0; i < ACLRT_TABLE_CHUNK; i++)
                pthread_mutex_init(&c->stamps[i].lock, NULL);
            atomic_store_explicit(&aclrt_cuda_stamp_chunks[n], c, memory_order_release);
        }
        pthread_mutex_unlock(&aclrt_cuda.lock);
    }
    return c != NULL ? &c->stamps[index % ACLRT_TABLE_CHUNK] : NULL;
}

/*
 * Record the CUevent of `mark`'s event on `cu` if that record is still the
 * event's current one. Returns the driver's result; *stamp is the value to
 * store in the event (0: nothing was recorded).
 */
ACLRT_INTERNAL aclrt_CUresult aclrt_cuda_stamp_record(const struct aclrt_event_ref *mark, struct aclrt_cuda_device *cd,
                                              aclrt_CUstream cu, uint64_t *stamp)
{
    *stamp = 0;
    uint32_t index = aclrt_slot_index(&mark->event->hdr);
    struct aclrt_cuda_stamp *st = aclrt_cuda_stamp_at(index, true);
    if (st == NULL)
        return ACLRT_CUDA_ERROR_OUT_OF_MEMORY;
    aclrt_CUresult r = ACLRT_CUDA_SUCCESS;
    pthread_mutex_lock(&st->lock);
    struct aclrt_event_view v;
    aclrt_event_read(mark->event, &v);
    if (v.generation == mark->generation && v.records == mark->record) {
        if (st->ev != NULL && st->cd != cd) { /* recorded on another device's stream before */
            if (aclrt_cuda_enter(st->cd->ctx) == ACLRT_CUDA_SUCCESS)
                aclrt_cu->cuEventDestroy(st->ev);
            st->ev = NULL;
        }
        r = aclrt_cuda_enter(cd->ctx);
        if (r == ACLRT_CUDA_SUCCESS && st->ev == NULL && (r = aclrt_cu->cuEventCreate(&st->ev, ACLRT_CU_EVENT_DEFAULT)) ==
                                                            ACLRT_CUDA_SUCCESS)
            st->cd = cd;
        if (r == ACLRT_CUDA_SUCCESS && (r = aclrt_cu->cuEventRecord(st->ev, cu)) == ACLRT_CUDA_SUCCESS)
            *stamp = (uint64_t)index + 1;
    }
    pthread_mutex_unlock(&st->lock);
    return r;
}

/*
 * (Re)take the device's anchor: record it, wait for it, read the host clock
 * (anchor lock held). The anchor's host time is the middle of the window
 * the record fell in; a thread preempted around it widens the window, so a
 * few tries keep the narrowest one.
 */
ACLRT_INTERNAL aclrt_CUresult aclrt_cuda_anchor_take(struct aclrt_cuda_device *cd)
{
    uint64_t best = UINT64_MAX;
    aclrt_CUresult r = ACLRT_CUDA_SUCCESS;
    for (int i = 0; i < 4 && best > 20 * ACLRT_NS_PER_US; i++) {
        uint64_t before = aclrt_now_ns();
        r = aclrt_cu->cuEventRecord(cd->anchor, cd->anchor_stream);
        if (r == ACLRT_CUDA_SUCCESS)
            r = aclrt_cu->cuEventSynchronize(cd->anchor);
        if (r != ACLRT_CUDA_SUCCESS)
            break;
        uint64_t window = aclrt_now_ns() - before;
        if (window < best) {
            best = window;
            cd->anchor_ns = before + window / 2;
        }
    }
    return best != UINT64_MAX ? ACLRT_CUDA_SUCCESS : r;
}

/* The backend's stamp_time: the host time of a stamp's record (its CUevent completed). */
ACLRT_INTERNAL aclError aclrt_cuda_stamp_time(struct aclrt_device *dev, uint64_t stamp, uint64_t *ns)
{
    (void)dev;
    struct aclrt_cuda_stamp *st = aclrt_cuda_stamp_at((uint32_t)(stamp - 1), false);
    if (st == NULL)
        return ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID;
    aclrt_CUresult r = ACLRT_CUDA_ERROR_INVALID_HANDLE;
    float ms = 0;
    pthread_mutex_lock(&st->lock);
    struct aclrt_cuda_device *cd = st->cd;
    if (st->ev != NULL && (r = aclrt_cuda_enter(cd->ctx)) == ACLRT_CUDA_SUCCESS) {
        pthread_mutex_lock(&cd->anchor_lock);
        if (aclrt_now_ns() - cd->anchor_ns > ACLRT_CUDA_ANCHOR_NS)
            (void)aclrt_cuda_anchor_take(cd); /* a failure keeps the older anchor */
        r = aclrt_cu->cuEventElapsedTime(&ms, cd->anchor, st->ev);
        /* A record that completed is not in the future: the anchor's error is cut off at now. */
        if (r == ACLRT_CUDA_SUCCESS)
            *ns = aclrt_min_u64((uint64_t)((int64_t)cd->anchor_ns + (int64_t)((double)ms * 1e6)), aclrt_now_ns());
        pthread_mutex_unlock(&cd->anchor_lock);
    }
    pthread_mutex_unlock(&st->lock);
    return r == ACLRT_CUDA_SUCCESS ? ACL_SUCCESS : aclrt_cuda_code(r);
}

/* The backend's stamp_elapsed: the GPU's interval between two stamps' records. */
ACLRT_INTERNAL aclError aclrt_cuda_stamp_elapsed(struct aclrt_device *dev, uint64_t from, uint64_t to, int64_t *ns)
{
    struct aclrt_cuda_stamp *a = aclrt_cuda_stamp_at((uint32_t)(from - 1), false);
    struct aclrt_cuda_stamp *b = aclrt_cuda_stamp_at((uint32_t)(to - 1), false);
    if (a == NULL || b == NULL)
        return ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID;
    if (a == b) {
        *ns = 0;
        return ACL_SUCCESS;
    }
    struct aclrt_cuda_stamp *first = from < to ? a : b, *second = from < to ? b : a; /* one lock order */
    pthread_mutex_lock(&first->lock);
    pthread_mutex_lock(&second->lock);
    aclrt_CUresult r = ACLRT_CUDA_ERROR_INVALID_HANDLE;
    bool same = a->ev != NULL && b->ev != NULL && a->cd == b->cd;
    float ms = 0;
    if (same && (r = aclrt_cuda_enter(a->cd->ctx)) == ACLRT_CUDA_SUCCESS)
        r = aclrt_cu->cuEventElapsedTime(&ms, a->ev, b->ev);
    pthread_mutex_unlock(&second->lock);
    pthread_mutex_unlock(&first->lock);
    if (!same) { /* recorded on streams of two devices: the difference of their times */
        uint64_t t0, t1;
        aclError rc = aclrt_cuda_stamp_time(dev, from, &t0);
        if (rc == ACL_SUCCESS)
            rc = aclrt_cuda_stamp_time(dev, to, &t1);
        if (rc == ACL_SUCCESS)
            *ns = (int64_t)(t1 - t0);
        return rc;
    }
    if (r != ACLRT_CUDA_SUCCESS)
        return aclrt_cuda_code(r);
    *ns = (int64_t)((double)ms * 1e6);
    return ACL_SUCCESS;
}

/* The backend closes: every CUevent goes (each in its device's context, still retained). */
ACLRT_INTERNAL void aclrt_cuda_stamps_release(bool call_driver)
{
    for (uint32_t n = 0; n < ACLRT_TABLE_MAX_CHUNKS; n++) {
        struct aclrt_cuda_stamp_chunk *c = atomic_load_explicit(&aclrt_cuda_stamp_chunks[n], memory_order_relaxed);
        if (c == NULL)
            continue;
        atomic_store_explicit(&aclrt_cuda_stamp_chunks[n], NULL, memory_order_relaxed);
        for (uint32_t i = 0; i < ACLRT_TABLE_CHUNK; i++) {
            struct aclrt_cuda_stamp *st = &c->stamps[i];
            if (st->ev != NULL && call_driver && aclrt_cuda_enter(st->cd->ctx) == ACLRT_CUDA_SUCCESS)
                aclrt_cu->cuEventDestroy(st->ev);
            pthread_mutex_destroy(&st->lock);
        }
        free(c);
    }
}

#endif /* ACLRT_BACKENDS_CUDA_CUDA_TIME_H */

/*
 * backends/cuda/cuda_stream.h - a stream on the GPU: its CUstream, its
 * completion word, and how its completions reach the core.
 *
 *   - Each aclrt stream is a non-blocking CUstream (created in the stream's
 *     device's primary context, destroyed with the life of the stream).
 *   - Each stream slot (the core's slot index) has a record of ours for the
 *     backend's life, with a 64-bit completion word in pinned host memory
 *     mapped for the GPU (cuMemHostAlloc PORTABLE | DEVICEMAP), one per
 *     cache line. After each task's work the GPU writes the task's number
 *     there (cuStreamWriteValue64), or a host function of ours stores it.
 *     The core reads it as the stream's progress (s->device_done,
 *     backends/backend.h): an event query is one or two loads, never a
 *     driver call; a waiting stream waits on it on the GPU
 *     (cuStreamWaitValue64 GEQ).
 *   - The core's completed count follows the word when someone needs it to
 *     (aclrt_stream_fold): a holder at each run, and for sleepers and parked
 *     streams a fold callback, a host function that the GPU runs right
 *     after the awaited task (stream_await). The Dekker pair: a waiter
 *     stores `want` then loads `gpu_issued`; the holder stores `gpu_issued`
 *     after enqueuing a task then loads `want` (all seq_cst). Either the
 *     waiter sees the task issued and enqueues the callback itself (then
 *     behind everything issued so far: the word, which a sleeper also
 *     reads, is what decides), or the holder sees the waiter and enqueues
 *     it right behind the task.
 *   - What a task in flight holds until it is complete (a kernel launch's
 *     record: its binary counted in flight, its arguments for a failure
 *     report) is kept in the slot's FIFO, in issue order, and let go of
 *     once the word reaches the task's number, by an ordinary thread, never
 *     by the driver's callback thread (no user code, no driver call, no
 *     lock there): the holder at each kernel it issues (before adding its
 *     own, amortised), a waiter before it sleeps (stream_await), the
 *     stream's destroy, and every slot's at a module load or unload (so an
 *     unloaded binary whose launches ran is closed by the next thread that
 *     loads or unloads one, as a module left for later is).
 *   - What a host function of ours may not do on the driver's thread (a
 *     model body's last reference: user code) it leaves for the next
 *     ordinary thread that comes by (aclrt_cuda_run_later).
 *   - A stream whose GPU work failed stops short (the word stays below the
 *     failed task). The driver says so when asked (cuStreamQuery), which a
 *     waiter does in stream_await: the task after the word failed, and is
 *     reported with its ids (aclrt_stream_fail), a kernel with its function
 *     and arguments (its record is still held: the word is below it).
 *     After a sticky error the context accepts nothing; the device is
 *     marked lost and its issued work counts as done (failed, the word
 *     raised: every record is retired), so nothing waits for it for ever. A
 *     failure is noticed by the stream's next wait that sleeps, not by a
 *     query (which never calls the driver).
 */
#ifndef ACLRT_BACKENDS_CUDA_CUDA_STREAM_H
#define ACLRT_BACKENDS_CUDA_CUDA_STREAM_H

#include "../../impl/core/base.h"
#include "../../impl/core/error.h"
#include "../../impl/core/handle.h"
#include "../../impl/core/seq.h"
#include "../../impl/task/ring.h"
#include "../../impl/runtime/runtime.h"
#include "../../impl/stream/stream.h"
#include "../../impl/stream/stream_complete.h"
#include "../../impl/exec/exception.h"
#include "../../impl/exec/exec.h"
#include "../../impl/kernel/dump.h"
#include "../../impl/sync/value.h"
#include "cuda_device.h"
#include "cuda_driver.h"

#define ACLRT_CUDA_SLOT_CHUNK ACLRT_TABLE_CHUNK       /* stream slots per chunk of records (and of words) */
#define ACLRT_CUDA_SLOT_CHUNKS ACLRT_TABLE_MAX_CHUNKS /* as many as the core's stream table has */
#define ACLRT_CUDA_TID_RING 64      /* the submitting threads of the last tasks issued, by number */

struct aclrt_cuda_slot;

/*
 * What task `number` holds until it is complete, in its slot's FIFO (a
 * kernel launch's record, cuda_kernel.h): `retire` lets go of it once the
 * word reached the task (or in a forked child, whose streams end with the
 * parent's work), on an ordinary thread with no lock of ours held.
 */
struct aclrt_cuda_held {
    struct aclrt_cuda_held *next;              /* the slot's FIFO, in issue order (launch_lock) */
    uint64_t number;
    uint32_t tid;                              /* the submitting thread (a failure report) */
    const struct aclrt_kernel_failure *kernel; /* a kernel's function and arguments (a failure report); NULL: none */
    void (*retire)(struct aclrt_cuda_held *h);
};

struct aclrt_cuda_word {
    _Atomic uint64_t value;
    _Atomic uint64_t gate; /* the value waits' gate (cuda_value.h) */
    char pad[ACLRT_CACHELINE - 2 * sizeof(uint64_t)];
};

struct aclrt_cuda_slot {
    struct aclrt_stream *stream;      /* the core's slot (valid for the process) */
    _Atomic uint64_t *word;           /* completion word (pinned, mapped) */
    aclrt_CUdeviceptr word_dev;       /* its address for the GPU */
    _Atomic uint64_t *gate;           /* value waits on the GPU: the last one let through (cuda_value.h) */
    aclrt_CUdeviceptr gate_dev;
    aclrt_CUstream watch;             /* value waits on the GPU: where they wait (lock; NULL: none yet) */
    _Atomic uint64_t gate_want;       /* the last value wait issued to the GPU */
    pthread_mutex_t lock;             /* `cu` and `cd` for threads other than the holder (held across driver calls) */
    pthread_mutex_t launch_lock;      /* `held`, `held_tail` (never held across a driver call nor a retire) */
    aclrt_CUstream cu;                /* this life's CUstream; NULL between lives */
    struct aclrt_cuda_device *cd;     /* this life's device */
    uint64_t host_until;              /* holder: an external task's number; later work waits for it */
    _Atomic uint64_t gpu_issued;      /* the last task whose completion is enqueued on the GPU */
    _Atomic uint64_t may_block;       /* the last task on the GPU queue that can wait for the host (a value wait) */
    _Atomic uint64_t want;            /* the largest target a waiter asked for (stream_await) */
    _Atomic uint64_t fold_sent;       /* a fold callback is enqueued behind this task */
    _Atomic uint64_t reported;        /* the last task reported failed */
    _Atomic bool checking;            /* a waiter asks the driver about a failure (aclrt_cuda_check) */
    _Atomic uint32_t tids[ACLRT_CUDA_TID_RING];
    struct aclrt_cuda_held *held;     /* what tasks in flight hold, oldest first (launch_lock; kept across lives) */
    struct aclrt_cuda_held *held_tail;
    _Atomic uint64_t held_first;      /* the oldest one's number, 0: none (a hint read without the lock) */
};

struct aclrt_cuda_chunk {
    struct aclrt_cuda_word *words;
    aclrt_CUdeviceptr words_dev;
    struct aclrt_cuda_slot slots[ACLRT_CUDA_SLOT_CHUNK];
};

static struct aclrt_cuda_chunk *_Atomic aclrt_cuda_chunks[ACLRT_CUDA_SLOT_CHUNKS];

/* Our record of a stream slot, or NULL if no stream of this backend ever lived there. */
ACLRT_INLINE struct aclrt_cuda_slot *aclrt_cuda_slot_at(uint32_t index)
{
    if (index >= ACLRT_CUDA_SLOT_CHUNK * ACLRT_CUDA_SLOT_CHUNKS)
        return NULL;
    /* Acquire: pairs with the release that published the chunk (its records and words). */
    struct aclrt_cuda_chunk *c =
        atomic_load_explicit(&aclrt_cuda_chunks[index / ACLRT_CUDA_SLOT_CHUNK], memory_order_acquire);
    return c != NULL ? &c->slots[index % ACLRT_CUDA_SLOT_CHUNK] : NULL;
}

ACLRT_INLINE struct aclrt_cuda_slot *aclrt_cuda_slot_of(const struct aclrt_stream *s)
{
    return (struct aclrt_cuda_slot *)s->backend_state;
}

/* The record of slot `index`, making its chunk (a context is current: the pinned words need one). */
static aclError aclrt_cuda_slot_make(uint32_t index, struct aclrt_cuda_slot **out)
{
    *out = aclrt_cuda_slot_at(index);
    if (*out != NULL)
        return ACL_SUCCESS;
    if (index >= ACLRT_CUDA_SLOT_CHUNK * ACLRT_CUDA_SLOT_CHUNKS)
        return aclrt_fail(ACL_ERROR_RT_NO_STREAM_RESOURCE, "the cuda backend has records for %d stream slots",
                          ACLRT_CUDA_SLOT_CHUNK * ACLRT_CUDA_SLOT_CHUNKS);
    aclError rc = ACL_SUCCESS;
    pthread_mutex_lock(&aclrt_cuda.lock);
    uint32_t n = index / ACLRT_CUDA_SLOT_CHUNK;
    struct aclrt_cuda_chunk *c = atomic_load_explicit(&aclrt_cuda_chunks[n], memory_order_relaxed);
    if (c == NULL) {
        c = (struct aclrt_cuda_chunk *)calloc(1, sizeof *c);
        void *words = NULL;
        size_t bytes = ACLRT_CUDA_SLOT_CHUNK * sizeof(struct aclrt_cuda_word);
        aclrt_CUresult r = c == NULL ? ACLRT_CUDA_ERROR_OUT_OF_MEMORY
                                     : aclrt_cu->cuMemHostAlloc(&words, bytes, ACLRT_CU_MEMHOSTALLOC_PORTABLE |
                                                                                   ACLRT_CU_MEMHOSTALLOC_DEVICEMAP);
        if (r == ACLRT_CUDA_SUCCESS)
            r = aclrt_cu->cuMemHostGetDevicePointer(&c->words_dev, words, 0);
        if (r != ACLRT_CUDA_SUCCESS) {
            if (words != NULL)
                aclrt_cu->cuMemFreeHost(words);
            free(c);
            c = NULL;
            rc = aclrt_cuda_fail(r, "allocating the streams' completion words (cuMemHostAlloc)");
        } else {
            memset(words, 0, bytes);
            c->words = (struct aclrt_cuda_word *)words;
            for (uint32_t i = 0; i < ACLRT_CUDA_SLOT_CHUNK; i++) {
                struct aclrt_cuda_slot *sl = &c->slots[i];
                sl->stream = (struct aclrt_stream *)(void *)aclrt_table_slot(&aclrt_streams, n * ACLRT_CUDA_SLOT_CHUNK + i);
                sl->word = &c->words[i].value;
                sl->word_dev = c->words_dev + (aclrt_CUdeviceptr)i * sizeof(struct aclrt_cuda_word);
                sl->gate = &c->words[i].gate;
                sl->gate_dev = sl->word_dev + offsetof(struct aclrt_cuda_word, gate);
                pthread_mutex_init(&sl->lock, NULL);
                pthread_mutex_init(&sl->launch_lock, NULL);
            }
            /* Release: pairs with the acquire in aclrt_cuda_slot_at. */
            atomic_store_explicit(&aclrt_cuda_chunks[n], c, memory_order_release);
        }
    }
    pthread_mutex_unlock(&aclrt_cuda.lock);
    if (rc == ACL_SUCCESS)
        *out = &c->slots[index % ACLRT_CUDA_SLOT_CHUNK];
    return rc;
}

/* The fold callback: the GPU reached the awaited task; bring the core's count to the word. */
static void aclrt_cuda_fold_cb(void *arg)
{
    struct aclrt_cuda_slot *sl = (struct aclrt_cuda_slot *)arg;
    aclrt_cuda_in_callback = true;
    aclrt_stream_fold(sl->stream);
    aclrt_cuda_in_callback = false;
    aclrt_cuda_host_fn_end();
}

/* Enqueue a fold callback behind the work issued so far (not from a driver callback thread). */
static void aclrt_cuda_request_fold(struct aclrt_cuda_slot *sl, uint64_t upto)
{
    if (aclrt_cuda_in_callback)
        return; /* the waiter's own reads of the word do */
    pthread_mutex_lock(&sl->lock);
    if (sl->cu != NULL && atomic_load_explicit(&sl->fold_sent, memory_order_relaxed) < upto &&
        aclrt_cuda_enter(sl->cd->ctx) == ACLRT_CUDA_SUCCESS &&
        aclrt_cuda_host_fn(sl->cu, aclrt_cuda_fold_cb, sl) == ACLRT_CUDA_SUCCESS)
        atomic_store_explicit(&sl->fold_sent, upto, memory_order_relaxed);
    pthread_mutex_unlock(&sl->lock);
}

/*
 * Launchers wait for room in the stream's ring (its slots come back as its
 * tasks complete): a fold callback after every quarter of the ring issued,
 * and after the last task the holder has.
 */
static ACLRT_NOINLINE void aclrt_cuda_room_fold(struct aclrt_cuda_slot *sl, uint64_t n)
{
    struct aclrt_stream *s = sl->stream;
    uint64_t sent = atomic_load_explicit(&sl->fold_sent, memory_order_relaxed);
    if (n - sent >= aclrt_ring_room_batch(&s->ring) || !aclrt_stream_has_queued(s))
        aclrt_cuda_request_fold(sl, n);
}

/*
 * The holder enqueued task n's completion (its word write or host store).
 * Seq_cst store, then the load of `want`: the holder's half of the pair
 * with aclrt_cuda_stream_await. Launchers waiting for room count
 * themselves (seq_cst) before they look at the ring a last time and sleep
 * (ring.h): a holder that issues after that sees them here.
 */
ACLRT_INLINE void aclrt_cuda_issued(struct aclrt_cuda_slot *sl, uint64_t n)
{
    atomic_store_explicit(&sl->gpu_issued, n, memory_order_seq_cst);
    uint64_t want = atomic_load_explicit(&sl->want, memory_order_seq_cst);
    if (ACLRT_UNLIKELY(want <= n && want > atomic_load_explicit(&sl->fold_sent, memory_order_relaxed)))
        aclrt_cuda_request_fold(sl, n);
    else if (ACLRT_UNLIKELY(atomic_load_explicit(&sl->stream->ring.room_waiters, memory_order_seq_cst) != 0))
        aclrt_cuda_room_fold(sl, n);
}

/* Store v into the word unless it holds more (host completions of a lost device). */
ACLRT_INTERNAL void aclrt_cuda_word_raise(struct aclrt_cuda_slot *sl, uint64_t v)
{
    uint64_t w = atomic_load_explicit(sl->word, memory_order_relaxed);
    /* Release: pairs with the readers' acquire (aclrt_stream_reached). */
    while (w < v && !atomic_compare_exchange_weak_explicit(sl->word, &w, v, memory_order_release, memory_order_relaxed))
        ;
}

/*
 * The device of sl lost its context (sticky error r): nothing issued will
 * run. Mark it, and count the stream's issued work as done.
 */
ACLRT_INTERNAL void aclrt_cuda_lose(struct aclrt_cuda_slot *sl, struct aclrt_cuda_device *cd, aclrt_CUresult r)
{
    aclrt_CUresult none = ACLRT_CUDA_SUCCESS;
    atomic_compare_exchange_strong_explicit(&cd->lost, &none, r, memory_order_relaxed, memory_order_relaxed);
    none = ACLRT_CUDA_SUCCESS;
    atomic_compare_exchange_strong_explicit(&aclrt_cuda.gpu_lost[cd->gpu_index], &none, r, memory_order_relaxed,
                                            memory_order_relaxed);
    aclrt_cuda_word_raise(sl, atomic_load_explicit(&sl->gpu_issued, memory_order_seq_cst));
    aclrt_stream_fold(sl->stream);
}

/* cuStreamQuery on the stream of this life, if it has one. */
static aclrt_CUresult aclrt_cuda_query(struct aclrt_cuda_slot *sl)
{
    aclrt_CUresult r = ACLRT_CUDA_SUCCESS;
    pthread_mutex_lock(&sl->lock);
    if (sl->cu != NULL && (r = aclrt_cuda_enter(sl->cd->ctx)) == ACLRT_CUDA_SUCCESS)
        r = aclrt_cu->cuStreamQuery(sl->cu);
    pthread_mutex_unlock(&sl->lock);
    return r;
}

/*
 * Work a host function of ours leaves for an ordinary thread (on the
 * driver's callback thread no user code runs and no driver call is made: a
 * model body's last reference, cuda_graph.h): a stack, pushed without a
 * lock, taken whole by aclrt_cuda_run_later, which waiters (stream_await),
 * a stream's destroy, a graph's build, a module load or unload and the
 * backend's close call.
 */
struct aclrt_cuda_later {
    struct aclrt_cuda_later *next;
    void (*run)(struct aclrt_cuda_later *w); /* does it and frees w (an ordinary thread, no lock of ours held) */
};

static struct aclrt_cuda_later *_Atomic aclrt_cuda_later_work;

ACLRT_INTERNAL void aclrt_cuda_leave_for_later(struct aclrt_cuda_later *w)
{
    w->next = atomic_load_explicit(&aclrt_cuda_later_work, memory_order_relaxed);
    /* Release: pairs with the taker's acquire exchange (w's fields). */
    while (!atomic_compare_exchange_weak_explicit(&aclrt_cuda_later_work, &w->next, w, memory_order_release,
                                                  memory_order_relaxed))
        ;
}

/* Do the work host functions left (not on a driver callback thread: there it waits for the next caller). */
ACLRT_INTERNAL void aclrt_cuda_run_later(void)
{
    if (aclrt_cuda_in_callback || atomic_load_explicit(&aclrt_cuda_later_work, memory_order_relaxed) == NULL)
        return;
    /* Acquire: pairs with the release CAS of the push. */
    struct aclrt_cuda_later *list = atomic_exchange_explicit(&aclrt_cuda_later_work, NULL, memory_order_acquire);
    for (struct aclrt_cuda_later *w = list, *next; w != NULL; w = next) {
        next = w->next;
        w->run(w);
    }
}

/* ------------------------------------------------------------------------
 * What tasks in flight hold (the slot's FIFO)
 * ------------------------------------------------------------------------ */

/* Unlink the FIFO's records of tasks up to `upto`, oldest first (launch_lock held). NULL: none. */
static struct aclrt_cuda_held *aclrt_cuda_held_take_locked(struct aclrt_cuda_slot *sl, uint64_t upto)
{
    struct aclrt_cuda_held *first = sl->held, *last = NULL, *h = first;
    for (; h != NULL && h->number <= upto; h = h->next)
        last = h;
    if (last == NULL)
        return NULL;
    last->next = NULL;
    sl->held = h;
    if (h == NULL)
        sl->held_tail = NULL;
    atomic_store_explicit(&sl->held_first, h != NULL ? h->number : 0, memory_order_relaxed);
    return first;
}

/* Let go of records taken off a FIFO (no lock of ours held: a retire may unload a module, put a model's body). */
ACLRT_INTERNAL void aclrt_cuda_held_release(struct aclrt_cuda_held *list)
{
    for (struct aclrt_cuda_held *h = list, *next; h != NULL; h = next) {
        next = h->next;
        h->retire(h);
    }
}

/*
 * The holder, before task h->number's work goes to the GPU queue: h joins
 * the FIFO (a failure report finds it from here on). Returns the records
 * of tasks the word says are complete, unlinked, for the caller to release
 * after its driver calls (a module's unload may make another context
 * current).
 */
ACLRT_INTERNAL struct aclrt_cuda_held *aclrt_cuda_hold(struct aclrt_cuda_slot *sl, struct aclrt_cuda_held *h)
{
    uint64_t first = atomic_load_explicit(&sl->held_first, memory_order_relaxed);
    /* Acquire: pairs with the word's release stores (aclrt_cuda_word_raise, aclrt_cuda_callback_complete) and
     * comes after the GPU's write behind the task's work (the stream's order). */
    uint64_t upto = first != 0 ? atomic_load_explicit(sl->word, memory_order_acquire) : 0;
    h->next = NULL;
    pthread_mutex_lock(&sl->launch_lock);
    struct aclrt_cuda_held *done = first != 0 && first <= upto ? aclrt_cuda_held_take_locked(sl, upto) : NULL;
    if (sl->held_tail != NULL) {
        sl->held_tail->next = h;
    } else {
        sl->held = h;
        atomic_store_explicit(&sl->held_first, h->number, memory_order_relaxed);
    }
    sl->held_tail = h;
    pthread_mutex_unlock(&sl->launch_lock);
    return done;
}

/*
 * Let go of what sl's tasks up to `upto` hold (UINT64_MAX: all of them),
 * on an ordinary thread: not on a driver callback thread, where nothing is
 * retired (its thread's next ordinary caller does it).
 */
static void aclrt_cuda_retire_upto(struct aclrt_cuda_slot *sl, uint64_t upto)
{
    if (aclrt_cuda_in_callback)
        return;
    pthread_mutex_lock(&sl->launch_lock);
    struct aclrt_cuda_held *done = aclrt_cuda_held_take_locked(sl, upto);
    pthread_mutex_unlock(&sl->launch_lock);
    aclrt_cuda_held_release(done);
}

/* Let go of what sl's completed tasks hold (the word says which; a look at the hint when there is nothing). */
static void aclrt_cuda_retire(struct aclrt_cuda_slot *sl)
{
    uint64_t first = atomic_load_explicit(&sl->held_first, memory_order_relaxed);
    if (first == 0)
        return;
    /* Acquire: pairs with the word's release stores, as in aclrt_cuda_hold. */
    uint64_t upto = atomic_load_explicit(sl->word, memory_order_acquire);
    if (first <= upto)
        aclrt_cuda_retire_upto(sl, upto);
}

/* Set while the calling thread retires every slot's records: a module unload that one causes does not again. */
static _Thread_local bool aclrt_cuda_retiring_all;

/*
 * Every slot's completed tasks let go of what they hold (a module load or
 * unload: the binaries whose launches all ran since are closed).
 */
ACLRT_INTERNAL void aclrt_cuda_retire_everywhere(void)
{
    if (aclrt_cuda_in_callback || aclrt_cuda_retiring_all || aclrt_runtime_orphaned())
        return;
    aclrt_cuda_retiring_all = true;
    for (uint32_t n = 0; n < ACLRT_CUDA_SLOT_CHUNKS; n++) {
        /* Acquire: pairs with the release that published the chunk. */
        struct aclrt_cuda_chunk *c = atomic_load_explicit(&aclrt_cuda_chunks[n], memory_order_acquire);
        if (c == NULL)
            continue;
        for (uint32_t i = 0; i < ACLRT_CUDA_SLOT_CHUNK; i++)
            aclrt_cuda_retire(&c->slots[i]);
    }
    aclrt_cuda_retiring_all = false;
}

/* The kernel of task `number` and its thread, if the slot still holds its record (a failure report). */
static bool aclrt_cuda_kernel_of(struct aclrt_cuda_slot *sl, uint64_t number, struct aclrt_kernel_failure *out,
                                 uint32_t *tid)
{
    bool found = false;
    pthread_mutex_lock(&sl->launch_lock);
    for (const struct aclrt_cuda_held *h = sl->held; h != NULL && h->number <= number; h = h->next)
        if (h->number == number && h->kernel != NULL) { /* its stream stopped at it: not retired */
            *out = *h->kernel;
            *tid = h->tid;
            found = true;
            break;
        }
    pthread_mutex_unlock(&sl->launch_lock);
    return found;
}

ACLRT_INLINE bool aclrt_cuda_failed(aclrt_CUresult r)
{
    return r != ACLRT_CUDA_SUCCESS && r != ACLRT_CUDA_ERROR_NOT_READY;
}

/* A failing kernel's arguments (host memory), to the exception dump when one is on (dump.h). */
ACLRT_INTERNAL void aclrt_cuda_dump_failed(struct aclrt_stream *s, const struct aclrt_kernel_failure *k)
{
    unsigned dump = aclrt_dump_on();
    if (ACLRT_UNLIKELY(dump & ACLRT_DUMP_EXCEPTION))
        aclrt_dump_kernel(dump, k->handle, s->device->id, k->args, k->args_size, true);
}

/*
 * Ask the driver whether the stream's GPU work failed; if so, report the
 * task after the word (the first one not done) once, with its ids. The
 * stream stops at a failed operation, so that task cannot complete, nor the
 * life end, before the report: the driver lets the stream go on past a
 * failure that is not sticky only when asked again, after the report; a
 * sticky one stays, and the device is lost. One waiter asks at a time.
 */
static void aclrt_cuda_check(struct aclrt_cuda_slot *sl)
{
    if (aclrt_cuda_in_callback)
        return;
    /* Acquire: pairs with the release below (the previous asker's reports are done). */
    if (atomic_exchange_explicit(&sl->checking, true, memory_order_acquire))
        return;
    aclrt_CUresult r = aclrt_cuda_query(sl);
    if (aclrt_cuda_failed(r)) {
        struct aclrt_cuda_device *cd = sl->cd;
        uint64_t failed = atomic_load_explicit(sl->word, memory_order_acquire) + 1;
        if (atomic_load_explicit(&sl->reported, memory_order_relaxed) < failed) {
            atomic_store_explicit(&sl->reported, failed, memory_order_relaxed);
            uint32_t tid = atomic_load_explicit(&sl->tids[failed % ACLRT_CUDA_TID_RING], memory_order_relaxed);
            struct aclrt_kernel_failure k;
            if (aclrt_cuda_kernel_of(sl, failed, &k, &tid)) {
                aclrt_cuda_dump_failed(sl->stream, &k);
                aclrt_stream_fail_kernel(sl->stream, tid, failed, aclrt_cuda_code(r), &k);
            } else {
                aclrt_stream_fail(sl->stream, tid, failed, aclrt_cuda_code(r));
            }
        }
        aclrt_CUresult again = aclrt_cuda_query(sl);
        if (aclrt_cuda_failed(again))
            aclrt_cuda_lose(sl, cd, again);
    }
    atomic_store_explicit(&sl->checking, false, memory_order_release);
}

/*
 * The backend's stream_await: a thread sleeps, or a stream parks, until s
 * completed `target`. Let go of what the completed tasks hold (this is an
 * ordinary thread, and about to wait anyway); fold what the word says;
 * else record the wish and,
 * when the target's completion is issued already, enqueue a fold callback
 * (the pair with aclrt_cuda_issued, at the top of this file); and ask the
 * driver whether the stream failed.
 */
ACLRT_INTERNAL void aclrt_cuda_stream_await(struct aclrt_stream *s, uint64_t target)
{
    struct aclrt_cuda_slot *sl = aclrt_cuda_slot_at(aclrt_slot_index(&s->hdr));
    if (sl == NULL || aclrt_runtime_orphaned()) /* a forked child: the parent's work, its locks may stay held */
        return;
    aclrt_cuda_retire(sl);
    aclrt_cuda_run_later();
    aclrt_stream_fold(s);
    if (aclrt_seq_reached(&s->completed, target))
        return;
    uint64_t want = atomic_load_explicit(&sl->want, memory_order_relaxed);
    while (want < target && !atomic_compare_exchange_weak_explicit(&sl->want, &want, target, memory_order_seq_cst,
                                                                   memory_order_relaxed))
        ;
    atomic_thread_fence(memory_order_seq_cst); /* the CAS may have been skipped: order the load below anyway */
    uint64_t issued = atomic_load_explicit(&sl->gpu_issued, memory_order_seq_cst);
    if (issued >= target && atomic_load_explicit(&sl->fold_sent, memory_order_relaxed) < target)
        aclrt_cuda_request_fold(sl, issued);
    aclrt_cuda_check(sl);
}

/*
 * Let the stream past its value waits on the GPU (no driver call: any thread,
 * any time). A wait the GPU had not passed stays in the driver, on the watch
 * stream: the device is marked, as freeing device memory then would wait for
 * it (cuMemFree synchronizes the context): its memory goes with the context.
 */
ACLRT_INTERNAL void aclrt_cuda_value_release(struct aclrt_cuda_slot *sl)
{
    uint64_t want = atomic_load_explicit(&sl->gate_want, memory_order_relaxed);
    uint64_t g = atomic_load_explicit(sl->gate, memory_order_relaxed);
    if (g < want && sl->cd != NULL)
        atomic_store_explicit(&sl->cd->stuck_waits, true, memory_order_relaxed);
    /* Release: the GPU reads the gate (the stream's wait); nothing of ours is published with it. */
    while (g < want && !atomic_compare_exchange_weak_explicit(sl->gate, &g, want, memory_order_release,
                                                              memory_order_relaxed))
        ;
}

/*
 * The backend's stream_abort (aclrtStreamAbort, and aclrtDeviceTaskAbort on
 * each stream of the device): work already on the GPU queue cannot be
 * recalled. The core discards what is not issued and waits for what is; so
 * that this wait is bounded, value waits issued to the GPU are let go (as
 * at the stream's end): the GPU work behind them runs to its end and writes
 * its results, which the program treats as discarded. A value wait issued
 * while the abort begins lets itself go (aclrt_cuda_value_wait_run). Atomics
 * only (the abort's thread); the seq_cst fence pairs with that run's: the
 * odd epoch (aclrt_stream_abort_begin) is stored before gate_want is read.
 */
ACLRT_INTERNAL void aclrt_cuda_stream_abort(struct aclrt_stream *s)
{
    struct aclrt_cuda_slot *sl = aclrt_cuda_slot_of(s);
    if (sl == NULL || sl->gate == NULL)
        return;
    atomic_thread_fence(memory_order_seq_cst);
    aclrt_cuda_value_release(sl);
}

/*
 * The backend's stream_device_busy: work of the slot's stream is on the GPU
 * queue and its completion is not in the word yet, and the stream is not
 * held at a value wait (cuda_value.h), which counts as parked, as on the
 * host backend. Once aclFinalize releases value waits, this lets the
 * stream's go. Acquire (both): pairs with the seq_cst store of gpu_issued
 * and the release stores of the word.
 */
ACLRT_INTERNAL bool aclrt_cuda_stream_device_busy(const struct aclrt_stream *s)
{
    struct aclrt_cuda_slot *sl = aclrt_cuda_slot_at(aclrt_slot_index(&s->hdr));
    if (sl == NULL)
        return false;
    uint64_t issued = atomic_load_explicit(&sl->gpu_issued, memory_order_acquire);
    uint64_t done = atomic_load_explicit(sl->word, memory_order_acquire);
    if (issued <= done)
        return false;
    uint64_t want = atomic_load_explicit(&sl->gate_want, memory_order_relaxed);
    if (want != done + 1 || atomic_load_explicit(sl->gate, memory_order_relaxed) >= want)
        return true;
    /* Acquire: pairs with the release in aclrt_value_release_waits. */
    if (atomic_load_explicit(&aclrt_value_releasing, memory_order_acquire)) {
        aclrt_cuda_value_release(sl);
        return true; /* it goes on now */
    }
    return false;
}

/* The backend's stream_create: a non-blocking CUstream, and the slot's word published to the core. */
ACLRT_INTERNAL aclError aclrt_cuda_stream_create(struct aclrt_stream *s)
{
    struct aclrt_cuda_device *cd = aclrt_cuda_device_of(s->device);
    if (ACLRT_UNLIKELY(atomic_load_explicit(&aclrt_cuda.gpu_lost[cd->gpu_index], memory_order_relaxed) !=
                       ACLRT_CUDA_SUCCESS))
        return aclrt_cuda_gpu_lost_fail(cd->gpu_index);
    aclrt_CUresult r = aclrt_cuda_enter(cd->ctx);
    if (r != ACLRT_CUDA_SUCCESS)
        return aclrt_cuda_fail(r, "making the device's context current");
    struct aclrt_cuda_slot *sl;
    aclError rc = aclrt_cuda_slot_make(aclrt_slot_index(&s->hdr), &sl);
    if (rc != ACL_SUCCESS)
        return rc;
    aclrt_CUstream cu = NULL;
    r = aclrt_cu->cuStreamCreateWithPriority(&cu, ACLRT_CU_STREAM_NON_BLOCKING, 0);
    if (r != ACLRT_CUDA_SUCCESS)
        return aclrt_cuda_fail(r, "cuStreamCreateWithPriority");
    /* Counts go on across the slot's lives: the word starts where the count is (they are equal after a free). */
    uint64_t done = aclrt_seq_read(&s->completed);
    aclrt_cuda_word_raise(sl, done);
    atomic_store_explicit(&sl->gpu_issued, done, memory_order_relaxed);
    sl->host_until = 0;
    pthread_mutex_lock(&sl->lock);
    sl->cu = cu;
    sl->cd = cd;
    pthread_mutex_unlock(&sl->lock);
    s->backend_state = sl;
    /* Release: pairs with aclrt_stream_device_word's acquire (the word's value above comes with it). */
    atomic_store_explicit(&s->device_done, sl->word, memory_order_release);
    return ACL_SUCCESS;
}

/* The backend's stream_destroy: the CUstream goes (work still queued on it finishes first, in the driver). */
ACLRT_INTERNAL void aclrt_cuda_stream_destroy(struct aclrt_stream *s)
{
    struct aclrt_cuda_slot *sl = aclrt_cuda_slot_of(s);
    if (sl == NULL)
        return;
    /*
     * A forked child's streams belong to the parent's driver state: nothing
     * is called, and the slot's lock is not taken (a thread of the parent
     * may have held it at the fork; the child has no other thread here).
     */
    bool orphaned = aclrt_runtime_orphaned();
    if (!orphaned)
        pthread_mutex_lock(&sl->lock);
    aclrt_CUstream cu = sl->cu;
    struct aclrt_cuda_device *cd = sl->cd;
    sl->cu = NULL;
    if (!orphaned)
        pthread_mutex_unlock(&sl->lock);
    /*
     * The stream's work is complete (the core frees a slot only then; a lost
     * device's word was raised): what its tasks hold goes. A forked child
     * lets go of it all, without the lock (the parent's thread may have held
     * it; the child has no other thread here).
     */
    if (orphaned) {
        aclrt_cuda_held_release(aclrt_cuda_held_take_locked(sl, UINT64_MAX));
    } else {
        /* Acquire: as in aclrt_cuda_hold. */
        aclrt_cuda_retire_upto(sl, atomic_load_explicit(sl->word, memory_order_acquire));
        aclrt_cuda_run_later();
    }
    bool driver = cu != NULL && !orphaned && aclrt_cuda_enter(cd->ctx) == ACLRT_CUDA_SUCCESS;
    aclrt_cuda_value_release(sl); /* value waits still on the GPU let the stream's last work go */
    if (driver)
        aclrt_cu->cuStreamDestroy(cu);
    if (sl->watch != NULL && driver)
        aclrt_cu->cuStreamDestroy(sl->watch); /* what it waits for goes with it, in the driver */
    sl->watch = NULL;
    s->backend_state = NULL;
}

/* The backend closes: the cores' slots forget the words, which go back to the driver. */
ACLRT_INTERNAL void aclrt_cuda_slots_release(bool call_driver)
{
    /*
     * Host functions of ours still queued (behind GPU work that never ends,
     * dropped with the context) name slots: the records are forgotten, not
     * freed (a leak, once per such teardown). Not when every device is
     * lost: a context after a sticky error runs none of them.
     */
    bool live = false;
    for (uint32_t d = 0; d < ACLRT_MAX_DEVICES; d++)
        live |= aclrt_cuda.devices[d].ctx != NULL &&
                atomic_load_explicit(&aclrt_cuda.gpu_lost[aclrt_cuda.devices[d].gpu_index], memory_order_relaxed) ==
                    ACLRT_CUDA_SUCCESS; /* the GPU's loss: for the process */
    bool keep = call_driver && live && atomic_load_explicit(&aclrt_cuda.host_fns, memory_order_acquire) != 0;
    if (call_driver && !live) /* none of those left will run: a later open's device stops wait for none of them */
        atomic_store_explicit(&aclrt_cuda.host_fns, 0, memory_order_relaxed);
    for (uint32_t n = 0; n < ACLRT_CUDA_SLOT_CHUNKS; n++) {
        struct aclrt_cuda_chunk *c = atomic_load_explicit(&aclrt_cuda_chunks[n], memory_order_relaxed);
        if (c == NULL)
            continue;
        atomic_store_explicit(&aclrt_cuda_chunks[n], NULL, memory_order_relaxed);
        if (keep) {
            for (uint32_t i = 0; i < ACLRT_CUDA_SLOT_CHUNK; i++)
                atomic_store_explicit(&c->slots[i].stream->device_done, NULL, memory_order_relaxed);
            continue;
        }
        for (uint32_t i = 0; i < ACLRT_CUDA_SLOT_CHUNK; i++) {
            /* Nothing runs any more: what is still held goes (no other thread: no lock, as in a forked child). */
            aclrt_cuda_held_release(aclrt_cuda_held_take_locked(&c->slots[i], UINT64_MAX));
            atomic_store_explicit(&c->slots[i].stream->device_done, NULL, memory_order_relaxed);
            pthread_mutex_destroy(&c->slots[i].lock);
            pthread_mutex_destroy(&c->slots[i].launch_lock);
        }
        if (call_driver)
            aclrt_cu->cuMemFreeHost(c->words);
        free(c);
    }
}

#endif /* ACLRT_BACKENDS_CUDA_CUDA_STREAM_H */

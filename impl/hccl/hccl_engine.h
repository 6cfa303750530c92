/*
 * impl/hccl/hccl_engine.h - MPI's side of the runtime: the engine thread,
 * which drives MPI's progress, and the watch that fails operations past
 * their deadline.
 *
 *   - Every call into MPI holds `mpi_lock`, so MPI is never entered by two
 *     threads at once (MPI_THREAD_SERIALIZED is all it needs).
 *   - An operation starts on the thread that runs its stream: the start
 *     (MPI_Iallreduce, ...) returns at once, and that thread tests it for
 *     up to ACLRT_HCCL_INLINE_POLL_NS, which finishes a small operation
 *     without waking anyone. What is still in flight then goes to the engine
 *     thread, which tests it until done (MPI_Testall), yielding the CPU
 *     between rounds.
 *   - The engine thread also runs pollers, functions it calls every round
 *     until they say they are done (a rendezvous, hccl_rendezvous.h); it is
 *     started by the first communicator, sleeps on a condition variable
 *     while there is nothing to do, and wakes every ACLRT_HCCL_TICK_NS while
 *     communicators exist, for the timeout watch.
 *   - MPI comes from the plugin (hccl_abi.h), opened on first need: the file
 *     named by ACLRT_HCCL_MPI_PLUGIN, else libaclrt_hccl_mpi.so next to the
 *     library holding the runtime, else the loader's search. Without it (no
 *     MPI installed) the in-process paths work and a communicator across
 *     processes fails with HCCL_E_UNAVAIL and the reason.
 *   - At process exit the thread stops, and MPI is finalized if the engine
 *     initialized it.
 */
#ifndef ACLRT_IMPL_HCCL_HCCL_ENGINE_H
#define ACLRT_IMPL_HCCL_HCCL_ENGINE_H

#include "../core/base.h"
#include "../core/clock.h"
#include "hccl_abi.h"
#include "hccl_coll_watch.h"
#include "hccl_comm.h"
#include "hccl_local.h"
#include "hccl_op.h"

#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(ACLRT_HCCL_MPI)
#include "hccl_mpi.h"
#endif

#define ACLRT_HCCL_TICK_NS 50000000ull /* 50 ms: how late a timeout may be noticed */
#define ACLRT_HCCL_INLINE_POLL_NS 30000ull /* 30 us: a small operation's MPI round trip, tested in place */
#define ACLRT_HCCL_MPI_PLUGIN_NAME "libaclrt_hccl_mpi.so"

/* A function the engine thread calls every round until it returns true. */
struct aclrt_hccl_poller {
    bool (*poll)(struct aclrt_hccl_poller *p);
    struct aclrt_hccl_poller *next;
};

struct aclrt_hccl_engine {
    pthread_mutex_t lock;
    pthread_cond_t wake;  /* the thread sleeps here */
    pthread_cond_t done;  /* callers waiting for a poller sleep here */
    bool started, stopping;
    pthread_t thread;
    uint32_t users;                         /* live communicators: the watch runs while > 0 (lock) */
    pthread_mutex_t mpi_lock;               /* held by every call into MPI */
    struct aclrt_hccl_op *queue;            /* started on MPI and still in flight, newest first (lock) */
    struct aclrt_hccl_poller *new_pollers;  /* (lock) */
    /* MPI, set once by the engine thread (mpi_state != 0 is published under lock) */
    int mpi_state; /* 0 not tried, 1 ready, -1 unavailable */
    const struct aclrt_hccl_mpi *mpi;
    int world_rank, world_size;
    char mpi_why[ACLRT_HCCL_WHY + 64];
};

static struct aclrt_hccl_engine aclrt_hccl_eng = {.lock = PTHREAD_MUTEX_INITIALIZER,
                                                  .wake = PTHREAD_COND_INITIALIZER,
                                                  .done = PTHREAD_COND_INITIALIZER,
                                                  .mpi_lock = PTHREAD_MUTEX_INITIALIZER};

/* An MPI job's launcher sets one of these in every process it starts. */
ACLRT_INTERNAL bool aclrt_hccl_in_mpi_job(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE", "MPI_LOCALNRANKS"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        if (getenv(vars[i]) != NULL)
            return true;
    return false;
}

/* Opens the MPI engine (engine thread). */
static void aclrt_hccl_mpi_open(struct aclrt_hccl_engine *e)
{
    const struct aclrt_hccl_mpi *m = NULL;
    char why[ACLRT_HCCL_WHY] = "";
#if defined(ACLRT_HCCL_MPI)
    m = &aclrt_hccl_mpi_table;
#else
    char path[4096];
    const char *env = getenv("ACLRT_HCCL_MPI_PLUGIN");
    void *h = NULL;
    if (env != NULL && *env != '\0') {
        h = dlopen(env, RTLD_NOW | RTLD_GLOBAL);
    } else {
        Dl_info info;
        if (dladdr((void *)aclrt_hccl_mpi_open, &info) != 0 && info.dli_fname != NULL) {
            const char *slash = strrchr(info.dli_fname, '/');
            if (slash != NULL && (size_t)(slash - info.dli_fname) + sizeof ACLRT_HCCL_MPI_PLUGIN_NAME + 1 < sizeof path) {
                snprintf(path, sizeof path, "%.*s/%s", (int)(slash - info.dli_fname), info.dli_fname,
                         ACLRT_HCCL_MPI_PLUGIN_NAME);
                h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
            }
        }
        if (h == NULL)
            h = dlopen(ACLRT_HCCL_MPI_PLUGIN_NAME, RTLD_NOW | RTLD_GLOBAL);
    }
    if (h == NULL) {
        const char *err = dlerror();
        snprintf(why, sizeof why, "the MPI engine (%s) could not be opened: %s", ACLRT_HCCL_MPI_PLUGIN_NAME,
                 err ? err : "not found");
    } else {
        aclrt_hccl_mpi_entry_fn entry;
        *(void **)&entry = dlsym(h, ACLRT_HCCL_MPI_ENTRY);
        m = entry != NULL ? entry(ACLRT_HCCL_MPI_ABI_VERSION) : NULL;
        if (m == NULL)
            snprintf(why, sizeof why, "%s is not an MPI engine of this version", ACLRT_HCCL_MPI_PLUGIN_NAME);
    }
#endif
    int rank = -1, size = 0, level = 0;
    if (m != NULL) {
        char msg[ACLRT_HCCL_MSG] = "";
        if (m->init(&rank, &size, &level, msg) != HCCL_SUCCESS) {
            snprintf(why, sizeof why, "MPI did not start: %s", msg);
            m = NULL;
        }
    }
    pthread_mutex_lock(&e->lock);
    e->mpi = m;
    e->world_rank = rank, e->world_size = size;
    (void)level; /* not checked: every call into MPI holds mpi_lock (docs/HCCL.md: what a program needs) */
    snprintf(e->mpi_why, sizeof e->mpi_why, "%s", why);
    e->mpi_state = m != NULL ? 1 : -1;
    pthread_cond_broadcast(&e->done);
    pthread_mutex_unlock(&e->lock);
}

/* MPI operations in flight, oldest first (engine thread only). */
static struct aclrt_hccl_op *aclrt_hccl_mpi_inflight;

/* Takes the operations handed over since the last round into the in-flight list, oldest last. */
static void aclrt_hccl_engine_adopt(struct aclrt_hccl_op *newest_first)
{
    struct aclrt_hccl_op **tail = &aclrt_hccl_mpi_inflight;
    while (*tail != NULL)
        tail = &(*tail)->next;
    struct aclrt_hccl_op *ops = NULL;
    while (newest_first != NULL) { /* reverse: oldest first */
        struct aclrt_hccl_op *op = newest_first;
        newest_first = op->next;
        op->next = ops;
        ops = op;
    }
    *tail = ops;
}

/* Tests the operations in flight; fails those past their deadline. True while some remain. */
static bool aclrt_hccl_engine_test_ops(struct aclrt_hccl_engine *e, uint64_t now)
{
    for (struct aclrt_hccl_op **p = &aclrt_hccl_mpi_inflight; *p != NULL;) {
        struct aclrt_hccl_op *op = *p;
        int done = 0;
        char msg[ACLRT_HCCL_MSG] = "";
        HcclResult r = e->mpi->test(op->req, &done, msg);
        if (!done && now >= op->deadline_ns) {
            e->mpi->abandon(op->req);
            r = HCCL_E_TIMEOUT;
            snprintf(msg, sizeof msg, "the operation did not complete within HCCL_EXEC_TIMEOUT (a peer is gone or "
                                      "did not call it)");
            done = 1;
        }
        if (!done) {
            p = &op->next;
            continue;
        }
        *p = op->next;
        aclrt_hccl_op_finish(op, r, msg);
    }
    return aclrt_hccl_mpi_inflight != NULL;
}

static void *aclrt_hccl_engine_main(void *arg)
{
    struct aclrt_hccl_engine *e = (struct aclrt_hccl_engine *)arg;
    struct aclrt_hccl_poller *pollers = NULL;
    uint64_t next_watch = aclrt_now_ns() + ACLRT_HCCL_TICK_NS;
    bool busy = false;
    for (;;) {
        pthread_mutex_lock(&e->lock);
        while (!busy && pollers == NULL && e->queue == NULL && e->new_pollers == NULL && !e->stopping) {
            if (e->users == 0) {
                pthread_cond_wait(&e->wake, &e->lock);
            } else {
                struct timespec ts;
                clock_gettime(CLOCK_REALTIME, &ts);
                ts.tv_nsec += (long)ACLRT_HCCL_TICK_NS;
                if (ts.tv_nsec >= 1000000000L)
                    ts.tv_sec++, ts.tv_nsec -= 1000000000L;
                if (pthread_cond_timedwait(&e->wake, &e->lock, &ts) != 0)
                    break; /* the tick: run the watch */
            }
        }
        if (e->stopping && aclrt_hccl_mpi_inflight == NULL && e->queue == NULL) {
            pthread_mutex_unlock(&e->lock);
            break;
        }
        struct aclrt_hccl_op *queue = e->queue;
        e->queue = NULL;
        while (e->new_pollers != NULL) {
            struct aclrt_hccl_poller *p = e->new_pollers;
            e->new_pollers = p->next;
            p->next = pollers;
            pollers = p;
        }
        pthread_mutex_unlock(&e->lock);

        if (queue != NULL)
            aclrt_hccl_engine_adopt(queue);
        pthread_mutex_lock(&e->mpi_lock);
        for (struct aclrt_hccl_poller **p = &pollers; *p != NULL;) {
            struct aclrt_hccl_poller *cur = *p;
            struct aclrt_hccl_poller *next = cur->next;
            if (cur->poll(cur)) /* done: its owner may free it once woken */
                *p = next;
            else
                p = &cur->next;
        }
        uint64_t now = aclrt_now_ns();
        busy = aclrt_hccl_mpi_inflight != NULL && aclrt_hccl_engine_test_ops(e, now);
        pthread_mutex_unlock(&e->mpi_lock);
        if (now >= next_watch) {
            aclrt_hccl_local_expire(now);
            aclrt_hccl_watch_expire(now); /* what a backend's engine issued (hccl_coll_watch.h) */
            next_watch = now + ACLRT_HCCL_TICK_NS;
        }
        if (busy || pollers != NULL)
            sched_yield();
    }
    return NULL;
}

static void aclrt_hccl_engine_exit(void)
{
    struct aclrt_hccl_engine *e = &aclrt_hccl_eng;
    pthread_mutex_lock(&e->lock);
    bool started = e->started;
    e->stopping = true;
    pthread_cond_broadcast(&e->wake);
    pthread_mutex_unlock(&e->lock);
    if (started)
        pthread_join(e->thread, NULL);
    if (e->mpi != NULL)
        e->mpi->finalize();
}

/* Starts the thread if needed; caller holds e->lock. */
static HcclResult aclrt_hccl_engine_start_locked(struct aclrt_hccl_engine *e)
{
    if (e->started)
        return HCCL_SUCCESS;
    if (pthread_create(&e->thread, NULL, aclrt_hccl_engine_main, e) != 0)
        return aclrt_hccl_fail(HCCL_E_SYSCALL, "the HCCL engine thread could not be started");
    e->started = true;
    atexit(aclrt_hccl_engine_exit);
    return HCCL_SUCCESS;
}

/* A communicator starts (true) or ends (false): the watch runs while any exists. */
ACLRT_INTERNAL HcclResult aclrt_hccl_engine_use(bool more)
{
    struct aclrt_hccl_engine *e = &aclrt_hccl_eng;
    HcclResult r = HCCL_SUCCESS;
    pthread_mutex_lock(&e->lock);
    if (more) {
        r = aclrt_hccl_engine_start_locked(e);
        if (r == HCCL_SUCCESS)
            e->users++;
    } else {
        e->users--;
    }
    pthread_cond_signal(&e->wake);
    pthread_mutex_unlock(&e->lock);
    return r;
}

/* Hands a poller to the engine thread. */
static HcclResult aclrt_hccl_engine_poll(struct aclrt_hccl_poller *p)
{
    struct aclrt_hccl_engine *e = &aclrt_hccl_eng;
    pthread_mutex_lock(&e->lock);
    HcclResult r = aclrt_hccl_engine_start_locked(e);
    if (r == HCCL_SUCCESS) {
        p->next = e->new_pollers;
        e->new_pollers = p;
        pthread_cond_signal(&e->wake);
    }
    pthread_mutex_unlock(&e->lock);
    return r;
}

/*
 * An operation whose stream reached it, on a communicator across processes
 * (the thread that runs the stream): started on MPI here, tested for a
 * while, then handed to the engine thread if it is still in flight.
 */
ACLRT_INTERNAL void aclrt_hccl_engine_submit(struct aclrt_hccl_op *op)
{
    struct aclrt_hccl_engine *e = &aclrt_hccl_eng;
    struct aclrt_hccl_comm *c = op->comm;
    char msg[ACLRT_HCCL_MSG] = "";
    int broken = atomic_load_explicit(&c->async_error, memory_order_acquire);
    if (broken != HCCL_SUCCESS) {
        aclrt_hccl_op_finish(op, (HcclResult)broken, "the communicator is broken by an earlier failure");
        return;
    }
    int done = 0;
    pthread_mutex_lock(&e->mpi_lock);
    HcclResult r = e->mpi->start(c->mpi, (int)c->rank, (int)c->nranks, &op->a, &op->req, msg);
    for (uint64_t t0 = aclrt_now_ns(); r == HCCL_SUCCESS && !done && aclrt_now_ns() - t0 < ACLRT_HCCL_INLINE_POLL_NS;)
        r = e->mpi->test(op->req, &done, msg);
    pthread_mutex_unlock(&e->mpi_lock);
    if (r != HCCL_SUCCESS || done) {
        aclrt_hccl_op_finish(op, r, msg);
        return;
    }
    pthread_mutex_lock(&e->lock);
    op->next = e->queue;
    e->queue = op;
    pthread_cond_signal(&e->wake);
    pthread_mutex_unlock(&e->lock);
}

static bool aclrt_hccl_mpi_open_poll(struct aclrt_hccl_poller *p)
{
    aclrt_hccl_mpi_open(&aclrt_hccl_eng);
    free(p);
    return true;
}

/*
 * MPI, started on the engine thread if it was not: HCCL_SUCCESS with the
 * process's world rank, or HCCL_E_UNAVAIL with the reason as the message.
 */
ACLRT_INTERNAL HcclResult aclrt_hccl_mpi_ready(int *world_rank, int *world_size)
{
    struct aclrt_hccl_engine *e = &aclrt_hccl_eng;
    pthread_mutex_lock(&e->lock);
    int state = e->mpi_state;
    pthread_mutex_unlock(&e->lock);
    if (state == 0) {
        struct aclrt_hccl_poller *p = (struct aclrt_hccl_poller *)calloc(1, sizeof *p);
        if (p == NULL)
            return aclrt_hccl_fail(HCCL_E_MEMORY, "out of memory");
        p->poll = aclrt_hccl_mpi_open_poll;
        /* Several callers may ask at once: the first open wins, later ones see mpi_state set and return. */
        pthread_mutex_lock(&e->lock);
        if (e->mpi_state == 0) {
            HcclResult r = aclrt_hccl_engine_start_locked(e);
            if (r != HCCL_SUCCESS) {
                pthread_mutex_unlock(&e->lock);
                free(p);
                return r;
            }
            p->next = e->new_pollers;
            e->new_pollers = p;
            pthread_cond_signal(&e->wake);
            p = NULL;
        }
        while (e->mpi_state == 0)
            pthread_cond_wait(&e->done, &e->lock);
        pthread_mutex_unlock(&e->lock);
        free(p);
    }
    pthread_mutex_lock(&e->lock);
    state = e->mpi_state;
    *world_rank = e->world_rank;
    *world_size = e->world_size;
    pthread_mutex_unlock(&e->lock);
    if (state < 0)
        return aclrt_hccl_fail(HCCL_E_UNAVAIL, "MPI is not available: %s", e->mpi_why);
    return HCCL_SUCCESS;
}

struct aclrt_hccl_free_poller {
    struct aclrt_hccl_poller p; /* first */
    void *comm;
    bool done;
};

static bool aclrt_hccl_free_poll(struct aclrt_hccl_poller *p)
{
    struct aclrt_hccl_free_poller *f = (struct aclrt_hccl_free_poller *)(void *)p;
    aclrt_hccl_eng.mpi->comm_free(f->comm);
    pthread_mutex_lock(&aclrt_hccl_eng.lock);
    f->done = true;
    pthread_cond_broadcast(&aclrt_hccl_eng.done);
    pthread_mutex_unlock(&aclrt_hccl_eng.lock);
    return true;
}

/* Frees an MPI communicator on the engine thread; returns once it is freed. */
ACLRT_INTERNAL void aclrt_hccl_engine_free_comm(void *comm)
{
    struct aclrt_hccl_free_poller f = {.p = {.poll = aclrt_hccl_free_poll}, .comm = comm};
    if (aclrt_hccl_engine_poll(&f.p) != HCCL_SUCCESS)
        return;
    pthread_mutex_lock(&aclrt_hccl_eng.lock);
    while (!f.done)
        pthread_cond_wait(&aclrt_hccl_eng.done, &aclrt_hccl_eng.lock);
    pthread_mutex_unlock(&aclrt_hccl_eng.lock);
}

#endif /* ACLRT_IMPL_HCCL_HCCL_ENGINE_H */

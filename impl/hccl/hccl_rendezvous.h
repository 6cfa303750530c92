/*
 * impl/hccl/hccl_rendezvous.h - the ranks of a new communicator find each
 * other: a meeting, named by a 16-byte id, that every rank joins.
 *
 *   - The process that made the id (its root info, a parent communicator's
 *     root rank) hosts the meeting. Ranks in that process join it directly;
 *     ranks in other processes send it a JOIN message over MPI (the world
 *     rank of the host is in the root info) and wait for the TABLE it sends
 *     back: the world rank of every rank.
 *   - When every rank has joined: all in the host process make a team
 *     (hccl_local.h); one rank per process make an MPI communicator
 *     (MPI_Comm_create_group over the world ranks, collective over the
 *     members only, so meetings of any subsets may run at once). Several
 *     ranks in the host process and others elsewhere is not supported
 *     (HCCL_E_NOT_SUPPORT; said to every rank).
 *   - A meeting waits HCCL_CONNECT_TIMEOUT at most; then every rank waiting
 *     in it fails with HCCL_E_TIMEOUT.
 *   - Joiners wait on the engine's condition variable; the MPI side of a
 *     meeting (messages, the communicator) is a poller of the engine thread.
 *     Meetings are guarded by the engine's lock.
 */
#ifndef ACLRT_IMPL_HCCL_HCCL_RENDEZVOUS_H
#define ACLRT_IMPL_HCCL_HCCL_RENDEZVOUS_H

#include "../core/base.h"
#include "../core/clock.h"
#include "hccl_abi.h"
#include "hccl_comm.h"
#include "hccl_engine.h"
#include "hccl_local.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define ACLRT_HCCL_TAG_JOIN 0x7A11
#define ACLRT_HCCL_TAG_TABLE 0x7A12
#define ACLRT_HCCL_MAIL_MAGIC 0x41584843u /* "AXHC" */
#define ACLRT_HCCL_MAIL_MAX 65536

struct aclrt_hccl_join_msg {
    uint32_t magic;
    uint8_t uid[ACLRT_HCCL_UID_BYTES];
    uint32_t nranks, rank;
    int32_t world_rank;
};

struct aclrt_hccl_table_msg {
    uint32_t magic;
    uint8_t uid[ACLRT_HCCL_UID_BYTES];
    int32_t status; /* HcclResult */
    uint32_t nranks;
    int32_t world[]; /* by rank */
};

/* A message the engine took from MPI that no meeting claimed yet (engine thread only). */
struct aclrt_hccl_mail {
    int tag, src;
    size_t len;
    struct aclrt_hccl_mail *next;
    uint64_t data[];
};

static struct aclrt_hccl_mail *aclrt_hccl_mailbox;

struct aclrt_hccl_meet {
    uint8_t uid[ACLRT_HCCL_UID_BYTES];
    uint32_t nranks;
    bool host;                      /* this process hosts it */
    int host_world;                 /* the host's world rank (joiners elsewhere send to it) */
    uint32_t local_count, remote_count;
    struct aclrt_hccl_comm **local; /* by rank: the communicators of ranks in this process */
    int32_t *world;                 /* by rank: world ranks (-1: not known yet) */
    int state;                      /* 0 meeting, 1 met, else the failure (HcclResult) */
    char why[ACLRT_HCCL_WHY];
    uint32_t waiters;
    bool polling;                   /* the engine thread holds `poller` */
    bool posted;                    /* a joiner elsewhere sent its JOIN */
    uint32_t my_rank;               /* a joiner elsewhere: its rank */
    uint64_t deadline_ns;
    struct aclrt_hccl_poller poller;
    struct aclrt_hccl_meet *next;
};

static struct aclrt_hccl_meet *aclrt_hccl_meets; /* engine lock */

/* Takes every rendezvous message MPI holds into the mailbox (engine thread). */
static void aclrt_hccl_mail_drain(const struct aclrt_hccl_mpi *m)
{
    static const int tags[2] = {ACLRT_HCCL_TAG_JOIN, ACLRT_HCCL_TAG_TABLE};
    for (int i = 0; i < 2; i++) {
        for (;;) {
            struct aclrt_hccl_mail *mail =
                (struct aclrt_hccl_mail *)malloc(sizeof *mail + ACLRT_HCCL_MAIL_MAX);
            if (mail == NULL)
                return;
            char msg[ACLRT_HCCL_MSG];
            size_t len = 0;
            int src = -1;
            if (m->take(tags[i], mail->data, ACLRT_HCCL_MAIL_MAX, &src, &len, msg) != HCCL_SUCCESS || len == 0) {
                free(mail);
                break;
            }
            mail->tag = tags[i], mail->src = src, mail->len = len;
            mail->next = aclrt_hccl_mailbox;
            aclrt_hccl_mailbox = mail;
        }
    }
}

/* The oldest mail with `tag` for meeting `uid`, taken out of the mailbox; NULL if none (engine thread). */
static struct aclrt_hccl_mail *aclrt_hccl_mail_take(int tag, const uint8_t *uid)
{
    struct aclrt_hccl_mail **found = NULL;
    for (struct aclrt_hccl_mail **p = &aclrt_hccl_mailbox; *p != NULL; p = &(*p)->next) {
        const struct aclrt_hccl_join_msg *j = (const struct aclrt_hccl_join_msg *)(void *)(*p)->data;
        if ((*p)->tag == tag && (*p)->len >= sizeof *j && j->magic == ACLRT_HCCL_MAIL_MAGIC &&
            memcmp(j->uid, uid, ACLRT_HCCL_UID_BYTES) == 0)
            found = p; /* the list is newest first: keep going for the oldest */
    }
    if (found == NULL)
        return NULL;
    struct aclrt_hccl_mail *m = *found;
    *found = m->next;
    return m;
}

/* A tag for MPI_Comm_create_group, from the meeting's id. */
static int aclrt_hccl_uid_tag(const uint8_t *uid)
{
    uint32_t h = 2166136261u;
    for (int i = 0; i < ACLRT_HCCL_UID_BYTES; i++)
        h = (h ^ uid[i]) * 16777619u;
    return 1 + (int)(h % 30000u);
}

/* Posts a message and forgets it once sent (the engine tests it until then). */
static HcclResult aclrt_hccl_send_forget(const struct aclrt_hccl_mpi *m, int to, int tag, const void *buf, size_t len,
                                         char *msg)
{
    void *req = NULL;
    HcclResult r = m->post(to, tag, buf, len, &req, msg);
    if (r != HCCL_SUCCESS)
        return r;
    /* A small message goes out eagerly; test until it did (the peer is alive and receiving, or MPI fails). */
    for (int done = 0; !done;) {
        r = m->test(req, &done, msg);
        if (r != HCCL_SUCCESS)
            return r;
    }
    return HCCL_SUCCESS;
}

/* The meeting is over (lock held): `state`, and the waiters wake. */
static void aclrt_hccl_meet_end(struct aclrt_hccl_meet *mt, int state, const char *why)
{
    if (mt->state != 0)
        return;
    mt->state = state;
    if (why != NULL)
        snprintf(mt->why, sizeof mt->why, "%s", why);
    pthread_cond_broadcast(&aclrt_hccl_eng.done);
}

/* Every rank is in the host process: one team for all (lock held). */
static void aclrt_hccl_meet_local(struct aclrt_hccl_meet *mt)
{
    struct aclrt_hccl_team *t = aclrt_hccl_team_new(mt->nranks);
    if (t == NULL) {
        aclrt_hccl_meet_end(mt, HCCL_E_MEMORY, "out of memory for the team");
        return;
    }
    for (uint32_t i = 0; i < mt->nranks; i++)
        mt->local[i]->team = t;
    aclrt_hccl_meet_end(mt, 1, NULL);
}

/* Makes the MPI communicator of a met meeting for this process's one rank (engine thread, lock not held). */
static int aclrt_hccl_meet_mpi(struct aclrt_hccl_meet *mt, struct aclrt_hccl_comm *c, char *why)
{
    const struct aclrt_hccl_mpi *m = aclrt_hccl_eng.mpi;
    char msg[ACLRT_HCCL_MSG] = "";
    int *ranks = (int *)malloc(mt->nranks * sizeof *ranks);
    if (ranks == NULL) {
        snprintf(why, ACLRT_HCCL_WHY, "out of memory");
        return HCCL_E_MEMORY;
    }
    for (uint32_t i = 0; i < mt->nranks; i++)
        ranks[i] = mt->world[i];
    void *comm = NULL;
    HcclResult r = m->comm_create(ranks, (int)mt->nranks, aclrt_hccl_uid_tag(mt->uid), &comm, msg);
    if (r != HCCL_SUCCESS) {
        free(ranks);
        snprintf(why, ACLRT_HCCL_WHY, "%s", msg);
        return r;
    }
    c->mpi = comm;
    c->world_ranks = ranks;
    return 1;
}

/* The host's poller: JOINs in, TABLEs out, then the communicator (engine thread). */
static bool aclrt_hccl_meet_host_poll(struct aclrt_hccl_poller *p)
{
    struct aclrt_hccl_meet *mt = (struct aclrt_hccl_meet *)(void *)((char *)p - offsetof(struct aclrt_hccl_meet, poller));
    const struct aclrt_hccl_mpi *m = aclrt_hccl_eng.mpi;
    aclrt_hccl_mail_drain(m);
    pthread_mutex_lock(&aclrt_hccl_eng.lock);
    for (struct aclrt_hccl_mail *mail; mt->state == 0 && (mail = aclrt_hccl_mail_take(ACLRT_HCCL_TAG_JOIN, mt->uid));) {
        const struct aclrt_hccl_join_msg *j = (const struct aclrt_hccl_join_msg *)(void *)mail->data;
        if (j->nranks != mt->nranks)
            aclrt_hccl_meet_end(mt, HCCL_E_PARA, "the ranks gave different rank counts for one root info");
        else if (j->rank >= mt->nranks || mt->world[j->rank] != -1 || mt->local[j->rank] != NULL)
            aclrt_hccl_meet_end(mt, HCCL_E_PARA, "two ranks joined with the same rank id, or a rank id out of range");
        else
            mt->world[j->rank] = j->world_rank, mt->remote_count++;
        free(mail);
    }
    bool all = mt->local_count + mt->remote_count == mt->nranks;
    if (mt->state == 0 && !all && aclrt_now_ns() >= mt->deadline_ns)
        aclrt_hccl_meet_end(mt, HCCL_E_TIMEOUT, "not every rank joined within HCCL_CONNECT_TIMEOUT");
    if (mt->state == 0 && all && mt->remote_count == 0) {
        aclrt_hccl_meet_local(mt); /* every rank is here: no MPI communicator */
        mt->polling = false;
        pthread_mutex_unlock(&aclrt_hccl_eng.lock);
        return true;
    }
    if (mt->state == 0 && !all) {
        pthread_mutex_unlock(&aclrt_hccl_eng.lock);
        return false;
    }
    /* Met with ranks elsewhere, or failed: every joiner elsewhere gets the table, or the failure. */
    int status = mt->state != 0 ? mt->state : mt->local_count == 1 ? HCCL_SUCCESS : HCCL_E_NOT_SUPPORT;
    uint32_t n = mt->nranks;
    size_t len = sizeof(struct aclrt_hccl_table_msg) + n * sizeof(int32_t);
    struct aclrt_hccl_table_msg *t = (struct aclrt_hccl_table_msg *)calloc(1, len);
    int32_t *to = (int32_t *)malloc(n * sizeof *to);
    struct aclrt_hccl_comm *mine = NULL;
    if (t != NULL && to != NULL) {
        t->magic = ACLRT_HCCL_MAIL_MAGIC;
        memcpy(t->uid, mt->uid, ACLRT_HCCL_UID_BYTES);
        t->status = status;
        t->nranks = n;
        memcpy(t->world, mt->world, n * sizeof(int32_t));
        for (uint32_t i = 0; i < n; i++)
            to[i] = mt->local[i] == NULL ? mt->world[i] : -1;
    }
    for (uint32_t i = 0; i < n; i++)
        if (mt->local[i] != NULL)
            mine = mt->local[i];
    pthread_mutex_unlock(&aclrt_hccl_eng.lock);
    char msg[ACLRT_HCCL_MSG] = "";
    HcclResult sent = HCCL_SUCCESS;
    for (uint32_t i = 0; i < n && t != NULL && to != NULL && sent == HCCL_SUCCESS; i++)
        if (to[i] >= 0)
            sent = aclrt_hccl_send_forget(m, to[i], ACLRT_HCCL_TAG_TABLE, t, len, msg);
    char why[ACLRT_HCCL_WHY] = "";
    int state = t == NULL || to == NULL ? HCCL_E_MEMORY : sent != HCCL_SUCCESS ? (int)sent : 0;
    if (state == 0 && status == HCCL_E_NOT_SUPPORT) {
        state = HCCL_E_NOT_SUPPORT;
        snprintf(why, sizeof why, "a communicator with several ranks in one process and ranks in other processes "
                                  "is not supported: use one rank per process, or all ranks in one process");
    } else if (state == 0 && status == HCCL_SUCCESS) {
        state = aclrt_hccl_meet_mpi(mt, mine, why);
    } else if (sent != HCCL_SUCCESS) {
        snprintf(why, sizeof why, "%s", msg);
    }
    free(t);
    free(to);
    pthread_mutex_lock(&aclrt_hccl_eng.lock);
    if (state != 0)
        aclrt_hccl_meet_end(mt, state, why);
    mt->polling = false;
    pthread_cond_broadcast(&aclrt_hccl_eng.done);
    pthread_mutex_unlock(&aclrt_hccl_eng.lock);
    return true;
}

/* A joiner elsewhere: JOIN out, TABLE in, then the communicator (engine thread). */
static bool aclrt_hccl_meet_join_poll(struct aclrt_hccl_poller *p)
{
    struct aclrt_hccl_meet *mt = (struct aclrt_hccl_meet *)(void *)((char *)p - offsetof(struct aclrt_hccl_meet, poller));
    const struct aclrt_hccl_mpi *m = aclrt_hccl_eng.mpi;
    char msg[ACLRT_HCCL_MSG] = "";
    char why[ACLRT_HCCL_WHY] = "";
    int state = 0;
    if (!mt->posted) {
        struct aclrt_hccl_join_msg j = {.magic = ACLRT_HCCL_MAIL_MAGIC, .nranks = mt->nranks, .rank = mt->my_rank,
                                        .world_rank = aclrt_hccl_eng.world_rank};
        memcpy(j.uid, mt->uid, ACLRT_HCCL_UID_BYTES);
        HcclResult r = aclrt_hccl_send_forget(m, mt->host_world, ACLRT_HCCL_TAG_JOIN, &j, sizeof j, msg);
        mt->posted = true;
        if (r != HCCL_SUCCESS)
            state = r, snprintf(why, sizeof why, "%s", msg);
    }
    struct aclrt_hccl_mail *mail = NULL;
    if (state == 0) {
        aclrt_hccl_mail_drain(m);
        mail = aclrt_hccl_mail_take(ACLRT_HCCL_TAG_TABLE, mt->uid);
    }
    if (state == 0 && mail == NULL) {
        if (aclrt_now_ns() < mt->deadline_ns)
            return false;
        state = HCCL_E_TIMEOUT;
        snprintf(why, sizeof why, "the root (world rank %d) did not answer within HCCL_CONNECT_TIMEOUT",
                 mt->host_world);
    }
    if (mail != NULL) {
        const struct aclrt_hccl_table_msg *t = (const struct aclrt_hccl_table_msg *)(void *)mail->data;
        if (t->status != HCCL_SUCCESS) {
            state = t->status;
            snprintf(why, sizeof why, "the root refused the communicator: %s",
                     t->status == HCCL_E_NOT_SUPPORT ? "several ranks in its process and ranks in others"
                                                     : HcclGetErrorString((HcclResult)t->status));
        } else if (t->nranks != mt->nranks || mail->len < sizeof *t + mt->nranks * sizeof(int32_t)) {
            state = HCCL_E_PARA;
            snprintf(why, sizeof why, "the ranks gave different rank counts for one root info");
        } else {
            memcpy(mt->world, t->world, mt->nranks * sizeof(int32_t));
            state = aclrt_hccl_meet_mpi(mt, mt->local[mt->my_rank], why);
        }
        free(mail);
    }
    pthread_mutex_lock(&aclrt_hccl_eng.lock);
    aclrt_hccl_meet_end(mt, state, why);
    mt->polling = false;
    pthread_cond_broadcast(&aclrt_hccl_eng.done);
    pthread_mutex_unlock(&aclrt_hccl_eng.lock);
    return true;
}

static void aclrt_hccl_meet_free(struct aclrt_hccl_meet *mt)
{
    for (struct aclrt_hccl_meet **p = &aclrt_hccl_meets; *p != NULL; p = &(*p)->next)
        if (*p == mt) {
            *p = mt->next;
            break;
        }
    free(mt->local);
    free(mt->world);
    free(mt);
}

/*
 * Joins meeting `uid` as rank c->rank of c->nranks; returns when it met
 * (c is ready: a team or an MPI communicator) or failed. `host`: this
 * process hosts it; otherwise `host_world` is the host's world rank.
 */
ACLRT_INTERNAL HcclResult aclrt_hccl_meet_join(const uint8_t *uid, struct aclrt_hccl_comm *c, bool host, int host_world)
{
    struct aclrt_hccl_engine *e = &aclrt_hccl_eng;
    int world_rank = -1, world_size = 0;
    bool mpi = false;
    if (!host || aclrt_hccl_in_mpi_job()) {
        HcclResult r = aclrt_hccl_mpi_ready(&world_rank, &world_size);
        if (r != HCCL_SUCCESS && !host)
            return aclrt_hccl_fail(HCCL_E_UNAVAIL,
                                   "the root info was made by another process (world rank %d); joining it needs MPI: "
                                   "start the ranks with mpirun (see aclGetRecentErrMsg for why MPI is unavailable)",
                                   host_world);
        mpi = r == HCCL_SUCCESS && world_size > 1;
        if (!host && host_world < 0)
            return aclrt_hccl_fail(HCCL_E_PARA, "the root info was made by another process outside MPI: its ranks "
                                                "cannot be reached");
    }
    uint64_t deadline = aclrt_now_ns() + aclrt_hccl_connect_timeout_ns();
    HcclResult r = aclrt_hccl_engine_use(true); /* the engine thread runs (pollers, the watch) */
    if (r != HCCL_SUCCESS)
        return r;
    pthread_mutex_lock(&e->lock);
    struct aclrt_hccl_meet *mt = NULL;
    for (mt = aclrt_hccl_meets; mt != NULL; mt = mt->next)
        if (memcmp(mt->uid, uid, ACLRT_HCCL_UID_BYTES) == 0 && mt->state == 0)
            break;
    if (mt != NULL && (mt->nranks != c->nranks || !host || !mt->host)) {
        pthread_mutex_unlock(&e->lock);
        aclrt_hccl_engine_use(false);
        return aclrt_hccl_fail(HCCL_E_PARA, "rank %u joined with %u ranks, another rank of the same root info with %u",
                               c->rank, c->nranks, mt->nranks);
    }
    if (mt == NULL) {
        mt = (struct aclrt_hccl_meet *)calloc(1, sizeof *mt);
        struct aclrt_hccl_comm **local = (struct aclrt_hccl_comm **)calloc(c->nranks, sizeof *local);
        int32_t *world = (int32_t *)malloc(c->nranks * sizeof *world);
        if (mt == NULL || local == NULL || world == NULL) {
            pthread_mutex_unlock(&e->lock);
            free(mt), free(local), free(world);
            aclrt_hccl_engine_use(false);
            return aclrt_hccl_fail(HCCL_E_MEMORY, "out of memory");
        }
        memcpy(mt->uid, uid, ACLRT_HCCL_UID_BYTES);
        mt->nranks = c->nranks;
        mt->host = host;
        mt->host_world = host_world;
        mt->local = local;
        mt->world = world;
        for (uint32_t i = 0; i < c->nranks; i++)
            world[i] = -1;
        mt->deadline_ns = deadline;
        mt->next = aclrt_hccl_meets;
        aclrt_hccl_meets = mt;
        if (mpi || !host) {
            mt->poller.poll = host ? aclrt_hccl_meet_host_poll : aclrt_hccl_meet_join_poll;
            mt->my_rank = c->rank;
            mt->polling = true;
            mt->poller.next = e->new_pollers;
            e->new_pollers = &mt->poller;
            pthread_cond_signal(&e->wake);
        }
    }
    if (mt->local[c->rank] != NULL) {
        pthread_mutex_unlock(&e->lock);
        aclrt_hccl_engine_use(false);
        return aclrt_hccl_fail(HCCL_E_PARA, "rank %u joined the communicator twice", c->rank);
    }
    mt->local[c->rank] = c;
    mt->local_count++;
    if (host)
        mt->world[c->rank] = world_rank;
    if (host && !mt->polling && mt->local_count == mt->nranks)
        aclrt_hccl_meet_local(mt);
    mt->waiters++;
    while (mt->state == 0) {
        if (!mt->polling && aclrt_now_ns() >= mt->deadline_ns) {
            aclrt_hccl_meet_end(mt, HCCL_E_TIMEOUT, "not every rank joined within HCCL_CONNECT_TIMEOUT");
            break;
        }
        struct timespec ts = aclrt_timespec_from_ns(0);
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += (long)ACLRT_HCCL_TICK_NS;
        if (ts.tv_nsec >= 1000000000L)
            ts.tv_sec++, ts.tv_nsec -= 1000000000L;
        pthread_cond_timedwait(&e->done, &e->lock, &ts);
    }
    int state = mt->state;
    char why[ACLRT_HCCL_WHY];
    memcpy(why, mt->why, sizeof why);
    /* The last waiter frees the meeting once the engine thread is done with it. */
    while (mt->polling)
        pthread_cond_wait(&e->done, &e->lock);
    bool last = --mt->waiters == 0;
    if (last)
        aclrt_hccl_meet_free(mt);
    pthread_mutex_unlock(&e->lock);
    if (state == 1)
        return HCCL_SUCCESS;
    aclrt_hccl_engine_use(false);
    return aclrt_hccl_fail((HcclResult)state, "rank %u of %u: %s", c->rank, c->nranks, why);
}

#endif /* ACLRT_IMPL_HCCL_HCCL_RENDEZVOUS_H */

/*
 * impl/hccl/hccl_backend.h - communicators and operations on the backend's
 * collective engine (backends/backend.h: `coll`; the cuda backend's NCCL),
 * where the data lives in device memory the CPU does not move.
 *
 *   - Making a communicator is the engine's own rendezvous: a root info
 *     carries the engine's id (HcclGetRootInfo asks the engine for one),
 *     and each rank joins it with comm_init, which blocks until every rank
 *     came (threads of one process or processes of any host; no MPI);
 *     HcclCommInitAll is the engine's comm_init_all. A sub-communicator
 *     (HcclCreateSubCommConfig) whose ranks are threads of this process,
 *     or a rank table's communicator (whose ranks must be), gets its id
 *     from the board below; one across processes from its rank 0, over the
 *     parent (the engine's sub_id).
 *   - An operation is a native-queue task (impl/exec/native.h): the engine
 *     issues it onto the stream's queue when the stream reaches it, and it
 *     completes on the device in order with the stream's other work. The
 *     operation is freed once issued (the engine copied what it needs), or
 *     when its stream drops the task; an issued one is watched until done
 *     (HCCL_EXEC_TIMEOUT: hccl_coll_watch.h).
 *   - On a capturing stream the model gets a step that, at each replay,
 *     issues a fresh operation from a template (hccl_capture.h) onto the
 *     replaying stream's queue and waits for it there (the backend's
 *     model_step), as a device's model waits for its communication task.
 *   - What the engine cannot do is refused at the call, on every rank
 *     alike: a reduction of a type it has no reduction for.
 */
#ifndef ACLRT_IMPL_HCCL_HCCL_BACKEND_H
#define ACLRT_IMPL_HCCL_HCCL_BACKEND_H

#include "../core/base.h"
#include "../core/clock.h"
#include "../core/error.h"
#include "../core/thread.h"
#include "../runtime/runtime.h"
#include "../context/context.h"
#include "../exec/native.h"
#include "../../backends/backend.h"
#include "hccl_abi.h"
#include "hccl_capture.h"
#include "hccl_coll_watch.h"
#include "hccl_comm.h"
#include "hccl_engine.h"
#include "hccl_op.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/*
 * The backend's engine, opened (NULL: the backend has none, and HCCL moves
 * the data itself); NULL with *r set when it has one that cannot be opened
 * (the message names the call and why).
 */
ACLRT_INTERNAL const struct aclrt_backend_coll *aclrt_hccl_coll(HcclResult *r)
{
    *r = HCCL_SUCCESS;
    const char *api = aclrt_tls.api;
    if (aclrt_runtime_start() != ACL_SUCCESS) {
        (void)aclrt_errmsg_take(); /* the call that needs the runtime says so */
        aclrt_tls.api = api;
        return NULL;
    }
    aclrt_tls.api = api;
    const struct aclrt_backend_coll *e = aclrt_rt.backend != NULL ? aclrt_rt.backend->coll : NULL;
    if (e == NULL)
        return NULL;
    char why[ACLRT_BACKEND_COLL_WHY] = "";
    int rc = e->open(why);
    if (rc != HCCL_SUCCESS) {
        *r = aclrt_hccl_fail((HcclResult)rc, "the %s backend runs HCCL through %s: %s", aclrt_rt.backend->name,
                             e->name, why);
        return NULL;
    }
    return e;
}

/* ------------------------------------------------------------------------
 * The board: engine ids of the communicators whose ranks meet in this
 * process, by meeting id (the first rank to ask makes it), and how many
 * ranks of a root info's communicator joined here. Entries stay for the
 * process (a few hundred bytes per communicator made).
 * ------------------------------------------------------------------------ */
struct aclrt_hccl_board_entry {
    uint8_t uid[ACLRT_HCCL_UID_BYTES];
    uint8_t id[ACLRT_BACKEND_COLL_ID];
    bool has_id;
    uint32_t joined;
    struct aclrt_hccl_board_entry *next;
};

static struct {
    pthread_mutex_t lock;
    struct aclrt_hccl_board_entry *head;
} aclrt_hccl_board = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* The entry of uid (made if missing; NULL: out of memory); under the lock. */
static struct aclrt_hccl_board_entry *aclrt_hccl_board_find_locked(const uint8_t *uid)
{
    for (struct aclrt_hccl_board_entry *b = aclrt_hccl_board.head; b != NULL; b = b->next)
        if (memcmp(b->uid, uid, ACLRT_HCCL_UID_BYTES) == 0)
            return b;
    struct aclrt_hccl_board_entry *b = (struct aclrt_hccl_board_entry *)calloc(1, sizeof *b);
    if (b != NULL) {
        memcpy(b->uid, uid, ACLRT_HCCL_UID_BYTES);
        b->next = aclrt_hccl_board.head;
        aclrt_hccl_board.head = b;
    }
    return b;
}

/* The engine id of the communicator uid meets in this process: the first rank to ask makes it. */
static HcclResult aclrt_hccl_board_id(const struct aclrt_backend_coll *e, const uint8_t *uid, uint8_t *id)
{
    char why[ACLRT_BACKEND_COLL_WHY] = "";
    int rc = HCCL_SUCCESS;
    pthread_mutex_lock(&aclrt_hccl_board.lock);
    struct aclrt_hccl_board_entry *b = aclrt_hccl_board_find_locked(uid);
    if (b == NULL)
        rc = HCCL_E_MEMORY, snprintf(why, sizeof why, "out of memory");
    else if (!b->has_id && (rc = e->unique_id(b->id, why)) == HCCL_SUCCESS)
        b->has_id = true;
    if (rc == HCCL_SUCCESS)
        memcpy(id, b->id, ACLRT_BACKEND_COLL_ID);
    pthread_mutex_unlock(&aclrt_hccl_board.lock);
    return rc == HCCL_SUCCESS ? HCCL_SUCCESS : aclrt_hccl_fail((HcclResult)rc, "%s: %s", e->name, why);
}

/* One more rank of the communicator uid joined in this process; how many did so far. */
ACLRT_INTERNAL uint32_t aclrt_hccl_board_join(const uint8_t *uid, uint32_t add)
{
    pthread_mutex_lock(&aclrt_hccl_board.lock);
    struct aclrt_hccl_board_entry *b = aclrt_hccl_board_find_locked(uid);
    uint32_t n = b != NULL ? (b->joined += add) : 0;
    pthread_mutex_unlock(&aclrt_hccl_board.lock);
    return n;
}

/* ------------------------------------------------------------------------
 * Communicators
 * ------------------------------------------------------------------------ */

/*
 * Rank c->rank of c->nranks joins the engine's communicator `id` on its
 * device (blocking until every rank came) and, on success, is published.
 * c is freed on failure.
 */
ACLRT_INTERNAL HcclResult aclrt_hccl_coll_join(const struct aclrt_backend_coll *e, struct aclrt_hccl_comm *c,
                                               const uint8_t *id, HcclComm *comm)
{
    struct aclrt_device *dev = NULL;
    const char *api = aclrt_tls.api;
    if (c->device < 0 || aclrt_device_check(c->device, &dev) != ACL_SUCCESS || aclrt_device_start(dev) != ACL_SUCCESS) {
        (void)aclrt_errmsg_take();
        aclrt_tls.api = api;
        free(c);
        return aclrt_hccl_fail(HCCL_E_RUNTIME, "no device is set on this thread (aclrtSetDevice): the %s communicator "
                               "lives on one", e->name);
    }
    char why[ACLRT_BACKEND_COLL_WHY] = "";
    int rc = e->comm_init(dev, c->nranks, id, c->rank, &c->coll, why);
    HcclResult r = rc == HCCL_SUCCESS ? aclrt_hccl_engine_use(true) : (HcclResult)rc;
    if (r != HCCL_SUCCESS) {
        if (c->coll != NULL)
            e->comm_free(c->coll);
        free(c);
        return rc == HCCL_SUCCESS ? r : aclrt_hccl_fail(r, "%s: %s", e->name, why);
    }
    aclrt_hccl_live_add(c);
    *comm = c;
    return HCCL_SUCCESS;
}

/* Joins, with an id from the board, a communicator whose ranks are all threads of this process. */
ACLRT_INTERNAL HcclResult aclrt_hccl_coll_meet_here(const struct aclrt_backend_coll *e, struct aclrt_hccl_comm *c,
                                                    HcclComm *comm)
{
    uint8_t id[ACLRT_BACKEND_COLL_ID];
    HcclResult r = aclrt_hccl_board_id(e, c->uid, id);
    if (r != HCCL_SUCCESS) {
        free(c);
        return r;
    }
    c->local = true;
    return aclrt_hccl_coll_join(e, c, id, comm);
}

/*
 * A sub-communicator of parent p (its ranks rankIds, in p's numbering; c:
 * this rank's, made, not published): threads of this process meet on the
 * board; across processes its rank 0 passes the engine's id over p.
 */
ACLRT_INTERNAL HcclResult aclrt_hccl_coll_sub(struct aclrt_hccl_comm *p, const uint32_t *rankIds, uint32_t n,
                                              uint32_t me, struct aclrt_hccl_comm *c, HcclComm *comm)
{
    const struct aclrt_backend_coll *e = aclrt_rt.backend->coll;
    if (p->local || aclrt_hccl_board_join(p->uid, 0) == p->nranks)
        return aclrt_hccl_coll_meet_here(e, c, comm);
    uint8_t id[ACLRT_BACKEND_COLL_ID];
    char why[ACLRT_BACKEND_COLL_WHY] = "";
    int rc = e->sub_id(p->coll, rankIds, n, me, aclrt_now_ns() + aclrt_hccl_connect_timeout_ns(), id, why);
    if (rc != HCCL_SUCCESS) {
        free(c);
        return aclrt_hccl_fail((HcclResult)rc, "%s: %s", e->name, why);
    }
    return aclrt_hccl_coll_join(e, c, id, comm);
}

/* HcclCommInitAll on the engine: the ranks (made, not published) on their devices; freed on failure. */
ACLRT_INTERNAL HcclResult aclrt_hccl_coll_init_all(const struct aclrt_backend_coll *e, struct aclrt_hccl_comm **cs,
                                                   uint32_t n)
{
    struct aclrt_device **devs = (struct aclrt_device **)calloc(n, sizeof *devs);
    void **comms = (void **)calloc(n, sizeof *comms);
    HcclResult r = devs == NULL || comms == NULL ? aclrt_hccl_fail(HCCL_E_MEMORY, "out of memory") : HCCL_SUCCESS;
    for (uint32_t i = 0; r == HCCL_SUCCESS && i < n; i++) {
        devs[i] = &aclrt_rt.devices[cs[i]->device]; /* checked by the caller */
        aclError rc = aclrt_device_start(devs[i]);
        if (rc != ACL_SUCCESS)
            r = aclrt_hccl_fail(HCCL_E_RUNTIME, "device %d cannot start (ACL error %d)", cs[i]->device, (int)rc);
    }
    char why[ACLRT_BACKEND_COLL_WHY] = "";
    int rc = r == HCCL_SUCCESS ? e->comm_init_all(devs, n, comms, why) : HCCL_SUCCESS;
    if (r == HCCL_SUCCESS && rc != HCCL_SUCCESS)
        r = aclrt_hccl_fail((HcclResult)rc, "%s: %s", e->name, why);
    uint32_t used = 0; /* each rank counts as a user of the engine's watch, as in-process ranks do */
    while (r == HCCL_SUCCESS && used < n && (r = aclrt_hccl_engine_use(true)) == HCCL_SUCCESS)
        used++;
    for (uint32_t i = 0; i < n; i++) {
        if (r == HCCL_SUCCESS) {
            cs[i]->coll = comms[i];
            cs[i]->local = true;
            aclrt_hccl_live_add(cs[i]);
            continue;
        }
        if (comms != NULL && comms[i] != NULL)
            e->comm_free(comms[i]);
        free(cs[i]);
    }
    while (r != HCCL_SUCCESS && used > 0) {
        aclrt_hccl_engine_use(false);
        used--;
    }
    free(devs);
    free(comms);
    return r;
}

/* ------------------------------------------------------------------------
 * Operations
 * ------------------------------------------------------------------------ */

/* The engine issues op onto the stream's queue; it is watched until done (a replay's step: see the watch). */
static aclError aclrt_hccl_coll_issue_op(struct aclrt_hccl_op *op, void *queue, const struct aclrt_native_place *place,
                                         bool step)
{
    struct aclrt_hccl_comm *c = op->comm;
    char why[ACLRT_BACKEND_COLL_WHY] = "the backend gave no queue to issue on";
    int rc = queue != NULL ? aclrt_rt.backend->coll->issue(c->coll, c->rank, c->nranks, &op->a, queue, why)
                           : HCCL_E_INTERNAL;
    if (rc == HCCL_SUCCESS && !aclrt_hccl_watch_add(c, place->stream, place->number, place->tid, op->api,
                                                    aclrt_now_ns() + c->exec_timeout_ns, step))
        fprintf(stderr, "[HCCL] %s: out of memory: this operation has no HCCL_EXEC_TIMEOUT\n", op->api);
    return aclrt_hccl_op_settle(op, (HcclResult)rc, why);
}

/* The stream reached op. */
static aclError aclrt_hccl_coll_issue(void *arg, void *queue, const struct aclrt_native_place *place)
{
    return aclrt_hccl_coll_issue_op((struct aclrt_hccl_op *)arg, queue, place, false);
}

/* A model's replay reached a captured operation: a fresh one from its template (hccl_capture.h). */
static aclError aclrt_hccl_coll_replay(void *arg, void *queue, const struct aclrt_native_place *place)
{
    struct aclrt_hccl_op *op = aclrt_hccl_template_op((struct aclrt_hccl_template *)arg);
    return op != NULL ? aclrt_hccl_coll_issue_op(op, queue, place, true) : ACL_SUCCESS;
}

/* A captured operation's task let go of: its template stays (a model may be copied; hccl_capture.h). */
static void aclrt_hccl_coll_template_drop(void *arg)
{
    (void)arg;
}

/* On a capturing stream: the model gets a step that issues a fresh operation from op at each replay. */
static HcclResult aclrt_hccl_coll_capture(struct aclrt_hccl_op *op, aclrtStream stream)
{
    const char *api = op->api;
    struct aclrt_hccl_template *t = aclrt_hccl_template_new(op);
    aclError rc = t != NULL ? aclrt_native_launch(stream, aclrt_hccl_coll_replay, aclrt_hccl_coll_template_drop, t)
                            : ACL_ERROR_RT_MEMORY_ALLOCATION;
    if (rc == ACL_SUCCESS) {
        aclrt_hccl_template_keep(t);
        return HCCL_SUCCESS;
    }
    free(t);
    free(op->scratch);
    free(op);
    return aclrt_hccl_fail(HCCL_E_RUNTIME, "%s: the capturing stream refused the operation (ACL error %d)", api,
                           (int)rc);
}

static void aclrt_hccl_coll_drop(void *arg)
{
    (void)aclrt_hccl_op_settle((struct aclrt_hccl_op *)arg, HCCL_SUCCESS, "");
}

/* What the engine cannot run, refused at the call on every rank alike (checked arguments otherwise). */
static HcclResult aclrt_hccl_coll_check(const struct aclrt_backend_coll *e, const struct aclrt_hccl_args *a)
{
    bool reduces = a->kind == ACLRT_HCCL_ALLREDUCE || a->kind == ACLRT_HCCL_REDUCE ||
                   a->kind == ACLRT_HCCL_REDUCE_SCATTER || a->kind == ACLRT_HCCL_REDUCE_SCATTERV;
    if (reduces && !e->reduces((int)a->type))
        return aclrt_hccl_fail(HCCL_E_NOT_SUPPORT, "%s has no reduction of data type %d (16-bit integers, int128 and "
                               "the 8-bit formats move, but do not reduce)", e->name, (int)a->type);
    return HCCL_SUCCESS;
}

/* Puts op on its stream as a native-queue task; frees it when that fails. */
ACLRT_INTERNAL HcclResult aclrt_hccl_coll_launch(struct aclrt_hccl_op *op, aclrtStream stream)
{
    struct aclrt_hccl_comm *c = op->comm;
    const struct aclrt_backend_coll *e = aclrt_rt.backend->coll;
    HcclResult r = aclrt_hccl_coll_check(e, &op->a);
    aclError rc = ACL_SUCCESS;
    if (r == HCCL_SUCCESS && aclrt_hccl_capturing(stream))
        return aclrt_hccl_coll_capture(op, stream);
    if (r == HCCL_SUCCESS) {
        atomic_fetch_add_explicit(&c->inflight, 1, memory_order_relaxed);
        rc = aclrt_native_launch(stream, aclrt_hccl_coll_issue, aclrt_hccl_coll_drop, op);
        if (rc == ACL_SUCCESS)
            return HCCL_SUCCESS;
        atomic_fetch_sub_explicit(&c->inflight, 1, memory_order_relaxed);
    }
    const char *api = op->api;
    free(op->scratch);
    free(op);
    if (r != HCCL_SUCCESS)
        return r;
    return aclrt_hccl_fail(HCCL_E_RUNTIME, "%s: the stream refused the operation (ACL error %d)", api, (int)rc);
}

#endif /* ACLRT_IMPL_HCCL_HCCL_BACKEND_H */

/*
 * impl/model/cond.h - a condition of a captured model (aclmdlRICondHandle) and
 * its conditional task (aclmdlRIAddCondTask; the API: model_cond.h).
 *
 * A condition is a 64-bit word in device memory (aclmdlRICondHandleGetCondPtr
 * gives its address: kernels and copies of the model set it) and, once a
 * conditional task is added with it, the sub-models its branches are
 * captured into. The conditional task (ACLRT_TASK_COND) is a step of the
 * model; the replay loop (model_replay.h) reads the word when it reaches the step
 * and runs a sub-model's body in place:
 *
 *     IF      word != 0: the first body; else the second, if there is one
 *     WHILE   while word != 0: the body (which should change the word)
 *     SWITCH  word < size: body number `word`; else nothing
 *
 * With ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT the word is set to the
 * handle's default value when a replay of the model starts.
 *
 * A condition is reference-counted: its model holds one reference until it
 * is destroyed, each conditional task one (dropped with the task's body).
 * The last reference frees the word and lets go of the branches' bodies
 * (aclrt_cond_put). The task kind is here too; the replay loop runs its
 * steps itself.
 */
#ifndef ACLRT_IMPL_MODEL_COND_H
#define ACLRT_IMPL_MODEL_COND_H

#include "../core/base.h"
#include "../task/task.h"
#include "../../backends/backend.h"
#include "../runtime/runtime.h"
#include "../memory/memory.h"
#include "model.h"

struct aclrt_cond {
    _Atomic uint32_t refs;
    uint32_t flag;                   /* 0 or ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT */
    uint64_t default_value;
    uint64_t *word;                  /* device memory the runtime owns (aclrtFree refuses it) */
    struct aclrt_device *device;
    /* Set by aclmdlRIAddCondTask (under the model's lock): */
    bool used;
    uint32_t type;                   /* aclmdlRICondTaskType */
    uint32_t size;                   /* branches */
    void **subs;                     /* the sub-models' handles, `size` of them */
    /* Set when the model's capture ends (model_capture.h): each branch's body, a reference each. */
    struct aclrt_model_body **bodies;
};

/* Copy a word to or from device memory, synchronously (the backend's copy where it has one). */
static aclError aclrt_cond_copy(void *dst, const void *src, aclrtMemcpyKind kind)
{
    if (aclrt_rt.backend != NULL && aclrt_rt.backend->mem_copy != NULL)
        return aclrt_rt.backend->mem_copy(dst, src, sizeof(uint64_t), kind);
    memcpy(dst, src, sizeof(uint64_t));
    return ACL_SUCCESS;
}

/* A new condition of one word on `dev`, or NULL (out of memory). */
ACLRT_INTERNAL struct aclrt_cond *aclrt_cond_new(struct aclrt_device *dev, uint64_t default_value, uint32_t flag)
{
    struct aclrt_cond *c = (struct aclrt_cond *)calloc(1, sizeof *c);
    if (c == NULL)
        return NULL;
    void *p = NULL;
    if (aclrt_rt.backend->mem_alloc(dev, sizeof(uint64_t), &p) != ACL_SUCCESS) {
        free(c);
        return NULL;
    }
    if (!aclrt_mem_register((uintptr_t)p, sizeof(uint64_t), ACLRT_MEM_RUNTIME, dev)) {
        aclrt_rt.backend->mem_free(dev, p);
        free(c);
        return NULL;
    }
    atomic_init(&c->refs, 1);
    c->flag = flag;
    c->default_value = default_value;
    c->word = (uint64_t *)p;
    c->device = dev;
    uint64_t zero = 0;
    (void)aclrt_cond_copy(c->word, &zero, ACL_MEMCPY_HOST_TO_DEVICE);
    return c;
}

/* The word now (0 if it cannot be read). */
ACLRT_INTERNAL uint64_t aclrt_cond_read(const struct aclrt_cond *c)
{
    uint64_t v = 0;
    if (aclrt_cond_copy(&v, c->word, ACL_MEMCPY_DEVICE_TO_HOST) != ACL_SUCCESS)
        return 0;
    return v;
}

/* A replay starts: the word gets its default value, if the handle asks for it. */
ACLRT_INTERNAL void aclrt_cond_start(const struct aclrt_cond *c)
{
    if (c->flag == ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT)
        (void)aclrt_cond_copy(c->word, &c->default_value, ACL_MEMCPY_HOST_TO_DEVICE);
}

/* Let go of a condition; the last reference lets go of its branches' bodies and frees it. */
ACLRT_INTERNAL void aclrt_cond_put(struct aclrt_cond *c)
{
    /* Acq_rel: the last one to let go sees every replay's reads of the condition. */
    if (c == NULL || atomic_fetch_sub_explicit(&c->refs, 1, memory_order_acq_rel) != 1)
        return;
    for (uint32_t i = 0; c->bodies != NULL && i < c->size; i++)
        if (c->bodies[i] != NULL)
            aclrt_model_body_put(c->bodies[i]);
    struct aclrt_allocation a;
    /* After aclFinalize the runtime has released every allocation: nothing to free. */
    if (aclrt_runtime_started() && aclrt_mem_unregister((uintptr_t)c->word, ACLRT_MEM_RUNTIME, &a))
        aclrt_mem_free_after_work(&a);
    free(c->bodies);
    free(c->subs);
    free(c);
}

/*
 * ACLRT_TASK_COND: the replay loop runs it (aclrt_model_run_cond); this run
 * is only reached by a task that is not a model's step, which none is.
 */
static int aclrt_cond_task_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    (void)s;
    (void)t;
    (void)blk;
    return ACL_ERROR_RT_INTERNAL_ERROR;
}

static void aclrt_cond_task_drop(struct aclrt_task *t)
{
    aclrt_cond_put(t->u.cond.cond);
    t->u.cond.cond = NULL;
}

static const struct aclrt_task_kind aclrt_kind_cond = {ACLRT_TASK_COND, "conditional task", aclrt_cond_task_run,
                                                       aclrt_cond_task_drop};

#endif /* ACLRT_IMPL_MODEL_COND_H */

/*
 * impl/model/model_debug.h - a model described for people (aclmdlRIDebugPrint,
 * aclmdlRIDebugJsonPrint).
 *
 * aclmdlRIDebugJsonPrint writes the model in the trace event format that
 * chrome://tracing and Perfetto open: one track per model stream, one
 * event per task in sequence order (its sequence id as the time, so the
 * tracks show the order and the streams, not durations), the task's kind,
 * type and stream in its arguments; with ACL_MDLRI_DEBUG_JSON_PRINT_VERBOSE
 * a kernel's blocks and argument bytes (hexadecimal) too. aclmdlRIDebugPrint
 * writes a line for the model and one per task to standard error.
 */
#ifndef ACLRT_IMPL_MODEL_MODEL_DEBUG_H
#define ACLRT_IMPL_MODEL_MODEL_DEBUG_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/handle.h"
#include "../core/thread.h"
#include "../task/task.h"
#include "../runtime/runtime.h"
#include "model.h"
#include "model_tasks.h"

#include <stdio.h>

static const char *aclrt_model_task_type_name(aclmdlRITaskType t)
{
    switch (t) {
    case ACL_MODEL_RI_TASK_KERNEL: return "KERNEL";
    case ACL_MODEL_RI_TASK_EVENT_RECORD: return "EVENT_RECORD";
    case ACL_MODEL_RI_TASK_EVENT_WAIT: return "EVENT_WAIT";
    default: return "DEFAULT";
    }
}

/*
 * What is written of a ready model: its body (a reference, so that the
 * writing holds no lock) and its name, id and device as they were.
 */
struct aclrt_model_view {
    struct aclrt_model_body *body;
    unsigned id, device;
    bool built;
    uint32_t name_len;
    char name[ACLRT_MODEL_NAME_MAX + 1];
};

static aclError aclrt_model_view_get(aclmdlRI modelRI, struct aclrt_model_view *v)
{
    struct aclrt_model *m;
    aclError rc = aclrt_model_get(modelRI, &m);
    if (rc != ACL_SUCCESS)
        return rc;
    if (m->state != ACLRT_MODEL_READY) {
        aclrt_model_unlock(m);
        return aclrt_fail(ACL_ERROR_RT_MODEL_CAPTURED, "modelRI %p is not built yet (its capture or build goes on)",
                          modelRI);
    }
    v->body = m->body;
    atomic_fetch_add_explicit(&v->body->refs, 1, memory_order_relaxed); /* the model's keeps it */
    v->id = (unsigned)aclrt_slot_index(&m->hdr);
    v->device = (unsigned)m->ctx->device->id;
    v->built = m->built;
    v->name_len = m->name_len;
    memcpy(v->name, m->name, sizeof v->name);
    aclrt_model_unlock(m);
    return ACL_SUCCESS;
}

/* One task as a trace event. */
static void aclrt_model_json_task(FILE *f, const struct aclrt_model_view *v, uint32_t i, bool verbose)
{
    const struct aclrt_model_body *b = v->body;
    const struct aclrt_task *t = &b->tasks[i];
    fprintf(f,
            ",\n{\"name\":\"%s\",\"ph\":\"X\",\"pid\":%u,\"tid\":%u,\"ts\":%u,\"dur\":1,"
            "\"args\":{\"seq_id\":%u,\"type\":\"%s\"",
            t->kind->name, v->id, (unsigned)b->lanes[i], (unsigned)i, (unsigned)i,
            aclrt_model_task_type_name(aclrt_model_task_type(t->kind->id)));
    if (verbose && t->kind->id == ACLRT_TASK_KERNEL) {
        fprintf(f, ",\"num_blocks\":%u,\"args_size\":%u,\"args\":\"", (unsigned)t->u32,
                (unsigned)t->u.kernel.args_size);
        if (t->u.kernel.owned) /* the model's copy; device memory is not read here */
            for (uint32_t k = 0; k < t->u.kernel.args_size; k++)
                fprintf(f, "%02x", ((const unsigned char *)t->u.kernel.args)[k]);
        fputc('"', f);
    }
    fputs("}}", f);
}

ACLRT_API aclError aclmdlRIDebugJsonPrint(aclmdlRI modelRI, const char *path, uint32_t flags)
{
    ACLRT_ENTER();
    if (path == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "path is NULL");
    if (flags != ACL_MDLRI_DEBUG_JSON_PRINT_SUMMARY && flags != ACL_MDLRI_DEBUG_JSON_PRINT_VERBOSE)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM,
                          "flags %u is neither ACL_MDLRI_DEBUG_JSON_PRINT_SUMMARY nor ACL_MDLRI_DEBUG_JSON_PRINT_VERBOSE",
                          (unsigned)flags);
    struct aclrt_model_view v;
    aclError rc = aclrt_model_view_get(modelRI, &v);
    if (rc != ACL_SUCCESS)
        return rc;
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        int e = errno;
        aclrt_model_body_put(v.body);
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "cannot write %s: %s", path, strerror(e));
    }
    fprintf(f, "{\"traceEvents\":[\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%u,\"args\":{\"name\":\"modelRI %u",
            v.id, v.id);
    if (v.name_len > 0) { /* the name, as a JSON string: quotes, backslashes and control bytes escaped */
        fputs(" ", f);
        for (uint32_t k = 0; k < v.name_len; k++) {
            unsigned char c = (unsigned char)v.name[k];
            if (c == '"' || c == '\\')
                fprintf(f, "\\%c", c);
            else if (c < 0x20)
                fprintf(f, "\\u%04x", c);
            else
                fputc(c, f);
        }
    }
    fputs("\"}}", f);
    for (uint32_t l = 0; l < v.body->nlanes; l++)
        fprintf(f, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"args\":{\"name\":\"stream %u\"}}",
                v.id, (unsigned)l, (unsigned)l);
    for (uint32_t i = 0; i < v.body->count; i++)
        aclrt_model_json_task(f, &v, i, flags == ACL_MDLRI_DEBUG_JSON_PRINT_VERBOSE);
    fputs("\n]}\n", f);
    aclrt_model_body_put(v.body);
    if (fclose(f) != 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "cannot write %s: %s", path, strerror(errno));
    return ACL_SUCCESS;
}

ACLRT_API aclError aclmdlRIDebugPrint(aclmdlRI modelRI)
{
    ACLRT_ENTER();
    struct aclrt_model_view v;
    aclError rc = aclrt_model_view_get(modelRI, &v);
    if (rc != ACL_SUCCESS)
        return rc;
    const struct aclrt_model_body *b = v.body;
    flockfile(stderr);
    fprintf(stderr, "modelRI %u \"%s\": device %u, %s, %u tasks on %u streams\n", v.id, v.name, v.device,
            v.built ? "built" : "captured", (unsigned)b->count, (unsigned)b->nlanes);
    for (uint32_t i = 0; i < b->count; i++)
        fprintf(stderr, "  task %u: stream %u, %s (%s)\n", (unsigned)i, (unsigned)b->lanes[i], b->tasks[i].kind->name,
                aclrt_model_task_type_name(aclrt_model_task_type(b->tasks[i].kind->id)));
    funlockfile(stderr);
    aclrt_model_body_put(v.body);
    return ACL_SUCCESS;
}

#endif /* ACLRT_IMPL_MODEL_MODEL_DEBUG_H */

/*
 * impl/system/init_callbacks.h - code of a component that runs inside
 * aclInit and aclFinalize (aclInitCallbackRegister ...).
 *
 *   The runtime lets its components (model, operator executor, DVPP, ...)
 *   hook aclInit and aclFinalize; a program may too, with
 *   ACL_REG_TYPE_OTHER. As the runtime does [src]:
 *     - one callback per type, any number of ACL_REG_TYPE_OTHER: a second
 *       of another type, or unregistering one never registered, is
 *       ACL_ERROR_INTERNAL_ERROR; a NULL function ACL_ERROR_INVALID_PARAM
 *       (and so is a type outside the enumeration);
 *     - aclInit calls the init callbacks of the model, the operator
 *       executor (only when aclInit names a file), DVPP and the others, in
 *       that order and each type's in registration order, with the text of
 *       the configuration file ("" and 0 without one); the first that fails
 *       fails aclInit with its code, and the runtime is left as if aclInit
 *       had not been called;
 *     - aclFinalize (and the aclFinalizeReference that drops the last
 *       reference) calls the finalize callbacks of the operator compiler,
 *       the model, DVPP and the others before it tears anything down; the
 *       first that fails fails it with its code, and the runtime stays
 *       initialised;
 *     - an init callback registered while the runtime is initialised runs
 *       at once (its result is not looked at).
 *   Callbacks run on the calling thread with no lock of the runtime held:
 *   they may call the API, register others, or fail.
 */
#ifndef ACLRT_IMPL_SYSTEM_INIT_CALLBACKS_H
#define ACLRT_IMPL_SYSTEM_INIT_CALLBACKS_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/thread.h"

#define ACLRT_INIT_CALLBACKS_MAX 64
#define ACLRT_CONFIG_TEXT_MAX (1u << 20) /* the configuration text a callback sees, at most */

struct aclrt_init_cb {
    aclRegisterCallbackType type;
    void *fn; /* aclInitCallbackFunc or aclFinalizeCallbackFunc */
    void *user;
};

struct aclrt_init_cbs {
    size_t count;
    struct aclrt_init_cb cb[ACLRT_INIT_CALLBACKS_MAX];
};

static pthread_mutex_t aclrt_init_cb_lock = PTHREAD_MUTEX_INITIALIZER;
static struct aclrt_init_cbs aclrt_init_cbs_init, aclrt_init_cbs_final;
/* The text of the configuration file of the running aclInit (freed by the next aclInit). */
static char *aclrt_config_text;
static size_t aclrt_config_text_len;
static bool aclrt_config_text_valid; /* the runtime is initialised: a new init callback runs at once */

static bool aclrt_init_cb_type_ok(aclRegisterCallbackType type)
{
    return ((int)type >= ACL_REG_TYPE_ACL_MODEL && (int)type <= ACL_REG_TYPE_ACL_RETR) || type == ACL_REG_TYPE_OTHER;
}

static aclError aclrt_init_cb_add(struct aclrt_init_cbs *set, aclRegisterCallbackType type, void *fn, void *user)
{
    if (fn == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "cbFunc is NULL");
    if (!aclrt_init_cb_type_ok(type))
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "type %d is not an aclRegisterCallbackType", (int)type);
    for (size_t i = 0; i < set->count; i++)
        if (type != ACL_REG_TYPE_OTHER && set->cb[i].type == type)
            return aclrt_fail(ACL_ERROR_INTERNAL_ERROR,
                              "a callback of type %d is already registered (one per type; any number of "
                              "ACL_REG_TYPE_OTHER)",
                              (int)type);
    if (set->count == ACLRT_INIT_CALLBACKS_MAX)
        return aclrt_fail(ACL_ERROR_INTERNAL_ERROR, "%d callbacks are registered already: unregister one first",
                          ACLRT_INIT_CALLBACKS_MAX);
    set->cb[set->count++] = (struct aclrt_init_cb){type, fn, user};
    return ACL_SUCCESS;
}

static aclError aclrt_init_cb_remove(struct aclrt_init_cbs *set, aclRegisterCallbackType type, void *fn)
{
    if (fn == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "cbFunc is NULL");
    for (size_t i = 0; i < set->count; i++)
        if (set->cb[i].type == type && set->cb[i].fn == fn) {
            memmove(&set->cb[i], &set->cb[i + 1], (set->count - i - 1) * sizeof set->cb[0]);
            set->count--;
            return ACL_SUCCESS;
        }
    return aclrt_fail(ACL_ERROR_INTERNAL_ERROR, "no such callback of type %d is registered", (int)type);
}

/* The callbacks of `type`, copied out so that they run with no lock held. */
static size_t aclrt_init_cb_take(const struct aclrt_init_cbs *set, aclRegisterCallbackType type,
                                 struct aclrt_init_cb *out)
{
    size_t n = 0;
    pthread_mutex_lock(&aclrt_init_cb_lock);
    for (size_t i = 0; i < set->count; i++)
        if (set->cb[i].type == type)
            out[n++] = set->cb[i];
    pthread_mutex_unlock(&aclrt_init_cb_lock);
    return n;
}

/* Keep the configuration file's text for the init callbacks (aclInit, under its lock). */
ACLRT_INTERNAL void aclrt_init_cb_config(const char *path)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = path != NULL && path[0] != '\0' ? fopen(path, "rb") : NULL;
    if (f != NULL) {
        text = malloc(ACLRT_CONFIG_TEXT_MAX + 1);
        if (text != NULL)
            len = fread(text, 1, ACLRT_CONFIG_TEXT_MAX, f);
        fclose(f);
    }
    if (text != NULL)
        text[len] = '\0';
    pthread_mutex_lock(&aclrt_init_cb_lock);
    free(aclrt_config_text);
    aclrt_config_text = text;
    aclrt_config_text_len = len;
    pthread_mutex_unlock(&aclrt_init_cb_lock);
}

/* Whether a new init callback runs at once (set when aclInit succeeds, cleared by aclFinalize). */
ACLRT_INTERNAL void aclrt_init_cb_initialised(bool on)
{
    pthread_mutex_lock(&aclrt_init_cb_lock);
    aclrt_config_text_valid = on;
    pthread_mutex_unlock(&aclrt_init_cb_lock);
}

/* aclInit's callbacks, in the runtime's order; the first failure's code. */
ACLRT_INTERNAL aclError aclrt_init_cb_run_init(bool with_file)
{
    static const aclRegisterCallbackType order[] = {ACL_REG_TYPE_ACL_MODEL, ACL_REG_TYPE_ACL_OP_EXECUTOR,
                                                    ACL_REG_TYPE_ACL_DVPP, ACL_REG_TYPE_OTHER};
    struct aclrt_init_cb cbs[ACLRT_INIT_CALLBACKS_MAX];
    for (size_t k = 0; k < ACLRT_ARRAY_SIZE(order); k++) {
        if (order[k] == ACL_REG_TYPE_ACL_OP_EXECUTOR && !with_file)
            continue;
        size_t n = aclrt_init_cb_take(&aclrt_init_cbs_init, order[k], cbs);
        for (size_t i = 0; i < n; i++) {
            /* The text stays until the next aclInit, which cannot run while this one does. */
            aclError rc = ((aclInitCallbackFunc)cbs[i].fn)(aclrt_config_text != NULL ? aclrt_config_text : "",
                                                           aclrt_config_text_len, cbs[i].user);
            if (rc != ACL_SUCCESS)
                return aclrt_fail(rc, "an init callback of type %d failed (%d)", (int)order[k], (int)rc);
        }
    }
    return ACL_SUCCESS;
}

/* aclFinalize's callbacks, in the runtime's order; the first failure's code. */
ACLRT_INTERNAL aclError aclrt_init_cb_run_finalize(void)
{
    static const aclRegisterCallbackType order[] = {ACL_REG_TYPE_ACL_OP_COMPILER, ACL_REG_TYPE_ACL_MODEL,
                                                    ACL_REG_TYPE_ACL_DVPP, ACL_REG_TYPE_OTHER};
    struct aclrt_init_cb cbs[ACLRT_INIT_CALLBACKS_MAX];
    for (size_t k = 0; k < ACLRT_ARRAY_SIZE(order); k++) {
        size_t n = aclrt_init_cb_take(&aclrt_init_cbs_final, order[k], cbs);
        for (size_t i = 0; i < n; i++) {
            aclError rc = ((aclFinalizeCallbackFunc)cbs[i].fn)(cbs[i].user);
            if (rc != ACL_SUCCESS)
                return aclrt_fail(rc, "a finalize callback of type %d failed (%d)", (int)order[k], (int)rc);
        }
    }
    return ACL_SUCCESS;
}

ACLRT_API aclError aclInitCallbackRegister(aclRegisterCallbackType type, aclInitCallbackFunc cbFunc, void *userData)
{
    ACLRT_ENTER();
    pthread_mutex_lock(&aclrt_init_cb_lock);
    aclError rc = aclrt_init_cb_add(&aclrt_init_cbs_init, type, (void *)cbFunc, userData);
    bool now = rc == ACL_SUCCESS && aclrt_config_text_valid;
    const char *text = aclrt_config_text != NULL ? aclrt_config_text : "";
    size_t len = aclrt_config_text_len;
    pthread_mutex_unlock(&aclrt_init_cb_lock);
    if (now)
        (void)cbFunc(text, len, userData);
    return rc;
}

ACLRT_API aclError aclInitCallbackUnRegister(aclRegisterCallbackType type, aclInitCallbackFunc cbFunc)
{
    ACLRT_ENTER();
    pthread_mutex_lock(&aclrt_init_cb_lock);
    aclError rc = aclrt_init_cb_remove(&aclrt_init_cbs_init, type, (void *)cbFunc);
    pthread_mutex_unlock(&aclrt_init_cb_lock);
    return rc;
}

ACLRT_API aclError aclFinalizeCallbackRegister(aclRegisterCallbackType type, aclFinalizeCallbackFunc cbFunc,
                                               void *userData)
{
    ACLRT_ENTER();
    pthread_mutex_lock(&aclrt_init_cb_lock);
    aclError rc = aclrt_init_cb_add(&aclrt_init_cbs_final, type, (void *)cbFunc, userData);
    pthread_mutex_unlock(&aclrt_init_cb_lock);
    return rc;
}

ACLRT_API aclError aclFinalizeCallbackUnRegister(aclRegisterCallbackType type, aclFinalizeCallbackFunc cbFunc)
{
    ACLRT_ENTER();
    pthread_mutex_lock(&aclrt_init_cb_lock);
    aclError rc = aclrt_init_cb_remove(&aclrt_init_cbs_final, type, (void *)cbFunc);
    pthread_mutex_unlock(&aclrt_init_cb_lock);
    return rc;
}

#endif /* ACLRT_IMPL_SYSTEM_INIT_CALLBACKS_H */

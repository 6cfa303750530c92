/*
 * impl/system/sys_param.h - system parameter options of the process and of
 * a context (aclrtSetSysParamOpt, aclrtCtxSetSysParamOpt, and their gets).
 *
 *   As the runtime checks them [src]: a context takes ACL_OPT_DETERMINISTIC,
 *   ACL_OPT_ENABLE_DEBUG_KERNEL and ACL_OPT_STRONG_CONSISTENCY; the process
 *   also ACL_OPT_ENABLE_KERNEL_EARLY_START; another option is
 *   ACL_ERROR_INVALID_PARAM. A value is in [0, 4) for ACL_OPT_DETERMINISTIC
 *   (0 off, 1 deterministic, 2 strong consistency, 3 batch consistency)
 *   and 0 or 1 for the others, else ACL_ERROR_RT_PARAM_INVALID. Reading an
 *   option never set is ACL_ERROR_RT_SYSPARAMOPT_NOT_SET. A context starts
 *   with none set, whatever the process's are; the process's last for the
 *   process's life.
 *   What they change on aclrt: nothing to run differently. The host
 *   backend's arithmetic (reduce tasks, kernels on the CPU) already gives
 *   the same result for the same inputs every time, which is what every
 *   deterministic level asks; there are no debug kernels nor early starts.
 *   The values are kept and reported, so code that sets and checks them
 *   works.
 *   A value is written before its bit is set (release), and read after the
 *   bit is seen (acquire): a reader never sees a bit without its value.
 */
#ifndef ACLRT_IMPL_SYSTEM_SYS_PARAM_H
#define ACLRT_IMPL_SYSTEM_SYS_PARAM_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/thread.h"
#include "../runtime/runtime.h"
#include "../context/context.h"

#define ACLRT_SYS_PARAM_COUNT 4
#define ACLRT_DETERMINISTIC_LEVELS 4

static _Atomic uint32_t aclrt_sys_param_set;
static _Atomic int64_t aclrt_sys_param[ACLRT_SYS_PARAM_COUNT];

/* Option and value checked as the runtime checks them; `ctx`: a context's option. */
static aclError aclrt_sys_param_check(aclSysParamOpt opt, bool ctx)
{
    int o = (int)opt;
    int count = ctx ? ACLRT_SYS_PARAM_COUNT - 1 : ACLRT_SYS_PARAM_COUNT;
    if (o < 0 || o >= count)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM,
                          "opt %d is not ACL_OPT_DETERMINISTIC(0), ACL_OPT_ENABLE_DEBUG_KERNEL(1), "
                          "ACL_OPT_STRONG_CONSISTENCY(2)%s",
                          o, ctx ? " (a context's options)" : " or ACL_OPT_ENABLE_KERNEL_EARLY_START(3)");
    return ACL_SUCCESS;
}

static aclError aclrt_sys_param_check_value(aclSysParamOpt opt, int64_t value)
{
    int64_t most = opt == ACL_OPT_DETERMINISTIC ? ACLRT_DETERMINISTIC_LEVELS : 2;
    if (value < 0 || value >= most)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "value %lld of option %d is not in [0, %lld)", (long long)value,
                          (int)opt, (long long)most);
    return ACL_SUCCESS;
}

static void aclrt_sys_param_store(_Atomic uint32_t *set, _Atomic int64_t *values, aclSysParamOpt opt, int64_t v)
{
    atomic_store_explicit(&values[opt], v, memory_order_relaxed);
    atomic_fetch_or_explicit(set, 1u << opt, memory_order_release); /* pairs with the acquire in _load */
}

static aclError aclrt_sys_param_load(_Atomic uint32_t *set, _Atomic int64_t *values, aclSysParamOpt opt,
                                     int64_t *value, const char *whose)
{
    if ((atomic_load_explicit(set, memory_order_acquire) & (1u << opt)) == 0)
        return aclrt_fail(ACL_ERROR_RT_SYSPARAMOPT_NOT_SET, "option %d of the %s was never set", (int)opt, whose);
    *value = atomic_load_explicit(&values[opt], memory_order_relaxed);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtSetSysParamOpt(aclSysParamOpt opt, int64_t value)
{
    ACLRT_ENTER();
    aclError rc = aclrt_sys_param_check(opt, false);
    if (rc == ACL_SUCCESS)
        rc = aclrt_sys_param_check_value(opt, value);
    if (rc == ACL_SUCCESS)
        aclrt_sys_param_store(&aclrt_sys_param_set, aclrt_sys_param, opt, value);
    return rc;
}

ACLRT_API aclError aclrtGetSysParamOpt(aclSysParamOpt opt, int64_t *value)
{
    ACLRT_ENTER();
    if (value == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "value (output) is NULL");
    aclError rc = aclrt_sys_param_check(opt, false);
    if (rc != ACL_SUCCESS)
        return rc;
    return aclrt_sys_param_load(&aclrt_sys_param_set, aclrt_sys_param, opt, value, "process");
}

ACLRT_API aclError aclrtCtxSetSysParamOpt(aclSysParamOpt opt, int64_t value)
{
    ACLRT_ENTER();
    aclError rc = aclrt_sys_param_check(opt, true);
    if (rc == ACL_SUCCESS)
        rc = aclrt_sys_param_check_value(opt, value);
    struct aclrt_context *ctx;
    if (rc == ACL_SUCCESS)
        rc = aclrt_current_context(&ctx);
    if (rc == ACL_SUCCESS)
        aclrt_sys_param_store(&ctx->sys_param_set, ctx->sys_param, opt, value);
    return rc;
}

ACLRT_API aclError aclrtCtxGetSysParamOpt(aclSysParamOpt opt, int64_t *value)
{
    ACLRT_ENTER();
    if (value == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "value (output) is NULL");
    aclError rc = aclrt_sys_param_check(opt, true);
    struct aclrt_context *ctx;
    if (rc == ACL_SUCCESS)
        rc = aclrt_current_context(&ctx);
    if (rc != ACL_SUCCESS)
        return rc;
    return aclrt_sys_param_load(&ctx->sys_param_set, ctx->sys_param, opt, value, "current context");
}

#endif /* ACLRT_IMPL_SYSTEM_SYS_PARAM_H */

/*
 * impl/model/model_args.h - the stream argument of the capture and model
 * calls (model_capture.h, model_build.h, model_update.h, label.h, ...).
 *
 * Those calls act on a stream the caller names: NULL, which would be the
 * default stream, is refused (the default stream is never captured, bound
 * or updated). They take the capture lock, which a forked child may have
 * inherited held by a thread the child does not have: a forked child is
 * refused before the stream is resolved.
 */
#ifndef ACLRT_IMPL_MODEL_MODEL_ARGS_H
#define ACLRT_IMPL_MODEL_MODEL_ARGS_H

#include "../core/base.h"
#include "../core/error.h"
#include "../runtime/runtime.h"
#include "../context/stream_api.h"

/*
 * The stream a capture or model call acts on: `if_null` is the message
 * for a NULL stream (ACL_ERROR_INVALID_PARAM); `same_context` as for
 * aclrt_stream_resolve.
 */
ACLRT_INTERNAL aclError aclrt_model_stream_arg(aclrtStream stream, const char *if_null, bool same_context,
                                               struct aclrt_stream **out)
{
    if (stream == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s", if_null);
    /* A forked child: the capture lock may have been held by a thread the child does not have. */
    if (ACLRT_UNLIKELY(aclrt_runtime_orphaned()))
        return aclrt_fail_orphaned();
    return aclrt_stream_resolve(stream, same_context, out);
}

#endif /* ACLRT_IMPL_MODEL_MODEL_ARGS_H */

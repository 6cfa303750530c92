/*
 * backends/cuda/cuda_value.h - value waits on the GPU that aclFinalize and a
 * stream's end can still let go.
 *
 * Where the CPU cannot address the GPU's memory, an aclrtValueWait waits on
 * the GPU (cuStreamWaitValue64 on the word). A wait the GPU queue holds
 * cannot be taken back, and one that nothing satisfies would hold the
 * stream, and everything behind it, for ever. So it waits one step removed:
 *
 *   the stream's watch CUstream:  wait until the stream reached the task
 *                                 (its completion word >= n - 1), wait on the
 *                                 user's word, then write n into the gate
 *   the stream's own CUstream:    wait until the gate >= n
 *
 * The gate is a word next to the completion word, in pinned memory mapped
 * for the GPU; the host lets the stream go by storing n there itself
 * (aclrt_cuda_value_release): aclFinalize does for every stream, as the
 * host backend releases its parked value waits, and so does the stream's
 * end. What the watch stream still waits for stays there until its context
 * goes (it is destroyed with the stream; the driver frees it when its work
 * ends, or with the context).
 */
#ifndef ACLRT_BACKENDS_CUDA_CUDA_VALUE_H
#define ACLRT_BACKENDS_CUDA_CUDA_VALUE_H

#include "../../impl/core/base.h"
#include "../../impl/task/task.h"
#include "../../impl/stream/stream.h"
#include "cuda_device.h"
#include "cuda_driver.h"
#include "cuda_stream.h"

/* Issue value wait n (task t) on the GPU, through the gate; the driver's result. */
ACLRT_INTERNAL aclrt_CUresult aclrt_cuda_value_wait_issue(struct aclrt_cuda_slot *sl, const struct aclrt_task *t, uint64_t n)
{
    aclrt_CUresult r = ACLRT_CUDA_SUCCESS;
    if (sl->watch == NULL) /* the holder's alone while the stream lives */
        r = aclrt_cu->cuStreamCreateWithPriority(&sl->watch, ACLRT_CU_STREAM_NON_BLOCKING, 0);
    if (r == ACLRT_CUDA_SUCCESS) /* the stream reached the wait */
        r = aclrt_cu->cuStreamWaitValue64(sl->watch, sl->word_dev, n - 1, ACLRT_CU_STREAM_WAIT_VALUE_GEQ);
    if (r == ACLRT_CUDA_SUCCESS) /* ACL's wait flags are CUDA's: GEQ 0, EQ 1, AND 2, NOR 3 */
        r = aclrt_cu->cuStreamWaitValue64(sl->watch, (aclrt_CUdeviceptr)(uintptr_t)t->u.value.word, t->u.value.value,
                                          t->u32);
    if (r == ACLRT_CUDA_SUCCESS)
        r = aclrt_cu->cuStreamWriteValue64(sl->watch, sl->gate_dev, n, ACLRT_CU_STREAM_WRITE_VALUE_DEFAULT);
    if (r == ACLRT_CUDA_SUCCESS) {
        atomic_store_explicit(&sl->gate_want, n, memory_order_relaxed);
        r = aclrt_cu->cuStreamWaitValue64(sl->cu, sl->gate_dev, n, ACLRT_CU_STREAM_WAIT_VALUE_GEQ);
    }
    return r;
}

#endif /* ACLRT_BACKENDS_CUDA_CUDA_VALUE_H */

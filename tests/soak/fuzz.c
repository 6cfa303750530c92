/*
 * tests/soak/fuzz.c - an API fuzzer over every public function of aclrt.h,
 * on device 1, from two threads at once, while the rest of the soak runs.
 *
 * Each call gets a random mix of valid arguments, NULL, garbage (small
 * integers, the address of a local, random 64-bit values, handles forged
 * from live ones), stale handles (destroyed streams, events, contexts,
 * notifies, counting notifies: each thread its own, so that no destroy
 * races a use), handles of the wrong kind, handles of another context or
 * device, wild flags, sizes and timeouts, and calls in the wrong order
 * (destroy twice, free twice, process reports unsubscribed, unsubscribe
 * what was never subscribed...). Checked:
 *   - no crash (the process would die) and no hang (the watchdog);
 *   - every code is one the function may return (SEMANTICS.md and
 *     acl_rt.h: the per-call lists below); an unlisted code is SV_FUZZ;
 *   - a failing call leaves a recent-error line naming itself;
 *   - work the fuzzer queues between its calls still runs, exactly once;
 *   - absurd allocation sizes fail (release builds only: sanitizer
 *     allocators abort on them instead of returning NULL);
 *   - the exception-info getters, called from an exception callback on a
 *     real failure, return the failure's device and code.
 * Every public function must be exercised: the summary names any that was
 * not, and `make soak` checks that this file names every function aclrt.h
 * declares. The wrong call order of init/finalize/device/context calls runs
 * in a fresh process of its own (fuzz_lifecycle_child, from main.c):
 * finalize and init cycles cannot run inside the soak.
 *
 * What the fuzzer never does, because a correct runtime could then wait
 * forever (and the watchdog would say so): wait for an event or notify no
 * one will record without a timeout, reset a waited-on legacy event, wait
 * for a value that is never written, launch an unbalanced HCOM list, or
 * leave a BLOCK callback unprocessed.
 */
#define _GNU_SOURCE
#include <unistd.h>
#include "soak.h"

#include "acl/acl_platform.h"
#include "acl/acl_dump.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <sched.h>

#define P ACL_ERROR_INVALID_PARAM
#define H ACL_ERROR_RT_INVALID_HANDLE
#define R ACL_ERROR_RT_PARAM_INVALID
#define F ACL_ERROR_RT_FEATURE_NOT_SUPPORT
#define CN ACL_ERROR_RT_CONTEXT_NULL
#define SC ACL_ERROR_RT_STREAM_CONTEXT
#define DV ACL_ERROR_RT_INVALID_DEVICEID
#define SUBMIT P, H, CN, SC
/* What a synchronize may report from work the fuzzer (or anyone on the device) queued earlier. */
#define ASYNC SOAK_FAIL_CODE, ACL_ERROR_RT_TASK_TIMEOUT, ACL_ERROR_RT_STREAM_NO_CB_REG, ACL_ERROR_RT_STREAM_ABORT, \
              ACL_ERROR_RT_TASK_ABORT_STOP, ACL_ERROR_RT_AICORE_TIMEOUT /* a kernel launched with a short timeout */, \
              ACL_ERROR_RT_DEVICE_MEM_ERROR /* an offset or descriptor copy whose addresses, read as it ran, were bad */
#define QUOTA ACL_ERROR_RT_NO_STREAM_RESOURCE, ACL_ERROR_RT_NO_EVENT_RESOURCE, ACL_ERROR_RT_NO_NOTIFY_RESOURCE

#define FZ_BUF 256
#define FZ_SCRATCH 4
#define FZ_STALE 24

/* ------------------------------------------------------------------------
 * Coverage: every public function of aclrt.h.
 * ------------------------------------------------------------------------ */
static const char *const fz_functions[] = {
    "aclInit", "aclFinalize", "aclFinalizeReference", "aclGetRecentErrMsg", "aclrtPeekAtLastError",
    "aclrtGetLastError", "aclrtSetDevice", "aclrtResetDevice", "aclrtResetDeviceForce", "aclrtGetDevice",
    "aclrtGetDeviceCount", "aclrtSynchronizeDevice", "aclrtSynchronizeDeviceWithTimeout", "aclrtCreateContext",
    "aclrtDestroyContext", "aclrtSetCurrentContext", "aclrtGetCurrentContext", "aclrtCtxGetCurrentDefaultStream",
    "aclrtGetRunMode", "aclrtRegDeviceStateCallback", "aclrtCreateStream", "aclrtCreateStreamWithConfig",
    "aclrtCreateStreamV2", "aclrtCreateStreamConfigHandle", "aclrtSetStreamConfigOpt",
    "aclrtDestroyStreamConfigHandle", "aclrtDestroyStream", "aclrtDestroyStreamForce", "aclrtSynchronizeStream",
    "aclrtSynchronizeStreamWithTimeout", "aclrtStreamQuery", "aclrtStreamGetId", "aclrtStreamGetPriority",
    "aclrtStreamGetFlags", "aclrtSetStreamFailureMode", "aclrtSetStreamAttribute", "aclrtGetStreamAttribute",
    "aclrtDeviceGetStreamPriorityRange", "aclrtGetStreamAvailableNum", "aclrtStreamAbort", "aclrtStreamStop",
    "aclrtRegStreamStateCallback", "aclrtCreateEvent", "aclrtCreateEventWithFlag", "aclrtCreateEventExWithFlag",
    "aclrtDestroyEvent", "aclrtRecordEvent", "aclrtRecordEventWithFlag", "aclrtResetEvent", "aclrtQueryEvent",
    "aclrtQueryEventStatus", "aclrtQueryEventWaitStatus", "aclrtSynchronizeEvent", "aclrtSynchronizeEventWithTimeout",
    "aclrtEventElapsedTime", "aclrtEventGetTimestamp", "aclrtStreamWaitEvent", "aclrtStreamWaitEventWithTimeout",
    "aclrtStreamWaitEventWithFlag", "aclrtGetEventId", "aclrtGetEventAvailNum", "aclrtSetOpWaitTimeout",
    "aclrtCreateNotify", "aclrtDestroyNotify", "aclrtRecordNotify", "aclrtWaitAndResetNotify", "aclrtGetNotifyId",
    "aclrtNotifyBatchReset", "aclrtCntNotifyCreate", "aclrtCntNotifyDestroy", "aclrtCntNotifyRecord",
    "aclrtCntNotifyWaitWithTimeout", "aclrtCntNotifyReset", "aclrtCntNotifyGetId", "aclrtValueWrite",
    "aclrtValueWait", "aclrtLaunchHostFunc", "aclrtMalloc", "aclrtFree", "aclrtMallocHost", "aclrtFreeHost",
    "aclrtMemcpy", "aclrtMemcpyAsync", "aclrtMemset", "aclrtMemsetAsync", "aclrtMallocAlign32", "aclrtMallocCached",
    "aclrtMallocWithCfg", "aclrtMallocForTaskScheduler", "aclrtMallocHostWithCfg", "aclrtFreeWithDevSync",
    "aclrtFreeHostWithDevSync", "aclrtMemcpy2d", "aclrtMemcpy2dAsync", "aclrtMemsetD32", "aclrtMemsetD32Async",
    "aclrtMemcpyAsyncWithCondition", "aclrtPointerGetAttributes", "aclrtMemGetAddressRange", "aclrtGetMemUsageInfo",
    "aclrtMemcpyBatch", "aclrtMemcpyBatchV2", "aclrtMemcpyBatchAsync", "aclrtMemcpyBatchAsyncV2",
    "aclrtGetMemcpyDescSize", "aclrtSetMemcpyDesc", "aclrtMemcpyAsyncWithDesc", "aclrtMemcpyAsyncWithOffset",
    "aclrtSubscribeReport",
    "aclrtLaunchCallback", "aclrtProcessReport", "aclrtUnSubscribeReport", "aclrtSubscribeHostFunc",
    "aclrtProcessHostFunc", "aclrtUnSubscribeHostFunc", "aclrtSetExceptionInfoCallback",
    "aclrtExceptionInfoCallbackRegister", "aclrtExceptionInfoCallbackUnregister", "aclrtGetTaskIdFromExceptionInfo",
    "aclrtGetStreamIdFromExceptionInfo", "aclrtGetThreadIdFromExceptionInfo", "aclrtGetDeviceIdFromExceptionInfo",
    "aclrtGetErrorCodeFromExceptionInfo", "aclrtGetThreadLastTaskId", "aclrtxLaunchHostKernel",
    "aclrtxGetBackendName", "aclrtxCreateHcomRecordTask", "aclrtxCreateHcomWaitTask", "aclrtxHcomTaskSetStreamId",
    "aclrtxHcomTaskSerialize", "aclrtxDestroyHcomTask", "aclrtxLaunchHcomTaskList",
    "aclrtAllocatorCreateDesc", "aclrtAllocatorDestroyDesc", "aclrtAllocatorSetObjToDesc",
    "aclrtAllocatorSetAllocFuncToDesc", "aclrtAllocatorSetFreeFuncToDesc", "aclrtAllocatorSetAllocAdviseFuncToDesc",
    "aclrtAllocatorSetGetAddrFromBlockFuncToDesc", "aclrtAllocatorRegister", "aclrtAllocatorGetByStream",
    "aclrtAllocatorUnregister", "aclrtxDeviceProgress", "aclrtxDeviceProgressFd", "aclrtxLaunchExternalTask",
    "aclrtxCompleteExternalTask", "aclrtxRegisterBackend", "aclrtxUnregisterBackend", "aclrtxDeclareAccess",
    "aclrtxSetSanitizerCallback", "aclrtxSanitizerReportCount", "aclrtxSanitizerIgnoreBegin", "aclrtxSanitizerIgnoreEnd",
    "aclrtDeviceCanAccessPeer", "aclrtDeviceEnablePeerAccess", "aclrtDeviceDisablePeerAccess",
    "aclrtDevicePeerAccessStatus", "aclrtMemGetAllocationGranularity", "aclrtMallocPhysical", "aclrtFreePhysical",
    "aclrtReserveMemAddress", "aclrtReleaseMemAddress", "aclrtMapMem", "aclrtUnmapMem", "aclrtMemSetAccess",
    "aclrtMemGetAccess", "aclrtMemExportToShareableHandle", "aclrtMemSetPidToShareableHandle",
    "aclrtMemImportFromShareableHandle", "aclrtDeviceGetBareTgid", "aclrtIpcGetEventHandle", "aclrtIpcOpenEventHandle",
    "aclrtIpcMemGetExportKey", "aclrtIpcMemClose", "aclrtIpcMemImportByKey", "aclrtIpcMemSetImportPid",
    "aclrtIpcMemSetAttr", "aclrtNotifyGetExportKey", "aclrtNotifyImportByKey", "aclrtNotifySetImportPid",
    "aclrtIpcMemImportPidInterServer", "aclrtNotifySetImportPidInterServer", "aclrtReduceAsync", "aclrtRandomNumAsync",
    "aclrtGetErrorVerbose", "aclrtGetArgsFromExceptionInfo", "aclrtGetFuncHandleFromExceptionInfo",
    "aclsysGetVersionStr", "aclsysGetVersionNum", "aclGetCannAttributeList", "aclGetCannAttribute",
    "aclrtGetSocName", "aclrtCheckArchCompatibility", "aclFloat16ToFloat", "aclFloatToFloat16", "aclDataTypeSize",
    "aclrtGetDeviceInfo", "aclrtGetDeviceCapability", "aclrtQueryDeviceStatus", "aclrtGetDeviceUtilizationRate",
    "aclrtGetMemInfo", "aclrtGetDeviceResLimit", "aclrtSetDeviceResLimit", "aclrtResetDeviceResLimit", "aclrtGetResInCurrentThread",
    "aclrtGetStreamResLimit", "aclrtSetStreamResLimit", "aclrtResetStreamResLimit", "aclrtUseStreamResInCurrentThread",
    "aclrtUnuseStreamResInCurrentThread", "aclrtDeviceGetUuid", "aclrtDeviceGetPCIBusId", "aclrtDeviceGetByPCIBusId",
    "aclrtGetDevicesTopo", "aclrtGetLogicDevIdByUserDevId", "aclrtGetUserDevIdByLogicDevId",
    "aclrtGetLogicDevIdByPhyDevId", "aclrtGetPhyDevIdByLogicDevId", "aclrtGetUserDevIdByPhyDevId",
    "aclrtGetPhyDevIdByUserDevId",
    "aclrtDeviceSetLimit", "aclrtDeviceGetLimit", "aclrtDeviceGetHostAtomicCapabilities",
    "aclrtDeviceGetP2PAtomicCapabilities", "aclrtSetTsDevice", "aclrtGetPrimaryCtxState", "aclrtSetGroup",
    "aclrtGetGroupCount", "aclrtCreateGroupInfo", "aclrtDestroyGroupInfo", "aclrtGetAllGroupInfo",
    "aclrtGetGroupInfoDetail", "aclrtDeviceTaskAbort", "aclrtSetDeviceTaskAbortCallback",
    "aclrtSetDeviceSatMode", "aclrtGetDeviceSatMode", "aclrtSetStreamOverflowSwitch", "aclrtGetStreamOverflowSwitch",
    "aclrtGetOverflowStatus", "aclrtResetOverflowStatus", "aclrtGetFloatOverflowStatus",
    "aclrtResetFloatOverflowStatus", "aclrtNpuGetFloatOverFlowStatus", "aclrtNpuClearFloatOverFlowStatus",
    "aclrtBinaryLoadFromFile", "aclrtBinaryLoadFromData", "aclrtBinaryGetFunction", "aclrtBinaryUnLoad",
    "aclrtBinaryGetDevAddress", "aclrtBinaryGetGlobal", "aclrtGetSymbolAddress", "aclrtGetSymbolSize",
    "aclrtMemcpyToSymbol", "aclrtMemcpyToSymbolAsync", "aclrtMemcpyFromSymbol", "aclrtMemcpyFromSymbolAsync",
    "aclrtGetFuncBySymbol", "aclrtBinaryGetFunctionByEntry", "aclrtBinarySetExceptionCallback", "aclrtCreateBinary",
    "aclrtDestroyBinary", "aclrtBinaryLoad", "aclrtGetFunctionName", "aclrtGetFunctionAddr",
    "aclrtGetFunctionSize", "aclrtFunctionGetBinary", "aclrtKernelArgsInit", "aclrtKernelArgsAppend",
    "aclrtKernelArgsAppendPlaceHolder", "aclrtKernelArgsGetPlaceHolderBuffer", "aclrtKernelArgsParaUpdate",
    "aclrtKernelArgsFinalize", "aclrtLaunchKernel", "aclrtLaunchKernelV2", "aclrtLaunchKernelWithConfig",
    "aclrtLaunchKernelWithHostArgs", "aclmdlRICaptureBegin", "aclmdlRICaptureGetInfo", "aclmdlRICaptureEnd",
    "aclmdlRICaptureThreadExchangeMode", "aclmdlRIExecuteAsync", "aclmdlRIExecute", "aclmdlRIDestroy",
    "aclmdlRICaptureTaskGrpBegin", "aclmdlRICaptureTaskGrpEnd", "aclmdlRICaptureTaskUpdateBegin",
    "aclmdlRICaptureTaskUpdateEnd", "aclmdlRIBuildBegin", "aclmdlRIBindStream", "aclmdlRIEndTask", "aclmdlRIBuildEnd", "aclmdlRIUnbindStream",
    "aclmdlRIAbort", "aclmdlRISetName", "aclmdlRIGetName", "aclmdlRIGetId", "aclmdlRIGetStreams",
    "aclmdlRIGetTasksByStream", "aclmdlRITaskGetType", "aclmdlRITaskGetSeqId", "aclmdlRICondHandleCreate",
    "aclmdlRICondHandleGetCondPtr", "aclmdlRIAddCondTask", "aclmdlRICaptureToModelRIBegin",
    "aclmdlRIDestroyRegisterCallback", "aclmdlRIDestroyUnregisterCallback", "aclmdlRITaskGetParams",
    "aclmdlRITaskSetParams", "aclmdlRIKernelTaskGetAttribute", "aclmdlRITaskDisable", "aclmdlRIUpdate",
    "aclmdlRIDebugJsonPrint", "aclmdlRIDebugPrint",
    "aclrtCreateLabel", "aclrtSetLabel", "aclrtDestroyLabel", "aclrtCreateLabelList", "aclrtDestroyLabelList",
    "aclrtSwitchLabelByIndex", "aclprofInit", "aclprofFinalize", "aclprofCreateConfig", "aclprofDestroyConfig",
    "aclprofStart", "aclprofStop",
    "aclCreateDataBuffer", "aclDestroyDataBuffer", "aclUpdateDataBuffer", "aclGetDataBufferAddr",
    "aclGetDataBufferSize", "aclGetDataBufferSizeV2", "aclAppLog", "aclGetDeviceCapability",
    "aclInitCallbackRegister", "aclInitCallbackUnRegister", "aclFinalizeCallbackRegister",
    "aclFinalizeCallbackUnRegister", "aclrtGetVersion", "aclsysGetCANNVersion", "aclrtSetSysParamOpt",
    "aclrtGetSysParamOpt", "aclrtCtxSetSysParamOpt", "aclrtCtxGetSysParamOpt", "aclrtSetOpExecuteTimeOut",
    "aclrtSetOpExecuteTimeOutWithMs", "aclrtSetOpExecuteTimeOutV2", "aclrtGetOpExecuteTimeout",
    "aclrtGetOpTimeOutInterval", "aclplatformGetDeviceInfo", "aclplatformGetInstructionInfo",
    "aclrtHostRegister", "aclrtHostRegisterV2", "aclrtHostGetDevicePointer", "aclrtHostUnregister",
    "aclrtHostMemMapCapabilities", "aclrtMemAllocManaged", "aclrtMemManagedAdvise", "aclrtMemManagedGetAttr",
    "aclrtMemManagedGetAttrs", "aclrtMemManagedPrefetchAsync", "aclrtMemManagedPrefetchBatchAsync",
    "aclrtCheckMemType", "aclrtMemFlush", "aclrtMemInvalidate", "aclrtCmoAsync", "aclrtCmoAsyncWithBarrier",
    "aclrtCmoWaitBarrier", "aclrtCmoGetDescSize", "aclrtCmoSetDesc", "aclrtCmoAsyncWithDesc",
    "aclrtDeviceL2CacheFlush", "aclrtMemPoolCreate", "aclrtMemPoolDestroy", "aclrtMemPoolSetAttr",
    "aclrtMemPoolGetAttr", "aclrtMemPoolMallocAsync", "aclrtMemPoolFreeAsync", "aclrtMemPoolTrimTo",
    "aclrtActiveStream", "aclrtSwitchStream", "aclrtPersistentTaskClean",
    "aclrtMemExportToShareableHandleV2", "aclrtMemImportFromShareableHandleV2", "aclrtMemSetPidToShareableHandleV2",
    "aclrtMemRetainAllocationHandle", "aclrtMemGetAllocationPropertiesFromHandle", "aclrtReserveMemAddressNoUCMemory",
    "aclrtMemP2PMap", "aclrtMemMapSetLink", "aclrtMemMapSelectedLink", "aclrtGetMemUceInfo", "aclrtMemUceRepair",
    "aclrtRepairError", "aclrtxInjectMemUce",
    "acltdtCreateDataItem", "acltdtDestroyDataItem", "acltdtGetTensorTypeFromItem", "acltdtGetDataTypeFromItem",
    "acltdtGetDataAddrFromItem", "acltdtGetDataSizeFromItem", "acltdtGetDimNumFromItem", "acltdtGetDimsFromItem",
    "acltdtGetSliceInfoFromItem", "acltdtCreateDataset", "acltdtDestroyDataset", "acltdtGetDataItem",
    "acltdtAddDataItem", "acltdtGetDatasetSize", "acltdtGetDatasetName", "acltdtCreateChannel",
    "acltdtCreateChannelWithCapacity", "acltdtDestroyChannel", "acltdtStopChannel", "acltdtCleanChannel",
    "acltdtSendTensor", "acltdtReceiveTensor", "acltdtQueryChannelSize",
    "aclprofStart", "aclprofStop", "aclprofSetConfig", "aclprofCreateStamp", "aclprofDestroyStamp",
    "aclprofSetStampTraceMessage", "aclprofMark", "aclprofMarkEx", "aclprofPush", "aclprofPop", "aclprofRangeStart",
    "aclprofRangeStop", "aclprofRangePushEx", "aclprofRangePop", "aclprofStr2Id", "aclprofCreateStepInfo",
    "aclprofDestroyStepInfo", "aclprofGetStepTimestamp", "aclrtProfTrace", "aclprofCreateSubscribeConfig",
    "aclprofDestroySubscribeConfig", "aclprofModelSubscribe", "aclprofModelUnSubscribe", "aclprofGetOpDescSize",
    "aclprofGetOpNum", "aclprofGetOpTypeLen", "aclprofGetOpType", "aclprofGetOpNameLen", "aclprofGetOpName",
    "aclprofGetOpStart", "aclprofGetOpEnd", "aclprofGetOpDuration", "aclprofGetModelId", "aclprofGetOpFlag",
    "aclprofGetOpAttriValue",
    "aclrtAllocBuf", "aclrtFreeBuf", "aclrtGetBufData", "aclrtGetBufDataLen", "aclrtSetBufDataLen",
    "aclrtGetBufUserData", "aclrtSetBufUserData", "aclrtCopyBufRef", "aclrtAppendBufChain", "aclrtGetBufChainNum",
    "aclrtGetBufFromChain", "acltdtAllocBuf", "acltdtFreeBuf", "acltdtGetBufData", "acltdtSetBufDataLen",
    "acltdtGetBufDataLen", "acltdtAppendBufChain", "acltdtGetBufChainNum", "acltdtGetBufFromChain",
    "acltdtGetBufUserData", "acltdtSetBufUserData", "acltdtCopyBufRef", "acltdtCreateQueue", "acltdtDestroyQueue",
    "acltdtEnqueue", "acltdtDequeue", "acltdtEnqueueData", "acltdtDequeueData", "acltdtGrantQueue",
    "acltdtAttachQueue", "acltdtBindQueueRoutes", "acltdtUnbindQueueRoutes", "acltdtQueryQueueRoutes",
    "acltdtCreateQueueAttr", "acltdtDestroyQueueAttr", "acltdtSetQueueAttr", "acltdtGetQueueAttr",
    "acltdtCreateQueueRoute", "acltdtDestroyQueueRoute", "acltdtGetQueueRouteParam", "acltdtCreateQueueRouteList",
    "acltdtDestroyQueueRouteList", "acltdtAddQueueRoute", "acltdtGetQueueRoute", "acltdtGetQueueRouteNum",
    "acltdtCreateQueueRouteQueryInfo", "acltdtDestroyQueueRouteQueryInfo", "acltdtSetQueueRouteQueryInfo",
    "aclmdlInitDump", "aclmdlSetDump", "aclmdlFinalizeDump", "aclopStartDumpArgs", "aclopStopDumpArgs",
    "acldumpGetPath", "acldumpGetExceptionInfoPath", "acldumpSaveExceptionInfo",
    "aclrtSnapShotProcessLock", "aclrtSnapShotProcessUnlock", "aclrtSnapShotProcessBackup",
    "aclrtSnapShotProcessRestore", "aclrtSnapShotCallbackRegister", "aclrtSnapShotCallbackUnregister",
};
#define FZ_NFUNCS ((int)(sizeof fz_functions / sizeof fz_functions[0]))
static atomic_long fz_covered[FZ_NFUNCS];

static void fz_cover(const char *call_text)
{
    size_t n = strcspn(call_text, "( ");
    for (int i = 0; i < FZ_NFUNCS; i++)
        if (strlen(fz_functions[i]) == n && strncmp(fz_functions[i], call_text, n) == 0) {
            atomic_fetch_add_explicit(&fz_covered[i], 1, memory_order_relaxed);
            return;
        }
}

/* ------------------------------------------------------------------------
 * Shared handles (device 1), made at setup, never destroyed during the run.
 * ------------------------------------------------------------------------ */
static aclrtContext g_ctx, g_ctx2, g_dev0_ctx;
static aclrtStream g_fixed, g_default, g_other, g_dev0_stream, g_hx, g_hy;
static aclrtEvent g_plain, g_ex, g_sync, g_nosync, g_devonly, g_external, g_dev0_event;
static aclrtEvent g_stale_event0;
static aclrtStream g_stale_stream0;
static int g_local_int;
/*
 * An aligned block no allocator returned: what the frees get where a stale
 * pointer would be wrong. A pointer this thread freed is no such thing: any
 * thread's next allocation may reuse its address (the allocators hand freed
 * blocks back first), and a "double" free would then free that allocation.
 */
static _Alignas(64) char g_never_allocated[256];
static int fz_ready;
static atomic_long fz_ok, fz_failed, fz_bad_codes, fz_unnamed, fz_exceptions, fz_exception_bad;
static atomic_long fz_absurd_ok;
static int fz_codes_seen[64];
static atomic_int fz_ncodes;
static pthread_mutex_t fz_codes_lock = PTHREAD_MUTEX_INITIALIZER;

static void *forge_generation(void *h)
{
    return (void *)((uintptr_t)h ^ ((uintptr_t)1 << 28));
}

static void *forge_index(void *h)
{
    return (void *)((uintptr_t)h | (((uintptr_t)1 << 28) - 1));
}

/* ------------------------------------------------------------------------
 * Per-thread state
 * ------------------------------------------------------------------------ */
struct fz {
    int id;
    uint64_t rng;
    aclrtStream work;                 /* counted work; never destroyed during the run */
    aclrtStream failing;              /* failing kernels go here (continue mode) */
    aclrtStream cbs, hfs;             /* callbacks / host functions served by this thread */
    aclrtStream values;               /* value writes and waits of this thread's word */
    aclrtStream scratch[FZ_SCRATCH];  /* created / destroyed by the fuzzer (NULL: empty) */
    aclrtEvent scratch_event;         /* recorded at creation */
    aclrtNotify notify;               /* NULL: none */
    aclrtCntNotify cnt;
    long notify_records_minus_waits;  /* keep waits from outnumbering records */
    aclrtContext scratch_ctx[2];
    void *stale[FZ_STALE];
    int nstale;
    void *dev[2], *host[2], *freed;
    unsigned char *pinned_a, *pinned_b, *pinned_c;
    unsigned char sync_a[FZ_BUF], sync_b[FZ_BUF];
    uint64_t *word;                   /* aclrtMalloc memory: value ops */
    unsigned char *task_mem;          /* aclrtMalloc memory the built-in tasks write (never freed in the run) */
    void *desc_mem;                   /* aclrtMalloc memory: a copy descriptor (never freed in the run) */
    void *cmo_desc;                   /* aclrtMalloc memory: a cache descriptor (never freed in the run) */
    bool desc_set;                    /* desc_mem holds a descriptor of pinned_a -> pinned_b */
    void *slots[2];                   /* the base addresses aclrtMemcpyAsyncWithOffset reads: pinned_b, pinned_a */
    uint32_t *fill32;                 /* aclrtMallocHost memory only aclrtMemsetD32 writes (never freed in the run) */
    int32_t *kernel_mem;              /* aclrtMalloc memory: kernels' output, then their device args (never freed) */
    uint64_t word_last;               /* last value written to it in `values`' order */
    aclrtStreamConfigHandle *cfg;     /* NULL: none */
    atomic_long counted;
    long counted_launched;
    atomic_int cb_ran;
};
static struct fz fz_threads[2];

static void fz_count_fn(void *p)
{
    atomic_fetch_add(&((struct fz *)p)->counted, 1);
}

/* A model's destroy callback: does nothing (it may run on a runtime thread). */
static void fz_destroyed(void *arg)
{
    (void)arg;
}

static void fz_noop(void *p)
{
    (void)p;
}

/* A branch's host function: the condition word goes to 0, so a while loop stops after this pass. */
static void fz_clear_word(void *word)
{
    __atomic_store_n((uint64_t *)word, 0, __ATOMIC_RELAXED);
}

static aclError fz_noop_kernel(uint32_t b, uint32_t n, void *p)
{
    (void)b;
    (void)n;
    (void)p;
    return ACL_SUCCESS;
}

static aclError fz_fail_kernel(uint32_t b, uint32_t n, void *p)
{
    (void)b;
    (void)n;
    (void)p;
    return SOAK_FAIL_CODE;
}

static void fz_cb(void *p)
{
    atomic_fetch_add(&((struct fz *)p)->cb_ran, 1);
}

static void fz_exception_cb(aclrtExceptionInfo *info)
{
    uint32_t dev = aclrtGetDeviceIdFromExceptionInfo(info), code = aclrtGetErrorCodeFromExceptionInfo(info);
    (void)aclrtGetTaskIdFromExceptionInfo(info);
    (void)aclrtGetStreamIdFromExceptionInfo(info);
    (void)aclrtGetThreadIdFromExceptionInfo(info);
    atomic_fetch_add(&fz_exceptions, 1);
    if (dev >= SOAK_DEVICES || code == 0 || code == 0xFFFFFFFFu)
        atomic_fetch_add(&fz_exception_bad, 1);
}

static void fz_exception_cb2(aclrtExceptionInfo *info)
{
    (void)info;
}

static void fz_stream_state_cb(aclrtStream stm, aclrtStreamState state, void *args)
{
    (void)stm;
    (void)state;
    (void)args;
}

static int32_t fz_task_abort_cb(int32_t dev, aclrtDeviceTaskAbortStage stage, uint32_t timeout, void *args)
{
    (void)dev;
    (void)stage;
    (void)timeout;
    (void)args;
    return 0;
}

static void fz_device_state_cb(int32_t dev, aclrtDeviceState state, void *args)
{
    (void)dev;
    (void)state;
    (void)args;
}

static void fz_add_stale(struct fz *z, void *h)
{
    z->stale[z->nstale++ % FZ_STALE] = h;
}

static void *fz_pick_stale(struct fz *z)
{
    if (z->nstale == 0)
        return soak_pick(&z->rng, 2) ? g_stale_stream0 : g_stale_event0;
    int n = z->nstale < FZ_STALE ? z->nstale : FZ_STALE;
    return z->stale[soak_pick(&z->rng, (uint64_t)n)];
}

/* A binary's exception callback (aclrtBinarySetExceptionCallback): the fuzzer's kernels do not fail. */
static void fz_binary_exception(aclrtExceptionInfo *info, void *userData)
{
    (void)info, (void)userData;
}

static void *fz_garbage(struct fz *z)
{
    switch (soak_pick(&z->rng, 7)) {
    case 0: return (void *)0x1;
    case 1: return (void *)(uintptr_t)0xdeadbeefu;
    case 2: return &g_local_int;
    case 3: return forge_generation(soak_pick(&z->rng, 2) ? g_fixed : g_plain);
    case 4: return forge_index(g_ctx2);
    case 5: return (void *)(uintptr_t)soak_rng(&z->rng);
    default: return (void *)(uintptr_t)UINTPTR_MAX;
    }
}

/* Profiling traces go here (aclprofInit makes it); the fuzzer removes them as they come. */
static char fz_prof_dir[64];
static pthread_once_t fz_prof_once = PTHREAD_ONCE_INIT;

static void fz_prof_name(void)
{
    snprintf(fz_prof_dir, sizeof fz_prof_dir, "/tmp/aclrt_fuzz_prof_%ld", (long)getpid());
}

static void fz_prof_clean(void)
{
    DIR *d = opendir(fz_prof_dir);
    if (d == NULL)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char path[sizeof fz_prof_dir + 300];
        if (strncmp(e->d_name, "aclrt_trace_", 12) == 0) {
            snprintf(path, sizeof path, "%s/%s", fz_prof_dir, e->d_name);
            unlink(path);
        }
    }
    closedir(d);
}

static void *fz_maybe(struct fz *z, void *p)
{
    return soak_pick(&z->rng, 8) == 0 ? NULL : p;
}

/* A stream argument for a call that submits or changes nothing shared: anything goes. */
static aclrtStream fz_stream_any(struct fz *z)
{
    switch (soak_pick(&z->rng, 12)) {
    case 0:
    case 1: return z->work;
    case 2: return z->scratch[soak_pick(&z->rng, FZ_SCRATCH)];
    case 3: return NULL;
    case 4: return g_other;
    case 5: return fz_pick_stale(z);
    case 6: return fz_garbage(z);
    case 7: return soak_pick(&z->rng, 2) ? (void *)g_plain : (void *)g_ctx;
    case 8: return g_dev0_stream; /* another device's stream */
    case 9: return g_default;
    default: return g_fixed;
    }
}

/* A stream to submit work to: never one whose work must not be disturbed by this thread's random work. */
static aclrtStream fz_stream_submit(struct fz *z)
{
    aclrtStream s = fz_stream_any(z);
    if (s == g_dev0_stream || s == g_fixed)
        return z->work;
    return s;
}

/* A stream this thread may destroy, abort or stop. */
static aclrtStream fz_stream_own(struct fz *z)
{
    switch (soak_pick(&z->rng, 6)) {
    case 0:
    case 1:
    case 2: return z->scratch[soak_pick(&z->rng, FZ_SCRATCH)];
    case 3: return fz_pick_stale(z);
    case 4: return fz_garbage(z);
    default: return soak_pick(&z->rng, 2) ? g_default : (void *)g_plain; /* a default stream; the wrong kind */
    }
}

/* An event argument; `waitable`: nothing a wait could block on forever. */
static aclrtEvent fz_event(struct fz *z, bool waitable)
{
    switch (soak_pick(&z->rng, 13)) {
    case 0: return g_plain;
    case 1: return g_ex;
    case 2: return g_sync;
    case 3: return g_nosync;
    case 4: return g_devonly;
    case 5: return waitable ? g_plain : g_external;
    case 6: return z->scratch_event;
    case 7: return NULL;
    case 8: return fz_pick_stale(z);
    case 9: return fz_garbage(z);
    case 10: return soak_pick(&z->rng, 2) ? (void *)g_fixed : (void *)g_ctx;
    case 11: return g_dev0_event;
    default: return g_plain;
    }
}

static aclrtContext fz_context(struct fz *z, bool for_destroy)
{
    switch (soak_pick(&z->rng, 8)) {
    case 0: return g_ctx;
    case 1: return for_destroy ? z->scratch_ctx[0] : g_ctx2;
    case 2: return z->scratch_ctx[soak_pick(&z->rng, 2)];
    case 3: return NULL;
    case 4: return fz_pick_stale(z);
    case 5: return fz_garbage(z);
    case 6: return soak_pick(&z->rng, 2) ? (void *)g_fixed : (void *)g_plain;
    default: return for_destroy ? (void *)g_dev0_ctx /* another device's context: the caller swaps it out */ : g_ctx;
    }
}

static void fz_note_code(aclError rc)
{
    int n = atomic_load(&fz_ncodes);
    for (int i = 0; i < n; i++)
        if (fz_codes_seen[i] == rc)
            return;
    pthread_mutex_lock(&fz_codes_lock);
    n = atomic_load(&fz_ncodes);
    int i = 0;
    while (i < n && fz_codes_seen[i] != rc)
        i++;
    if (i == n && n < 64) {
        fz_codes_seen[n] = rc;
        atomic_store(&fz_ncodes, n + 1);
    }
    pthread_mutex_unlock(&fz_codes_lock);
}

static void fz_check(const char *call, aclError rc, const int *codes)
{
    fz_cover(call);
    soak_count(SO_FUZZ_CALL);
    if (rc == ACL_SUCCESS) {
        atomic_fetch_add(&fz_ok, 1);
        (void)aclGetRecentErrMsg();
        return;
    }
    atomic_fetch_add(&fz_failed, 1);
    fz_note_code(rc);
    if (!soak_code_in(rc, codes)) {
        atomic_fetch_add(&fz_bad_codes, 1);
        soak_violation(SV_FUZZ, "%s returned %d, not a code documented for it: %s", call, rc, aclGetRecentErrMsg());
        return;
    }
    const char *msg = aclGetRecentErrMsg();
    char name[96];
    size_t n = strcspn(call, "( ");
    if (n > sizeof name - 3)
        n = sizeof name - 3;
    name[0] = '[';
    memcpy(name + 1, call, n);
    name[n + 1] = ']';
    name[n + 2] = '\0';
    if (msg == NULL || strstr(msg, name) == NULL) {
        atomic_fetch_add(&fz_unnamed, 1);
        soak_violation(SV_FUZZ, "%s failed with %d without a recent-error line naming it (text: %s)", call, rc,
                       msg ? msg : "(none)");
    }
}

#define CODES(...) SOAK_CODES(__VA_ARGS__)
/* A snapshot callback: no fuzz thread locks the process, so it is never called. */
static uint32_t fz_snapshot_cb(int32_t deviceId, void *args)
{
    (void)deviceId, (void)args;
    return 0;
}
/* For the allocator and embedding calls: functions that are never called by the runtime itself. */
static void *fz_alloc_block(aclrtAllocator allocator, size_t size)
{
    (void)allocator, (void)size;
    return NULL;
}

static void fz_free_block(aclrtAllocator allocator, aclrtAllocatorBlock block)
{
    (void)allocator, (void)block;
}

/*
 * Init and finalize callbacks the fuzzer registers and takes back in the
 * same step: one pair per fuzz thread, so that a thread's unregistration
 * (after a refused registration, say) never takes back the other's.
 */
static aclError fz_init_cb0(const char *configStr, size_t len, void *userData)
{
    (void)configStr, (void)len, (void)userData;
    return ACL_SUCCESS;
}

static aclError fz_init_cb1(const char *configStr, size_t len, void *userData)
{
    (void)configStr, (void)len, (void)userData;
    return ACL_SUCCESS;
}

static aclError fz_final_cb0(void *userData)
{
    (void)userData;
    return ACL_SUCCESS;
}

static aclError fz_final_cb1(void *userData)
{
    (void)userData;
    return ACL_SUCCESS;
}

static void *fz_alloc_advise(aclrtAllocator allocator, size_t size, aclrtAllocatorAddr addr)
{
    (void)allocator, (void)size, (void)addr;
    return NULL;
}

static void *fz_block_addr(aclrtAllocatorBlock block)
{
    return block;
}

/* An external task the fuzzer launches: start completes it at once (a stream must never wait on the fuzzer). */
static void fz_external_start(aclrtxExternalToken token, void *arg)
{
    (void)arg;
    (void)aclrtxCompleteExternalTask(token, ACL_SUCCESS);
}

static aclError fz_backend_open(void *user, uint32_t *count)
{
    (void)user;
    *count = 1;
    return ACL_SUCCESS;
}

#define FZ(codes, call)                                                                                     \
    do {                                                                                                    \
        (void)aclGetRecentErrMsg();                                                                         \
        soak_block_begin(#call, -1, soak_bound_ms());                                                       \
        aclError fz_rc_ = (call);                                                                           \
        soak_block_end();                                                                                   \
        fz_check(#call, fz_rc_, codes);                                                                     \
        last_rc = fz_rc_;                                                                                   \
    } while (0)

/* ------------------------------------------------------------------------
 * Setup
 * ------------------------------------------------------------------------ */

static bool fz_new_scratch_event(struct fz *z)
{
    aclrtContext cur = NULL;
    (void)aclrtGetCurrentContext(&cur);
    aclError rc = aclrtSetCurrentContext(g_ctx);
    if (rc == ACL_SUCCESS) {
        switch (soak_pick(&z->rng, 3)) {
        case 0: rc = aclrtCreateEvent(&z->scratch_event); break;
        case 1: rc = aclrtCreateEventExWithFlag(&z->scratch_event, ACL_EVENT_SYNC); break;
        default: rc = aclrtCreateEventWithFlag(&z->scratch_event, ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE); break;
        }
    }
    if (rc == ACL_SUCCESS)
        rc = aclrtRecordEvent(z->scratch_event, z->work);
    if (cur != NULL)
        (void)aclrtSetCurrentContext(cur);
    (void)aclGetRecentErrMsg();
    if (rc != ACL_SUCCESS)
        z->scratch_event = NULL;
    return rc == ACL_SUCCESS || rc == ACL_ERROR_RT_NO_EVENT_RESOURCE;
}

int fuzz_setup(void)
{
    aclError rc = aclrtCreateContext(&g_dev0_ctx, SOAK_DEV_WORK);
    if (rc == ACL_SUCCESS)
        rc = aclrtCreateStream(&g_dev0_stream);
    if (rc == ACL_SUCCESS)
        rc = aclrtCreateEvent(&g_dev0_event);
    if (rc == ACL_SUCCESS)
        rc = aclrtRecordEvent(g_dev0_event, g_dev0_stream);
    if (rc == ACL_SUCCESS)
        rc = aclrtCreateContext(&g_ctx2, SOAK_DEV_FUZZ);
    if (rc == ACL_SUCCESS)
        rc = aclrtCreateStream(&g_other);
    if (rc == ACL_SUCCESS)
        rc = aclrtCreateContext(&g_ctx, SOAK_DEV_FUZZ);
    if (rc == ACL_SUCCESS)
        rc = aclrtCtxGetCurrentDefaultStream(&g_default);
    if (rc == ACL_SUCCESS)
        rc = aclrtCreateStream(&g_fixed);
    if (rc == ACL_SUCCESS)
        rc = aclrtCreateStream(&g_hx);
    if (rc == ACL_SUCCESS)
        rc = aclrtCreateStream(&g_hy);
    if (rc == ACL_SUCCESS)
        rc = aclrtCreateEvent(&g_plain);
    if (rc == ACL_SUCCESS)
        rc = aclrtCreateEventExWithFlag(&g_ex, ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE);
    if (rc == ACL_SUCCESS)
        rc = aclrtCreateEventWithFlag(&g_sync, ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE);
    if (rc == ACL_SUCCESS)
        rc = aclrtCreateEventWithFlag(&g_nosync, ACL_EVENT_TIME_LINE);
    if (rc == ACL_SUCCESS)
        rc = aclrtCreateEventWithFlag(&g_devonly, ACL_EVENT_DEVICE_USE_ONLY);
    if (rc == ACL_SUCCESS)
        rc = aclrtCreateEventWithFlag(&g_external, ACL_EVENT_EXTERNAL);
    aclrtEvent recorded[] = {g_plain, g_ex, g_sync, g_nosync};
    for (int i = 0; i < 4 && rc == ACL_SUCCESS; i++)
        rc = aclrtRecordEvent(recorded[i], g_fixed);
    if (rc == ACL_SUCCESS)
        rc = aclrtSynchronizeStream(g_fixed);
    if (rc == ACL_SUCCESS)
        rc = aclrtCreateStream(&g_stale_stream0);
    if (rc == ACL_SUCCESS)
        rc = aclrtDestroyStream(g_stale_stream0);
    if (rc == ACL_SUCCESS)
        rc = aclrtCreateEvent(&g_stale_event0);
    if (rc == ACL_SUCCESS)
        rc = aclrtDestroyEvent(g_stale_event0);
    for (int t = 0; t < 2 && rc == ACL_SUCCESS; t++) {
        struct fz *z = &fz_threads[t];
        z->id = t;
        z->rng = soak_cfg.seed ^ (0xF022u + (uint64_t)t);
        aclrtStream *mine[] = {&z->work, &z->failing, &z->cbs, &z->hfs, &z->values};
        for (int i = 0; i < 5 && rc == ACL_SUCCESS; i++)
            rc = aclrtCreateStream(mine[i]);
        if (rc == ACL_SUCCESS)
            rc = aclrtMallocHost((void **)&z->pinned_a, FZ_BUF);
        if (rc == ACL_SUCCESS)
            rc = aclrtMallocHost((void **)&z->pinned_b, FZ_BUF);
        if (rc == ACL_SUCCESS)
            rc = aclrtMallocHost((void **)&z->pinned_c, FZ_BUF);
        if (rc == ACL_SUCCESS)
            rc = aclrtMalloc((void **)&z->word, 64, ACL_MEM_MALLOC_HUGE_FIRST);
        if (rc == ACL_SUCCESS)
            rc = aclrtMemset(z->word, 64, 0, 64); /* device memory: never dereferenced by the host */
        if (rc == ACL_SUCCESS && !fz_new_scratch_event(z))
            rc = -1;
    }
    if (rc == ACL_SUCCESS)
        rc = aclrtExceptionInfoCallbackRegister(fz_exception_cb);
    if (rc != ACL_SUCCESS) {
        fprintf(stderr, "fuzz setup: %d %s\n", rc, aclGetRecentErrMsg());
        return 1;
    }
    fz_ready = 1;
    return 0;
}

/* ------------------------------------------------------------------------
 * One random call
 * ------------------------------------------------------------------------ */

static void fz_store_stream(struct fz *z, aclrtStream s)
{
    /* A persistent stream (a random configuration may make one) takes work only for a model: not a scratch one. */
    uint32_t flags = 0;
    if (aclrtStreamGetFlags(s, &flags) == ACL_SUCCESS && (flags & ACL_STREAM_PERSISTENT)) {
        if (aclrtDestroyStream(s) == ACL_SUCCESS)
            fz_add_stale(z, s);
        (void)aclGetRecentErrMsg();
        return;
    }
    for (int i = 0; i < FZ_SCRATCH; i++)
        if (z->scratch[i] == NULL) {
            z->scratch[i] = s;
            return;
        }
    if (aclrtDestroyStreamForce(s) == ACL_SUCCESS)
        fz_add_stale(z, s);
    (void)aclGetRecentErrMsg();
}

static void fz_forget_stream(struct fz *z, aclrtStream s)
{
    for (int i = 0; i < FZ_SCRATCH; i++)
        if (z->scratch[i] == s && s != NULL)
            z->scratch[i] = NULL;
    fz_add_stale(z, s);
}

static void fz_store_ctx(struct fz *z, aclrtContext c)
{
    for (int i = 0; i < 2; i++)
        if (z->scratch_ctx[i] == NULL) {
            z->scratch_ctx[i] = c;
            return;
        }
    if (aclrtDestroyContext(c) == ACL_SUCCESS)
        fz_add_stale(z, c);
    (void)aclGetRecentErrMsg();
}

static void fz_forget_allocation(struct fz *z, void *p)
{
    for (int k = 0; k < 2; k++) {
        if (z->dev[k] == p)
            z->dev[k] = NULL;
        if (z->host[k] == p)
            z->host[k] = NULL;
    }
    z->freed = p;
}

/* Serve this thread's callback (or host-function) stream until `want` callbacks ran; bounded. */
static void fz_serve(struct fz *z, bool host, int want)
{
    uint64_t end = soak_now_ns() + 2000000000ull;
    while (atomic_load(&z->cb_ran) < want && soak_now_ns() < end) {
        aclError rc = host ? aclrtProcessHostFunc(20) : aclrtProcessReport(20);
        fz_check(host ? "aclrtProcessHostFunc(20)" : "aclrtProcessReport(20)", rc,
                 CODES(ACL_ERROR_RT_REPORT_TIMEOUT));
    }
}

/* The index the fuzzer's label switches read: 0, never written. */
static uint32_t fz_label_index;

/* nftw: remove what the dump case wrote, depth first. */
static int fz_dump_remove(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    (void)remove(path);
    return 0;
}

static void fz_one_call(struct fz *z)
{
    uint64_t *rng = &z->rng;
    aclError last_rc = ACL_SUCCESS;
    aclrtStream s, out_s = NULL;
    aclrtEvent e, out_e = NULL;
    aclrtContext c, out_c = NULL;
    aclrtStreamStatus sst;
    aclrtEventStatus est;
    aclrtEventRecordedStatus rst;
    aclrtEventWaitStatus wst;
    aclrtStreamAttrValue av;
    aclrtStreamConfigHandle cfg;
    int32_t i32, i32b;
    uint32_t u32;
    uint64_t u64;
    float ms;
    void *ptr = NULL;
    int32_t sync_timeouts[] = {-2, -1, 0, 1, 1000, INT32_MIN};
    int32_t wait_timeouts[] = {-1, 0, 3600, INT32_MIN};
    int32_t devices[] = {-1, SOAK_DEV_FUZZ, SOAK_DEVICES, 64, INT32_MAX, INT32_MIN};
    uint32_t legacy_flags[] = {0, 1, 8, 9, 0x10, 0x11, 0x20, 0x40, 0xFFFFFFFFu};
    uint32_t ex_flags[] = {0, 1, 8, 9, 0x10, 0x40, 0x41, 0x80, 0xFFFFFFFFu};
    /* Persistent streams take no work outside a model: the build case below makes its own. */
    uint32_t stream_flags[] = {0, ACL_STREAM_FAST_LAUNCH, ACL_STREAM_FAST_SYNC, ACL_STREAM_CPU_SCHEDULE, 0x100,
                               0xFFFFFFFFu};
    size_t sizes[] = {0, 1, 16, FZ_BUF};
    size_t maxes[] = {0, 1, 16, FZ_BUF, SIZE_MAX};
    memset(&av, 0, sizeof av);
    unsigned op = (unsigned)soak_pick(rng, 108);
    switch (op) {
    /* --- launches --- */
    case 0:
        FZ(CODES(SUBMIT), aclrtLaunchHostFunc(fz_stream_submit(z), soak_pick(rng, 6) ? fz_noop : NULL, NULL));
        break;
    case 1:
        FZ(CODES(SUBMIT, R), aclrtxLaunchHostKernel(fz_stream_submit(z), (uint32_t)soak_pick(rng, 4),
                                                    soak_pick(rng, 6) ? fz_noop_kernel : NULL, NULL));
        break;
    case 2:
        /* A real failure: the failing stream's synchronizes report it, the exception callbacks hear of it. */
        (void)aclrtSetCurrentContext(g_ctx);
        FZ(CODES(SUBMIT), aclrtxLaunchHostKernel(z->failing, 1, fz_fail_kernel, NULL));
        FZ(CODES(ASYNC), aclrtSynchronizeStream(z->failing));
        break;
    /* --- events --- */
    case 3: FZ(CODES(SUBMIT, F), aclrtRecordEvent(fz_event(z, false), fz_stream_submit(z))); break;
    case 4:
        FZ(CODES(SUBMIT, F, ACL_ERROR_RT_STREAM_NOT_CAPTURED),
           aclrtRecordEventWithFlag(fz_event(z, false), fz_stream_submit(z), (uint32_t)soak_pick(rng, 3)));
        break;
    case 5: FZ(CODES(SUBMIT, R, F), aclrtStreamWaitEvent(fz_stream_submit(z), fz_event(z, true))); break;
    case 6:
        FZ(CODES(SUBMIT, R, F), aclrtStreamWaitEventWithTimeout(fz_stream_submit(z), fz_event(z, true),
                                                                wait_timeouts[soak_pick(rng, 4)]));
        break;
    case 7:
        FZ(CODES(SUBMIT, R, F, ACL_ERROR_RT_STREAM_NOT_CAPTURED),
           aclrtStreamWaitEventWithFlag(fz_stream_submit(z), fz_event(z, true), soak_pick(rng, 2) ? 3600u : 0u,
                                        (uint32_t)soak_pick(rng, 3)));
        break;
    case 8: {
        /* Never a valid legacy SYNC event that waits may use: a reset makes later waits wait for a next record. */
        e = fz_event(z, false);
        if (e == g_sync || e == z->scratch_event)
            e = g_ex;
        FZ(CODES(SUBMIT, R, F), aclrtResetEvent(e, fz_stream_submit(z)));
        break;
    }
    case 9:
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
        FZ(CODES(P, H, F), aclrtQueryEvent(fz_event(z, false), fz_maybe(z, &est)));
#pragma GCC diagnostic pop
        break;
    case 10: FZ(CODES(P, H), aclrtQueryEventStatus(fz_event(z, false), fz_maybe(z, &rst))); break;
    case 11: FZ(CODES(P, H, F), aclrtQueryEventWaitStatus(fz_event(z, false), fz_maybe(z, &wst))); break;
    case 12: FZ(CODES(P, H, ASYNC), aclrtSynchronizeEvent(fz_event(z, false))); break;
    case 13:
        FZ(CODES(P, H, R, ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, ASYNC),
           aclrtSynchronizeEventWithTimeout(fz_event(z, false), sync_timeouts[soak_pick(rng, 6)]));
        break;
    case 14:
        FZ(CODES(P, H, F, ACL_ERROR_RT_INTERNAL_ERROR, ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID,
                 ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL),
           aclrtEventElapsedTime(fz_maybe(z, &ms), fz_event(z, false), fz_event(z, false)));
        break;
    case 15:
        FZ(CODES(P, H, F, ACL_ERROR_RT_INTERNAL_ERROR, ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID),
           aclrtEventGetTimestamp(fz_event(z, false), fz_maybe(z, &u64)));
        break;
    case 16: FZ(CODES(P, H), aclrtGetEventId(fz_event(z, false), fz_maybe(z, &u32))); break;
    case 17: FZ(CODES(P, CN), aclrtGetEventAvailNum(fz_maybe(z, &u32))); break;
    case 18: FZ(CODES(P), aclrtSetOpWaitTimeout(soak_pick(rng, 2) ? 0u : 3600u)); break;
    case 19:
        FZ(CODES(P, CN, QUOTA), aclrtCreateEvent(fz_maybe(z, &out_e)));
        if (last_rc == ACL_SUCCESS && aclrtDestroyEvent(out_e) == ACL_SUCCESS)
            fz_add_stale(z, out_e);
        break;
    case 20:
        FZ(CODES(P, R, CN, QUOTA), aclrtCreateEventWithFlag(fz_maybe(z, &out_e), legacy_flags[soak_pick(rng, 9)]));
        if (last_rc == ACL_SUCCESS && aclrtDestroyEvent(out_e) == ACL_SUCCESS)
            fz_add_stale(z, out_e);
        break;
    case 21:
        FZ(CODES(P, R, F, CN, QUOTA), aclrtCreateEventExWithFlag(fz_maybe(z, &out_e), ex_flags[soak_pick(rng, 9)]));
        if (last_rc == ACL_SUCCESS && aclrtDestroyEvent(out_e) == ACL_SUCCESS)
            fz_add_stale(z, out_e);
        break;
    case 22:
        e = soak_pick(rng, 3) ? z->scratch_event : fz_event(z, false);
        if (e != z->scratch_event && e != NULL && (e == g_plain || e == g_ex || e == g_sync || e == g_nosync ||
                                                   e == g_devonly || e == g_external || e == g_dev0_event))
            e = z->scratch_event; /* the shared events stay */
        FZ(CODES(P, H), aclrtDestroyEvent(e));
        if (last_rc == ACL_SUCCESS && e != NULL) {
            fz_add_stale(z, e);
            if (e == z->scratch_event && !fz_new_scratch_event(z))
                soak_violation(SV_FUZZ, "a new scratch event could not be made: %s", aclGetRecentErrMsg());
        }
        break;
    /* --- streams --- */
    case 23:
        FZ(CODES(P, CN, QUOTA), aclrtCreateStream(fz_maybe(z, &out_s)));
        if (last_rc == ACL_SUCCESS)
            fz_store_stream(z, out_s);
        break;
    case 24:
        FZ(CODES(P, F, CN, QUOTA), aclrtCreateStreamWithConfig(fz_maybe(z, &out_s), (uint32_t)soak_rng(rng),
                                                               stream_flags[soak_pick(rng, 6)]));
        if (last_rc == ACL_SUCCESS)
            fz_store_stream(z, out_s);
        break;
    case 25:
        memset(&cfg, 0, sizeof cfg);
        cfg.priority = (uint32_t)soak_rng(rng);
        cfg.flag = stream_flags[soak_pick(rng, 6)];
        FZ(CODES(P, F, CN, QUOTA), aclrtCreateStreamV2(fz_maybe(z, &out_s),
                                                       soak_pick(rng, 2) && z->cfg ? z->cfg : fz_maybe(z, &cfg)));
        if (last_rc == ACL_SUCCESS)
            fz_store_stream(z, out_s);
        break;
    case 26: {
        if (z->cfg == NULL) {
            fz_cover("aclrtCreateStreamConfigHandle");
            z->cfg = aclrtCreateStreamConfigHandle();
            if (z->cfg == NULL)
                soak_violation(SV_FUZZ, "aclrtCreateStreamConfigHandle returned NULL");
            break;
        }
        uint64_t value[2] = {soak_pick(rng, 2) ? soak_pick(rng, 10) : soak_rng(rng), 0}; /* 16 bytes: any size below is readable */
        size_t sz[] = {0, 1, 4, 8, 16};
        if (soak_pick(rng, 4) == 0) {
            FZ(CODES(P, R), aclrtDestroyStreamConfigHandle(soak_pick(rng, 4) ? z->cfg : NULL));
            if (last_rc == ACL_SUCCESS)
                z->cfg = NULL;
        } else {
            FZ(CODES(P, R), aclrtSetStreamConfigOpt(fz_maybe(z, z->cfg), (aclrtStreamConfigAttr)soak_pick(rng, 6),
                                                   fz_maybe(z, value), sz[soak_pick(rng, 5)]));
        }
        break;
    }
    case 27:
        s = fz_stream_own(z);
        if (soak_pick(rng, 2))
            FZ(CODES(P, H, R, CN, SC), aclrtDestroyStream(s));
        else
            FZ(CODES(P, H, R, CN, SC), aclrtDestroyStreamForce(s));
        if (last_rc == ACL_SUCCESS)
            fz_forget_stream(z, s);
        break;
    case 28: FZ(CODES(H, CN, ASYNC), aclrtSynchronizeStream(fz_stream_any(z))); break;
    case 29:
        FZ(CODES(H, R, CN, ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, ASYNC),
           aclrtSynchronizeStreamWithTimeout(fz_stream_any(z), sync_timeouts[soak_pick(rng, 6)]));
        break;
    case 30: FZ(CODES(P, H, CN), aclrtStreamQuery(fz_stream_any(z), fz_maybe(z, &sst))); break;
    case 31: FZ(CODES(P, H, CN), aclrtStreamGetId(fz_stream_any(z), fz_maybe(z, &i32))); break;
    case 32: FZ(CODES(P, H, CN), aclrtStreamGetPriority(fz_stream_any(z), fz_maybe(z, &u32))); break;
    case 33: FZ(CODES(P, H, CN), aclrtStreamGetFlags(fz_stream_any(z), fz_maybe(z, &u32))); break;
    case 34:
        /* Never ACL_STOP_ON_FAILURE on a live stream of the shared context: it would stop the whole context. */
        FZ(CODES(H, R, CN, SC, F),
           aclrtSetStreamFailureMode(fz_stream_submit(z), soak_pick(rng, 2) ? 0 : (soak_pick(rng, 2) ? 2 : UINT64_MAX)));
        break;
    case 35:
        av.failureMode = soak_pick(rng, 2) ? 0 : 3;
        FZ(CODES(P, H, R, F, CN, SC),
           aclrtSetStreamAttribute(fz_stream_submit(z), (aclrtStreamAttr)soak_pick(rng, 7), fz_maybe(z, &av)));
        break;
    case 36:
        FZ(CODES(P, H, R, CN), aclrtGetStreamAttribute(fz_stream_any(z), (aclrtStreamAttr)soak_pick(rng, 7),
                                                       fz_maybe(z, &av)));
        break;
    case 37: FZ(CODES(P), aclrtDeviceGetStreamPriorityRange(fz_maybe(z, &i32), fz_maybe(z, &i32b))); break;
    case 38: FZ(CODES(P, CN), aclrtGetStreamAvailableNum(fz_maybe(z, &u32))); break;
    case 39:
        /* Only streams whose work this thread may lose; a stop is always undone by an abort. */
        s = fz_stream_own(z);
        if (s == g_default)
            s = NULL;
        if (soak_pick(rng, 2))
            FZ(CODES(P, H, R, CN, SC), aclrtStreamStop(s));
        FZ(CODES(P, H, R, CN, SC), aclrtStreamAbort(s));
        break;
    /* --- context and device --- */
    case 40: FZ(CODES(P, H), aclrtSetCurrentContext(fz_context(z, false))); break;
    case 41: FZ(CODES(P, CN), aclrtGetCurrentContext(fz_maybe(z, &out_c))); break;
    case 42: FZ(CODES(P, CN), aclrtCtxGetCurrentDefaultStream(fz_maybe(z, &out_s))); break;
    case 43:
        FZ(CODES(P, DV, QUOTA), aclrtCreateContext(fz_maybe(z, &out_c), devices[soak_pick(rng, 6)]));
        if (last_rc == ACL_SUCCESS)
            fz_store_ctx(z, out_c);
        break;
    case 44:
        c = fz_context(z, true);
        if (c == g_dev0_ctx || c == g_ctx)
            c = z->scratch_ctx[1];
        FZ(CODES(P, H, R), aclrtDestroyContext(c));
        if (last_rc == ACL_SUCCESS && c != NULL) {
            for (int i = 0; i < 2; i++)
                if (z->scratch_ctx[i] == c)
                    z->scratch_ctx[i] = NULL;
            fz_add_stale(z, c);
        }
        break;
    case 45: FZ(CODES(DV), aclrtSetDevice(devices[soak_pick(rng, 6)])); break;
    case 46: {
        int32_t dev = devices[soak_pick(rng, 6)]; /* device 1 or invalid: the other devices belong to other concerns */
        if (soak_pick(rng, 2))
            FZ(CODES(DV, CN), aclrtResetDevice(dev));
        else
            FZ(CODES(DV, CN), aclrtResetDeviceForce(dev));
        break;
    }
    case 47: FZ(CODES(P, CN), aclrtGetDevice(fz_maybe(z, &i32))); break;
    case 48: FZ(CODES(P), aclrtGetDeviceCount(fz_maybe(z, &u32))); break;
    case 49: FZ(CODES(CN, ASYNC), aclrtSynchronizeDevice()); break;
    case 50:
        FZ(CODES(R, CN, ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, ASYNC),
           aclrtSynchronizeDeviceWithTimeout(sync_timeouts[soak_pick(rng, 6)]));
        break;
    case 51: FZ(CODES(P), aclrtGetRunMode(fz_maybe(z, (void *)&u32))); break;
    /* --- memory --- */
    case 52: {
        int k = (int)soak_pick(rng, 2);
        if (z->dev[k] == NULL) {
            FZ(CODES(P, CN), aclrtMalloc(fz_maybe(z, &ptr), sizes[soak_pick(rng, 4)],
                                         (aclrtMemMallocPolicy)soak_rng(rng)));
            if (last_rc == ACL_SUCCESS)
                z->dev[k] = ptr;
        } else {
            void *cands[] = {z->dev[k], NULL, &g_local_int, g_never_allocated, z->pinned_a, (char *)z->dev[k] + 1};
            ptr = cands[soak_pick(rng, 6)];
            FZ(CODES(P, R), aclrtFree(ptr));
            if (last_rc == ACL_SUCCESS)
                fz_forget_allocation(z, ptr);
        }
        break;
    }
    case 53: {
        int k = (int)soak_pick(rng, 2);
        if (z->host[k] == NULL) {
            FZ(CODES(P), aclrtMallocHost(fz_maybe(z, &ptr), sizes[soak_pick(rng, 4)]));
            if (last_rc == ACL_SUCCESS)
                z->host[k] = ptr;
        } else {
            void *cands[] = {z->host[k], NULL, &g_local_int, g_never_allocated, z->dev[0], (char *)z->host[k] + 1};
            ptr = cands[soak_pick(rng, 6)];
            FZ(CODES(P, R), aclrtFreeHost(ptr));
            if (last_rc == ACL_SUCCESS)
                fz_forget_allocation(z, ptr);
        }
        break;
    }
    case 54: {
        /* Absurd sizes: the allocation error, no pointer (sanitizer allocators abort on these instead). */
        if (SOAK_SANITIZED)
            break;
        size_t absurd[] = {(size_t)1 << 50, SIZE_MAX / 2, SIZE_MAX, SIZE_MAX - 40};
        size_t size = absurd[soak_pick(rng, 4)];
        bool host = soak_pick(rng, 2);
        ptr = NULL;
        if (host)
            FZ(CODES(P, CN, ACL_ERROR_RT_MEMORY_ALLOCATION), aclrtMallocHost(&ptr, size));
        else
            FZ(CODES(P, CN, ACL_ERROR_RT_MEMORY_ALLOCATION), aclrtMalloc(&ptr, size, ACL_MEM_MALLOC_HUGE_FIRST));
        if (last_rc == ACL_SUCCESS) {
            if (atomic_fetch_add(&fz_absurd_ok, 1) == 0)
                soak_violation(SV_FUZZ, "%s(%zu bytes) succeeded (pointer %p)", host ? "aclrtMallocHost" : "aclrtMalloc",
                               size, ptr);
            (void)(host ? aclrtFreeHost(ptr) : aclrtFree(ptr));
        } else if (ptr != NULL) {
            soak_violation(SV_FUZZ, "a failed absurd allocation set the pointer to %p", ptr);
        }
        break;
    }
    case 55:
        FZ(CODES(P, R), aclrtMemcpy(fz_maybe(z, z->sync_a), maxes[soak_pick(rng, 5)], fz_maybe(z, z->sync_b),
                                    sizes[soak_pick(rng, 4)], (aclrtMemcpyKind)soak_pick(rng, 10)));
        break;
    case 56: {
        /* Async copies only on this thread's work stream (or handles that are not live streams). */
        aclrtStream cs = soak_pick(rng, 4) ? z->work : fz_garbage(z);
        FZ(CODES(SUBMIT, R), aclrtMemcpyAsync(fz_maybe(z, z->pinned_a), maxes[soak_pick(rng, 5)], fz_maybe(z, z->pinned_b),
                                              sizes[soak_pick(rng, 4)], (aclrtMemcpyKind)soak_pick(rng, 10), cs));
        break;
    }
    case 57:
        FZ(CODES(P, R), aclrtMemset(fz_maybe(z, z->sync_a), maxes[soak_pick(rng, 5)], (int32_t)soak_rng(rng),
                                    sizes[soak_pick(rng, 4)]));
        break;
    case 58: {
        aclrtStream cs = soak_pick(rng, 4) ? z->work : fz_garbage(z);
        FZ(CODES(SUBMIT, R), aclrtMemsetAsync(fz_maybe(z, z->pinned_c), maxes[soak_pick(rng, 5)], (int32_t)soak_rng(rng),
                                              sizes[soak_pick(rng, 4)], cs));
        break;
    }
    /* --- errors, init --- */
    case 59: {
        aclrtLastErrLevel level = (aclrtLastErrLevel)(soak_pick(rng, 3) == 0 ? 1 : 0);
        bool get = soak_pick(rng, 2);
        (void)aclGetRecentErrMsg();
        aclError rc = get ? aclrtGetLastError(level) : aclrtPeekAtLastError(level);
        if (level != ACL_RT_THREAD_LEVEL)
            fz_check(get ? "aclrtGetLastError" : "aclrtPeekAtLastError", rc, CODES(P));
        else
            fz_cover(get ? "aclrtGetLastError" : "aclrtPeekAtLastError");
        break;
    }
    case 60: {
        /* A counted pair: the reference count never reaches zero here. */
        (void)aclGetRecentErrMsg();
        aclError rc = aclInit(NULL);
        fz_cover("aclInit");
        if (rc != ACL_ERROR_REPEAT_INITIALIZE)
            soak_violation(SV_FUZZ, "aclInit(NULL) on a running runtime returned %d", rc);
        uint64_t ref = 0;
        FZ(CODES(P), aclFinalizeReference(&ref));
        if (last_rc == ACL_SUCCESS && ref == 0)
            soak_violation(SV_FUZZ, "aclFinalizeReference after a repeated aclInit left the count at 0");
        break;
    }
    case 61: {
        fz_cover("aclGetRecentErrMsg");
        const char *m = aclGetRecentErrMsg();
        if (m != NULL && m[0] != '[')
            soak_violation(SV_FUZZ, "aclGetRecentErrMsg text does not start with a [function] line: %.80s", m);
        break;
    }
    case 62: {
        const char *name = aclrtxGetBackendName();
        fz_cover("aclrtxGetBackendName");
        if (name == NULL || strcmp(name, "host") != 0)
            soak_violation(SV_FUZZ, "aclrtxGetBackendName returned %s", name ? name : "NULL");
        /* The stream-ordering sanitizer's calls, with it off: arguments checked, nothing kept, no report. */
        switch (soak_pick(rng, 4)) {
        case 0:
            FZ(CODES(SUBMIT), aclrtxDeclareAccess(fz_stream_submit(z), fz_maybe(z, z->pinned_a),
                                                  soak_pick(rng, 3) ? 16 : 0, (uint32_t)soak_pick(rng, 5)));
            break;
        case 1: FZ(CODES(P), aclrtxSetSanitizerCallback(NULL, NULL)); break;
        case 2:
            fz_cover("aclrtxSanitizerReportCount");
            if (aclrtxSanitizerReportCount() != 0)
                soak_violation(SV_FUZZ, "the sanitizer is off, yet it counts reports");
            break;
        default:
            fz_cover("aclrtxSanitizerIgnoreBegin");
            fz_cover("aclrtxSanitizerIgnoreEnd");
            aclrtxSanitizerIgnoreBegin();
            aclrtxSanitizerIgnoreEnd();
            break;
        }
        break;
    }
    case 63: FZ(CODES(P), aclrtGetThreadLastTaskId(fz_maybe(z, &u32))); break;
    /* --- callbacks and exceptions --- */
    case 64:
        FZ(CODES(SUBMIT, ACL_ERROR_RT_STREAM_NO_CB_REG),
           aclrtLaunchCallback(soak_pick(rng, 6) ? fz_noop : NULL, NULL, (aclrtCallbackBlockType)soak_pick(rng, 3),
                               fz_stream_submit(z) == z->cbs ? z->work : fz_stream_submit(z)));
        break;
    case 65: {
        /* Subscribe and unsubscribe at once, with anything (a subscribed stream would take callbacks nobody runs). */
        uint64_t tid = soak_pick(rng, 2) ? (uint64_t)pthread_self() : soak_rng(rng);
        const int *codes = CODES(P, H, CN, ACL_ERROR_RT_STREAM_SUBSCRIBE, ACL_ERROR_RT_THREAD_SUBSCRIBE,
                                 ACL_ERROR_RT_OVER_LIMIT);
        aclrtStream not_live[] = {NULL, fz_pick_stale(z), fz_garbage(z), g_plain};
        s = not_live[soak_pick(rng, 4)];
        if (soak_pick(rng, 2)) {
            FZ(codes, aclrtSubscribeHostFunc(tid, s));
            FZ(codes, aclrtUnSubscribeHostFunc(tid, s));
        } else {
            FZ(codes, aclrtSubscribeReport(tid, s == NULL ? z->scratch[0] : s));
            FZ(codes, aclrtUnSubscribeReport(tid, s == NULL ? z->scratch[0] : s));
        }
        break;
    }
    case 66: {
        /* The whole flow, served by this thread. */
        uint64_t me = (uint64_t)pthread_self();
        bool host = soak_pick(rng, 2);
        aclrtStream cs = host ? z->hfs : z->cbs;
        (void)aclrtSetCurrentContext(g_ctx);
        atomic_store(&z->cb_ran, 0);
        if (host)
            FZ(CODES(ACL_ERROR_RT_STREAM_SUBSCRIBE, ACL_ERROR_RT_THREAD_SUBSCRIBE), aclrtSubscribeHostFunc(me, cs));
        else
            FZ(CODES(ACL_ERROR_RT_STREAM_SUBSCRIBE, ACL_ERROR_RT_THREAD_SUBSCRIBE), aclrtSubscribeReport(me, cs));
        if (last_rc != ACL_SUCCESS)
            break;
        int n = 1 + (int)soak_pick(rng, 3);
        int launched = 0;
        for (int i = 0; i < n; i++) {
            if (host)
                FZ(CODES(SUBMIT), aclrtLaunchHostFunc(cs, fz_cb, z));
            else
                FZ(CODES(SUBMIT), aclrtLaunchCallback(fz_cb, z, soak_pick(rng, 2) ? ACL_CALLBACK_BLOCK
                                                                                   : ACL_CALLBACK_NO_BLOCK, cs));
            launched += last_rc == ACL_SUCCESS;
        }
        fz_serve(z, host, launched);
        if (atomic_load(&z->cb_ran) != launched)
            soak_violation(SV_FUZZ, "%d %s launched on a stream served by this thread, %d ran within 2 s", launched,
                           host ? "host functions" : "callbacks", atomic_load(&z->cb_ran));
        if (host)
            FZ(CODES(ACL_ERROR_RT_THREAD_SUBSCRIBE), aclrtUnSubscribeHostFunc(me, cs));
        else
            FZ(CODES(ACL_ERROR_RT_THREAD_SUBSCRIBE), aclrtUnSubscribeReport(me, cs));
        FZ(CODES(ASYNC), aclrtSynchronizeStream(cs));
        break;
    }
    case 67: {
        int32_t timeouts[] = {0, -2, 1, INT32_MIN};
        int32_t t = timeouts[soak_pick(rng, 4)];
        if (soak_pick(rng, 2))
            FZ(CODES(P, ACL_ERROR_RT_THREAD_SUBSCRIBE, ACL_ERROR_RT_REPORT_TIMEOUT), aclrtProcessReport(t));
        else
            FZ(CODES(P, ACL_ERROR_RT_THREAD_SUBSCRIBE, ACL_ERROR_RT_REPORT_TIMEOUT), aclrtProcessHostFunc(t));
        break;
    }
    case 68: {
        aclrtExceptionInfoCallback cb = soak_pick(rng, 3) ? fz_exception_cb2 : NULL;
        switch (soak_pick(rng, 3)) {
        case 0: FZ(CODES(R), aclrtExceptionInfoCallbackRegister(cb)); break;
        case 1: FZ(CODES(R), aclrtExceptionInfoCallbackUnregister(cb)); break;
        default: FZ(CODES(R), aclrtSetExceptionInfoCallback(cb)); break;
        }
        break;
    }
    case 69: {
        uint32_t v[5] = {aclrtGetTaskIdFromExceptionInfo(NULL), aclrtGetStreamIdFromExceptionInfo(NULL),
                         aclrtGetThreadIdFromExceptionInfo(NULL), aclrtGetDeviceIdFromExceptionInfo(NULL),
                         aclrtGetErrorCodeFromExceptionInfo(NULL)};
        fz_cover("aclrtGetTaskIdFromExceptionInfo");
        fz_cover("aclrtGetStreamIdFromExceptionInfo");
        fz_cover("aclrtGetThreadIdFromExceptionInfo");
        fz_cover("aclrtGetDeviceIdFromExceptionInfo");
        fz_cover("aclrtGetErrorCodeFromExceptionInfo");
        for (int i = 0; i < 5; i++)
            if (v[i] != 0xFFFFFFFFu)
                soak_violation(SV_FUZZ, "an exception-info getter of NULL returned %u, not 0xFFFFFFFF", v[i]);
        (void)aclGetRecentErrMsg();
        break;
    }
    case 70: {
        const char *names[] = {NULL, "", "soakfuzz", "soakfuzz2"};
        const char *name = names[soak_pick(rng, 4)];
        if (soak_pick(rng, 2))
            FZ(CODES(P, R), aclrtRegStreamStateCallback(name, soak_pick(rng, 2) ? fz_stream_state_cb : NULL, NULL));
        else
            FZ(CODES(P, R), aclrtRegDeviceStateCallback(name, soak_pick(rng, 2) ? fz_device_state_cb : NULL, NULL));
        break;
    }
    /* --- notifies --- */
    case 71:
        if (z->notify == NULL) {
            FZ(CODES(P, R, CN, QUOTA), aclrtCreateNotify(fz_maybe(z, &z->notify),
                                                        soak_pick(rng, 4) ? ACL_NOTIFY_DEFAULT : soak_rng(rng)));
            if (last_rc != ACL_SUCCESS)
                z->notify = NULL;
            z->notify_records_minus_waits = 0;
        } else {
            void *n = soak_pick(rng, 3) ? z->notify : fz_pick_stale(z);
            FZ(CODES(P, H), aclrtDestroyNotify(n));
            if (last_rc == ACL_SUCCESS && n == z->notify) {
                fz_add_stale(z, z->notify);
                z->notify = NULL;
            }
        }
        break;
    case 72: {
        void *n = z->notify != NULL && soak_pick(rng, 3) ? z->notify : soak_pick(rng, 2) ? fz_pick_stale(z) : fz_garbage(z);
        aclrtStream ns = soak_pick(rng, 3) ? z->work : fz_stream_any(z);
        if (ns == g_fixed || ns == g_dev0_stream)
            ns = z->work;
        if (soak_pick(rng, 2) || n != z->notify || z->notify_records_minus_waits <= 0) {
            FZ(CODES(SUBMIT), aclrtRecordNotify(n, ns));
            if (last_rc == ACL_SUCCESS && n == z->notify)
                z->notify_records_minus_waits++;
        } else {
            /*
             * Always with a timeout (1 s): a record this thread made may be
             * discarded (its stream aborted or force-destroyed), and then
             * nothing would ever release the wait.
             */
            FZ(CODES(SUBMIT, R), aclrtWaitAndResetNotify(n, ns, 1));
            if (last_rc == ACL_SUCCESS)
                z->notify_records_minus_waits--;
        }
        break;
    }
    case 73: {
        void *n = z->notify != NULL && soak_pick(rng, 2) ? z->notify : fz_pick_stale(z);
        FZ(CODES(P, H), aclrtGetNotifyId(n, fz_maybe(z, &u32)));
        break;
    }
    case 74: {
        aclrtNotify arr[3] = {z->notify, soak_pick(rng, 2) ? NULL : fz_pick_stale(z), fz_garbage(z)};
        size_t num = (size_t)soak_pick(rng, 4);
        FZ(CODES(P, H, R), aclrtNotifyBatchReset(soak_pick(rng, 6) ? arr : NULL, num));
        if (last_rc == ACL_SUCCESS)
            z->notify_records_minus_waits = 0;
        break;
    }
    case 75:
        if (z->cnt == NULL) {
            FZ(CODES(P, R, CN, QUOTA), aclrtCntNotifyCreate(fz_maybe(z, &z->cnt), soak_pick(rng, 4) ? 0 : soak_rng(rng)));
            if (last_rc != ACL_SUCCESS)
                z->cnt = NULL;
        } else {
            void *n = soak_pick(rng, 3) ? z->cnt : fz_pick_stale(z);
            FZ(CODES(P, H, R), aclrtCntNotifyDestroy(n));
            if (last_rc == ACL_SUCCESS && n == z->cnt) {
                fz_add_stale(z, z->cnt);
                z->cnt = NULL;
            }
        }
        break;
    case 76: {
        void *n = z->cnt != NULL && soak_pick(rng, 3) ? z->cnt : fz_pick_stale(z);
        aclrtStream ns = soak_pick(rng, 4) ? z->work : fz_garbage(z);
        switch (soak_pick(rng, 4)) {
        case 0: {
            aclrtCntNotifyRecordInfo info = {(aclrtCntNotifyRecordMode)soak_pick(rng, 6), (uint32_t)soak_pick(rng, 8)};
            FZ(CODES(SUBMIT, R), aclrtCntNotifyRecord(n, ns, fz_maybe(z, &info)));
            break;
        }
        case 1: {
            /* Timeout 1 s: the condition may never hold (a task timeout, reported by a later synchronize). */
            aclrtCntNotifyWaitInfo info = {(aclrtCntNotifyWaitMode)soak_pick(rng, 6), (uint32_t)soak_pick(rng, 8), 1,
                                           (uint8_t)soak_pick(rng, 2), {0, 0, 0}};
            FZ(CODES(SUBMIT, R), aclrtCntNotifyWaitWithTimeout(n, ns, fz_maybe(z, &info)));
            break;
        }
        case 2: FZ(CODES(SUBMIT, R), aclrtCntNotifyReset(n, ns)); break;
        default: FZ(CODES(P, H, R), aclrtCntNotifyGetId(n, fz_maybe(z, &u32))); break;
        }
        break;
    }
    /* --- value ops: this thread's word, in its stream's order --- */
    case 77: {
        uint64_t v = soak_pick(rng, 1000);
        uint32_t flag = soak_pick(rng, 5) ? 0 : (uint32_t)soak_pick(rng, 4);
        void *addr = soak_pick(rng, 5) ? (void *)z->word
                                       : (void *[]){NULL, (char *)z->word + 1, &g_local_int, z->pinned_a}[soak_pick(rng, 4)];
        FZ(CODES(SUBMIT, R), aclrtValueWrite(addr, v, flag, z->values));
        if (last_rc == ACL_SUCCESS && addr == (void *)z->word)
            z->word_last = v;
        break;
    }
    case 78: {
        /* Conditions that hold when the stream reaches the wait (the last write is before it in stream order). */
        uint64_t v;
        uint32_t flag;
        switch (soak_pick(rng, 3)) {
        case 0: flag = ACL_STREAM_WAIT_VALUE_GEQ; v = 0; break;
        case 1: flag = ACL_STREAM_WAIT_VALUE_EQ; v = z->word_last; break;
        default: flag = ACL_STREAM_WAIT_VALUE_NOR; v = 0; break;
        }
        void *addr = z->word;
        if (soak_pick(rng, 5) == 0) { /* bad input instead: rejected, nothing queued */
            switch (soak_pick(rng, 4)) {
            case 0: addr = NULL; break;
            case 1: addr = (char *)z->word + 4; break;
            case 2: addr = &g_local_int; break;
            default: flag = 4 + (uint32_t)soak_pick(rng, 100); break;
            }
        }
        FZ(CODES(SUBMIT, R), aclrtValueWait(addr, v, flag, z->values));
        break;
    }
    /* --- HCOM tasks (thread 0 launches balanced lists; both build and break descriptors) --- */
    case 79:
    case 80: {
        aclrtxHcomTask *rec = NULL, *wait = NULL;
        const char *names[] = {NULL, "", "soak_fuzz_group",
                               "a-group-name-that-is-far-too-long-to-be-accepted-by-the-runtime-because-it-has-more-"
                               "than-one-hundred-and-twenty-seven-bytes-in-it-yes"};
        const char *gname = z->id == 0 ? "soak_fuzz_group" : "soak_fuzz_other";
        const char *rname = soak_pick(rng, 3) ? gname : names[soak_pick(rng, 4)];
        bool same_group = rname == gname;
        FZ(CODES(P, R), aclrtxCreateHcomRecordTask(soak_pick(rng, 8) ? &rec : NULL, rname));
        FZ(CODES(P, R), aclrtxCreateHcomWaitTask(soak_pick(rng, 8) ? &wait : NULL, gname));
        int32_t hx = -1, hy = -1;
        (void)aclrtStreamGetId(g_hx, &hx);
        (void)aclrtStreamGetId(g_hy, &hy);
        int32_t ids[] = {hx, -1, INT32_MAX, 7777};
        if (rec != NULL)
            FZ(CODES(P, R), aclrtxHcomTaskSetStreamId(rec, soak_pick(rng, 4) ? hx : ids[soak_pick(rng, 4)]));
        if (wait != NULL)
            FZ(CODES(P, R), aclrtxHcomTaskSetStreamId(wait, hy));
        unsigned char buf[512];
        size_t n1 = 0, n2 = 0;
        if (rec != NULL) {
            FZ(CODES(P, R), aclrtxHcomTaskSerialize(rec, soak_pick(rng, 8) ? buf : NULL, soak_pick(rng, 8) ? 256 : 3,
                                                    fz_maybe(z, &n1)));
            if (last_rc != ACL_SUCCESS)
                n1 = 0;
        }
        if (wait != NULL && n1 > 0 && n1 < 256) {
            FZ(CODES(P, R), aclrtxHcomTaskSerialize(wait, buf + n1, 256, &n2));
            if (last_rc != ACL_SUCCESS)
                n2 = 0;
        }
        (void)aclrtSetCurrentContext(g_ctx);
        if (z->id == 0 && same_group && n1 > 0 && n2 > 0 && soak_pick(rng, 2)) {
            /* Balanced: a record on hx (which never waits), then its wait on hy. Invalid ids make it rejected whole. */
            FZ(CODES(P, R, CN), aclrtxLaunchHcomTaskList(buf, n1 + n2));
        } else {
            /* Broken lists: truncated, trailing bytes, garbage, NULL, size 0. Nothing of them runs. */
            size_t total = n1 + n2;
            unsigned char broken[600];
            memcpy(broken, buf, total < sizeof broken ? total : sizeof broken);
            size_t sz = total;
            switch (soak_pick(rng, 5)) {
            case 0: sz = total > 0 ? total - 1 - soak_pick(rng, total) : 0; break;
            case 1: broken[0] ^= 0xFF; break;
            case 2: broken[total < 590 ? total : 0] = 'A'; sz = total + 1; break;
            case 3: for (size_t i = 0; i < 64; i++) broken[i] = (unsigned char)soak_rng(rng); sz = 64; break;
            default: sz = 0; break;
            }
            if (z->id != 0 || sz != total) /* only thread 0 may launch a valid list */
                FZ(CODES(P, R, CN), aclrtxLaunchHcomTaskList(soak_pick(rng, 8) ? broken : NULL, sz));
        }
        FZ(CODES(P, R), aclrtxDestroyHcomTask(rec));
        FZ(CODES(P, R), aclrtxDestroyHcomTask(wait));
        break;
    }
    case 81: {
        /* Handles of one kind given to another kind's functions (stale notify as event, event as notify...). */
        void *wrong[] = {z->notify, z->cnt, g_plain, g_fixed, g_ctx, fz_pick_stale(z)};
        void *w = wrong[soak_pick(rng, 6)];
        switch (soak_pick(rng, 4)) {
        case 0: FZ(CODES(P, H), aclrtGetNotifyId(w == z->notify ? g_plain : w, &u32)); break;
        case 1: FZ(CODES(P, H, R), aclrtCntNotifyGetId(w == z->cnt ? g_fixed : w, &u32)); break;
        case 2: FZ(CODES(P, H), aclrtGetEventId(w == g_plain ? g_ctx : w, &u32)); break;
        default: FZ(CODES(P, H, CN), aclrtStreamGetId(w == g_fixed ? g_plain : w, &i32)); break;
        }
        break;
    }
    case 82: {
        /* ACL's allocator API: descriptors, per-stream registrations (garbage descriptors included). */
        aclrtAllocatorDesc d = soak_pick(rng, 5) ? aclrtAllocatorCreateDesc() : (aclrtAllocatorDesc)fz_garbage(z);
        fz_cover("aclrtAllocatorCreateDesc");
        FZ(CODES(P), aclrtAllocatorSetObjToDesc(fz_maybe(z, d), (aclrtAllocator)z));
        FZ(CODES(P), aclrtAllocatorSetAllocFuncToDesc(d, soak_pick(rng, 4) ? fz_alloc_block : NULL));
        FZ(CODES(P), aclrtAllocatorSetFreeFuncToDesc(d, soak_pick(rng, 4) ? fz_free_block : NULL));
        FZ(CODES(P), aclrtAllocatorSetAllocAdviseFuncToDesc(d, soak_pick(rng, 2) ? fz_alloc_advise : NULL));
        FZ(CODES(P), aclrtAllocatorSetGetAddrFromBlockFuncToDesc(d, soak_pick(rng, 4) ? fz_block_addr : NULL));
        aclrtStream as = fz_stream_any(z);
        FZ(CODES(P, H, CN, SC), aclrtAllocatorRegister(as, fz_maybe(z, d)));
        aclrtAllocatorDesc got_d;
        aclrtAllocator got_a;
        aclrtAllocatorAllocFunc got_alloc;
        aclrtAllocatorFreeFunc got_free;
        aclrtAllocatorAllocAdviseFunc got_advise;
        aclrtAllocatorGetAddrFromBlockFunc got_addr;
        FZ(CODES(P, H, CN, SC), aclrtAllocatorGetByStream(as, fz_maybe(z, &got_d), &got_a, &got_alloc, &got_free,
                                                           &got_advise, &got_addr));
        FZ(CODES(P, H, CN, SC), aclrtAllocatorUnregister(as));
        FZ(CODES(P), aclrtAllocatorDestroyDesc(d));
        FZ(CODES(P), aclrtAllocatorDestroyDesc(d)); /* twice: refused */
        break;
    }
    case 83: {
        /* External tasks: launched onto any stream; a garbage or stale token is refused. */
        FZ(CODES(SUBMIT), aclrtxLaunchExternalTask(fz_stream_submit(z), soak_pick(rng, 6) ? fz_external_start : NULL,
                                                   NULL));
        aclrtxExternalToken t = {soak_rng(rng), soak_rng(rng) & 0xFFFF};
        FZ(CODES(R), aclrtxCompleteExternalTask(t, ACL_SUCCESS));
        break;
    }
    case 84: {
        /* Progress calls on any device id (the runtime runs its own threads here: they only help). */
        int fd;
        aclrtxProgressInfo info;
        FZ(CODES(DV), aclrtxDeviceProgress(devices[soak_pick(rng, 6)], (uint32_t)soak_pick(rng, 3),
                                           fz_maybe(z, &info)));
        FZ(CODES(P, DV), aclrtxDeviceProgressFd(devices[soak_pick(rng, 6)], fz_maybe(z, &fd)));
        break;
    }
    case 85: {
        /* Registering backends: bad descriptors, and a good one registered and taken back (never selected). */
        aclrtxBackend b;
        memset(&b, 0, sizeof b);
        b.version = soak_pick(rng, 4) ? ACLRTX_BACKEND_VERSION : 7u;
        b.size = soak_pick(rng, 4) ? (uint32_t)sizeof b : 3u;
        b.name = soak_pick(rng, 5) ? (z == &fz_threads[0] ? "soakfuzz0" : "soakfuzz1") : (soak_pick(rng, 2) ? "host" : NULL);
        b.open = soak_pick(rng, 5) ? fz_backend_open : NULL;
        FZ(CODES(P, R, ACL_ERROR_RT_OVER_LIMIT), aclrtxRegisterBackend(fz_maybe(z, &b)));
        FZ(CODES(P, R), aclrtxUnregisterBackend(soak_pick(rng, 6) ? b.name : NULL));
        break;
    }
    case 86: {
        /* Peer access between the soak's devices (valid and wild ids). Enabling changes nothing shared that matters. */
        int32_t can = -1, status = -1;
        int32_t a = devices[soak_pick(rng, 6)], b = devices[soak_pick(rng, 6)];
        FZ(CODES(P, R, DV), aclrtDeviceCanAccessPeer(fz_maybe(z, &can), a, b));
        FZ(CODES(P, R, DV), aclrtDevicePeerAccessStatus(a, b, fz_maybe(z, &status)));
        (void)aclrtSetCurrentContext(g_ctx);
        FZ(CODES(P, R, DV, CN, ACL_ERROR_FEATURE_UNSUPPORTED),
           aclrtDeviceEnablePeerAccess(b, soak_pick(rng, 4) ? 0u : 1u));
        FZ(CODES(P, R, DV, CN), aclrtDeviceDisablePeerAccess(b));
        break;
    }
    case 87: {
        /* Physical memory and addresses: a whole valid cycle, or pieces of it with bad arguments. */
        aclrtPhysicalMemProp prop;
        memset(&prop, 0, sizeof prop);
        prop.handleType = ACL_MEM_HANDLE_TYPE_NONE;
        prop.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
        prop.memAttr = soak_pick(rng, 4) ? ACL_HBM_MEM_NORMAL : (aclrtMemAttr)soak_pick(rng, 40);
        prop.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = (uint32_t)(soak_pick(rng, 4) ? SOAK_DEV_FUZZ : devices[soak_pick(rng, 6)]);
        size_t gran = 0;
        FZ(CODES(P, R, DV, F), aclrtMemGetAllocationGranularity(fz_maybe(z, &prop),
                                                                (aclrtMemGranularityOptions)soak_pick(rng, 3),
                                                                fz_maybe(z, &gran)));
        size_t size = gran != 0 ? gran : 4096;
        aclrtDrvMemHandle h = NULL;
        FZ(CODES(P, R, DV, F, ACL_ERROR_RT_MEMORY_ALLOCATION),
           aclrtMallocPhysical(fz_maybe(z, &h), soak_pick(rng, 5) ? size : (size_t)soak_pick(rng, 3),
                               fz_maybe(z, &prop), soak_pick(rng, 5) ? 0u : 1u));
        void *va = NULL;
        FZ(CODES(P, R, F, ACL_ERROR_RT_MEMORY_ALLOCATION),
           aclrtReserveMemAddress(fz_maybe(z, &va), soak_pick(rng, 5) ? size : 3, 0, NULL, soak_pick(rng, 5) ? 0u : 2u));
        void *map_at = soak_pick(rng, 5) ? va : (void *)fz_garbage(z);
        FZ(CODES(P, R, H, F), aclrtMapMem(map_at, size, 0, soak_pick(rng, 5) ? h : (aclrtDrvMemHandle)fz_garbage(z), 0));
        aclrtMemAccessDesc acc;
        memset(&acc, 0, sizeof acc);
        acc.flags = ACL_RT_MEM_ACCESS_FLAGS_READWRITE; /* never less: the fuzzer must not make its own memory fault */
        acc.location = prop.location;
        FZ(CODES(P, R, H, F, DV), aclrtMemSetAccess(soak_pick(rng, 4) ? va : NULL, size, &acc, 1));
        aclrtMemLocation loc = prop.location; /* an input: the device whose access is asked for */
        uint64_t flag = 0;
        FZ(CODES(P, R, H, F, DV), aclrtMemGetAccess(soak_pick(rng, 4) ? va : NULL, fz_maybe(z, &loc), &flag));
        /* What a mapping and a handle say; links; a second mapping of the block through a link. */
        aclrtDrvMemHandle retained = NULL;
        FZ(CODES(P, R), aclrtMemRetainAllocationHandle(soak_pick(rng, 5) ? va : (void *)fz_garbage(z),
                                                       fz_maybe(z, &retained)));
        if (retained != NULL)
            FZ(CODES(H), aclrtFreePhysical(retained));
        aclrtPhysicalMemProp got;
        FZ(CODES(P, H), aclrtMemGetAllocationPropertiesFromHandle(soak_pick(rng, 5) ? h : (aclrtDrvMemHandle)fz_garbage(z),
                                                                  fz_maybe(z, &got)));
        FZ(CODES(P, H, ACL_ERROR_RT_LINK_TYPE_NOT_SUPPORTED),
           aclrtMemMapSetLink(soak_pick(rng, 5) ? h : NULL, (aclrtMemLinkType)soak_pick(rng, 5)));
        void *va2 = NULL;
        FZ(CODES(P, R, F, ACL_ERROR_RT_MEMORY_ALLOCATION), aclrtReserveMemAddress(&va2, size, 0, NULL, 0));
        FZ(CODES(P, R), aclrtMemMapSelectedLink(soak_pick(rng, 5) ? va2 : NULL, soak_pick(rng, 5) ? size : 1, va,
                                                (uint32_t)soak_pick(rng, 3)));
        FZ(CODES(P, R), aclrtUnmapMem(va2)); /* whether it was mapped or not */
        FZ(CODES(P, R), aclrtReleaseMemAddress(va2));
        va2 = NULL;
        FZ(CODES(P, R, F, ACL_ERROR_RT_MEMORY_ALLOCATION),
           aclrtReserveMemAddressNoUCMemory(&va2, soak_pick(rng, 2) ? (size_t)1 << 30 : size, 0,
                                            soak_pick(rng, 2) ? NULL : (void *)fz_garbage(z), 0));
        if (va2 != NULL)
            FZ(CODES(P, R), aclrtReleaseMemAddress(va2));
        FZ(CODES(P, R, F, DV, CN, ACL_ERROR_RT_DEV_SETUP_ERROR), aclrtMemP2PMap(soak_pick(rng, 3) ? (void *)z->task_mem : (void *)fz_garbage(z), 64,
                                              devices[soak_pick(rng, 6)], soak_pick(rng, 5) ? 0u : 1u));
        if (soak_pick(rng, 2)) { /* V2: a fabric handle, imported here (refused: same process) */
            aclrtMemFabricHandle fabric;
            memset(&fabric, 0, sizeof fabric);
            aclrtMemSharedHandleType st = soak_pick(rng, 4) ? ACL_MEM_SHARE_HANDLE_TYPE_FABRIC
                                                            : (aclrtMemSharedHandleType)soak_pick(rng, 4);
            FZ(CODES(P, R, H, F, ACL_ERROR_RT_IPC_ERROR),
               aclrtMemExportToShareableHandleV2(soak_pick(rng, 5) ? h : NULL, soak_pick(rng, 5) ? 0u : 3u, st,
                                                 fz_maybe(z, &fabric)));
            int32_t self = (int32_t)getpid();
            FZ(CODES(P, R, H, F, ACL_ERROR_RT_IPC_ERROR, ACL_ERROR_RT_NO_PERMISSION),
               aclrtMemSetPidToShareableHandleV2(fz_maybe(z, &fabric), st, &self, 1));
            aclrtDrvMemHandle mine = NULL;
            FZ(CODES(P, R, H, F, CN, ACL_ERROR_RT_IPC_ERROR, ACL_ERROR_RT_NO_PERMISSION),
               aclrtMemImportFromShareableHandleV2(fz_maybe(z, &fabric), st, 0, &mine));
        }
        uint64_t shareable = 0;
        FZ(CODES(P, R, H, F), aclrtMemExportToShareableHandle(soak_pick(rng, 5) ? h : NULL,
                                                             soak_pick(rng, 3) ? ACL_MEM_HANDLE_TYPE_NONE
                                                                               : ACL_MEM_HANDLE_TYPE_POSIX,
                                                             0, fz_maybe(z, &shareable)));
        int32_t pid = (int32_t)getpid();
        FZ(CODES(P, R, H, F), aclrtMemSetPidToShareableHandle(shareable, fz_maybe(z, &pid), 1));
        aclrtDrvMemHandle imported = NULL;
        FZ(CODES(P, R, H, F, DV), aclrtMemImportFromShareableHandle(shareable, SOAK_DEV_FUZZ, fz_maybe(z, &imported)));
        FZ(CODES(P, R, H, F), aclrtUnmapMem(soak_pick(rng, 6) ? va : (void *)fz_garbage(z)));
        FZ(CODES(P, R, H, F), aclrtReleaseMemAddress(va));
        FZ(CODES(P, R, H, F), aclrtFreePhysical(h));
        FZ(CODES(P, R, H, F), aclrtFreePhysical(h)); /* twice: refused */
        FZ(CODES(P), aclrtDeviceGetBareTgid(fz_maybe(z, &pid)));
        break;
    }
    case 88: {
        /* Built-in tasks on this thread's own device memory (never the counted work's), or wild arguments. */
        /* Their own memory: a task may still write it when the fuzzer frees z->dev at random. */
        /* Tasks that touch it go to one stream, in order (two on different streams would race); wild ones anywhere. */
        if (z->task_mem == NULL && aclrtMalloc((void **)&z->task_mem, 4096, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
            break;
        void *dst = soak_pick(rng, 5) ? (void *)z->task_mem : (void *)fz_garbage(z);
        void *src = soak_pick(rng, 5) ? (void *)(z->task_mem + 2048) : NULL;
        uint64_t count = (uint64_t)sizes[soak_pick(rng, 4)];
        FZ(CODES(SUBMIT, R, F, ACL_ERROR_RT_ADDR_UNALIGNED),
           aclrtReduceAsync(dst, src, count, (aclrtReduceKind)(10 + soak_pick(rng, 5)),
                            soak_pick(rng, 4) ? ACL_INT32 : (aclDataType)soak_pick(rng, 45),
                            dst == (void *)z->task_mem || src != NULL ? z->work : fz_stream_submit(z), NULL));
        aclrtRandomNumTaskInfo info;
        memset(&info, 0, sizeof info);
        info.dataType = soak_pick(rng, 3) ? ACL_FLOAT : (aclDataType)soak_pick(rng, 45);
        info.randomNumFuncParaInfo.funcType = (aclrtRandomNumFuncType)soak_pick(rng, 5);
        info.randomResultAddr = soak_pick(rng, 5) ? (void *)z->task_mem : NULL;
        info.randomCounterAddr = soak_pick(rng, 5) ? (void *)(z->task_mem + 2048) : NULL;
        uint64_t n = soak_pick(rng, 16);
        info.randomNum.size = 8;
        memcpy(info.randomNum.valueOrAddr, &n, sizeof n);
        FZ(CODES(SUBMIT, R, F, ACL_ERROR_RT_ADDR_UNALIGNED),
           aclrtRandomNumAsync(fz_maybe(z, &info),
                               info.randomResultAddr != NULL || info.randomCounterAddr != NULL ? z->work
                                                                                                : fz_stream_submit(z),
                               NULL));
        break;
    }
    case 89: {
        /* Error details, system and version queries: none changes anything. */
        aclrtErrorInfo ei;
        void *args;
        uint32_t args_len;
        aclrtFuncHandle fh;
        char version[ACL_PKG_VERSION_MAX_SIZE];
        char *pkg = soak_pick(rng, 3) ? (char *)"runtime" : (soak_pick(rng, 2) ? (char *)"nosuch" : NULL);
        const aclCannAttr *attrs;
        size_t nattrs;
        int32_t compatible;
        FZ(CODES(P, R, DV, CN, ACL_ERROR_RT_DEV_SETUP_ERROR), aclrtGetErrorVerbose(devices[soak_pick(rng, 6)],
                                                                                   fz_maybe(z, &ei)));
        /* Memory faults on this thread's own memory, reported and repaired at once. */
        aclrtMemUceInfo uce[4];
        memset(uce, 0, sizeof uce);
        size_t nuce = 0;
        int32_t udev = soak_pick(rng, 4) ? SOAK_DEV_FUZZ : devices[soak_pick(rng, 6)];
        FZ(CODES(P, R, DV, CN, ACL_ERROR_RT_DEV_SETUP_ERROR),
           aclrtxInjectMemUce(udev, soak_pick(rng, 4) && z->task_mem != NULL ? (void *)z->task_mem : (void *)fz_garbage(z),
                              (size_t)soak_pick(rng, 64)));
        FZ(CODES(P, R, DV, CN, ACL_ERROR_RT_DEV_SETUP_ERROR), aclrtGetMemUceInfo(udev, fz_maybe(z, uce), 0, &nuce));
        FZ(CODES(P, R, DV, CN, ACL_ERROR_RT_DEV_SETUP_ERROR),
           aclrtMemUceRepair(udev, fz_maybe(z, uce), (size_t)soak_pick(rng, 2)));
        memset(&ei, 0, sizeof ei);
        ei.errorType = soak_pick(rng, 4) ? ACL_RT_ERROR_MEMORY : (aclrtErrorType)soak_pick(rng, 7);
        FZ(CODES(P, R, F, DV, CN, ACL_ERROR_RT_DEV_SETUP_ERROR), aclrtRepairError(udev, fz_maybe(z, &ei)));
        FZ(CODES(P, R, ACL_ERROR_INVALID_EXCEPTION_INFO), aclrtGetArgsFromExceptionInfo(NULL, fz_maybe(z, &args),
                                                                                        &args_len));
        FZ(CODES(P, R, ACL_ERROR_INVALID_EXCEPTION_INFO), aclrtGetFuncHandleFromExceptionInfo(NULL, fz_maybe(z, &fh)));
        FZ(CODES(P, R, ACL_ERROR_INVALID_FILE), aclsysGetVersionStr(pkg, fz_maybe(z, version)));
        FZ(CODES(P, R, ACL_ERROR_INVALID_FILE), aclsysGetVersionNum(pkg, fz_maybe(z, &i32)));
        FZ(CODES(P), aclGetCannAttributeList(fz_maybe(z, &attrs), &nattrs));
        FZ(CODES(P, R), aclGetCannAttribute((aclCannAttr)((int)soak_pick(rng, 6) - 1), fz_maybe(z, &i32)));
        const char *soc = aclrtGetSocName();
        fz_cover("aclrtGetSocName");
        FZ(CODES(P, R), aclrtCheckArchCompatibility(soak_pick(rng, 4) ? soc : NULL, fz_maybe(z, &compatible)));
        float f = aclFloat16ToFloat(aclFloatToFloat16((float)soak_pick(rng, 100000) - 50000.0f));
        fz_cover("aclFloat16ToFloat");
        fz_cover("aclFloatToFloat16");
        (void)f;
        (void)aclDataTypeSize((aclDataType)((int)soak_pick(rng, 50) - 2));
        fz_cover("aclDataTypeSize");
        break;
    }
    case 90: {
        /* Device information and limits on valid and wild device ids. */
        int64_t v64;
        aclrtDeviceStatus dst;
        aclrtUtilizationInfo util;
        int32_t d = devices[soak_pick(rng, 6)];
        aclrtDevAttr attrs[] = {ACL_DEV_ATTR_AICPU_CORE_NUM, ACL_DEV_ATTR_VECTOR_CORE_NUM,
                                ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE, ACL_DEV_ATTR_SUPER_POD_ID, (aclrtDevAttr)999};
        FZ(CODES(P, R, DV, F), aclrtGetDeviceInfo((uint32_t)d, attrs[soak_pick(rng, 5)], fz_maybe(z, &v64)));
        FZ(CODES(P, R, DV, F), aclrtGetDeviceCapability(d, (aclrtDevFeatureType)soak_pick(rng, 25),
                                                        fz_maybe(z, &i32)));
        FZ(CODES(P, R, DV), aclrtQueryDeviceStatus(d, fz_maybe(z, &dst)));
        FZ(CODES(P, R, DV, F), aclrtGetDeviceUtilizationRate(d, fz_maybe(z, &util)));
        aclrtDevResLimitType lt = (aclrtDevResLimitType)soak_pick(rng, 3);
        FZ(CODES(P, R, DV, ACL_ERROR_RT_DEV_SETUP_ERROR), aclrtGetDeviceResLimit(d, lt, fz_maybe(z, &u32)));
        FZ(CODES(P, R, DV, ACL_ERROR_RT_DEV_SETUP_ERROR), aclrtSetDeviceResLimit(d, lt, (uint32_t)soak_pick(rng, 4)));
        FZ(CODES(P, R, DV, ACL_ERROR_RT_DEV_SETUP_ERROR), aclrtResetDeviceResLimit(d));
        (void)aclrtSetCurrentContext(g_ctx);
        FZ(CODES(P, R, CN), aclrtGetResInCurrentThread(lt, fz_maybe(z, &u32)));
        size_t mem_free, mem_total;
        FZ(CODES(P, R, CN, F), aclrtGetMemInfo((aclrtMemAttr)soak_pick(rng, 20), fz_maybe(z, &mem_free),
                                               fz_maybe(z, &mem_total)));
        /* Stream limits (they cap nothing that runs), the thread's use of them, identity and ids. */
        FZ(CODES(P, H, R, CN), aclrtGetStreamResLimit(fz_stream_any(z), lt, fz_maybe(z, &u32)));
        FZ(CODES(H, R, CN), aclrtSetStreamResLimit(fz_stream_any(z), lt, (uint32_t)soak_pick(rng, 64)));
        FZ(CODES(H, CN), aclrtResetStreamResLimit(fz_stream_any(z)));
        FZ(CODES(H, CN), aclrtUseStreamResInCurrentThread(fz_stream_any(z)));
        FZ(CODES(H, CN), aclrtUnuseStreamResInCurrentThread(fz_stream_any(z)));
        aclrtUuid uuid;
        char bus[16];
        uint64_t topo;
        FZ(CODES(P, DV), aclrtDeviceGetUuid(d, fz_maybe(z, &uuid)));
        FZ(CODES(P, DV), aclrtDeviceGetPCIBusId(d, fz_maybe(z, bus), (int32_t)soak_pick(rng, 16)));
        const char *bus_ids[] = {"0000:01:00.0", "0000:02:00.0", "0000:ff:00.0", "0000:01:00", "garbage", ""};
        FZ(CODES(P, DV), aclrtDeviceGetByPCIBusId(soak_pick(rng, 8) ? bus_ids[soak_pick(rng, 6)] : NULL,
                                                  fz_maybe(z, &i32)));
        FZ(CODES(P, R), aclrtGetDevicesTopo((uint32_t)d, (uint32_t)devices[soak_pick(rng, 6)], fz_maybe(z, &topo)));
        int32_t *id_out = fz_maybe(z, &i32);
        switch (soak_pick(rng, 6)) {
        case 0: FZ(CODES(P, DV), aclrtGetLogicDevIdByUserDevId(d, id_out)); break;
        case 1: FZ(CODES(P, DV), aclrtGetUserDevIdByLogicDevId(d, id_out)); break;
        case 2: FZ(CODES(P, DV), aclrtGetLogicDevIdByPhyDevId(d, id_out)); break;
        case 3: FZ(CODES(P, DV), aclrtGetPhyDevIdByLogicDevId(d, id_out)); break;
        case 4: FZ(CODES(P, DV), aclrtGetUserDevIdByPhyDevId(d, id_out)); break;
        default: FZ(CODES(P, DV), aclrtGetPhyDevIdByUserDevId(d, id_out)); break;
        }
        /* Process limits (reported, not applied), atomics, the scheduler, the primary context, groups. */
        aclrtDeviceLimit dl = (aclrtDeviceLimit)((int)soak_pick(rng, 7) - 1);
        size_t lim;
        FZ(CODES(P, R, F), aclrtDeviceSetLimit(dl, soak_pick(rng, 4) ? (size_t)soak_pick(rng, 300000) : SIZE_MAX));
        FZ(CODES(P, F), aclrtDeviceGetLimit(dl, fz_maybe(z, &lim)));
        aclrtAtomicOperation ops[3] = {ACL_RT_ATOMIC_OPERATION_INTEGER_ADD,
                                       (aclrtAtomicOperation)soak_pick(rng, 46), ACL_RT_ATOMIC_OPERATION_CAS};
        uint32_t caps[3];
        uint32_t nops = (uint32_t)soak_pick(rng, 4);
        FZ(CODES(R, DV), aclrtDeviceGetHostAtomicCapabilities(fz_maybe(z, caps), fz_maybe(z, ops), nops, d));
        FZ(CODES(R, DV), aclrtDeviceGetP2PAtomicCapabilities(fz_maybe(z, caps), fz_maybe(z, ops), nops, d,
                                                             devices[soak_pick(rng, 6)]));
        FZ(CODES(P), aclrtSetTsDevice((aclrtTsId)((int)soak_pick(rng, 4) - 1)));
        FZ(CODES(P, DV), aclrtGetPrimaryCtxState(d, soak_pick(rng, 5) ? NULL : &u32, fz_maybe(z, &i32)));
        FZ(CODES(CN, ACL_ERROR_RT_GROUP_NOT_CREATE), aclrtSetGroup((int32_t)soak_pick(rng, 3) - 1));
        FZ(CODES(P, CN), aclrtGetGroupCount(fz_maybe(z, &u32)));
        aclrtGroupInfo *gi = aclrtCreateGroupInfo();
        fz_cover("aclrtCreateGroupInfo");
        if (gi != NULL) {
            size_t ret_size;
            FZ(CODES(P, CN), aclrtGetAllGroupInfo(gi));
            FZ(CODES(P, CN), aclrtGetGroupInfoDetail(gi, (int32_t)soak_pick(rng, 3) - 1,
                                                     (aclrtGroupAttr)soak_pick(rng, 7), fz_maybe(z, &u32),
                                                     soak_pick(rng, 5) ? sizeof u32 : 2, fz_maybe(z, &ret_size)));
        }
        FZ(CODES(P), aclrtDestroyGroupInfo(gi));
        /*
         * Task abort: only where it is refused (a wild device, a timeout over 36 minutes). An abort that ran
         * would discard the other fuzz threads' counted tasks, which the run checks all ran.
         */
        FZ(CODES(R, DV), aclrtDeviceTaskAbort(soak_pick(rng, 2) ? devices[0] : devices[3 + soak_pick(rng, 3)],
                                              soak_pick(rng, 2) ? 0u : 36u * 60u * 1000u + 1u));
        FZ(CODES(R, DV), aclrtDeviceTaskAbort(d, 36u * 60u * 1000u + 1u + (uint32_t)soak_pick(rng, 1000)));
        FZ(CODES(P, R), aclrtSetDeviceTaskAbortCallback(soak_pick(rng, 6) ? "soakfuzz" : NULL,
                                                        soak_pick(rng, 2) ? fz_task_abort_cb : NULL, NULL));
        break;
    }
    case 91: {
        /* Overflow detection: the device mode (only Inf/NaN exists here) and per-stream switches and status. */
        aclrtFloatOverflowMode mode;
        FZ(CODES(P, R, F, CN), aclrtSetDeviceSatMode(soak_pick(rng, 3) ? ACL_RT_OVERFLOW_MODE_INFNAN
                                                                       : (aclrtFloatOverflowMode)soak_pick(rng, 4)));
        FZ(CODES(P, R, CN), aclrtGetDeviceSatMode(fz_maybe(z, &mode)));
        FZ(CODES(P, H, R, CN, SC, F), aclrtSetStreamOverflowSwitch(fz_stream_submit(z), (uint32_t)soak_pick(rng, 3)));
        FZ(CODES(P, H, R, CN, SC, F), aclrtGetStreamOverflowSwitch(fz_stream_any(z), fz_maybe(z, &u32)));
        if (z->task_mem == NULL && aclrtMalloc((void **)&z->task_mem, 4096, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
            break;
        void *status = soak_pick(rng, 5) ? (void *)(z->task_mem + 3072) : NULL;
        FZ(CODES(SUBMIT, R, F), aclrtGetOverflowStatus(status, soak_pick(rng, 4) ? 64 : (size_t)soak_pick(rng, 64),
                                                       status != NULL ? z->work : fz_stream_submit(z)));
        FZ(CODES(SUBMIT, R, F), aclrtResetOverflowStatus(fz_stream_submit(z)));
        FZ(CODES(SUBMIT, R, F), aclrtGetFloatOverflowStatus(status, soak_pick(rng, 4) ? 64 : (uint64_t)soak_pick(rng, 128),
                                                            status != NULL ? z->work : fz_stream_submit(z)));
        FZ(CODES(SUBMIT, R, F), aclrtResetFloatOverflowStatus(fz_stream_submit(z)));
        FZ(CODES(SUBMIT, R, F), aclrtNpuGetFloatOverFlowStatus(status, soak_pick(rng, 4) ? 64 : (uint64_t)soak_pick(rng, 128),
                                                               (uint32_t)soak_pick(rng, 3),
                                                               status != NULL ? z->work : fz_stream_submit(z)));
        FZ(CODES(SUBMIT, R, F), aclrtNpuClearFloatOverFlowStatus((uint32_t)soak_pick(rng, 3), fz_stream_submit(z)));
        break;
    }
    case 92: {
        /*
         * Kernels: a binary of this thread's own, loaded and unloaded here (its handles go stale on this
         * thread only), used with valid and wild arguments; launches may still be queued at the unload. A
         * launch runs a real kernel only with its real arguments (the fill kernel writes out[blockIdx],
         * blockIdx < 4, into this thread's kernel memory); wild ones go with a wild handle.
         */
        (void)aclrtSetCurrentContext(g_ctx);
        if (z->kernel_mem == NULL &&
            aclrtMalloc((void **)&z->kernel_mem, 64 * sizeof(int32_t), ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
            break;
        static const unsigned char junk[] = "\x7f" "ELF, but not a shared object";
        const char *paths[] = {ACLRT_TEST_KERNEL_DIR "/libtest_kernels.so", ACLRT_TEST_KERNEL_DIR "/libtest_kernels.so",
                               "/nonexistent/kernels.so", ACLRT_TEST_KERNEL_DIR, NULL};
        aclrtBinHandle bin = NULL, junk_bin = NULL, owner = NULL;
        aclrtBinaryLoadOption opt = {(aclrtBinaryLoadOptionType)soak_pick(rng, 5),
                                     {.isLazyLoad = (uint32_t)soak_pick(rng, 3)}};
        aclrtBinaryLoadOptions opts = {soak_pick(rng, 4) ? &opt : NULL, 1};
        FZ(CODES(P, R), aclrtBinaryLoadFromFile(paths[soak_pick(rng, 5)], soak_pick(rng, 3) ? NULL : &opts,
                                                fz_maybe(z, &bin)));
        FZ(CODES(P, R), aclrtBinaryLoadFromData(soak_pick(rng, 6) ? junk : NULL, (size_t)soak_pick(rng, sizeof junk),
                                                NULL, &junk_bin));
        aclrtBinHandle b = bin != NULL && soak_pick(rng, 8) ? bin : (aclrtBinHandle)fz_garbage(z);
        const char *names[] = {"fill", "fill", "sum", "no_such_kernel", "test_global", "printf", NULL};
        aclrtFuncHandle f = NULL, fill = NULL;
        FZ(CODES(P, H, R), aclrtBinaryGetFunction(b, names[soak_pick(rng, 7)], fz_maybe(z, &f)));
        if (bin != NULL)
            FZ(CODES(-2), aclrtBinaryGetFunction(bin, "fill", &fill));
        /* Queries take any function; launches only fill or a wild handle. */
        aclrtFuncHandle fq = soak_pick(rng, 3) ? f : (fill != NULL ? fill : fz_pick_stale(z));
        aclrtFuncHandle fl = fill != NULL && soak_pick(rng, 6) ? fill : (aclrtFuncHandle)fz_pick_stale(z);
        char name[16];
        void *addr = NULL, *aiv = NULL;
        size_t size = 0, size2 = 0;
        FZ(CODES(P, H), aclrtBinaryGetDevAddress(b, fz_maybe(z, &addr), &size));
        FZ(CODES(P, H, R), aclrtBinaryGetGlobal(b, names[soak_pick(rng, 7)], fz_maybe(z, &addr), fz_maybe(z, &size)));
        FZ(CODES(P, H, R), aclrtGetFunctionName(fq, (uint32_t)soak_pick(rng, 16), fz_maybe(z, name)));
        FZ(CODES(P, H), aclrtGetFunctionAddr(fq, fz_maybe(z, &addr), &aiv));
        FZ(CODES(H, R), aclrtGetFunctionSize(fq, fz_maybe(z, &size), &size2));
        FZ(CODES(P, H), aclrtFunctionGetBinary(fq, fz_maybe(z, &owner)));
        /*
         * Host symbols: the address just read (a global's, a function's, or NULL) or a wild one. Copies into
         * a variable are refused, past the end of every variable of the library (its bytes are shared by every
         * thread's load of it: only reads go).
         */
        const void *sym = soak_pick(rng, 4) ? addr : fz_garbage(z);
        int32_t sbuf[8] = {0};
        FZ(CODES(P, R), aclrtGetSymbolAddress(sym, fz_maybe(z, &addr)));
        FZ(CODES(P, R), aclrtGetSymbolSize(sym, fz_maybe(z, &size)));
        FZ(CODES(P, R), aclrtMemcpyFromSymbol(fz_maybe(z, sbuf), sizeof sbuf, sym, (size_t)soak_pick(rng, 40),
                                              (size_t)soak_pick(rng, 20), (aclrtMemcpyKind)soak_pick(rng, 5)));
        FZ(CODES(SUBMIT, R), aclrtMemcpyFromSymbolAsync(sbuf, sizeof sbuf, sym, (size_t)soak_pick(rng, 40),
                                                        (size_t)soak_pick(rng, 20), (aclrtMemcpyKind)soak_pick(rng, 5),
                                                        z->work));
        FZ(CODES(P, R), aclrtMemcpyToSymbol(sym, fz_maybe(z, sbuf), 64 + (size_t)soak_pick(rng, 16), 0,
                                            (aclrtMemcpyKind)soak_pick(rng, 5)));
        FZ(CODES(SUBMIT, R), aclrtMemcpyToSymbolAsync(sym, sbuf, 1, 64 + (size_t)soak_pick(rng, 16),
                                                      ACL_MEMCPY_HOST_TO_DEVICE, fz_stream_submit(z)));
        aclrtFuncHandle fs = NULL;
        FZ(CODES(P, R), aclrtGetFuncBySymbol(sym, fz_maybe(z, &fs)));
        FZ(CODES(P, H, R), aclrtBinaryGetFunctionByEntry(b, (uint64_t)(uintptr_t)sym, fz_maybe(z, &fs)));
        FZ(CODES(P, H), aclrtBinarySetExceptionCallback(b, soak_pick(rng, 2) ? fz_binary_exception : NULL, z));
        aclrtBinary desc = aclrtCreateBinary(soak_pick(rng, 6) ? junk : NULL, (size_t)soak_pick(rng, sizeof junk));
        fz_cover("aclrtCreateBinary"); /* returns no code: NULL (with its message) for NULL data or a zero length */
        aclrtBinHandle desc_bin = NULL;
        FZ(CODES(P, R), aclrtBinaryLoad(soak_pick(rng, 6) ? desc : (aclrtBinary)fz_garbage(z), fz_maybe(z, &desc_bin)));
        FZ(CODES(P), aclrtDestroyBinary(soak_pick(rng, 6) ? desc : (aclrtBinary)fz_garbage(z)));
        if (desc != NULL)
            (void)aclrtDestroyBinary(desc);
        struct {
            int32_t *out;
            int32_t value;
        } fa = {z->kernel_mem, (int32_t)soak_pick(rng, 100)};
        uint32_t blocks = (uint32_t)soak_pick(rng, 5); /* 0: refused */
        memcpy(z->kernel_mem + 16, &fa, sizeof fa);     /* device args, read when a kernel runs */
        FZ(CODES(SUBMIT, R), aclrtLaunchKernel(fl, blocks, soak_pick(rng, 6) ? (void *)(z->kernel_mem + 16) : (void *)&fa,
                                               sizes[soak_pick(rng, 4)], fz_stream_submit(z)));
        aclrtLaunchKernelAttr attr = {(aclrtLaunchKernelAttrId)soak_pick(rng, 11), {.rsv = {(uint32_t)soak_pick(rng, 3)}}};
        aclrtLaunchKernelCfg lcfg = {soak_pick(rng, 6) ? &attr : NULL, 1};
        aclrtLaunchKernelCfg *cfgp = soak_pick(rng, 2) ? &lcfg : NULL;
        FZ(CODES(SUBMIT, R), aclrtLaunchKernelV2(fl, blocks, z->kernel_mem + 16, sizeof fa, cfgp, fz_stream_submit(z)));
        /* A placeholder may only replace `value` (offset 8) with an address: anything else is refused. */
        aclrtPlaceHolderInfo ph = {soak_pick(rng, 2) ? 8u : 9u + (uint32_t)soak_pick(rng, 8), (uint32_t)soak_pick(rng, 24)};
        FZ(CODES(SUBMIT, R), aclrtLaunchKernelWithHostArgs(fl, blocks, fz_stream_submit(z), cfgp,
                                                           soak_pick(rng, 6) ? (void *)&fa : NULL,
                                                           soak_pick(rng, 4) ? sizeof fa : 0,
                                                           soak_pick(rng, 3) ? NULL : &ph, (size_t)soak_pick(rng, 2)));
        /* An args handle, built right or wrong. */
        aclrtArgsHandle args = NULL;
        aclrtParamHandle p_out = NULL, p_value = NULL, p_ph = NULL;
        FZ(CODES(P, H), aclrtKernelArgsInit(fq, fz_maybe(z, &args)));
        aclrtArgsHandle ah = args != NULL && soak_pick(rng, 8) ? args : (aclrtArgsHandle)fz_garbage(z);
        bool built = ah == args;
        FZ(CODES(P, H, R, F), aclrtKernelArgsAppend(ah, fz_maybe(z, &fa.out), sizeof fa.out, &p_out));
        built = built && last_rc == ACL_SUCCESS;
        FZ(CODES(P, H, R, F), aclrtKernelArgsAppend(ah, &fa.value, sizes[soak_pick(rng, 3)] / 4, fz_maybe(z, &p_value)));
        built = built && last_rc == ACL_SUCCESS;
        if (soak_pick(rng, 3) == 0)
            FZ(CODES(P, H, R, F), aclrtKernelArgsAppendPlaceHolder(ah, fz_maybe(z, &p_ph)));
        void *buf = NULL;
        if (soak_pick(rng, 3) == 0)
            FZ(CODES(P, H, R, F), aclrtKernelArgsGetPlaceHolderBuffer(ah, soak_pick(rng, 2) ? p_ph : p_value,
                                                                     (size_t)soak_pick(rng, 70000), fz_maybe(z, &buf)));
        if (soak_pick(rng, 2) == 0)
            FZ(CODES(P, H), aclrtKernelArgsFinalize(ah));
        FZ(CODES(P, H, R), aclrtKernelArgsParaUpdate(ah, soak_pick(rng, 4) ? p_value : fz_garbage(z), &fa.value,
                                                     soak_pick(rng, 4) ? sizeof fa.value : sizeof fa));
        if (soak_pick(rng, 2) == 0)
            FZ(CODES(P, H), aclrtKernelArgsFinalize(ah));
        /* The args handle was made for fq: a launch of fl with it runs only when both are fill. */
        FZ(CODES(SUBMIT, R), aclrtLaunchKernelWithConfig(fl, blocks, fz_stream_submit(z), cfgp,
                                                         built ? ah : (aclrtArgsHandle)fz_garbage(z),
                                                         soak_pick(rng, 8) ? NULL : (void *)1));
        /* Unload (queued launches keep the library): once, with a wild handle now and then first. */
        if (soak_pick(rng, 6) == 0)
            FZ(CODES(P, H), aclrtBinaryUnLoad(fz_garbage(z)));
        if (bin != NULL) {
            FZ(CODES(-2), aclrtBinaryUnLoad(bin));
            FZ(CODES(H), aclrtBinaryUnLoad(bin));
            fz_add_stale(z, bin);
            if (fill != NULL)
                fz_add_stale(z, fill);
            if (args != NULL)
                fz_add_stale(z, args);
        }
        if (junk_bin != NULL)
            (void)aclrtBinaryUnLoad(junk_bin);
        break;
    }
    case 93: {
        /*
         * Capture and replay: a capture on one of this thread's scratch streams, always ended here (nobody
         * else submits to them); the model replayed on any stream and destroyed here; bad input between.
         */
        aclrtStream cs = z->scratch[soak_pick(rng, FZ_SCRATCH)];
        aclmdlRICaptureStatus cst;
        aclmdlRI mdl = NULL, during = NULL;
        aclmdlRICaptureMode mode = (aclmdlRICaptureMode)soak_pick(rng, 4);
        FZ(CODES(P), aclmdlRICaptureThreadExchangeMode(soak_pick(rng, 8) ? &mode : NULL));
        FZ(CODES(P, H, CN), aclmdlRICaptureGetInfo(fz_stream_any(z), fz_maybe(z, &cst), fz_maybe(z, &during)));
        (void)aclrtSetCurrentContext(g_ctx);
        if (cs == NULL || soak_pick(rng, 8) == 0) {
            FZ(CODES(P, H, CN, SC, ACL_ERROR_RT_STREAM_CAPTURED),
               aclmdlRICaptureBegin(soak_pick(rng, 2) ? fz_garbage(z) : NULL, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
            FZ(CODES(P, H, ACL_ERROR_RT_STREAM_NOT_CAPTURED), aclmdlRICaptureEnd(fz_garbage(z), &mdl));
            FZ(CODES(P, H), aclmdlRIExecuteAsync(soak_pick(rng, 2) ? fz_garbage(z) : NULL, z->work));
            FZ(CODES(P, H), aclmdlRIDestroy(soak_pick(rng, 2) ? fz_garbage(z) : NULL));
            aclrtTaskGrp wild_grp = NULL;
            FZ(CODES(P, H, CN, SC, ACL_ERROR_RT_STREAM_NOT_CAPTURED), aclmdlRICaptureTaskGrpBegin(fz_garbage(z)));
            FZ(CODES(P, H, CN, SC, ACL_ERROR_RT_STREAM_NOT_CAPTURED),
               aclmdlRICaptureTaskGrpEnd(fz_garbage(z), soak_pick(rng, 2) ? &wild_grp : NULL));
            FZ(CODES(P, H, CN, SC, ACL_ERROR_RT_STREAM_CAPTURED),
               aclmdlRICaptureTaskUpdateBegin(fz_garbage(z), soak_pick(rng, 2) ? fz_garbage(z) : NULL));
            FZ(CODES(P, H, CN, SC), aclmdlRICaptureTaskUpdateEnd(soak_pick(rng, 2) ? fz_garbage(z) : NULL));
            break;
        }
        /* THREAD_LOCAL, RELAXED or invalid: a GLOBAL capture would refuse other threads' synchronous copies. */
        FZ(CODES(P, H, CN, SC, ACL_ERROR_RT_STREAM_CAPTURED),
           aclmdlRICaptureBegin(cs, (aclmdlRICaptureMode)(1 + soak_pick(rng, 3))));
        aclrtTaskGrp grp = NULL;
        int grp_tasks = 0;
        bool endless = false; /* a while loop that never ends was captured */
        if (last_rc == ACL_SUCCESS) {
            int n = (int)soak_pick(rng, 5);
            for (int k = 0; k < n; k++)
                FZ(CODES(SUBMIT, ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED), aclrtLaunchHostFunc(cs, fz_noop, NULL));
            if (soak_pick(rng, 4) == 0) {
                /* A conditional task whose branches are captured on another scratch stream (or left uncaptured). */
                aclmdlRI cm = NULL;
                aclmdlRICondHandle ch = NULL;
                uint64_t *cw = NULL;
                aclmdlRI branches[3] = {NULL, NULL, NULL};
                (void)aclmdlRICaptureGetInfo(cs, NULL, &cm);
                FZ(CODES(P, H, R, ACL_ERROR_RT_MEMORY_ALLOCATION),
                   aclmdlRICondHandleCreate(soak_pick(rng, 8) ? cm : fz_garbage(z), (uint32_t)soak_pick(rng, 3),
                                            (aclmdlRICondHandleFlag)soak_pick(rng, 3), fz_maybe(z, &ch)));
                FZ(CODES(P, H), aclmdlRICondHandleGetCondPtr(soak_pick(rng, 8) ? ch : fz_garbage(z), fz_maybe(z, &cw)));
                aclmdlRICondTaskParams cp = {soak_pick(rng, 8) ? ch : fz_garbage(z),
                                             (aclmdlRICondTaskType)soak_pick(rng, 4), (uint32_t)soak_pick(rng, 4),
                                             soak_pick(rng, 8) ? branches : NULL};
                FZ(CODES(P, H, ACL_ERROR_RT_STREAM_NOT_CAPTURED, ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED,
                         ACL_ERROR_RT_MEMORY_ALLOCATION),
                   aclmdlRIAddCondTask(cp, cs, (uint32_t)(soak_pick(rng, 8) == 0)));
                bool cond_added = last_rc == ACL_SUCCESS, body_clears = false;
                aclrtStream bs = z->scratch[soak_pick(rng, FZ_SCRATCH)];
                for (uint32_t k = 0; last_rc == ACL_SUCCESS && k < cp.size; k++) {
                    FZ(CODES(P, H, R, SC, ACL_ERROR_RT_STREAM_CAPTURED, ACL_ERROR_RT_STREAM_MODEL),
                       aclmdlRICaptureToModelRIBegin(bs, soak_pick(rng, 8) ? branches[k] : fz_garbage(z),
                                                     (aclmdlRICaptureMode)(1 + soak_pick(rng, 2))));
                    if (last_rc != ACL_SUCCESS)
                        break;
                    FZ(CODES(SUBMIT, ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED), aclrtLaunchHostFunc(bs, fz_noop, NULL));
                    /* A while loop's body clears the condition word: every replay ends (the runtime loops as told). */
                    bool clears = false;
                    if (cw != NULL && last_rc == ACL_SUCCESS) {
                        FZ(CODES(SUBMIT, ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED),
                           aclrtLaunchHostFunc(bs, fz_clear_word, cw));
                        clears = last_rc == ACL_SUCCESS;
                    }
                    if (soak_pick(rng, 8) == 0)
                        break; /* left capturing: the model's end refuses and the branch's capture goes with it */
                    aclmdlRI ended = NULL;
                    FZ(CODES(ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED), aclmdlRICaptureEnd(bs, &ended));
                    if (k == 0)
                        body_clears = clears && last_rc == ACL_SUCCESS;
                }
                /*
                 * A while loop whose body does not clear the word (its pointer
                 * not asked, the clearing function or the body's capture
                 * refused) loops for ever, as it would on a device: such a
                 * model is never run.
                 */
                endless = cond_added && cp.type == ACL_MODEL_RI_COND_TYPE_WHILE && !body_clears;
            }
            if (soak_pick(rng, 2)) {
                /* A task group (sometimes nested or ended twice: refused), then an update of it below. */
                FZ(CODES(H, R), aclmdlRICaptureTaskGrpBegin(cs));
                if (soak_pick(rng, 8) == 0)
                    FZ(CODES(R), aclmdlRICaptureTaskGrpBegin(cs));
                grp_tasks = (int)soak_pick(rng, 3);
                for (int k = 0; k < grp_tasks; k++)
                    FZ(CODES(SUBMIT, ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED),
                       aclrtLaunchHostFunc(cs, fz_noop, NULL));
                FZ(CODES(P, R, ACL_ERROR_RT_MEMORY_ALLOCATION),
                   aclmdlRICaptureTaskGrpEnd(cs, soak_pick(rng, 8) ? &grp : NULL));
                if (soak_pick(rng, 8) == 0)
                    FZ(CODES(P, R), aclmdlRICaptureTaskGrpEnd(cs, &grp));
            }
            switch (soak_pick(rng, 6)) {
            case 0: FZ(CODES(H, ACL_ERROR_RT_STREAM_CAPTURED), aclrtSynchronizeStream(cs)); break;
            case 1: {
                /* Fork to another scratch stream and join back, through an event nobody else knows. */
                aclrtStream fork_to = z->scratch[soak_pick(rng, FZ_SCRATCH)];
                aclrtEvent fe = NULL;
                if (fork_to == NULL || fork_to == cs || aclrtCreateEvent(&fe) != ACL_SUCCESS)
                    break;
                FZ(CODES(H, ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED), aclrtRecordEvent(fe, cs));
                FZ(CODES(H, SC, ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT, ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED),
                   aclrtStreamWaitEvent(fork_to, fe));
                FZ(CODES(SUBMIT, ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED), aclrtLaunchHostFunc(fork_to, fz_noop, NULL));
                if (soak_pick(rng, 4)) { /* else: not joined back, the end fails */
                    FZ(CODES(H, SC, ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED), aclrtRecordEvent(fe, fork_to));
                    FZ(CODES(H, ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT, ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED),
                       aclrtStreamWaitEvent(cs, fe));
                }
                (void)aclrtDestroyEvent(fe);
                break;
            }
            case 2:
                if (aclmdlRICaptureGetInfo(cs, NULL, &during) == ACL_SUCCESS && during != NULL)
                    FZ(CODES(H, ACL_ERROR_RT_MODEL_CAPTURED), aclmdlRIDestroy(during));
                break;
            default: break;
            }
            FZ(CODES(P, H, ACL_ERROR_RT_STREAM_NOT_CAPTURED, ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED,
                     ACL_ERROR_RT_STREAM_UNJOINED, ACL_ERROR_RT_SUB_ACLGRAPH_IS_CAPTURING),
               aclmdlRICaptureEnd(cs, soak_pick(rng, 8) ? &mdl : NULL));
            if (last_rc == ACL_ERROR_INVALID_PARAM) /* no output given: the capture goes on, end it for real */
                FZ(CODES(H, ACL_ERROR_RT_STREAM_NOT_CAPTURED, ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED,
                         ACL_ERROR_RT_STREAM_UNJOINED, ACL_ERROR_RT_SUB_ACLGRAPH_IS_CAPTURING),
                   aclmdlRICaptureEnd(cs, &mdl));
        }
        if (mdl == NULL)
            break;
        if (endless) {
            FZ(CODES(-2), aclmdlRIDestroy(mdl));
            fz_add_stale(z, mdl);
            break;
        }
        int replays = (int)soak_pick(rng, 3);
        for (int k = 0; k < replays; k++)
            FZ(CODES(SUBMIT, ACL_ERROR_RT_MODEL_CONTEXT), aclmdlRIExecuteAsync(mdl, fz_stream_submit(z)));
        if (grp != NULL) {
            /* Update the group from the (no longer capturing) scratch stream, sometimes with a wrong count. */
            FZ(CODES(H, R, ACL_ERROR_RT_STREAM_CAPTURED), aclmdlRICaptureTaskUpdateBegin(cs, grp));
            if (last_rc == ACL_SUCCESS) {
                int n = soak_pick(rng, 4) ? grp_tasks : (int)soak_pick(rng, 3);
                for (int k = 0; k < n; k++)
                    FZ(CODES(SUBMIT, ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED),
                       aclrtLaunchHostFunc(cs, fz_noop, NULL));
                FZ(CODES(H, R), aclmdlRICaptureTaskUpdateEnd(cs));
            }
            for (int k = 0; k < replays; k++)
                FZ(CODES(SUBMIT, ACL_ERROR_RT_MODEL_CONTEXT), aclmdlRIExecuteAsync(mdl, fz_stream_submit(z)));
        }
        if (soak_pick(rng, 3) == 0) /* replays in flight drop their rest; the stream goes on */
            FZ(CODES(P, H), aclmdlRIAbort(soak_pick(rng, 8) ? mdl : fz_garbage(z)));
        if (soak_pick(rng, 3) == 0) {
            char mname[40];
            uint32_t mid;
            const char *names[] = {"", "m", "a model name"};
            FZ(CODES(P, H), aclmdlRISetName(soak_pick(rng, 8) ? mdl : fz_garbage(z),
                                            soak_pick(rng, 8) ? names[soak_pick(rng, 3)] : NULL));
            FZ(CODES(P, H), aclmdlRIGetName(soak_pick(rng, 8) ? mdl : fz_garbage(z), (uint32_t)soak_pick(rng, 41),
                                            fz_maybe(z, mname)));
            FZ(CODES(P, H), aclmdlRIGetId(soak_pick(rng, 8) ? mdl : fz_garbage(z), fz_maybe(z, &mid)));
        }
        if (soak_pick(rng, 16) == 0) {
            /* The model described: to /dev/null (or no path, a bad flag); printing only for a garbage handle. */
            FZ(CODES(P, H), aclmdlRIDebugJsonPrint(soak_pick(rng, 8) ? mdl : fz_garbage(z),
                                                  soak_pick(rng, 8) ? "/dev/null" : NULL, (uint32_t)soak_pick(rng, 3)));
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
            FZ(CODES(H), aclmdlRIDebugPrint(fz_garbage(z)));
#pragma GCC diagnostic pop
        }
        if (soak_pick(rng, 3) == 0) {
            /* Destroy callbacks, registered twice or unregistered sometimes. */
            FZ(CODES(P, H, R), aclmdlRIDestroyRegisterCallback(soak_pick(rng, 8) ? mdl : fz_garbage(z),
                                                                soak_pick(rng, 8) ? fz_destroyed : NULL, NULL));
            if (soak_pick(rng, 4) == 0)
                FZ(CODES(P, H, R), aclmdlRIDestroyRegisterCallback(mdl, fz_destroyed, NULL));
            if (soak_pick(rng, 3) == 0)
                FZ(CODES(P, H, R), aclmdlRIDestroyUnregisterCallback(soak_pick(rng, 8) ? mdl : fz_garbage(z),
                                                                      soak_pick(rng, 8) ? fz_destroyed : NULL));
        }
        if (soak_pick(rng, 3) == 0) {
            /* The model's streams and their tasks, into arrays of any size (or none, or garbage handles). */
            aclrtStream mstreams[4] = {NULL};
            aclmdlRITask mt[8] = {NULL};
            uint32_t nms = (uint32_t)soak_pick(rng, 5), nmt = (uint32_t)soak_pick(rng, 9);
            FZ(CODES(P, H, ACL_ERROR_RT_INSUFFICIENT_INPUT_ARRAY),
               aclmdlRIGetStreams(soak_pick(rng, 8) ? mdl : fz_garbage(z), soak_pick(rng, 4) ? mstreams : NULL,
                                  fz_maybe(z, &nms)));
            FZ(CODES(P, H, R, ACL_ERROR_RT_INSUFFICIENT_INPUT_ARRAY),
               aclmdlRIGetTasksByStream(soak_pick(rng, 8) && mstreams[0] != NULL ? mstreams[0] : fz_garbage(z),
                                        soak_pick(rng, 4) ? mt : NULL, fz_maybe(z, &nmt)));
            aclmdlRITaskType tt;
            uint32_t seq;
            FZ(CODES(P, H), aclmdlRITaskGetType(soak_pick(rng, 8) ? mt[0] : fz_garbage(z), fz_maybe(z, &tt)));
            FZ(CODES(P, H), aclmdlRITaskGetSeqId(soak_pick(rng, 8) ? mt[0] : fz_garbage(z), fz_maybe(z, &seq)));
            /* Its parameters read and changed (a host function's: refused, and the model is faulty, taking no more
             * changes), then applied. */
            aclmdlRITaskParams tp;
            FZ(CODES(P, H, R), aclmdlRITaskGetParams(soak_pick(rng, 8) ? mt[0] : fz_garbage(z), fz_maybe(z, &tp)));
            aclrtLaunchKernelAttrValue kav;
            FZ(CODES(P, H, R), aclmdlRIKernelTaskGetAttribute(soak_pick(rng, 8) ? mt[0] : fz_garbage(z),
                                                               (aclrtLaunchKernelAttrId)soak_pick(rng, 11),
                                                               fz_maybe(z, &kav)));
            if (soak_pick(rng, 4) == 0) {
                memset(&tp, 0, sizeof tp);
                tp.type = (aclmdlRITaskType)soak_pick(rng, 3);
                FZ(CODES(P, H, R, ACL_ERROR_RT_MODEL_UPDATE_FAILED),
                   aclmdlRITaskSetParams(soak_pick(rng, 8) ? mt[0] : fz_garbage(z), fz_maybe(z, &tp)));
            }
            if (soak_pick(rng, 4) == 0)
                FZ(CODES(P, H, R, ACL_ERROR_RT_MODEL_UPDATE_FAILED),
                   aclmdlRITaskDisable(soak_pick(rng, 8) ? mt[0] : fz_garbage(z)));
            FZ(CODES(P, H, ACL_ERROR_RT_MODEL_UPDATE_FAILED), aclmdlRIUpdate(soak_pick(rng, 8) ? mdl : fz_garbage(z)));
        }
        if (soak_pick(rng, 4) == 0) {
            int32_t model_timeouts[] = {-2, 0, 1, 1000};
            FZ(CODES(P, H, R, CN, ACL_ERROR_RT_MODEL_CONTEXT, ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, ACL_ERROR_RT_MODEL_EXECUTE,
                     ASYNC),
               aclmdlRIExecute(mdl, model_timeouts[soak_pick(rng, 4)]));
        }
        FZ(CODES(-2), aclmdlRIDestroy(mdl));
        fz_add_stale(z, mdl);
        break;
    }
    case 94: {
        /*
         * IPC events of this process: made, exported, opened here (or a wild handle opened), recorded and
         * waited for on this thread's streams, destroyed. Nothing here names another process's objects.
         */
        (void)aclrtSetCurrentContext(g_ctx);
        aclrtEvent ipc = NULL, opened = NULL;
        FZ(CODES(P, R, CN, QUOTA, ACL_ERROR_RT_IPC_ERROR), aclrtCreateEventExWithFlag(&ipc, ACL_EVENT_IPC));
        aclrtIpcEventHandle eh;
        memset(&eh, 0, sizeof eh);
        FZ(CODES(P, R, H), aclrtIpcGetEventHandle(soak_pick(rng, 5) ? ipc : fz_event(z, false), fz_maybe(z, &eh)));
        if (soak_pick(rng, 4) == 0)
            eh.reserved[soak_pick(rng, sizeof eh.reserved)] = (char)soak_rng(rng);
        FZ(CODES(P, R, CN, QUOTA, ACL_ERROR_RT_IPC_ERROR), aclrtIpcOpenEventHandle(eh, fz_maybe(z, &opened)));
        aclrtEvent either = soak_pick(rng, 2) && opened != NULL ? opened : ipc;
        FZ(CODES(SUBMIT, R), aclrtRecordEvent(either, fz_stream_submit(z)));
        FZ(CODES(SUBMIT, R), aclrtStreamWaitEventWithTimeout(fz_stream_submit(z), either, 1));
        FZ(CODES(P, H), aclrtQueryEventStatus(either, &rst));
        FZ(CODES(P, H, ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, ACL_ERROR_RT_IPC_ERROR),
           aclrtSynchronizeEventWithTimeout(either, 1));
        if (opened != NULL)
            FZ(CODES(P, H), aclrtDestroyEvent(opened));
        if (ipc != NULL) {
            FZ(CODES(P, H), aclrtDestroyEvent(ipc));
            fz_add_stale(z, ipc);
        }
        /* IPC memory: an allocation of this thread's own, exported, imported here, closed; or wild arguments. */
        void *mem = NULL;
        if (soak_pick(rng, 4) == 0 && aclrtMalloc(&mem, 65536, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
            mem = NULL;
        char key[65] = {0};
        void *where = mem != NULL && soak_pick(rng, 6) ? mem : (void *)fz_garbage(z);
        FZ(CODES(P, R, F, CN, ACL_ERROR_RT_IPC_ERROR),
           aclrtIpcMemGetExportKey(where, soak_pick(rng, 5) ? 65536 : (size_t)soak_pick(rng, 1 << 20),
                                   soak_pick(rng, 8) ? key : NULL, soak_pick(rng, 8) ? sizeof key : 8,
                                   soak_pick(rng, 5) ? ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION
                                                     : (uint64_t)soak_pick(rng, 4)));
        char exported[65];
        memcpy(exported, key, sizeof key); /* closed at the end whatever the calls below do to key */
        if (soak_pick(rng, 4) == 0)
            key[soak_pick(rng, 58)] = (char)('0' + soak_pick(rng, 75));
        int32_t me = (int32_t)getpid();
        FZ(CODES(P, R), aclrtIpcMemSetImportPid(soak_pick(rng, 8) ? key : NULL, fz_maybe(z, &me), 1));
        aclrtServerPid server = {0, soak_pick(rng, 6) ? &me : NULL, soak_pick(rng, 6) ? 1u : 0u};
        FZ(CODES(P, R), aclrtIpcMemImportPidInterServer(soak_pick(rng, 8) ? key : NULL, fz_maybe(z, &server),
                                                        soak_pick(rng, 6) ? 1u : 0u));
        FZ(CODES(P, R), aclrtIpcMemSetAttr(soak_pick(rng, 8) ? key : NULL, ACL_RT_IPC_MEM_ATTR_ACCESS_LINK,
                                           (uint64_t)soak_pick(rng, 5)));
        void *imported = NULL;
        FZ(CODES(P, R, CN, ACL_ERROR_RT_IPC_ERROR, ACL_ERROR_RT_NO_PERMISSION, ACL_ERROR_RT_MEMORY_ALLOCATION),
           aclrtIpcMemImportByKey(fz_maybe(z, &imported), soak_pick(rng, 8) ? key : NULL, soak_pick(rng, 5) ? 0 : 3));
        if (imported != NULL)
            FZ(CODES(P, R), aclrtIpcMemClose(key)); /* the import */
        FZ(CODES(P, R), aclrtIpcMemClose(soak_pick(rng, 8) ? key : NULL)); /* the export, if any */
        if (exported[0] != '\0')
            (void)aclrtIpcMemClose(exported); /* whatever is left of it: no descriptor piles up */
        if (mem != NULL)
            (void)aclrtFree(mem);
        /* IPC notifies: one of this thread's own, exported, imported here, recorded through the import, destroyed. */
        aclrtNotify nt = NULL, nimp = NULL;
        FZ(CODES(P, R, CN, QUOTA), aclrtCreateNotify(&nt, ACL_NOTIFY_DEFAULT));
        char nkey[65] = {0};
        FZ(CODES(P, R, H, ACL_ERROR_RT_IPC_ERROR),
           aclrtNotifyGetExportKey(soak_pick(rng, 6) ? nt : (aclrtNotify)fz_garbage(z), soak_pick(rng, 8) ? nkey : NULL,
                                   soak_pick(rng, 8) ? sizeof nkey : 3, soak_pick(rng, 4) ? 0 : (uint64_t)soak_pick(rng, 4)));
        FZ(CODES(P, R, H), aclrtNotifySetImportPid(soak_pick(rng, 6) ? nt : NULL, fz_maybe(z, &me), 1));
        FZ(CODES(P, R, H), aclrtNotifySetImportPidInterServer(soak_pick(rng, 6) ? nt : NULL, fz_maybe(z, &server),
                                                              soak_pick(rng, 6) ? 1u : 0u));
        if (soak_pick(rng, 4) == 0)
            nkey[soak_pick(rng, 58)] = (char)('0' + soak_pick(rng, 75));
        FZ(CODES(P, R, CN, QUOTA, ACL_ERROR_RT_IPC_ERROR, ACL_ERROR_RT_NO_PERMISSION),
           aclrtNotifyImportByKey(fz_maybe(z, &nimp), soak_pick(rng, 8) ? nkey : NULL, soak_pick(rng, 5) ? 0 : 2));
        if (nimp != NULL) {
            FZ(CODES(SUBMIT, R), aclrtRecordNotify(nimp, fz_stream_submit(z)));
            FZ(CODES(P, H), aclrtDestroyNotify(nimp));
        }
        if (nt != NULL)
            FZ(CODES(P, H), aclrtDestroyNotify(nt));
        break;
    }
    case 97: {
        /*
         * Building a model explicitly: one of this thread's scratch streams bound (nobody else submits to
         * them), tasks submitted, ended or not, built, executed on any stream, unbound or left to the model's
         * destroy here; bad input between. A valid model is never bound to a stream other threads use.
         */
        (void)aclrtSetCurrentContext(g_ctx);
        aclrtStream bs = z->scratch[soak_pick(rng, FZ_SCRATCH)];
        aclrtStream ps = NULL; /* a persistent stream this case makes, bound with ACL_MODEL_STREAM_FLAG_DEFAULT */
        aclmdlRI mdl = NULL;
        FZ(CODES(P, CN), aclmdlRIBuildBegin(soak_pick(rng, 8) ? &mdl : NULL, soak_pick(rng, 8) ? 0u : 1u));
        if (mdl == NULL || bs == NULL || soak_pick(rng, 8) == 0) {
            uint32_t flags[] = {ACL_MODEL_STREAM_FLAG_HEAD, ACL_MODEL_STREAM_FLAG_DEFAULT, 1, 0xFFFFFFFFu};
            void *wild = soak_pick(rng, 2) ? fz_garbage(z) : NULL;
            FZ(CODES(P, H, R, CN, SC, F),
               aclmdlRIBindStream(wild, fz_stream_any(z), flags[soak_pick(rng, 4)]));
            void *wild_stream = soak_pick(rng, 2) ? fz_pick_stale(z) : (soak_pick(rng, 2) ? fz_garbage(z) : NULL);
            FZ(CODES(P, H, R, CN, SC, F), aclmdlRIBindStream(mdl, wild_stream, flags[soak_pick(rng, 4)]));
            FZ(CODES(P, H, R, CN, SC, ACL_ERROR_RT_STREAM_MODEL), aclmdlRIEndTask(wild, fz_stream_any(z)));
            FZ(CODES(P, H, R, CN, SC, ACL_ERROR_RT_STREAM_MODEL), aclmdlRIEndTask(mdl, fz_stream_any(z)));
            FZ(CODES(P, H, R, ACL_ERROR_RT_STREAM_MODEL),
               aclmdlRIBuildEnd(soak_pick(rng, 2) ? mdl : wild, soak_pick(rng, 4) ? NULL : fz_garbage(z)));
            FZ(CODES(P, H, R, CN, SC, ACL_ERROR_RT_STREAM_MODEL), aclmdlRIUnbindStream(wild, fz_stream_any(z)));
            FZ(CODES(P, H, R, CN, SC, ACL_ERROR_RT_STREAM_MODEL), aclmdlRIUnbindStream(mdl, fz_stream_any(z)));
            if (mdl != NULL) {
                FZ(CODES(-2), aclmdlRIDestroy(mdl));
                fz_add_stale(z, mdl);
            }
            break;
        }
        FZ(CODES(H, SC, ACL_ERROR_RT_MODEL_CONTEXT), aclmdlRIBindStream(mdl, bs, ACL_MODEL_STREAM_FLAG_HEAD));
        bool bound = last_rc == ACL_SUCCESS;
        /*
         * Labels: a switch to a label set after it on the bound stream (index 0, never written: a jump forward,
         * no loop), or wild calls that add no switch.
         */
        aclrtLabel lab = NULL, wild_lab = soak_pick(rng, 2) ? fz_garbage(z) : NULL;
        aclrtLabelList list = NULL;
        FZ(CODES(P), aclrtCreateLabel(soak_pick(rng, 8) ? &lab : NULL));
        FZ(CODES(P, H), aclrtCreateLabelList(soak_pick(rng, 6) ? &lab : &wild_lab, soak_pick(rng, 6) ? 1 : 0,
                                             soak_pick(rng, 8) ? &list : NULL));
        if (bound) {
            int n = (int)soak_pick(rng, 5);
            for (int k = 0; k < n; k++)
                FZ(CODES(SUBMIT), aclrtLaunchHostFunc(bs, fz_noop, NULL));
            if (list != NULL && soak_pick(rng, 2))
                FZ(CODES(-2), aclrtSwitchLabelByIndex(&fz_label_index, 1, list, bs));
            if (lab != NULL && soak_pick(rng, 4))
                FZ(CODES(-2), aclrtSetLabel(lab, bs));
            /* A persistent stream bound to start when activated, by an activation and a switch on bs. */
            if (soak_pick(rng, 3) == 0) {
                FZ(CODES(P, CN, QUOTA), aclrtCreateStreamWithConfig(&ps, 0, ACL_STREAM_PERSISTENT));
                if (ps != NULL) {
                    FZ(CODES(ACL_ERROR_RT_STREAM_MODEL), aclrtLaunchHostFunc(ps, fz_noop, NULL)); /* not bound */
                    FZ(CODES(-2), aclmdlRIBindStream(mdl, ps, ACL_MODEL_STREAM_FLAG_DEFAULT));
                    FZ(CODES(-2), aclrtLaunchHostFunc(ps, fz_noop, NULL));
                    FZ(CODES(-2), aclrtActiveStream(ps, bs));
                    FZ(CODES(-2), aclrtSwitchStream(&fz_label_index, (aclrtCondition)soak_pick(rng, 6),
                                                    &fz_label_index, ACL_RT_SWITCH_INT32, ps, NULL, bs));
                    if (soak_pick(rng, 2))
                        FZ(CODES(-2), aclmdlRIEndTask(mdl, ps));
                }
            }
            FZ(CODES(P, H, R, CN, SC, ACL_ERROR_RT_STREAM_MODEL),
               aclrtActiveStream(soak_pick(rng, 2) ? fz_stream_any(z) : NULL, fz_stream_any(z)));
            FZ(CODES(P, H, R, CN, SC, ACL_ERROR_RT_STREAM_MODEL, ACL_ERROR_RT_ADDR_UNALIGNED),
               aclrtSwitchStream(soak_pick(rng, 4) ? (void *)&fz_label_index : NULL,
                                 (aclrtCondition)soak_pick(rng, 8), (void *)&fz_label_index,
                                 (aclrtCompareDataType)soak_pick(rng, 3), fz_stream_any(z),
                                 soak_pick(rng, 4) ? NULL : fz_stream_any(z), fz_stream_any(z)));
            FZ(CODES(P, H, R, CN, SC, ACL_ERROR_RT_STREAM_MODEL), aclrtPersistentTaskClean(fz_stream_any(z)));
            switch (soak_pick(rng, 5)) {
            case 0: FZ(CODES(ACL_ERROR_RT_STREAM_CAPTURED), aclrtSynchronizeStream(bs)); break;
            case 1:
                FZ(CODES(ACL_ERROR_RT_STREAM_MODEL), aclmdlRIBindStream(mdl, bs, ACL_MODEL_STREAM_FLAG_HEAD));
                break;
            case 2: FZ(CODES(R), aclmdlRIExecuteAsync(mdl, z->work)); break;
            case 3:
                FZ(CODES(ACL_ERROR_RT_STREAM_CAPTURED), aclmdlRICaptureBegin(bs, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
                break;
            default: break;
            }
            FZ(CODES(P, H, R, CN, SC), aclrtSetLabel(soak_pick(rng, 2) ? lab : wild_lab, fz_stream_any(z)));
            FZ(CODES(P, H, R, CN, SC),
               aclrtSwitchLabelByIndex(soak_pick(rng, 4) ? (void *)&fz_label_index : NULL, (uint32_t)soak_pick(rng, 3),
                                       soak_pick(rng, 2) ? NULL : (aclrtLabelList)fz_garbage(z), fz_stream_any(z)));
            if (soak_pick(rng, 6))
                FZ(CODES(-2), aclmdlRIEndTask(mdl, bs));
            else /* not ended: the build's end hands its tasks over, or fails when no stream ended */
                FZ(CODES(ACL_ERROR_RT_STREAM_MODEL), aclmdlRIEndTask(mdl, z->work));
        }
        FZ(CODES(P, R, ACL_ERROR_RT_STREAM_MODEL, ACL_ERROR_RT_INTERNAL_ERROR),
           aclmdlRIBuildEnd(mdl, soak_pick(rng, 8) ? NULL : fz_garbage(z)));
        bool built = last_rc == ACL_SUCCESS;
        if (ps != NULL && soak_pick(rng, 2))
            FZ(CODES(built ? -2 : R), aclrtPersistentTaskClean(ps));
        if (list != NULL)
            FZ(CODES(-2), aclrtDestroyLabelList(list));
        FZ(CODES(P, H), aclrtDestroyLabelList(soak_pick(rng, 2) ? list : fz_garbage(z)));
        if (lab != NULL)
            FZ(CODES(-2), aclrtDestroyLabel(lab));
        FZ(CODES(P, H), aclrtDestroyLabel(soak_pick(rng, 2) ? lab : wild_lab));
        if (built) {
            int replays = (int)soak_pick(rng, 3);
            for (int k = 0; k < replays; k++)
                FZ(CODES(SUBMIT, R, ACL_ERROR_RT_MODEL_CONTEXT), aclmdlRIExecuteAsync(mdl, fz_stream_submit(z)));
            if (soak_pick(rng, 4) == 0)
                FZ(CODES(P, H, R, CN, ACL_ERROR_RT_MODEL_CONTEXT, ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, ASYNC),
                   aclmdlRIExecute(mdl, soak_pick(rng, 2) ? -1 : 1000));
            if (bound)
                FZ(CODES(SUBMIT), aclrtLaunchHostFunc(bs, fz_noop, NULL)); /* runs: the stream's tasks ended */
        }
        if (bound && soak_pick(rng, 2))
            FZ(CODES(-2), aclmdlRIUnbindStream(mdl, bs));
        FZ(CODES(-2), aclmdlRIDestroy(mdl)); /* unbinds what is still bound */
        fz_add_stale(z, mdl);
        if (ps != NULL)
            FZ(CODES(-2), aclrtDestroyStream(ps));
        break;
    }
    case 98: {
        /*
         * Profiling, from both threads at once: one process-wide session, so any order error may come back.
         * Traces are removed after every stop; the other paths are a file (not a directory) and bad lengths.
         */
        pthread_once(&fz_prof_once, fz_prof_name);
        const char *paths[] = {fz_prof_dir, "/dev/null", NULL};
        const char *path = paths[soak_pick(rng, 3)];
        size_t len = path == NULL ? 4 : strlen(path) + (soak_pick(rng, 6) == 0);
        FZ(CODES(P, ACL_ERROR_REPEAT_INITIALIZE), aclprofInit(path, len));
        uint32_t ids[3] = {0, (uint32_t)soak_pick(rng, 3), (uint32_t)soak_pick(rng, 70)};
        aclprofConfig *pcfg = aclprofCreateConfig(soak_pick(rng, 8) ? ids : NULL, (uint32_t)soak_pick(rng, 4),
                                                 ACL_AICORE_PIPE_UTILIZATION, NULL,
                                                 ACL_PROF_TASK_TIME | (soak_pick(rng, 2) ? ACL_PROF_MSPROFTX : 0));
        fz_cover("aclprofCreateConfig");
        (void)aclGetRecentErrMsg();
        const aclprofConfig *use = soak_pick(rng, 8) ? pcfg : (const aclprofConfig *)fz_garbage(z);
        FZ(CODES(P, ACL_ERROR_PROF_NOT_RUN, ACL_ERROR_PROF_ALREADY_RUN), aclprofStart(use));
        for (int i = 0; i < 4; i++)
            FZ(CODES(SUBMIT), aclrtLaunchHostFunc(fz_stream_submit(z), fz_noop, NULL));
        /* Settings (a path only the fuzzer's), msproftx markers, steps, trace records: in a session or not. */
        aclprofConfigType ctype = (aclprofConfigType)soak_pick(rng, 18);
        const char *cval = ctype == ACL_PROF_PATH ? fz_prof_dir : soak_pick(rng, 2) ? "15" : "cpu";
        FZ(CODES(P, ACL_ERROR_PROF_ALREADY_RUN, ACL_ERROR_PROF_API_CONFLICT),
           aclprofSetConfig(ctype, cval, strlen(cval) + (soak_pick(rng, 8) == 0)));
        void *st = aclprofCreateStamp();
        fz_cover("aclprofCreateStamp");
        (void)aclGetRecentErrMsg();
        void *use_st = soak_pick(rng, 8) ? st : fz_garbage(z);
        FZ(CODES(P), aclprofSetStampTraceMessage(use_st, "fz \"mark\"", (uint32_t)soak_pick(rng, 200)));
        FZ(CODES(P, ACL_ERROR_PROF_NOT_RUN), aclprofMark(use_st));
        FZ(CODES(P, ACL_ERROR_PROF_NOT_RUN), aclprofPush(use_st));
        uint32_t rid = 0;
        FZ(CODES(P, ACL_ERROR_PROF_NOT_RUN), aclprofRangeStart(use_st, soak_pick(rng, 8) ? &rid : NULL));
        FZ(CODES(P, ACL_ERROR_PROF_NOT_RUN, SUBMIT),
           aclprofMarkEx("fz", soak_pick(rng, 4), soak_pick(rng, 8) ? fz_stream_submit(z) : NULL));
        FZ(CODES(P, ACL_ERROR_PROF_NOT_RUN), aclprofRangeStop(soak_pick(rng, 4) ? rid : (uint32_t)soak_pick(rng, 1000)));
        FZ(CODES(P, ACL_ERROR_PROF_NOT_RUN), aclprofPop());
        aclprofTensor tensor = {0, 0, 0, (uint32_t)soak_pick(rng, 10), {0}};
        aclprofTensorInfo tinfo = {aclprofStr2Id("fz_op"), aclprofStr2Id(soak_pick(rng, 2) ? "fz" : ""), 0,
                                   (uint32_t)soak_pick(rng, 2), 0, 1, NULL, &tensor};
        fz_cover("aclprofStr2Id");
        (void)aclprofStr2Id(NULL);
        aclprofEventAttributes eattr = {1, (uint16_t)(soak_pick(rng, 8) ? sizeof eattr : 2),
                                        soak_pick(rng, 8) ? ACL_PROF_MESSAGE_TYPE_TENSOR_INFO : 7u, {&tinfo}};
        FZ(CODES(P, ACL_ERROR_PROF_NOT_RUN), aclprofRangePushEx(soak_pick(rng, 8) ? &eattr : NULL));
        FZ(CODES(P, ACL_ERROR_PROF_NOT_RUN), aclprofRangePop());
        aclprofDestroyStamp(use_st);
        fz_cover("aclprofDestroyStamp");
        if (st != NULL && use_st != st)
            aclprofDestroyStamp(st);
        (void)aclGetRecentErrMsg();
        aclprofStepInfo *step = aclprofCreateStepInfo();
        fz_cover("aclprofCreateStepInfo");
        for (int i = 0; i < 3; i++)
            FZ(CODES(P, SUBMIT), aclprofGetStepTimestamp(soak_pick(rng, 8) ? step : (aclprofStepInfo *)fz_garbage(z),
                                                         (aclprofStepTag)soak_pick(rng, 3), fz_stream_submit(z)));
        aclprofDestroyStepInfo(soak_pick(rng, 8) ? step : (aclprofStepInfo *)fz_garbage(z));
        fz_cover("aclprofDestroyStepInfo");
        (void)aclGetRecentErrMsg();
        aclprofDestroyStepInfo(step); /* again, or the first time: said, no crash */
        (void)aclGetRecentErrMsg();
        unsigned char trec[24] = {1, 2, 3};
        FZ(CODES(P, R, SUBMIT), aclrtProfTrace(soak_pick(rng, 8) ? trec : NULL, (int32_t)soak_pick(rng, 22) - 1,
                                               fz_stream_submit(z)));
        FZ(CODES(P, ACL_ERROR_PROF_NOT_RUN, ACL_ERROR_PROFILING_FAILURE), aclprofStop(use));
        if (soak_pick(rng, 3) == 0)
            FZ(CODES(ACL_ERROR_PROF_NOT_RUN, ACL_ERROR_PROFILING_FAILURE), aclprofFinalize());
        fz_prof_clean();
        FZ(CODES(P), aclprofDestroyConfig(soak_pick(rng, 8) ? pcfg : (const aclprofConfig *)fz_garbage(z)));
        if (pcfg != NULL && last_rc != ACL_SUCCESS)
            FZ(CODES(P), aclprofDestroyConfig(pcfg));
        /*
         * Op subscription of a model id picked at random (another case's live model, or none), into a pipe
         * whose write end does not block: a replay never waits for this reader. The write end is the
         * subscription's once it succeeds (aclprofModelUnSubscribe closes it), else closed here.
         */
        int sp[2];
        if (pipe(sp) == 0) {
            (void)fcntl(sp[0], F_SETFL, O_NONBLOCK);
            (void)fcntl(sp[1], F_SETFL, O_NONBLOCK);
            aclprofSubscribeConfig *scfg = aclprofCreateSubscribeConfig((int8_t)soak_pick(rng, 3),
                                                                        ACL_AICORE_NONE, soak_pick(rng, 8) ? &sp[1] : NULL);
            fz_cover("aclprofCreateSubscribeConfig");
            (void)aclGetRecentErrMsg();
            uint32_t mid = (uint32_t)soak_pick(rng, 8);
            FZ(CODES(P, ACL_ERROR_INVALID_MODEL_ID, ACL_ERROR_PROF_REPEAT_SUBSCRIBE, ACL_ERROR_PROF_API_CONFLICT),
               aclprofModelSubscribe(mid, soak_pick(rng, 8) ? scfg : (aclprofSubscribeConfig *)fz_garbage(z)));
            bool subscribed = last_rc == ACL_SUCCESS;
            if (subscribed)
                FZ(CODES(ACL_ERROR_INVALID_MODEL_ID), aclprofModelUnSubscribe(mid));
            else
                close(sp[1]);
            FZ(CODES(ACL_ERROR_INVALID_MODEL_ID), aclprofModelUnSubscribe((uint32_t)soak_pick(rng, 1u << 20) + 64));
            FZ(CODES(P), aclprofDestroySubscribeConfig(soak_pick(rng, 8) ? scfg : (aclprofSubscribeConfig *)fz_garbage(z)));
            if (scfg != NULL && last_rc != ACL_SUCCESS)
                FZ(CODES(P), aclprofDestroySubscribeConfig(scfg));
            /* What came (whole descriptors, or none), and made-up buffers. */
            static _Thread_local char ops[4096];
            ssize_t got = read(sp[0], ops, sizeof ops); /* what is there now (a replay may still hold the write end) */
            size_t olen = got > 0 ? (size_t)got : soak_pick(rng, 2) ? 0 : (size_t)soak_pick(rng, sizeof ops);
            for (size_t b = 0; got <= 0 && b < olen; b++)
                ops[b] = (char)soak_pick(rng, 256);
            size_t dsz = 0;
            FZ(CODES(P), aclprofGetOpDescSize(soak_pick(rng, 8) ? &dsz : NULL));
            uint32_t nops = 0, oi = (uint32_t)soak_pick(rng, 4);
            size_t slen = 0;
            char sbuf[80];
            FZ(CODES(P), aclprofGetOpNum(ops, olen, soak_pick(rng, 8) ? &nops : NULL));
            FZ(CODES(P), aclprofGetOpTypeLen(ops, olen, oi, &slen));
            FZ(CODES(P), aclprofGetOpType(soak_pick(rng, 8) ? ops : NULL, olen, oi, sbuf, soak_pick(rng, sizeof sbuf)));
            FZ(CODES(P), aclprofGetOpNameLen(ops, olen, oi, soak_pick(rng, 8) ? &slen : NULL));
            FZ(CODES(P), aclprofGetOpName(ops, olen, oi, soak_pick(rng, 8) ? sbuf : NULL, sizeof sbuf));
            (void)aclprofGetOpStart(ops, olen, oi);
            (void)aclprofGetOpEnd(ops, olen, oi);
            (void)aclprofGetOpDuration(ops, olen, oi);
            (void)aclprofGetModelId(ops, olen, oi);
            (void)aclprofGetOpFlag(ops, olen, oi);
            (void)aclprofGetOpAttriValue(ops, olen, oi, (aclprofSubscribeOpAttri)soak_pick(rng, 2));
            fz_cover("aclprofGetOpStart");
            fz_cover("aclprofGetOpEnd");
            fz_cover("aclprofGetOpDuration");
            fz_cover("aclprofGetModelId");
            fz_cover("aclprofGetOpFlag");
            fz_cover("aclprofGetOpAttriValue");
            (void)aclGetRecentErrMsg();
            close(sp[0]);
        }
        break;
    }
    case 99: {
        /* Allocation variants (freed at once), what the runtime says of pointers; frees that sync only fail. */
        aclrtMallocAttribute ma = {(aclrtMallocAttrType)soak_pick(rng, 5), {0}};
        ma.value.deviceId = (uint32_t)soak_pick(rng, 3);
        /* numAttrs: 0..2 with no array (NULL with a count is refused), 0..1 with the one attribute. */
        aclrtMallocAttribute *attrs = soak_pick(rng, 4) ? &ma : NULL;
        aclrtMallocConfig mc = {attrs, soak_pick(rng, attrs != NULL ? 2 : 3)};
        aclrtMallocConfig *pmc = soak_pick(rng, 3) ? &mc : NULL;
        size_t sz = sizes[soak_pick(rng, 4)];
        aclrtMemMallocPolicy pol = (aclrtMemMallocPolicy)soak_rng(rng);
        ptr = NULL;
        switch (soak_pick(rng, 5)) {
        case 0: FZ(CODES(P, CN), aclrtMallocAlign32(fz_maybe(z, &ptr), sz, pol)); break;
        case 1: FZ(CODES(P, CN), aclrtMallocCached(fz_maybe(z, &ptr), sz, pol)); break;
        case 2: FZ(CODES(P, CN), aclrtMallocWithCfg(fz_maybe(z, &ptr), sz, pol, pmc)); break;
        case 3: FZ(CODES(P, CN), aclrtMallocForTaskScheduler(fz_maybe(z, &ptr), sz, pol, pmc)); break;
        default: FZ(CODES(P, CN), aclrtMallocHostWithCfg(fz_maybe(z, &ptr), sz, pmc)); break;
        }
        if (last_rc == ACL_SUCCESS && ptr != NULL) {
            aclrtPtrAttributes pa;
            void *base = NULL;
            size_t bsz = 0;
            FZ(CODES(-2), aclrtPointerGetAttributes((char *)ptr + sz - 1, &pa));
            FZ(CODES(-2), aclrtMemGetAddressRange(ptr, &base, &bsz));
            if (base != ptr || bsz != sz)
                soak_violation(SV_FUZZ, "aclrtMemGetAddressRange(%p) gave %p, %zu bytes (allocated: %zu)", ptr, base, bsz,
                               sz);
            FZ(CODES(-2), pa.location.type == ACL_MEM_LOCATION_TYPE_HOST ? aclrtFreeHost(ptr) : aclrtFree(ptr));
        }
        /* What the runtime says of a freed pointer (read only: another thread may own its address again). */
        void *cands[] = {NULL, &g_local_int, z->freed, (char *)z->pinned_a + 1};
        void *not_ours[] = {NULL, &g_local_int, g_never_allocated, (char *)z->pinned_a + 1};
        aclrtPtrAttributes pa;
        void *base;
        size_t bsz;
        FZ(CODES(P), aclrtPointerGetAttributes(cands[soak_pick(rng, 4)], fz_maybe(z, &pa)));
        FZ(CODES(P, R), aclrtMemGetAddressRange(cands[soak_pick(rng, 4)], fz_maybe(z, &base), fz_maybe(z, &bsz)));
        FZ(CODES(P, R), aclrtFreeWithDevSync(not_ours[soak_pick(rng, 4)]));
        FZ(CODES(P, R), aclrtFreeHostWithDevSync(not_ours[soak_pick(rng, 4)]));
        aclrtMemUsageInfo mu[3];
        size_t nmu;
        FZ(CODES(P, DV), aclrtGetMemUsageInfo(devices[soak_pick(rng, 6)], fz_maybe(z, mu), soak_pick(rng, 4),
                                              fz_maybe(z, &nmu)));
        break;
    }
    case 101: {
        /*
         * Tensor data transfer on a channel of this thread's own (its name): items, datasets and the channel
         * are made and freed here. Timeouts are -2, 0 or 1 ms: nothing here waits for another thread.
         */
        char name[32];
        snprintf(name, sizeof name, "fuzz_tdt_%d", z->id);
        float vals[4] = {1, 2, 3, 4};
        int64_t dims[2] = {2, 2}, out_dims[4];
        size_t dim_nums[] = {0, 1, 2, 4, 129};
        int32_t timeouts[] = {-2, 0, 1};
        size_t caps[] = {0, 2, 3, 8192, 8193};
        acltdtTensorType types[] = {ACL_TENSOR_DATA_TENSOR, ACL_TENSOR_DATA_END_OF_SEQUENCE,
                                    ACL_TENSOR_DATA_ABNORMAL, ACL_TENSOR_DATA_SLICE_TENSOR, (acltdtTensorType)9};
        acltdtTensorType type = types[soak_pick(rng, 5)];
        bool with_dims = type == ACL_TENSOR_DATA_TENSOR ? soak_pick(rng, 6) != 0 : soak_pick(rng, 6) == 0;
        acltdtDataItem *item = acltdtCreateDataItem(type, with_dims ? dims : NULL,
                                                    with_dims ? (soak_pick(rng, 6) ? 2 : 0) : (soak_pick(rng, 6) ? 0 : 2),
                                                    ACL_FLOAT, soak_pick(rng, 6) ? vals : NULL, sizeof vals);
        fz_cover("acltdtCreateDataItem");
        (void)aclGetRecentErrMsg();
        acltdtDataset *ds = acltdtCreateDataset();
        fz_cover("acltdtCreateDataset");
        acltdtDataset *got = acltdtCreateDataset();
        if (ds == NULL || got == NULL) {
            if (ds != NULL)
                FZ(CODES(P), acltdtDestroyDataset(ds));
            if (got != NULL)
                FZ(CODES(P), acltdtDestroyDataset(got));
            if (item != NULL)
                FZ(CODES(P), acltdtDestroyDataItem(item));
            break;
        }
        if (item != NULL)
            FZ(CODES(P, ACL_ERROR_BAD_ALLOC), acltdtAddDataItem(ds, fz_maybe(z, item)));
        (void)acltdtGetTensorTypeFromItem(fz_maybe(z, item));
        fz_cover("acltdtGetTensorTypeFromItem");
        (void)acltdtGetDataTypeFromItem(fz_maybe(z, item));
        fz_cover("acltdtGetDataTypeFromItem");
        (void)acltdtGetDataAddrFromItem(fz_maybe(z, item));
        fz_cover("acltdtGetDataAddrFromItem");
        (void)acltdtGetDataSizeFromItem(fz_maybe(z, item));
        fz_cover("acltdtGetDataSizeFromItem");
        (void)acltdtGetDimNumFromItem(fz_maybe(z, item));
        fz_cover("acltdtGetDimNumFromItem");
        size_t dn = dim_nums[soak_pick(rng, 5)], sn, si;
        FZ(CODES(P), acltdtGetDimsFromItem(fz_maybe(z, item), dn == 129 ? NULL : out_dims, dn > 4 ? 4 : dn));
        FZ(CODES(P), acltdtGetSliceInfoFromItem(fz_maybe(z, item), fz_maybe(z, &sn), &si));
        (void)acltdtGetDatasetSize(fz_maybe(z, ds));
        fz_cover("acltdtGetDatasetSize");
        (void)acltdtGetDatasetName(fz_maybe(z, ds));
        fz_cover("acltdtGetDatasetName");
        (void)acltdtGetDataItem(fz_maybe(z, ds), soak_pick(rng, 3));
        fz_cover("acltdtGetDataItem");
        (void)aclGetRecentErrMsg();
        uint32_t dev = soak_pick(rng, 6) ? SOAK_DEV_FUZZ : (uint32_t)devices[soak_pick(rng, 6)];
        acltdtChannelHandle *ch;
        if (soak_pick(rng, 3)) {
            ch = acltdtCreateChannelWithCapacity(dev, soak_pick(rng, 8) ? name : NULL, caps[soak_pick(rng, 5)]);
            fz_cover("acltdtCreateChannelWithCapacity");
        } else {
            ch = acltdtCreateChannel(dev, soak_pick(rng, 8) ? name : NULL);
            fz_cover("acltdtCreateChannel");
        }
        (void)aclGetRecentErrMsg();
        const int *tdt_codes = CODES(P, ACL_ERROR_RT_QUEUE_FULL, ACL_ERROR_RT_QUEUE_EMPTY, ACL_ERROR_FAILURE,
                                     ACL_ERROR_BAD_ALLOC, ACL_ERROR_FEATURE_UNSUPPORTED);
        if (ch != NULL) {
            size_t qs;
            for (int i = 0, n = (int)soak_pick(rng, 4); i < n; i++)
                FZ(tdt_codes, acltdtSendTensor(ch, fz_maybe(z, ds), timeouts[soak_pick(rng, 3)]));
            FZ(tdt_codes, acltdtQueryChannelSize(ch, fz_maybe(z, &qs)));
            if (soak_pick(rng, 4) == 0)
                FZ(tdt_codes, acltdtStopChannel(ch));
            for (int i = 0, n = (int)soak_pick(rng, 4); i < n; i++)
                FZ(tdt_codes, acltdtReceiveTensor(ch, fz_maybe(z, soak_pick(rng, 6) ? got : ds),
                                                  timeouts[soak_pick(rng, 3)]));
            if (soak_pick(rng, 2))
                FZ(tdt_codes, acltdtCleanChannel(ch));
            FZ(CODES(P), acltdtDestroyChannel(ch));
        } else {
            FZ(CODES(P), acltdtStopChannel(NULL));
            FZ(CODES(P), acltdtCleanChannel(NULL));
            FZ(CODES(P), acltdtDestroyChannel(NULL));
        }
        if (acltdtGetDatasetSize(got) > 0) /* the received items are the dataset's */
            FZ(CODES(P), acltdtDestroyDataItem(acltdtGetDataItem(got, 0)));
        FZ(CODES(P), acltdtDestroyDataset(got));
        FZ(CODES(P), acltdtDestroyDataset(ds));
        if (item != NULL)
            FZ(CODES(P), acltdtDestroyDataItem(item));
        break;
    }
    case 100: {
        /* 2-D copies, 32-bit memsets, batches, descriptors and offsets on this thread's memory and work stream. */
        aclrtStream cs = soak_pick(rng, 4) ? z->work : fz_garbage(z);
        size_t widths[] = {0, 1, 16, 65}, heights[] = {0, 1, 3, 5242881}, pitches[] = {16, 64};
        size_t w = widths[soak_pick(rng, 4)], h = heights[soak_pick(rng, 4)];
        size_t dp = pitches[soak_pick(rng, 2)], sp = pitches[soak_pick(rng, 2)];
        aclrtMemcpyKind kind = (aclrtMemcpyKind)soak_pick(rng, 9);
        (void)aclrtSetCurrentContext(g_ctx);
        switch (soak_pick(rng, 8)) {
        case 0: FZ(CODES(P, R), aclrtMemcpy2d(fz_maybe(z, z->sync_a), dp, fz_maybe(z, z->sync_b), sp, w, h, kind)); break;
        case 1:
            FZ(CODES(SUBMIT, R), aclrtMemcpy2dAsync(fz_maybe(z, z->pinned_a), dp, fz_maybe(z, z->pinned_b), sp, w, h,
                                                    kind, cs));
            break;
        case 2:
        case 3: {
            /* Host memory no task touches: the asynchronous form fills it at once too. */
            if (z->fill32 == NULL && aclrtMallocHost((void **)&z->fill32, FZ_BUF) != ACL_SUCCESS)
                break;
            size_t msz = maxes[soak_pick(rng, 5)], n = sizes[soak_pick(rng, 4)] / 4;
            if (soak_pick(rng, 2))
                FZ(CODES(P, R), aclrtMemsetD32(fz_maybe(z, z->fill32), msz, (uint32_t)soak_rng(rng), n));
            else
                FZ(CODES(SUBMIT, R), aclrtMemsetD32Async(fz_maybe(z, z->fill32), msz, (uint32_t)soak_rng(rng), n, cs));
            break;
        }
        case 4:
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
            FZ(CODES(SUBMIT, R), aclrtMemcpyAsyncWithCondition(fz_maybe(z, z->pinned_a), maxes[soak_pick(rng, 5)],
                                                               fz_maybe(z, z->pinned_b), sizes[soak_pick(rng, 4)],
                                                               kind, cs));
#pragma GCC diagnostic pop
            break;
        case 5: {
            /* Synchronous batches on this thread's plain buffers, asynchronous ones on pinned memory (tasks). */
            bool async = soak_pick(rng, 2);
            void *dsts[2] = {async ? (void *)z->pinned_a : (void *)z->sync_b,
                             soak_pick(rng, 5) ? (void *)(async ? z->pinned_b : z->sync_b) : NULL};
            void *srcs[2] = {async ? (void *)z->pinned_b : (void *)z->sync_a, async ? (void *)z->pinned_a : z->sync_a};
            size_t dmax[2] = {maxes[soak_pick(rng, 5)], FZ_BUF}, bsz[2] = {sizes[soak_pick(rng, 4)], 16};
            aclrtMemcpyBatchAttr ba[2];
            memset(ba, 0, sizeof ba);
            for (int i = 0; i < 2; i++) {
                ba[i].srcLoc.type = (aclrtMemLocationType)soak_pick(rng, 3);
                ba[i].dstLoc.type = (aclrtMemLocationType)soak_pick(rng, 3);
            }
            size_t idx[2] = {0, soak_pick(rng, 3)}, nattr = 1 + soak_pick(rng, 2), fail;
            switch (soak_pick(rng, 2) + (async ? 2 : 0)) {
            case 0: FZ(CODES(P, R), aclrtMemcpyBatch(dsts, dmax, srcs, bsz, 2, ba, idx, nattr, fz_maybe(z, &fail))); break;
            case 1: FZ(CODES(P, R), aclrtMemcpyBatchV2(dsts, dmax, srcs, bsz, 2, ba, idx, nattr)); break;
            case 2:
                FZ(CODES(SUBMIT, R), aclrtMemcpyBatchAsync(dsts, dmax, srcs, bsz, 2, ba, idx, nattr, fz_maybe(z, &fail), cs));
                break;
            default: FZ(CODES(SUBMIT, R), aclrtMemcpyBatchAsyncV2(dsts, dmax, srcs, bsz, 2, ba, idx, nattr, cs)); break;
            }
            break;
        }
        case 6: {
            size_t dsz;
            FZ(CODES(P), aclrtGetMemcpyDescSize(kind, fz_maybe(z, &dsz)));
            if (z->desc_mem == NULL && aclrtMalloc(&z->desc_mem, 64, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
                break;
            /* Written once (a later write would race with the copies that read it): then only refused calls. */
            void *desc = z->desc_set ? (void *)z->sync_a : z->desc_mem;
            FZ(CODES(P, R), aclrtSetMemcpyDesc(fz_maybe(z, desc), kind, z->pinned_a, z->pinned_b, 16,
                                               soak_pick(rng, 6) ? NULL : desc));
            if (last_rc == ACL_SUCCESS)
                z->desc_set = true;
            if (z->desc_set)
                FZ(CODES(SUBMIT, R), aclrtMemcpyAsyncWithDesc(fz_maybe(z, soak_pick(rng, 4) ? z->desc_mem : desc), kind, cs));
            break;
        }
        default:
            if (z->slots[0] == NULL) { /* written once: the copies read them when they run */
                z->slots[0] = z->pinned_b;
                z->slots[1] = z->pinned_a;
            }
            FZ(CODES(SUBMIT, R), aclrtMemcpyAsyncWithOffset(fz_maybe(z, &z->slots[0]), maxes[soak_pick(rng, 5)],
                                                            sizes[soak_pick(rng, 4)], (const void **)&z->slots[1],
                                                            sizes[soak_pick(rng, 3)], sizes[soak_pick(rng, 4)] / 2,
                                                            kind, cs));
            break;
        }
        break;
    }
    case 102: {
        /* Data buffers, logs, capabilities, callbacks, versions, options, timeouts, platform figures. */
        char mem[8];
        aclDataBuffer *db = aclCreateDataBuffer(soak_pick(rng, 2) ? mem : NULL, sizes[soak_pick(rng, 4)]);
        fz_cover("aclCreateDataBuffer");
        aclDataBuffer *dbs[] = {db, NULL};
        aclDataBuffer *use = dbs[soak_pick(rng, 2)];
        FZ(CODES(P), aclUpdateDataBuffer(use, mem, sizeof mem));
        (void)aclGetDataBufferAddr(use);
        fz_cover("aclGetDataBufferAddr");
        (void)aclGetDataBufferSizeV2(use);
        fz_cover("aclGetDataBufferSizeV2");
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
        (void)aclGetDataBufferSize(use);
        fz_cover("aclGetDataBufferSize");
        int32_t major, minor, patch;
        FZ(CODES(P), aclrtGetVersion(&major, fz_maybe(z, &minor), &patch));
        aclCANNPackageVersion pv;
        FZ(CODES(P, ACL_ERROR_INVALID_FILE),
           aclsysGetCANNVersion((aclCANNPackageName)((int)soak_pick(rng, 10) - 1), fz_maybe(z, &pv)));
#pragma GCC diagnostic pop
        FZ(CODES(P), aclDestroyDataBuffer(db));
        aclAppLog(ACL_DEBUG, __func__, __FILE__, __LINE__, "fuzz %d", (int)soak_pick(rng, 10)); /* below the default level */
        fz_cover("aclAppLog");
        int64_t v64;
        FZ(CODES(P, R, DV), aclGetDeviceCapability((uint32_t)devices[soak_pick(rng, 6)],
                                                   (aclDeviceInfo)((int)soak_pick(rng, 5) - 1), fz_maybe(z, &v64)));
        aclRegisterCallbackType types[] = {ACL_REG_TYPE_OTHER, ACL_REG_TYPE_ACL_RETR, (aclRegisterCallbackType)77};
        aclRegisterCallbackType t = types[soak_pick(rng, 3)];
        aclInitCallbackFunc fz_init_cb = z == &fz_threads[0] ? fz_init_cb0 : fz_init_cb1;
        aclFinalizeCallbackFunc fz_final_cb = z == &fz_threads[0] ? fz_final_cb0 : fz_final_cb1;
        aclError reg = aclInitCallbackRegister(t, soak_pick(rng, 6) ? fz_init_cb : NULL, NULL);
        fz_check("aclInitCallbackRegister", reg, CODES(P, ACL_ERROR_INTERNAL_ERROR));
        if (reg == ACL_SUCCESS)
            FZ(CODES(ACL_SUCCESS), aclInitCallbackUnRegister(t, fz_init_cb));
        else
            FZ(CODES(P, ACL_ERROR_INTERNAL_ERROR), aclInitCallbackUnRegister(t, fz_init_cb));
        reg = aclFinalizeCallbackRegister(t, soak_pick(rng, 6) ? fz_final_cb : NULL, NULL);
        fz_check("aclFinalizeCallbackRegister", reg, CODES(P, ACL_ERROR_INTERNAL_ERROR));
        if (reg == ACL_SUCCESS)
            FZ(CODES(ACL_SUCCESS), aclFinalizeCallbackUnRegister(t, fz_final_cb));
        else
            FZ(CODES(P, ACL_ERROR_INTERNAL_ERROR), aclFinalizeCallbackUnRegister(t, fz_final_cb));
        aclSysParamOpt opt = (aclSysParamOpt)((int)soak_pick(rng, 6) - 1);
        int64_t vals[] = {0, 1, 3, 4, -1};
        FZ(CODES(P, R), aclrtSetSysParamOpt(opt, vals[soak_pick(rng, 5)]));
        FZ(CODES(P, ACL_ERROR_RT_SYSPARAMOPT_NOT_SET), aclrtGetSysParamOpt(opt, fz_maybe(z, &v64)));
        FZ(CODES(P, R, CN), aclrtCtxSetSysParamOpt(opt, vals[soak_pick(rng, 5)]));
        FZ(CODES(P, CN, ACL_ERROR_RT_SYSPARAMOPT_NOT_SET), aclrtCtxGetSysParamOpt(opt, fz_maybe(z, &v64)));
        /* Only limits no kernel of the run reaches: 0 (none) or ten minutes and more. */
        uint64_t actual;
        FZ(CODES(ACL_SUCCESS), aclrtSetOpExecuteTimeOut(soak_pick(rng, 2) ? 0 : 600 + (uint32_t)soak_pick(rng, 100)));
        FZ(CODES(ACL_SUCCESS), aclrtSetOpExecuteTimeOutWithMs(soak_pick(rng, 2) ? 0 : UINT32_MAX));
        FZ(CODES(P), aclrtSetOpExecuteTimeOutV2(soak_pick(rng, 2) ? 0 : UINT64_MAX, fz_maybe(z, &actual)));
        FZ(CODES(P), aclrtGetOpExecuteTimeout(fz_maybe(z, &u32)));
        FZ(CODES(P), aclrtGetOpTimeOutInterval(fz_maybe(z, &actual)));
        char text[32];
        uint32_t lens[] = {0, 1, 4, sizeof text};
        FZ(CODES(P), aclplatformGetDeviceInfo((aclplatformDevInfo)((int)soak_pick(rng, 20) - 1),
                                              fz_maybe(z, text), lens[soak_pick(rng, 4)]));
        const char *instr[] = {"Intrinsic_vadd", "Intrinsic_vexp", "nope", NULL};
        FZ(CODES(P), aclplatformGetInstructionInfo((aclplatformCoreType)soak_pick(rng, 3), instr[soak_pick(rng, 4)],
                                                   fz_maybe(z, text), lens[soak_pick(rng, 4)]));
        break;
    }
    case 103: {
        /*
         * Host registration, managed memory, cache maintenance and memory pools: each object made here goes
         * before the case ends (a registration, a managed allocation, a pool), whatever the calls in between did.
         */
        aclrtStream cs = soak_pick(rng, 4) ? z->work : fz_garbage(z);
        (void)aclrtSetCurrentContext(g_ctx);
        void *junk = fz_garbage(z);
        switch (soak_pick(rng, 4)) {
        case 0: {
            size_t pg = (size_t)sysconf(_SC_PAGESIZE);
            void *buf = NULL;
            if (posix_memalign(&buf, pg, 2 * pg) != 0)
                break;
            void *dev = NULL;
            uint32_t flags[] = {ACL_HOST_REG_MAPPED, ACL_HOST_REG_PINNED, 0, ACL_HOST_REG_READONLY, 0x1};
            if (soak_pick(rng, 2))
                FZ(CODES(P, R, F), aclrtHostRegisterV2(fz_maybe(z, (char *)buf + (soak_pick(rng, 4) == 0 ? 8 : 0)),
                                                       (uint64_t)soak_pick(rng, 3) * pg, flags[soak_pick(rng, 5)]));
            else
                FZ(CODES(P, R, F), aclrtHostRegister(fz_maybe(z, buf), pg, (aclrtHostRegisterType)(soak_pick(rng, 3) * 4),
                                                     fz_maybe(z, &dev)));
            FZ(CODES(P, R), aclrtHostGetDevicePointer(soak_pick(rng, 4) ? buf : junk, fz_maybe(z, &dev), (uint32_t)soak_pick(rng, 2)));
            FZ(CODES(P, R), aclrtHostUnregister(soak_pick(rng, 6) ? buf : junk));
            (void)aclrtHostUnregister(buf); /* whatever happened above: nothing stays registered */
            free(buf);
            aclrtHostMemMapCapability cap;
            FZ(CODES(P, R, DV), aclrtHostMemMapCapabilities((uint32_t)devices[soak_pick(rng, 6)],
                                                            (aclrtHacType)soak_pick(rng, 11), fz_maybe(z, &cap)));
            break;
        }
        case 1: {
            void *m = NULL;
            size_t mib2 = (size_t)2 << 20;
            FZ(CODES(P, R), aclrtMemAllocManaged(fz_maybe(z, &m), sizes[soak_pick(rng, 4)], (uint32_t)soak_pick(rng, 2)));
            void *target = m != NULL && soak_pick(rng, 4) ? m : junk;
            aclrtMemManagedLocation loc = {(aclrtMemManagedLocationType)soak_pick(rng, 6), devices[soak_pick(rng, 6)]};
            uint64_t len = soak_pick(rng, 4) ? mib2 : sizes[soak_pick(rng, 4)];
            FZ(CODES(P, R), aclrtMemManagedAdvise(target, len, (aclrtMemManagedAdviseType)soak_pick(rng, 7), loc));
            int32_t v[2];
            aclrtMemManagedRangeAttribute at = (aclrtMemManagedRangeAttribute)soak_pick(rng, 10);
            FZ(CODES(P, R), aclrtMemManagedGetAttr(at, target, len, fz_maybe(z, v), soak_pick(rng, 3) * 4));
            void *data[1] = {v};
            size_t dsz[1] = {4};
            FZ(CODES(P, R), aclrtMemManagedGetAttrs(fz_maybe(z, &at), 1, target, len, data, fz_maybe(z, dsz)));
            FZ(CODES(SUBMIT, R), aclrtMemManagedPrefetchAsync(target, len, loc, (uint32_t)soak_pick(rng, 2), cs));
            const void *ptrs[1] = {target};
            size_t psz[1] = {len}, idx[1] = {soak_pick(rng, 2)};
            FZ(CODES(SUBMIT, R), aclrtMemManagedPrefetchBatchAsync(ptrs, psz, soak_pick(rng, 2), &loc, idx, 1,
                                                                   soak_pick(rng, 2), cs));
            if (m != NULL)
                FZ(CODES(-2), aclrtFree(m)); /* a prefetch keeps nothing of it */
            break;
        }
        case 2: {
            void *list[2] = {z->kernel_mem != NULL ? (void *)z->kernel_mem : junk, soak_pick(rng, 2) ? junk : z->pinned_a};
            uint32_t res;
            FZ(CODES(P, R), aclrtCheckMemType(fz_maybe(z, list), (uint32_t)soak_pick(rng, 3), (uint32_t)soak_rng(rng) & 0x1A,
                                              fz_maybe(z, &res), (uint32_t)soak_pick(rng, 2)));
            FZ(CODES(P), aclrtMemFlush(fz_maybe(z, junk), sizes[soak_pick(rng, 4)]));
            FZ(CODES(P), aclrtMemInvalidate(fz_maybe(z, junk), sizes[soak_pick(rng, 4)]));
            FZ(CODES(P, CN), aclrtDeviceL2CacheFlush(soak_pick(rng, 4) ? NULL : junk));
            void *target = soak_pick(rng, 2) && z->task_mem != NULL ? (void *)z->task_mem : junk;
            aclrtCmoType ct = (aclrtCmoType)soak_pick(rng, 5);
            FZ(CODES(SUBMIT, R), aclrtCmoAsync(target, sizes[soak_pick(rng, 4)], ct, cs));
            FZ(CODES(SUBMIT, R), aclrtCmoAsyncWithBarrier(target, sizes[soak_pick(rng, 4)], ct, (uint32_t)soak_pick(rng, 2), cs));
            aclrtBarrierTaskInfo bi = {soak_pick(rng, 3), {{(aclrtCmoType)soak_pick(rng, 4), (uint32_t)soak_pick(rng, 2)}}};
            FZ(CODES(SUBMIT, R), aclrtCmoWaitBarrier(fz_maybe(z, &bi), cs, (uint32_t)soak_pick(rng, 2)));
            size_t dsz;
            FZ(CODES(P), aclrtCmoGetDescSize(fz_maybe(z, &dsz)));
            if (z->cmo_desc == NULL && aclrtMalloc(&z->cmo_desc, 64, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
                break;
            void *desc = soak_pick(rng, 4) ? z->cmo_desc : junk;
            FZ(CODES(P, R), aclrtCmoSetDesc(fz_maybe(z, desc), target, sizes[soak_pick(rng, 4)]));
            FZ(CODES(SUBMIT, R), aclrtCmoAsyncWithDesc(fz_maybe(z, desc), ct, cs, soak_pick(rng, 6) ? NULL : junk));
            break;
        }
        default: {
            aclrtMemPoolProps props;
            memset(&props, 0, sizeof props);
            props.handleType = (aclrtMemHandleType)(soak_pick(rng, 6) ? 0 : 2);
            props.location.type = (aclrtMemLocationType)(soak_pick(rng, 6) ? ACL_MEM_LOCATION_TYPE_DEVICE : 0);
            props.location.id = (uint32_t)(soak_pick(rng, 4) ? SOAK_DEV_FUZZ : devices[soak_pick(rng, 6)]);
            props.maxSize = soak_pick(rng, 2) ? 0 : 4096;
            aclrtMemPool pool = NULL;
            FZ(CODES(P, R, F, DV), aclrtMemPoolCreate(fz_maybe(z, &pool), fz_maybe(z, &props)));
            void *use = pool != NULL && soak_pick(rng, 6) ? pool : junk;
            void *a = NULL, *b = NULL;
            FZ(CODES(SUBMIT, R, ACL_ERROR_RT_MEMORY_ALLOCATION), aclrtMemPoolMallocAsync(fz_maybe(z, &a), sizes[soak_pick(rng, 4)] * 512, use, cs));
            FZ(CODES(SUBMIT, R, ACL_ERROR_RT_MEMORY_ALLOCATION), aclrtMemPoolMallocAsync(&b, 64, use, z->work));
            uint64_t val = soak_pick(rng, 2) ? 0 : 1;
            aclrtMemPoolAttr pa = (aclrtMemPoolAttr)soak_pick(rng, 10);
            FZ(CODES(P, R), aclrtMemPoolSetAttr(use, pa, fz_maybe(z, &val)));
            FZ(CODES(P, R), aclrtMemPoolGetAttr(use, pa, fz_maybe(z, &val)));
            FZ(CODES(SUBMIT, R), aclrtMemPoolFreeAsync(soak_pick(rng, 6) ? a : junk, cs));
            FZ(CODES(P, R), aclrtMemPoolTrimTo(use, sizes[soak_pick(rng, 4)]));
            (void)aclrtMemPoolFreeAsync(a, z->work);
            (void)aclrtMemPoolFreeAsync(b, z->work);
            if (pool != NULL)
                FZ(CODES(-2), aclrtMemPoolDestroy(pool));
            FZ(CODES(P, R), aclrtMemPoolDestroy(junk));
            break;
        }
        }
        break;
    }
    case 104: {
        /* Shared buffers: data, lengths, user data, reference copies and chains; garbage and freed handles. */
        aclrtMbuf mb = NULL, mc = NULL, mx = NULL;
        size_t bsizes[] = {0, 1, 64, (size_t)5 << 30};
        void *bd;
        size_t bs, bl;
        uint32_t bn;
        unsigned char ud[100];
        memset(ud, 0, sizeof ud);
        if (soak_pick(rng, 2))
            FZ(CODES(P, ACL_ERROR_BAD_ALLOC), aclrtAllocBuf(fz_maybe(z, &mb), bsizes[soak_pick(rng, 4)]));
        else
            FZ(CODES(P, ACL_ERROR_BAD_ALLOC),
               acltdtAllocBuf(bsizes[soak_pick(rng, 4)], (uint32_t)soak_pick(rng, 3), fz_maybe(z, &mb)));
        aclrtMbuf use = mb != NULL && soak_pick(rng, 6) ? mb : fz_garbage(z);
        FZ(CODES(P), aclrtGetBufData(use, fz_maybe(z, &bd), &bs));
        FZ(CODES(P), acltdtGetBufData(use, &bd, fz_maybe(z, &bs)));
        FZ(CODES(P), aclrtSetBufDataLen(use, sizes[soak_pick(rng, 4)]));
        FZ(CODES(P), acltdtSetBufDataLen(use, sizes[soak_pick(rng, 4)]));
        FZ(CODES(P), aclrtGetBufDataLen(use, fz_maybe(z, &bl)));
        FZ(CODES(P), acltdtGetBufDataLen(use, fz_maybe(z, &bl)));
        size_t usz = soak_pick(rng, 100), uoff = soak_pick(rng, 100);
        FZ(CODES(P), aclrtSetBufUserData(use, fz_maybe(z, ud), usz, uoff));
        FZ(CODES(P), acltdtSetBufUserData(use, fz_maybe(z, ud), usz, uoff));
        FZ(CODES(P), aclrtGetBufUserData(use, fz_maybe(z, ud), usz, uoff));
        FZ(CODES(P), acltdtGetBufUserData(use, fz_maybe(z, ud), usz, uoff));
        if (soak_pick(rng, 2))
            FZ(CODES(P, ACL_ERROR_BAD_ALLOC), aclrtCopyBufRef(use, fz_maybe(z, &mc)));
        else
            FZ(CODES(P, ACL_ERROR_BAD_ALLOC), acltdtCopyBufRef(use, fz_maybe(z, &mc)));
        if (mc != NULL && soak_pick(rng, 2))
            FZ(CODES(P), aclrtAppendBufChain(use, mc));
        else if (mc != NULL)
            FZ(CODES(P), acltdtAppendBufChain(use, mc));
        FZ(CODES(P), aclrtGetBufChainNum(use, fz_maybe(z, &bn)));
        FZ(CODES(P), acltdtGetBufChainNum(use, fz_maybe(z, &bn)));
        FZ(CODES(P), aclrtGetBufFromChain(use, (uint32_t)soak_pick(rng, 3), fz_maybe(z, &mx)));
        FZ(CODES(P), acltdtGetBufFromChain(use, (uint32_t)soak_pick(rng, 3), fz_maybe(z, &mx)));
        /* A member is refused; the head frees the chain; a copy left outside is freed on its own. */
        if (mc != NULL)
            FZ(CODES(P), acltdtFreeBuf(mc));
        if (mb != NULL)
            FZ(CODES(P), aclrtFreeBuf(mb));
        FZ(CODES(P), aclrtFreeBuf(soak_pick(rng, 2) ? mb : fz_garbage(z))); /* freed, or garbage: refused */
        break;
    }
    case 105: {
        /* Queues: attributes, messages with short timeouts, routes between this thread's queues, grants. */
        const int32_t qtimeouts[] = {-2, 0, 1};
        int32_t qt = qtimeouts[soak_pick(rng, 3)];
        unsigned char qbuf[FZ_BUF];
        memset(qbuf, 0, sizeof qbuf);
        acltdtQueueAttr *qa = acltdtCreateQueueAttr();
        fz_cover("acltdtCreateQueueAttr");
        uint32_t qdepth = (uint32_t)soak_pick(rng, 4), qids[2] = {UINT32_MAX, UINT32_MAX}, perm;
        size_t qret;
        const char *qname = soak_pick(rng, 4) ? NULL : "fuzz_queue";
        FZ(CODES(P), acltdtSetQueueAttr(fz_maybe(z, qa), ACL_TDT_QUEUE_DEPTH_UINT32, sizeof qdepth, &qdepth));
        if (qname != NULL)
            FZ(CODES(P), acltdtSetQueueAttr(qa, (acltdtQueueAttrType)soak_pick(rng, 3), sizeof qname, &qname));
        FZ(CODES(P), acltdtGetQueueAttr(qa, (acltdtQueueAttrType)soak_pick(rng, 3), sizes[soak_pick(rng, 4)],
                                        fz_maybe(z, &qret), qbuf));
        for (int i = 0; i < 2; i++)
            FZ(CODES(P, ACL_ERROR_FAILURE), acltdtCreateQueue(soak_pick(rng, 8) ? qa : NULL, fz_maybe(z, &qids[i])));
        FZ(CODES(P), acltdtDestroyQueueAttr(qa));
        uint32_t q = soak_pick(rng, 6) ? qids[0] : (uint32_t)soak_rng(rng);
        const int *QC = SOAK_CODES(P, ACL_ERROR_RT_QUEUE_EMPTY, ACL_ERROR_RT_QUEUE_FULL, ACL_ERROR_RT_NO_PERMISSION);
        FZ(QC, acltdtEnqueueData(q, fz_maybe(z, qbuf), sizes[soak_pick(rng, 4)], qbuf,
                                 (size_t)soak_pick(rng, 100), qt, 0));
        size_t qn;
        FZ(QC, acltdtDequeueData(q, fz_maybe(z, qbuf), sizes[soak_pick(rng, 4)], fz_maybe(z, &qn), qbuf,
                                 (size_t)soak_pick(rng, 100), qt));
        acltdtBuf qb = NULL;
        if (acltdtAllocBuf(16, ACL_TDT_NORMAL_MEM, &qb) == ACL_SUCCESS) {
            FZ(QC, acltdtEnqueue(q, soak_pick(rng, 6) ? qb : fz_garbage(z), qt));
            if (last_rc != ACL_SUCCESS)
                (void)acltdtFreeBuf(qb);
        }
        acltdtBuf qo = NULL;
        FZ(QC, acltdtDequeue(q, fz_maybe(z, &qo), qt));
        if (last_rc == ACL_SUCCESS)
            (void)acltdtFreeBuf(qo);
        FZ(QC, acltdtGrantQueue(q, soak_pick(rng, 4) ? (int32_t)getpid() : -1, (uint32_t)soak_pick(rng, 9), qt));
        FZ(QC, acltdtAttachQueue(q, qt < 0 ? qt : 0, fz_maybe(z, &perm)));
        /* Routes: objects, a bind between the two queues (or garbage ids), a query, an unbind. */
        acltdtQueueRoute *rt = acltdtCreateQueueRoute(qids[0], soak_pick(rng, 6) ? qids[1] : qids[0]);
        fz_cover("acltdtCreateQueueRoute");
        acltdtQueueRouteList *rl = acltdtCreateQueueRouteList();
        fz_cover("acltdtCreateQueueRouteList");
        FZ(CODES(P), acltdtGetQueueRouteParam(fz_maybe(z, rt), (acltdtQueueRouteParamType)soak_pick(rng, 4),
                                              sizes[soak_pick(rng, 4)], &qret, qbuf));
        FZ(CODES(P), acltdtAddQueueRoute(fz_maybe(z, rl), rt));
        FZ(CODES(P, ACL_ERROR_FAILURE), acltdtBindQueueRoutes(fz_maybe(z, rl)));
        FZ(CODES(P), acltdtGetQueueRoute(rl, soak_pick(rng, 2), fz_maybe(z, rt)));
        (void)acltdtGetQueueRouteNum(soak_pick(rng, 4) ? rl : NULL);
        fz_cover("acltdtGetQueueRouteNum");
        acltdtQueueRouteQueryInfo *qi = acltdtCreateQueueRouteQueryInfo();
        fz_cover("acltdtCreateQueueRouteQueryInfo");
        acltdtQueueRouteQueryMode qm = (acltdtQueueRouteQueryMode)(soak_pick(rng, 4) ? soak_pick(rng, 3) : 100);
        FZ(CODES(P), acltdtSetQueueRouteQueryInfo(fz_maybe(z, qi), ACL_TDT_QUEUE_ROUTE_QUERY_MODE_ENUM, sizeof qm, &qm));
        FZ(CODES(P), acltdtSetQueueRouteQueryInfo(qi, (acltdtQueueRouteQueryInfoParamType)soak_pick(rng, 4),
                                                  sizeof qids[0], &qids[soak_pick(rng, 2)]));
        FZ(CODES(P, ACL_ERROR_BAD_ALLOC), acltdtQueryQueueRoutes(fz_maybe(z, qi), rl));
        FZ(CODES(P), acltdtUnbindQueueRoutes(fz_maybe(z, rl)));
        FZ(CODES(P), acltdtDestroyQueueRouteQueryInfo(qi));
        FZ(CODES(P), acltdtDestroyQueueRouteList(rl));
        FZ(CODES(P), acltdtDestroyQueueRoute(rt));
        for (int i = 0; i < 2; i++)
            FZ(CODES(P, ACL_ERROR_RT_NO_PERMISSION), acltdtDestroyQueue(qids[i]));
        break;
    }
    case 106: {
        /*
         * The dump configuration and acl_dump.h. A dump is switched on only into this process's directory under
         * /tmp and off again before the case ends: the kernels other threads run meanwhile write their arguments
         * there, and fail no call. The directory goes at the end (a writer that comes late makes it again).
         * One fuzz thread at a time: acldumpGetPath's string is the configuration's own, valid until the
         * configuration changes, so its reader must not race another thread's aclmdlSetDump (SEMANTICS.md).
         */
        static pthread_mutex_t dump_lock = PTHREAD_MUTEX_INITIALIZER;
        pthread_mutex_lock(&dump_lock);
        char dir[64], cfgf[96], text[256];
        snprintf(dir, sizeof dir, "/tmp/aclrt_fuzz_dump.%d", (int)getpid());
        snprintf(cfgf, sizeof cfgf, "%s.%lu.json", dir, (unsigned long)soak_rng(rng));
        static const char *const bodies[] = {
            "{\"dump\": {\"dump_path\": \"%s\", \"dump_op_switch\": \"on\"}}",
            "{\"dump\": {\"dump_path\": \"%s\", \"dump_list\": [{\"layer\": [\"fill\"]}]}}",
            "{\"dump\": {\"dump_path\": \"%s\", \"dump_scene\": \"aic_err_brief_dump\"}}",
            "{\"dump\": {\"dump_path\": \"%s\", \"dump_mode\": \"sideways\"}}",
            "{\"dump\": {\"dump_path\": \"%s\",, }}",
            "{\"nodump\": \"%s\"}",
        };
        snprintf(text, sizeof text, bodies[soak_pick(rng, 6)], dir);
        FILE *f = fopen(cfgf, "w");
        if (f != NULL) {
            fputs(text, f);
            fclose(f);
        }
        const aclError U = ACL_ERROR_UNINITIALIZE, NR = ACL_ERROR_DUMP_NOT_RUN;
        FZ(CODES(ACL_ERROR_REPEAT_INITIALIZE, U), aclmdlInitDump());
        const char *paths[] = {cfgf, "/nonexistent/dump.json", NULL};
        FZ(CODES(P, U, NR, ACL_ERROR_INVALID_DUMP_CONFIG, ACL_ERROR_PARSE_FILE, ACL_ERROR_INVALID_FILE),
           aclmdlSetDump(paths[soak_pick(rng, 3)]));
        fz_cover("acldumpGetPath"); /* a pointer, not a code: checked here */
        const char *got = acldumpGetPath((acldumpType)soak_pick(rng, 7));
        if (got != NULL && strncmp(got, "/tmp/", 5) != 0 && got[0] == '/')
            soak_violation(SV_FUZZ, "acldumpGetPath gave '%s', not a directory the fuzzer configured", got);
        char ep[512];
        FZ(CODES(P, CN, ACL_ERROR_FAILURE), acldumpGetExceptionInfoPath(fz_maybe(z, ep), soak_pick(rng, 4) ? sizeof ep : 1));
        acldumpTensorInfo t[2]; /* a count of 0, 1 or 2: never more tensors than the array holds */
        memset(t, 0, sizeof t);
        t[0].tensorSize = soak_pick(rng, 2) ? 16 : 0;
        t[0].tensorAddr = (int64_t *)(z->kernel_mem != NULL && soak_pick(rng, 4) ? (void *)z->kernel_mem : fz_garbage(z));
        t[0].addrType = (acldumpTensorAddressType)(soak_pick(rng, 4) ? ACL_DUMP_ADDR_RAW : soak_pick(rng, 4));
        t[0].placement = (acldumpTensorPlacement)(soak_pick(rng, 4) ? 0 : soak_pick(rng, 4));
        t[0].shapeNum = (uint32_t)soak_pick(rng, 27);
        t[1] = t[0];
        const char *names[] = {"fz", "a/../b", "", "/abs", "d/fz"};
        FZ(CODES(P, CN, ACL_ERROR_FAILURE),
           acldumpSaveExceptionInfo(soak_pick(rng, 8) ? names[soak_pick(rng, 5)] : NULL, soak_pick(rng, 2) ? "tag" : NULL,
                                    fz_maybe(z, t), soak_pick(rng, 3)));
        uint32_t types[] = {ACL_OP_DUMP_OP_AICORE_ARGS, 0, 2, 0xFFFFFFFFu};
        const char *apaths[] = {dir, "", NULL};
        FZ(CODES(ACL_ERROR_FAILURE), aclopStartDumpArgs(types[soak_pick(rng, 4)], apaths[soak_pick(rng, 3)]));
        (void)aclrtSetCurrentContext(g_ctx);
        FZ(CODES(-2), aclrtLaunchHostFunc(z->work, fz_noop, NULL));
        FZ(CODES(ACL_ERROR_FAILURE), aclopStopDumpArgs(types[soak_pick(rng, 4)]));
        (void)aclopStopDumpArgs(ACL_OP_DUMP_OP_AICORE_ARGS); /* whatever happened above: off */
        FZ(CODES(U, NR), aclmdlFinalizeDump());
        (void)aclmdlFinalizeDump();
        remove(cfgf);
        (void)nftw(dir, fz_dump_remove, 8, FTW_DEPTH | FTW_PHYS);
        pthread_mutex_unlock(&dump_lock);
        break;
    }
    case 107: {
        /*
         * Snapshots: the error paths only (calls out of order, bad pids and reserved arguments, bad stages and
         * callbacks) and callbacks registered and removed. No Lock that succeeds: it drains every device's work
         * (up to 60 s) while it holds the launches of every other fuzz thread, and that work may wait for an
         * event or notify only a held thread would record, well past the soak's bound on a blocking call. With
         * no thread locking, the process stays RUNNING, so Unlock, Backup and Restore are always out of order.
         */
        int pid = (int)getpid();
        void *junk = fz_garbage(z);
        FZ(CODES(P), aclrtSnapShotProcessLock(soak_pick(rng, 2) ? pid + 1 : -1, fz_maybe(z, junk)));
        FZ(CODES(P), aclrtSnapShotProcessLock(pid, junk != NULL ? junk : (void *)z));
        FZ(CODES(P, ACL_ERROR_SNAPSHOT_UNLOCK_FAILED), aclrtSnapShotProcessUnlock(soak_pick(rng, 4) ? pid : 0,
                                                                                  soak_pick(rng, 4) ? NULL : junk));
        aclrtSnapShotBackupArgs ba;
        memset(&ba, 0, sizeof ba);
        ba.backupFlags = (uint32_t)soak_pick(rng, 2);
        FZ(CODES(P, ACL_ERROR_SNAPSHOT_BACKUP_FAILED), aclrtSnapShotProcessBackup(soak_pick(rng, 4) ? pid : 0,
                                                                                  fz_maybe(z, &ba)));
        aclrtSnapShotRestoreArgs ra;
        memset(&ra, 0, sizeof ra);
        ra.reserved[soak_pick(rng, 60)] = (char)soak_pick(rng, 2);
        FZ(CODES(P, ACL_ERROR_SNAPSHOT_RESTORE_FAILED), aclrtSnapShotProcessRestore(soak_pick(rng, 4) ? pid : 0,
                                                                                    fz_maybe(z, &ra)));
        aclrtSnapShotStage st = (aclrtSnapShotStage)((int)soak_pick(rng, 8) - 1);
        aclrtSnapShotCallBack cb = soak_pick(rng, 6) ? fz_snapshot_cb : NULL;
        /* Another thread may hold the same registration: a second one is refused, its removal may come first. */
        FZ(CODES(R, ACL_ERROR_SNAPSHOT_REGISTER_CALLBACK_FAILED), aclrtSnapShotCallbackRegister(st, cb, z));
        FZ(CODES(R), aclrtSnapShotCallbackUnregister(st, cb));
        FZ(CODES(R), aclrtSnapShotCallbackUnregister((aclrtSnapShotStage)soak_pick(rng, 6), fz_snapshot_cb));
        break;
    }
    default: {
        /* Counted work, which must all run. */
        (void)aclrtSetCurrentContext(g_ctx);
        FZ(CODES(-2), aclrtLaunchHostFunc(z->work, fz_count_fn, z));
        if (last_rc == ACL_SUCCESS)
            z->counted_launched++;
        break;
    }
    }
}

void *fuzz_thread(void *arg)
{
    intptr_t id = (intptr_t)arg;
    struct soak_thread *me = soak_thread_register("fuzz %d", (int)id);
    atomic_store(&me->signalable, 1);
    if (!fz_ready || soak_skipped("fuzz"))
        return NULL;
    struct fz *z = &fz_threads[id];
    (void)aclrtSetCurrentContext(g_ctx);
    while (soak_running())
        fz_one_call(z);
    (void)aclrtSetCurrentContext(g_ctx);
    return NULL;
}

void fuzz_finish(void)
{
    if (!fz_ready)
        return;
    pthread_once(&fz_prof_once, fz_prof_name);
    {
        (void)aclprofFinalize();
        fz_prof_clean();
        rmdir(fz_prof_dir);
    }
    (void)aclrtSetCurrentContext(g_ctx);
    for (int t = 0; t < 2; t++) {
        struct fz *z = &fz_threads[t];
        aclError rc = SOAK_BLOCKING("aclrtSynchronizeStream (fuzz work)", -1, aclrtSynchronizeStream(z->work));
        if (!soak_code_in(rc, SOAK_CODES(ASYNC)))
            soak_violation(SV_FUZZ, "fuzz thread %d: synchronizing its work stream returned %d", t, rc);
        if (atomic_load(&z->counted) != z->counted_launched)
            soak_violation(SV_FUZZ, "fuzz thread %d: %ld counted tasks launched between the random calls, %ld ran", t,
                           z->counted_launched, atomic_load(&z->counted));
    }
    (void)aclrtExceptionInfoCallbackUnregister(fz_exception_cb);
    (void)aclrtExceptionInfoCallbackUnregister(fz_exception_cb2);
    (void)aclrtSetExceptionInfoCallback(NULL);
    (void)aclrtRegStreamStateCallback("soakfuzz", NULL, NULL);
    (void)aclrtRegStreamStateCallback("soakfuzz2", NULL, NULL);
    (void)aclrtRegDeviceStateCallback("soakfuzz", NULL, NULL);
    (void)aclrtRegDeviceStateCallback("soakfuzz2", NULL, NULL);
    (void)aclrtSetDeviceTaskAbortCallback("soakfuzz", NULL, NULL);
    (void)aclGetRecentErrMsg();
}

/* The lifecycle-order child ran (in its own process): the functions only it calls count as exercised. */
void fuzz_note_lifecycle_ran(void)
{
    fz_cover("aclInit");
    fz_cover("aclFinalize");
    fz_cover("aclFinalizeReference");
}

void fuzz_summary(void)
{
    if (!fz_ready)
        return;
    int covered = 0;
    for (int i = 0; i < FZ_NFUNCS; i++)
        covered += atomic_load(&fz_covered[i]) != 0;
    printf("fuzz: %ld calls succeeded, %ld failed (%d distinct codes), %ld undocumented codes, %ld failures without "
           "their message line; exceptions heard %ld (%ld with bad ids); %d of %d public functions exercised",
           atomic_load(&fz_ok), atomic_load(&fz_failed), atomic_load(&fz_ncodes), atomic_load(&fz_bad_codes),
           atomic_load(&fz_unnamed), atomic_load(&fz_exceptions), atomic_load(&fz_exception_bad), covered, FZ_NFUNCS);
    if (covered < FZ_NFUNCS) {
        printf(" (not:");
        for (int i = 0; i < FZ_NFUNCS; i++)
            if (atomic_load(&fz_covered[i]) == 0)
                printf(" %s", fz_functions[i]);
        printf(")");
    }
    printf("\n");
}

/* ------------------------------------------------------------------------
 * Wrong call orders of the lifecycle functions, in a fresh process.
 * ------------------------------------------------------------------------ */

static void ex_count_fn_for_lifecycle(void *arg)
{
    atomic_fetch_add((atomic_long *)arg, 1);
}

int fuzz_lifecycle_child(uint64_t seed)
{
    uint64_t rng = seed ^ 0x11FEC7C1Eull;
    int bad = 0;
    void *handles[32] = {0}; /* streams, events, contexts from this and earlier lives (stale after finalize) */
    int nh = 0;
    atomic_long ran = 0;
    const int *codes = SOAK_CODES(P, H, R, F, CN, SC, DV, ACL_ERROR_REPEAT_INITIALIZE, ACL_ERROR_REPEAT_FINALIZE,
                                  ACL_ERROR_UNINITIALIZE, ACL_ERROR_INVALID_FILE, QUOTA, ASYNC,
                                  ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, ACL_ERROR_RT_EVENT_SYNC_TIMEOUT);
    for (int i = 0; i < 400; i++) {
        void *h = nh > 0 ? handles[soak_pick(&rng, (uint64_t)nh)] : NULL;
        void *out = NULL;
        aclError rc;
        const char *what;
        switch (soak_pick(&rng, 18)) {
        case 0: what = "aclInit"; rc = aclInit(soak_pick(&rng, 4) ? NULL : "/nonexistent/aclrt.json"); break;
        case 1: what = "aclFinalize"; rc = aclFinalize(); break;
        case 2: {
            uint64_t ref;
            what = "aclFinalizeReference";
            rc = aclFinalizeReference(soak_pick(&rng, 2) ? &ref : NULL);
            break;
        }
        case 3: what = "aclrtSetDevice"; rc = aclrtSetDevice((int32_t)soak_pick(&rng, 3) - 1); break;
        case 4: what = "aclrtResetDevice"; rc = aclrtResetDevice((int32_t)soak_pick(&rng, 3) - 1); break;
        case 5: what = "aclrtResetDeviceForce"; rc = aclrtResetDeviceForce((int32_t)soak_pick(&rng, 3) - 1); break;
        case 6: what = "aclrtCreateContext"; rc = aclrtCreateContext(&out, (int32_t)soak_pick(&rng, 2)); break;
        case 7: what = "aclrtDestroyContext"; rc = aclrtDestroyContext(h); break;
        case 8: what = "aclrtSetCurrentContext"; rc = aclrtSetCurrentContext(h); break;
        case 9: what = "aclrtCreateStream"; rc = aclrtCreateStream(&out); break;
        case 10: what = "aclrtDestroyStream"; rc = aclrtDestroyStream(h); break;
        case 11: what = "aclrtCreateEventExWithFlag"; rc = aclrtCreateEventExWithFlag(&out, ACL_EVENT_SYNC); break;
        case 12: what = "aclrtRecordEvent"; rc = aclrtRecordEvent(h, nh ? handles[soak_pick(&rng, (uint64_t)nh)] : NULL); break;
        case 13: what = "aclrtSynchronizeEventWithTimeout"; rc = aclrtSynchronizeEventWithTimeout(h, 5000); break;
        case 14: what = "aclrtLaunchHostFunc"; rc = aclrtLaunchHostFunc(h, ex_count_fn_for_lifecycle, &ran); break;
        case 15: what = "aclrtSynchronizeStreamWithTimeout"; rc = aclrtSynchronizeStreamWithTimeout(h, 5000); break;
        case 16: what = "aclrtSynchronizeDeviceWithTimeout"; rc = aclrtSynchronizeDeviceWithTimeout(5000); break;
        default: what = "aclrtDestroyEvent"; rc = aclrtDestroyEvent(h); break;
        }
        if (!soak_code_in(rc, codes)) {
            fprintf(stderr, "lifecycle child (seed %llu): call %d, %s returned %d: %s\n", (unsigned long long)seed, i,
                    what, rc, aclGetRecentErrMsg());
            bad++;
        }
        if (rc == ACL_SUCCESS && out != NULL) {
            if (nh < 32)
                handles[nh++] = out;
            else
                handles[soak_pick(&rng, 32)] = out;
        }
        (void)aclGetRecentErrMsg();
    }
    aclError rc = aclFinalize();
    if (rc != ACL_SUCCESS && rc != ACL_ERROR_REPEAT_FINALIZE) {
        fprintf(stderr, "lifecycle child: the last aclFinalize returned %d\n", rc);
        bad++;
    }
    return bad ? 1 : 0;
}

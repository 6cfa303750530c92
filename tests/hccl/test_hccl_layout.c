/*
 * tests/hccl/test_hccl_layout.c - pins the ABI of hccl/hccl_types.h and
 * hccl/hccl.h to CANN's: every enum value, every constant, the size and
 * member offsets of each struct, the parameter types of each function, and
 * what HcclCommConfigInit writes.
 *
 * The expected numbers are written out by hand on purpose: they are CANN's
 * (hccl_types.h, HcclCommConfig version 11, LP64), and a change to the
 * header that moves one of them breaks programs and libraries built against
 * the other side. Most checks are also compile-time assertions.
 *
 * The same file builds as C11 and as C++ (make check-hccl-layout: gcc
 * -std=c11 -pedantic, g++ -std=c++11 and -std=c++17). Nothing is linked
 * from the library: function types are compared without taking addresses.
 * Prints "hccl layout: ok (N checks)" and exits 0, or lists each mismatch
 * and exits 1.
 */
#include "hccl/hccl.h"

#include <stdio.h>
#include <string.h>

#ifdef __cplusplus
#include <type_traits>
#define PIN_STATIC(cond, what) static_assert(cond, what)
/* 1 when expression e has type t; e is not evaluated. */
#define HAS_TYPE(e, t) (std::is_same<decltype(e), t>::value)
#else
#define PIN_STATIC(cond, what) _Static_assert(cond, what)
#define HAS_TYPE(e, t) _Generic((e), t: 1, default: 0)
#endif

static int checks;
static int failures;

static void expect(int ok, const char *what, long long got, long long want)
{
    checks++;
    if (!ok) {
        failures++;
        printf("hccl layout: %s is %lld, expected %lld\n", what, got, want);
    }
}

/* A constant expression: checked by the compiler and counted at run time. */
#define PIN(expr, want)                                                        \
    do {                                                                       \
        PIN_STATIC((long long)(expr) == (long long)(want), #expr " == " #want); \
        expect((long long)(expr) == (long long)(want), #expr, (long long)(expr), (long long)(want)); \
    } while (0)

/* A value known only at run time. */
#define EXPECT(expr, want) expect((long long)(expr) == (long long)(want), #expr, (long long)(expr), (long long)(want))

/* An expression's type (constants keep the types of CANN's `const` objects). */
#define PIN_TYPE(e, t)                                          \
    do {                                                        \
        PIN_STATIC(HAS_TYPE(e, t), #e " has type " #t);          \
        expect(HAS_TYPE(e, t), #e " has type " #t, 0, 1);        \
    } while (0)

/* A function's type, parameter by parameter. */
#define PIN_FN(fn, ret, params) PIN_TYPE(&fn, ret(*) params)

#define SIZE(t, n) PIN(sizeof(t), n)
#define OFF(t, m, n) PIN(offsetof(t, m), n)

static void enums(void)
{
    /* HcclResult */
    PIN(HCCL_SUCCESS, 0);
    PIN(HCCL_E_PARA, 1);
    PIN(HCCL_E_PTR, 2);
    PIN(HCCL_E_MEMORY, 3);
    PIN(HCCL_E_INTERNAL, 4);
    PIN(HCCL_E_NOT_SUPPORT, 5);
    PIN(HCCL_E_NOT_FOUND, 6);
    PIN(HCCL_E_UNAVAIL, 7);
    PIN(HCCL_E_SYSCALL, 8);
    PIN(HCCL_E_TIMEOUT, 9);
    PIN(HCCL_E_OPEN_FILE_FAILURE, 10);
    PIN(HCCL_E_TCP_CONNECT, 11);
    PIN(HCCL_E_ROCE_CONNECT, 12);
    PIN(HCCL_E_TCP_TRANSFER, 13);
    PIN(HCCL_E_ROCE_TRANSFER, 14);
    PIN(HCCL_E_RUNTIME, 15);
    PIN(HCCL_E_DRV, 16);
    PIN(HCCL_E_PROFILING, 17);
    PIN(HCCL_E_CCE, 18);
    PIN(HCCL_E_NETWORK, 19);
    PIN(HCCL_E_AGAIN, 20);
    PIN(HCCL_E_REMOTE, 21);
    PIN(HCCL_E_SUSPENDING, 22);
    PIN(HCCL_E_OPRETRY_FAIL, 23);
    PIN(HCCL_E_OOM, 24);
    PIN(HCCL_E_IN_STATUS, 1041);
    PIN(HCCL_E_RESERVED, 1042);

    /* HcclReduceOp */
    PIN(HCCL_REDUCE_SUM, 0);
    PIN(HCCL_REDUCE_PROD, 1);
    PIN(HCCL_REDUCE_MAX, 2);
    PIN(HCCL_REDUCE_MIN, 3);
    PIN(HCCL_REDUCE_RESERVED, 255);

    /* HcclDataType (13 unassigned) */
    PIN(HCCL_DATA_TYPE_INT8, 0);
    PIN(HCCL_DATA_TYPE_INT16, 1);
    PIN(HCCL_DATA_TYPE_INT32, 2);
    PIN(HCCL_DATA_TYPE_FP16, 3);
    PIN(HCCL_DATA_TYPE_FP32, 4);
    PIN(HCCL_DATA_TYPE_INT64, 5);
    PIN(HCCL_DATA_TYPE_UINT64, 6);
    PIN(HCCL_DATA_TYPE_UINT8, 7);
    PIN(HCCL_DATA_TYPE_UINT16, 8);
    PIN(HCCL_DATA_TYPE_UINT32, 9);
    PIN(HCCL_DATA_TYPE_FP64, 10);
    PIN(HCCL_DATA_TYPE_BFP16, 11);
    PIN(HCCL_DATA_TYPE_INT128, 12);
    PIN(HCCL_DATA_TYPE_HIF8, 14);
    PIN(HCCL_DATA_TYPE_FP8E4M3, 15);
    PIN(HCCL_DATA_TYPE_FP8E5M2, 16);
    PIN(HCCL_DATA_TYPE_FP8E8M0, 17);
    PIN(HCCL_DATA_TYPE_RESERVED, 255);

    /* HcclConfig */
    PIN(HCCL_DETERMINISTIC, 0);
    PIN(HCCL_CONFIG_RESERVED, 1);

    /* HcclCommConfigCapability */
    PIN(HCCL_COMM_CONFIG_BUFFER_SIZE, 0);
    PIN(HCCL_COMM_CONFIG_DETERMINISTIC, 1);
    PIN(HCCL_COMM_CONFIG_COMM_NAME, 2);
    PIN(HCCL_COMM_CONFIG_OP_EXPANSION_MODE, 3);
    PIN(HCCL_COMM_CONFIG_SUPPORT_INIT_BY_ENV, 4);
    PIN(HCCL_COMM_CONFIG_WORLD_RANKID, 5);
    PIN(HCCL_COMM_CONFIG_JOBID, 6);
    PIN(HCCL_COMM_CONFIG_ACLGRAPH_ZEROCOPY_ENABLE, 7);
    PIN(HCCL_COMM_CONFIG_EXEC_TIMEOUT, 8);
    PIN(HCCL_COMM_CONFIG_ALGO, 9);
    PIN(HCCL_COMM_CONFIG_RETRY, 10);
    PIN(HCCL_COMM_CONFIG_BUFFER_NAME, 11);
    PIN(HCCL_COMM_CONFIG_RESERVED, 12);

    /* HcclSendRecvType */
    PIN(HCCL_SEND, 0);
    PIN(HCCL_RECV, 1);
    PIN(HCCL_SEND_RECV_RESERVED, 2);

    /* HcclCMDType */
    PIN(HCCL_CMD_INVALID, 0);
    PIN(HCCL_CMD_BROADCAST, 1);
    PIN(HCCL_CMD_ALLREDUCE, 2);
    PIN(HCCL_CMD_REDUCE, 3);
    PIN(HCCL_CMD_SEND, 4);
    PIN(HCCL_CMD_RECEIVE, 5);
    PIN(HCCL_CMD_ALLGATHER, 6);
    PIN(HCCL_CMD_REDUCE_SCATTER, 7);
    PIN(HCCL_CMD_ALLTOALLV, 8);
    PIN(HCCL_CMD_ALLTOALLVC, 9);
    PIN(HCCL_CMD_ALLTOALL, 10);
    PIN(HCCL_CMD_GATHER, 11);
    PIN(HCCL_CMD_SCATTER, 12);
    PIN(HCCL_CMD_BATCH_SEND_RECV, 13);
    PIN(HCCL_CMD_BATCH_PUT, 14);
    PIN(HCCL_CMD_BATCH_GET, 15);
    PIN(HCCL_CMD_ALLGATHER_V, 16);
    PIN(HCCL_CMD_REDUCE_SCATTER_V, 17);
    PIN(HCCL_CMD_BATCH_WRITE, 18);
    PIN(HCCL_CMD_HALF_ALLTOALLV, 20);
    PIN(HCCL_CMD_ALL, 21);
    PIN(HCCL_CMD_FINALIZE, 100);
    PIN(HCCL_CMD_INTER_GROUP_SYNC, 101);
    PIN(HCCL_CMD_INIT, 102);
    PIN(HCCL_CMD_BARRIER, 103);
    PIN(HCCL_CMD_MAX, 104);

    /* HcclCommStatus, HcclCommStatePhase */
    PIN(HCCL_COMM_STATUS_READY, 0);
    PIN(HCCL_COMM_STATUS_SUSPENDING, 1);
    PIN(HCCL_COMM_STATUS_INVALID, 254);
    PIN(HCCL_COMM_STATUS_RESERVED, 255);
    PIN(HCCL_COMM_STATE_PHASE_INVALID, -1);
    PIN(HCCL_COMM_STATE_PHASE_DESTROY_PRE, 0);
    PIN(HCCL_COMM_STATE_PHASE_DESTROY_POST, 1);
    PIN(HCCL_COMM_STATE_PHASE_RESUME_PRE, 2);
    PIN(HCCL_COMM_STATE_PHASE_RESUME_POST, 3);

    /* HcclOpExpansionMode, HcclConfigType */
    PIN(HCCL_OP_EXPANSION_MODE_INVALID, -1);
    PIN(HCCL_OP_EXPANSION_MODE_AI_CPU, 0);
    PIN(HCCL_OP_EXPANSION_MODE_AIV, 1);
    PIN(HCCL_OP_EXPANSION_MODE_HOST, 2);
    PIN(HCCL_OP_EXPANSION_MODE_HOST_TS, 3);
    PIN(HCCL_OP_EXPANSION_MODE_CCU_MS, 4);
    PIN(HCCL_OP_EXPANSION_MODE_CCU_SCHED, 5);
    PIN(HCCL_OP_EXPANSION_AIV_ONLY, 6);
    PIN(HCCL_CONFIG_TYPE_INVALID, -1);
    PIN(HCCL_CONFIG_TYPE_OP_EXPANSION_MODE, 0);
    PIN(HCCL_CONFIG_TYPE_HCCL_ALGO, 1);
    PIN(HCCL_CONFIG_TYPE_UB_MULTI_CHANNEL_NUM, 2);
}

static void constants(void)
{
    PIN(HCCL_ROOT_INFO_BYTES, 4108);
    PIN(COMM_NAME_MAX_LENGTH, 128);
    PIN(BUFFER_NAME_MAX_LENGTH, 128);
    PIN(UDI_MAX_LENGTH, 128);
    PIN(HCCL_COMM_ALGO_MAX_LENGTH, 1600);
    PIN(HCCL_COMM_RETRY_ENABLE_MAX_LENGTH, 50);
    PIN(HCCL_COMM_RETRY_PARAMS_MAX_LENGTH, 128);
    PIN(HCCL_COMM_CONFIG_INFO_BYTES, 24);
    PIN(HCCL_COMM_CONFIG_MAGIC_WORD, 0xf0f0f0f0LL);
    PIN(HCCL_COMM_CONFIG_VERSION, 11);
    PIN(HCCL_COMM_DEFAULT_BUFFSIZE, 200);
    PIN(HCCL_COMM_BUFFSIZE_CONFIG_NOT_SET, 0xffffffffLL);
    PIN(HCCL_COMM_DEFAULT_DETERMINISTIC, 0);
    PIN(HCCL_COMM_DETERMINISTIC_CONFIG_NOT_SET, 0xffffffffLL);
    PIN(HCCL_COMM_DEFAULT_OP_EXPANSION_MODE, 0);
    PIN(HCCL_COMM_TRAFFIC_CLASS_CONFIG_NOT_SET, 0xffffffffLL);
    PIN(HCCL_COMM_SERVICE_LEVEL_CONFIG_NOT_SET, 0xffffffffLL);
    PIN(HCCL_COMM_EXECTIMEOUT_CONFIG_NOT_SET, -1);
    PIN(HCCL_COMM_QOS_CONFIG_NOT_SET, 0xffffffffLL);
    PIN(HCCL_COMM_SQ_DEPTH_CONFIG_NOT_SET, 0xffffffffLL);
    PIN(HCCL_DEFAULT_SYMMETRIC_MEMORY_STRIDE, 16);

    PIN_TYPE(HCCL_ROOT_INFO_BYTES, uint32_t);
    PIN_TYPE(COMM_NAME_MAX_LENGTH, uint32_t);
    PIN_TYPE(HCCL_COMM_CONFIG_MAGIC_WORD, uint32_t);
    PIN_TYPE(HCCL_COMM_CONFIG_VERSION, uint32_t);
    PIN_TYPE(HCCL_COMM_BUFFSIZE_CONFIG_NOT_SET, uint32_t);
    PIN_TYPE(HCCL_COMM_EXECTIMEOUT_CONFIG_NOT_SET, int32_t);
    PIN_TYPE(HCCL_COMM_SQ_DEPTH_CONFIG_NOT_SET, uint32_t);
    PIN_TYPE(HCCL_DEFAULT_SYMMETRIC_MEMORY_STRIDE, uint64_t);
}

static void layout(void)
{
    /* The numbers below are LP64's; CANN ships for x86_64 and aarch64 only. */
    SIZE(void *, 8);
    SIZE(size_t, 8);

    SIZE(HcclResult, 4);
    SIZE(HcclDataType, 4);
    SIZE(HcclReduceOp, 4);
    SIZE(HcclSendRecvType, 4);
    SIZE(HcclCommConfigCapability, 4);
    SIZE(HcclComm, 8);
    SIZE(HcclConn, 8);
    SIZE(HcclCommSymWindow, 8);
    SIZE(HcclConfigValue, 4);

    SIZE(HcclRootInfo, 4108);
    SIZE(((HcclRootInfo *)0)->internal, 4108);
    OFF(HcclRootInfo, internal, 0);

    SIZE(HcclSendRecvItem, 32);
    OFF(HcclSendRecvItem, sendRecvType, 0);
    OFF(HcclSendRecvItem, buf, 8);
    OFF(HcclSendRecvItem, count, 16);
    OFF(HcclSendRecvItem, dataType, 24);
    OFF(HcclSendRecvItem, remoteRank, 28);

    SIZE(HcclCommConfig, 2248);
    OFF(HcclCommConfig, reserved, 0);
    OFF(HcclCommConfig, hcclBufferSize, 24);
    OFF(HcclCommConfig, hcclDeterministic, 28);
    OFF(HcclCommConfig, hcclCommName, 32);
    OFF(HcclCommConfig, hcclUdi, 160);
    OFF(HcclCommConfig, hcclOpExpansionMode, 288);
    OFF(HcclCommConfig, hcclRdmaTrafficClass, 292);
    OFF(HcclCommConfig, hcclRdmaServiceLevel, 296);
    OFF(HcclCommConfig, hcclWorldRankID, 300);
    OFF(HcclCommConfig, hcclJobID, 304);
    OFF(HcclCommConfig, aclGraphZeroCopyEnable, 312);
    OFF(HcclCommConfig, hcclExecTimeOut, 316);
    OFF(HcclCommConfig, hcclAlgo, 320);
    OFF(HcclCommConfig, hcclRetryEnable, 1920);
    OFF(HcclCommConfig, hcclRetryParams, 1970);
    OFF(HcclCommConfig, hcclBufferName, 2098);
    OFF(HcclCommConfig, hcclQos, 2228);
    OFF(HcclCommConfig, hcclSymWinMaxMemSizePerRank, 2232);
    OFF(HcclCommConfig, hcclChannelSqDepth, 2240);

    /* Member types: a member of another width with the same offset would still break the ABI. */
    {
        HcclCommConfig c;
        HcclSendRecvItem item;
        HcclConfigValue v;
        PIN_TYPE(c.hcclBufferSize, uint32_t);
        PIN_TYPE(c.hcclDeterministic, uint32_t);
        PIN_TYPE(c.hcclOpExpansionMode, uint32_t);
        PIN_TYPE(c.hcclRdmaTrafficClass, uint32_t);
        PIN_TYPE(c.hcclRdmaServiceLevel, uint32_t);
        PIN_TYPE(c.hcclWorldRankID, uint32_t);
        PIN_TYPE(c.hcclJobID, uint64_t);
        PIN_TYPE(c.aclGraphZeroCopyEnable, uint8_t);
        PIN_TYPE(c.hcclExecTimeOut, int32_t);
        PIN_TYPE(c.hcclQos, uint32_t);
        PIN_TYPE(c.hcclSymWinMaxMemSizePerRank, uint64_t);
        PIN_TYPE(c.hcclChannelSqDepth, uint32_t);
        SIZE(c.reserved, 24);
        SIZE(c.hcclCommName, 128);
        SIZE(c.hcclUdi, 128);
        SIZE(c.hcclAlgo, 1600);
        SIZE(c.hcclRetryEnable, 50);
        SIZE(c.hcclRetryParams, 128);
        SIZE(c.hcclBufferName, 128);
        PIN_TYPE(item.sendRecvType, HcclSendRecvType);
        PIN_TYPE(item.buf, void *);
        PIN_TYPE(item.count, uint64_t);
        PIN_TYPE(item.dataType, HcclDataType);
        PIN_TYPE(item.remoteRank, uint32_t);
        PIN_TYPE(v.value, int32_t);
    }
}

/* What HcclCommConfigInit writes, over a struct full of garbage. */
static void config_init(void)
{
    HcclCommConfig c;
    size_t size;
    uint32_t magic, version;
    uint64_t zero;

    memset(&c, 0x5a, sizeof c);
    HcclCommConfigInit(&c);
    memcpy(&size, c.reserved, 8);
    memcpy(&magic, c.reserved + 8, 4);
    memcpy(&version, c.reserved + 12, 4);
    memcpy(&zero, c.reserved + 16, 8);
    EXPECT(size, 2248);
    EXPECT(magic, 0xf0f0f0f0LL);
    EXPECT(version, 11);
    EXPECT(zero, 0);

    EXPECT(c.hcclBufferSize, 0xffffffffLL);
    EXPECT(c.hcclDeterministic, 0xffffffffLL);
    EXPECT(c.hcclCommName[0], 0);
    EXPECT(c.hcclUdi[0], 0);
    EXPECT(c.hcclOpExpansionMode, 0);
    EXPECT(c.hcclRdmaTrafficClass, 0xffffffffLL);
    EXPECT(c.hcclRdmaServiceLevel, 0xffffffffLL);
    EXPECT(c.hcclWorldRankID, 0);
    EXPECT(c.hcclJobID, 0);
    EXPECT(c.aclGraphZeroCopyEnable, 0);
    EXPECT(c.hcclExecTimeOut, -1);
    EXPECT(c.hcclAlgo[0], 0);
    EXPECT(c.hcclRetryEnable[0], 0);
    EXPECT(c.hcclRetryParams[0], 0);
    EXPECT(c.hcclBufferName[0], 0);
    EXPECT(c.hcclQos, 0xffffffffLL);
    EXPECT(c.hcclSymWinMaxMemSizePerRank, 16);
    EXPECT(c.hcclChannelSqDepth, 0xffffffffLL);

    HcclCommConfigInit(NULL); /* a no-op, as CANN's */
    EXPECT(1, 1);
}

/* Parameter lists exactly as CANN declares them. */
static void signatures(void)
{
    PIN_FN(HcclGetRootInfo, HcclResult, (HcclRootInfo *));
    PIN_FN(HcclCommInitRootInfo, HcclResult, (uint32_t, const HcclRootInfo *, uint32_t, HcclComm *));
    PIN_FN(HcclCommInitRootInfoConfig, HcclResult,
           (uint32_t, const HcclRootInfo *, uint32_t, const HcclCommConfig *, HcclComm *));
    PIN_FN(HcclGetRootInfoScalable, HcclResult, (HcclRootInfo *));
    PIN_FN(HcclCommInitRootInfoScalable, HcclResult,
           (uint32_t, uint32_t, const HcclRootInfo *, uint32_t, uint32_t, const HcclCommConfig *, HcclComm *));
    PIN_FN(HcclCommInitClusterInfo, HcclResult, (const char *, uint32_t, HcclComm *));
    PIN_FN(HcclCommInitClusterInfoConfig, HcclResult, (const char *, uint32_t, HcclCommConfig *, HcclComm *));
    PIN_FN(HcclCommInitAll, HcclResult, (uint32_t, int32_t *, HcclComm *));
    PIN_FN(HcclCreateSubCommConfig, HcclResult,
           (HcclComm *, uint32_t, uint32_t *, uint64_t, uint32_t, HcclCommConfig *, HcclComm *));
    PIN_FN(HcclCommDestroy, HcclResult, (HcclComm));

    PIN_FN(HcclGetRankSize, HcclResult, (HcclComm, uint32_t *));
    PIN_FN(HcclGetRankId, HcclResult, (HcclComm, uint32_t *));
    PIN_FN(HcclGetCommName, HcclResult, (HcclComm, char *));
    PIN_FN(HcclCommGetHandleWithName, HcclResult, (const char *, HcclComm *));
    PIN_FN(HcclGetCommAsyncError, HcclResult, (HcclComm, HcclResult *));
    PIN_FN(HcclGetErrorString, const char *, (HcclResult));

    PIN_FN(HcclSetConfig, HcclResult, (HcclConfig, HcclConfigValue));
    PIN_FN(HcclGetConfig, HcclResult, (HcclConfig, HcclConfigValue *));
    PIN_FN(HcclGetCommConfigCapability, uint32_t, (void));
    PIN_FN(HcclConfigGetInfo, HcclResult, (HcclComm, HcclConfigType, uint32_t, void *));

    PIN_FN(HcclAllReduce, HcclResult,
           (void *, void *, uint64_t, HcclDataType, HcclReduceOp, HcclComm, aclrtStream));
    PIN_FN(HcclBroadcast, HcclResult, (void *, uint64_t, HcclDataType, uint32_t, HcclComm, aclrtStream));
    PIN_FN(HcclReduce, HcclResult,
           (void *, void *, uint64_t, HcclDataType, HcclReduceOp, uint32_t, HcclComm, aclrtStream));
    PIN_FN(HcclReduceScatter, HcclResult,
           (void *, void *, uint64_t, HcclDataType, HcclReduceOp, HcclComm, aclrtStream));
    PIN_FN(HcclReduceScatterV, HcclResult,
           (void *, const void *, const void *, void *, uint64_t, HcclDataType, HcclReduceOp, HcclComm,
            aclrtStream));
    PIN_FN(HcclScatter, HcclResult, (void *, void *, uint64_t, HcclDataType, uint32_t, HcclComm, aclrtStream));
    PIN_FN(HcclAllGather, HcclResult, (void *, void *, uint64_t, HcclDataType, HcclComm, aclrtStream));
    PIN_FN(HcclAllGatherV, HcclResult,
           (void *, uint64_t, void *, const void *, const void *, HcclDataType, HcclComm, aclrtStream));
    PIN_FN(HcclAlltoAll, HcclResult,
           (const void *, uint64_t, HcclDataType, const void *, uint64_t, HcclDataType, HcclComm, aclrtStream));
    PIN_FN(HcclAlltoAllV, HcclResult,
           (const void *, const void *, const void *, HcclDataType, const void *, const void *, const void *,
            HcclDataType, HcclComm, aclrtStream));
    PIN_FN(HcclAlltoAllVC, HcclResult,
           (const void *, const void *, HcclDataType, const void *, HcclDataType, HcclComm, aclrtStream));
    PIN_FN(HcclBarrier, HcclResult, (HcclComm, aclrtStream));

    PIN_FN(HcclSend, HcclResult, (void *, uint64_t, HcclDataType, uint32_t, HcclComm, aclrtStream));
    PIN_FN(HcclRecv, HcclResult, (void *, uint64_t, HcclDataType, uint32_t, HcclComm, aclrtStream));
    PIN_FN(HcclBatchSendRecv, HcclResult, (HcclSendRecvItem *, uint32_t, HcclComm, aclrtStream));

    PIN_FN(HcclGroupStart, HcclResult, (void));
    PIN_FN(HcclGroupEnd, HcclResult, (void));
    PIN_FN(HcclGroupStatusGet, HcclResult, (bool *));

    PIN_FN(HcclCommSetMemoryRange, HcclResult, (HcclComm, void *, size_t, size_t, uint64_t));
    PIN_FN(HcclCommUnsetMemoryRange, HcclResult, (HcclComm, void *));
    PIN_FN(HcclCommActivateCommMemory, HcclResult,
           (HcclComm, void *, size_t, size_t, aclrtDrvMemHandle, uint64_t));
    PIN_FN(HcclCommDeactivateCommMemory, HcclResult, (HcclComm, void *));
    PIN_FN(HcclCommSymWinRegister, HcclResult, (HcclComm, void *, uint64_t, HcclCommSymWindow *, uint32_t));
    PIN_FN(HcclCommSymWinDeregister, HcclResult, (HcclCommSymWindow));
    PIN_FN(HcclCommSymWinGet, HcclResult, (HcclComm, void *, size_t, HcclCommSymWindow *, size_t *));

    PIN_FN(HcclCommSuspend, HcclResult, (HcclComm));
    PIN_FN(HcclCommResume, HcclResult, (HcclComm));
    PIN_FN(HcclCommGetStatus, HcclResult, (const char *, HcclCommStatus *));
    PIN_FN(HcclCommRegCommStateCallback, HcclResult, (const char *, HcclCommStateCallback, void *));
    PIN_FN(HcclCommWorkingDevNicSet, HcclResult, (HcclComm, uint32_t *, bool *, uint32_t));
    PIN_TYPE((HcclCommStateCallback)0, HcclResult(*)(HcclComm, HcclCommStatePhase, void *));
}

int main(void)
{
    enums();
    constants();
    layout();
    config_init();
    signatures();
    if (failures) {
        printf("hccl layout: %d of %d checks failed\n", failures, checks);
        return 1;
    }
    printf("hccl layout: ok (%d checks)\n", checks);
    return 0;
}

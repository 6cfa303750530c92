/*
 * hccl/hccl_types.h - the types and constants of HCCL, Huawei's collective
 * communication library, for the HCCL that aclrt provides on its streams.
 *
 *   Programs written for CANN include <hccl/hccl_types.h> (or hccl/hccl.h,
 *   which includes this file) and build unchanged: every name, enum value,
 *   constant, struct member, size and member offset is CANN's (the public
 *   HCCL/HCOMM headers, HcclCommConfig version 11), so an object built
 *   against either header works with either library. tests/hccl pins them.
 *
 *   Written from the documented names and values. Differences in form only:
 *   the constants are macros (CANN's header uses C++ `const` objects), and
 *   HcclCommConfigInit is C11 as well as C++.
 */
/* CANN's guard name: a program that tests it, or includes both headers, sees one definition. */
#ifndef HCCL_TYPES_H_
#define HCCL_TYPES_H_

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------
 * Status codes. Every HCCL call returns one; HCCL_E_TIMEOUT is a wait that
 * ran out of time, HCCL_E_REMOTE an error completion (CQE) reported by the
 * transport to a peer.
 * ------------------------------------------------------------------------ */
typedef enum {
    HCCL_SUCCESS = 0,
    HCCL_E_PARA = 1,               /* an argument is out of range */
    HCCL_E_PTR = 2,                /* a required pointer is null */
    HCCL_E_MEMORY = 3,
    HCCL_E_INTERNAL = 4,
    HCCL_E_NOT_SUPPORT = 5,
    HCCL_E_NOT_FOUND = 6,
    HCCL_E_UNAVAIL = 7,
    HCCL_E_SYSCALL = 8,
    HCCL_E_TIMEOUT = 9,
    HCCL_E_OPEN_FILE_FAILURE = 10,
    HCCL_E_TCP_CONNECT = 11,
    HCCL_E_ROCE_CONNECT = 12,
    HCCL_E_TCP_TRANSFER = 13,
    HCCL_E_ROCE_TRANSFER = 14,
    HCCL_E_RUNTIME = 15,           /* a runtime (acl) call failed */
    HCCL_E_DRV = 16,
    HCCL_E_PROFILING = 17,
    HCCL_E_CCE = 18,
    HCCL_E_NETWORK = 19,
    HCCL_E_AGAIN = 20,
    HCCL_E_REMOTE = 21,
    HCCL_E_SUSPENDING = 22,        /* the communicator is suspended */
    HCCL_E_OPRETRY_FAIL = 23,
    HCCL_E_OOM = 24,
    HCCL_E_IN_STATUS = 1041,       /* the detail is in a status output */
    HCCL_E_RESERVED                /* 1042 */
} HcclResult;

/* ------------------------------------------------------------------------
 * Opaque handles.
 * ------------------------------------------------------------------------ */
typedef void *HcclComm;          /* a communicator */
typedef void *HcclConn;          /* a connection */
typedef void *HcclCommSymWindow; /* a registered symmetric memory window */

/* ------------------------------------------------------------------------
 * Reductions and element types. Value 13 of HcclDataType is unassigned.
 * ------------------------------------------------------------------------ */
typedef enum {
    HCCL_REDUCE_SUM = 0,
    HCCL_REDUCE_PROD = 1,
    HCCL_REDUCE_MAX = 2,
    HCCL_REDUCE_MIN = 3,
    HCCL_REDUCE_RESERVED = 255
} HcclReduceOp;

typedef enum {
    HCCL_DATA_TYPE_INT8 = 0,
    HCCL_DATA_TYPE_INT16 = 1,
    HCCL_DATA_TYPE_INT32 = 2,
    HCCL_DATA_TYPE_FP16 = 3,      /* IEEE half */
    HCCL_DATA_TYPE_FP32 = 4,
    HCCL_DATA_TYPE_INT64 = 5,
    HCCL_DATA_TYPE_UINT64 = 6,
    HCCL_DATA_TYPE_UINT8 = 7,
    HCCL_DATA_TYPE_UINT16 = 8,
    HCCL_DATA_TYPE_UINT32 = 9,
    HCCL_DATA_TYPE_FP64 = 10,
    HCCL_DATA_TYPE_BFP16 = 11,    /* bfloat16 */
    HCCL_DATA_TYPE_INT128 = 12,
    HCCL_DATA_TYPE_HIF8 = 14,     /* the 8-bit HiFloat8 */
    HCCL_DATA_TYPE_FP8E4M3 = 15,
    HCCL_DATA_TYPE_FP8E5M2 = 16,
    HCCL_DATA_TYPE_FP8E8M0 = 17,
    HCCL_DATA_TYPE_RESERVED = 255
} HcclDataType;

/* ------------------------------------------------------------------------
 * Process-wide settings (HcclSetConfig / HcclGetConfig). HCCL_DETERMINISTIC
 * takes 0 (off), 1 (deterministic reductions) or 2 (also a fixed order).
 * ------------------------------------------------------------------------ */
typedef enum {
    HCCL_DETERMINISTIC = 0,
    HCCL_CONFIG_RESERVED
} HcclConfig;

union HcclConfigValue {
    int32_t value;
};
typedef union HcclConfigValue HcclConfigValue;

/* ------------------------------------------------------------------------
 * Lengths of the fixed-size text and byte fields below.
 * ------------------------------------------------------------------------ */
#define HCCL_ROOT_INFO_BYTES 4108u              /* HcclRootInfo */
#define COMM_NAME_MAX_LENGTH 128u               /* hcclCommName */
#define BUFFER_NAME_MAX_LENGTH 128u             /* hcclBufferName */
#define UDI_MAX_LENGTH 128u                     /* hcclUdi */
#define HCCL_COMM_ALGO_MAX_LENGTH 1600u         /* hcclAlgo */
#define HCCL_COMM_RETRY_ENABLE_MAX_LENGTH 50u   /* hcclRetryEnable */
#define HCCL_COMM_RETRY_PARAMS_MAX_LENGTH 128u  /* hcclRetryParams */

/* What HcclGetRootInfo writes on the root rank and every rank passes to
 * HcclCommInitRootInfo: plain bytes, sent between processes as they are. */
typedef struct HcclRootInfoDef {
    char internal[HCCL_ROOT_INFO_BYTES];
} HcclRootInfo;

/* ------------------------------------------------------------------------
 * Communicator configuration (HcclCommInitRootInfoConfig and friends).
 *
 * The first HCCL_COMM_CONFIG_INFO_BYTES bytes are a header that
 * HcclCommConfigInit fills: a size_t holding sizeof(HcclCommConfig), then
 * the uint32_t magic word, the uint32_t version, and a zero uint64_t. The
 * library reads only the members that the version it finds there has.
 *
 * *_NOT_SET marks a member left to the environment variable or the default:
 * traffic class 132, service level 4, execution timeout 1836 s, buffer
 * 200 MB (HCCL_RDMA_TC, HCCL_RDMA_SL, HCCL_EXEC_TIMEOUT, HCCL_BUFFSIZE).
 * ------------------------------------------------------------------------ */
#define HCCL_COMM_CONFIG_INFO_BYTES 24u
#define HCCL_COMM_CONFIG_MAGIC_WORD 0xf0f0f0f0u
#define HCCL_COMM_CONFIG_VERSION 11u
#define HCCL_COMM_DEFAULT_BUFFSIZE 200u                         /* MB */
#define HCCL_COMM_BUFFSIZE_CONFIG_NOT_SET 0xffffffffu
#define HCCL_COMM_DEFAULT_DETERMINISTIC 0u
#define HCCL_COMM_DETERMINISTIC_CONFIG_NOT_SET 0xffffffffu
#define HCCL_COMM_DEFAULT_OP_EXPANSION_MODE 0u
#define HCCL_COMM_TRAFFIC_CLASS_CONFIG_NOT_SET 0xffffffffu
#define HCCL_COMM_SERVICE_LEVEL_CONFIG_NOT_SET 0xffffffffu
#define HCCL_COMM_EXECTIMEOUT_CONFIG_NOT_SET ((int32_t)-1)      /* int32_t, all bits set */
#define HCCL_COMM_QOS_CONFIG_NOT_SET 0xffffffffu
#define HCCL_COMM_SQ_DEPTH_CONFIG_NOT_SET 0xffffffffu
#define HCCL_DEFAULT_SYMMETRIC_MEMORY_STRIDE ((uint64_t)16u)    /* GB */

/* Offsets on LP64, pinned by tests/hccl/test_hccl_layout.c; 2248 bytes. */
typedef struct HcclCommConfigDef {
    char reserved[HCCL_COMM_CONFIG_INFO_BYTES];            /*    0: the header; HcclCommConfigInit's */
    uint32_t hcclBufferSize;                               /*   24: MB, per buffer */
    uint32_t hcclDeterministic;                            /*   28: as HCCL_DETERMINISTIC */
    char hcclCommName[COMM_NAME_MAX_LENGTH];               /*   32: empty: a generated name */
    char hcclUdi[UDI_MAX_LENGTH];                          /*  160: user text */
    uint32_t hcclOpExpansionMode;                          /*  288: 0 = the platform's default */
    uint32_t hcclRdmaTrafficClass;                         /*  292 */
    uint32_t hcclRdmaServiceLevel;                         /*  296 */
    uint32_t hcclWorldRankID;                              /*  300: the framework's global rank */
    uint64_t hcclJobID;                                    /*  304 */
    uint8_t aclGraphZeroCopyEnable;                        /*  312: 0 off, 1 on */
    int32_t hcclExecTimeOut;                               /*  316: seconds */
    char hcclAlgo[HCCL_COMM_ALGO_MAX_LENGTH];              /*  320: as HCCL_ALGO */
    char hcclRetryEnable[HCCL_COMM_RETRY_ENABLE_MAX_LENGTH]; /* 1920: as HCCL_OP_RETRY_ENABLE */
    char hcclRetryParams[HCCL_COMM_RETRY_PARAMS_MAX_LENGTH]; /* 1970: as HCCL_OP_RETRY_PARAMS */
    char hcclBufferName[BUFFER_NAME_MAX_LENGTH];           /* 2098: communicators naming one share it */
    uint32_t hcclQos;                                      /* 2228: 0..7 */
    uint64_t hcclSymWinMaxMemSizePerRank;                  /* 2232: GB reserved per rank */
    uint32_t hcclChannelSqDepth;                           /* 2240: send queue depth (version 11) */
} HcclCommConfig;

/* Items of HcclCommConfig that HcclGetCommConfigCapability can report: the
 * library supports item i when i is below the number that call returns. */
typedef enum {
    HCCL_COMM_CONFIG_BUFFER_SIZE = 0,
    HCCL_COMM_CONFIG_DETERMINISTIC = 1,
    HCCL_COMM_CONFIG_COMM_NAME = 2,
    HCCL_COMM_CONFIG_OP_EXPANSION_MODE = 3,
    HCCL_COMM_CONFIG_SUPPORT_INIT_BY_ENV = 4,
    HCCL_COMM_CONFIG_WORLD_RANKID = 5,
    HCCL_COMM_CONFIG_JOBID = 6,
    HCCL_COMM_CONFIG_ACLGRAPH_ZEROCOPY_ENABLE = 7,
    HCCL_COMM_CONFIG_EXEC_TIMEOUT = 8,
    HCCL_COMM_CONFIG_ALGO = 9,
    HCCL_COMM_CONFIG_RETRY = 10,
    HCCL_COMM_CONFIG_BUFFER_NAME = 11,
    HCCL_COMM_CONFIG_RESERVED
} HcclCommConfigCapability;

/* Sets the header and every member to "not set" (the library then applies
 * the environment or its defaults). The header is copied in byte by byte,
 * so no object of another type is written through the char array. */
static inline void HcclCommConfigInit(HcclCommConfig *config)
{
    size_t size = sizeof(HcclCommConfig);
    uint32_t magic = HCCL_COMM_CONFIG_MAGIC_WORD;
    uint32_t version = HCCL_COMM_CONFIG_VERSION;
    uint64_t zero = 0;

    if (config == NULL) {
        return;
    }
    memcpy(config->reserved, &size, sizeof size);
    memcpy(config->reserved + sizeof size, &magic, sizeof magic);
    memcpy(config->reserved + sizeof size + sizeof magic, &version, sizeof version);
    memcpy(config->reserved + HCCL_COMM_CONFIG_INFO_BYTES - sizeof zero, &zero, sizeof zero);

    config->hcclBufferSize = HCCL_COMM_BUFFSIZE_CONFIG_NOT_SET;
    config->hcclDeterministic = HCCL_COMM_DETERMINISTIC_CONFIG_NOT_SET;
    config->hcclCommName[0] = '\0';
    config->hcclUdi[0] = '\0';
    config->hcclOpExpansionMode = HCCL_COMM_DEFAULT_OP_EXPANSION_MODE;
    config->hcclRdmaTrafficClass = HCCL_COMM_TRAFFIC_CLASS_CONFIG_NOT_SET;
    config->hcclRdmaServiceLevel = HCCL_COMM_SERVICE_LEVEL_CONFIG_NOT_SET;
    config->hcclWorldRankID = 0;
    config->hcclJobID = 0;
    config->aclGraphZeroCopyEnable = 0;
    config->hcclExecTimeOut = HCCL_COMM_EXECTIMEOUT_CONFIG_NOT_SET;
    config->hcclAlgo[0] = '\0';
    config->hcclRetryEnable[0] = '\0';
    config->hcclRetryParams[0] = '\0';
    config->hcclBufferName[0] = '\0';
    config->hcclQos = HCCL_COMM_QOS_CONFIG_NOT_SET;
    config->hcclSymWinMaxMemSizePerRank = HCCL_DEFAULT_SYMMETRIC_MEMORY_STRIDE;
    config->hcclChannelSqDepth = HCCL_COMM_SQ_DEPTH_CONFIG_NOT_SET;
}

/* ------------------------------------------------------------------------
 * Point-to-point batches (HcclBatchSendRecv): one item per send or receive.
 * ------------------------------------------------------------------------ */
typedef enum {
    HCCL_SEND = 0,
    HCCL_RECV = 1,
    HCCL_SEND_RECV_RESERVED
} HcclSendRecvType;

typedef struct HcclSendRecvItemDef {
    HcclSendRecvType sendRecvType;
    void *buf;
    uint64_t count;            /* elements of dataType */
    HcclDataType dataType;
    uint32_t remoteRank;
} HcclSendRecvItem;

/* ------------------------------------------------------------------------
 * Operation kinds, as the library names them in logs and task records.
 * ------------------------------------------------------------------------ */
typedef enum {
    HCCL_CMD_INVALID = 0,
    HCCL_CMD_BROADCAST = 1,
    HCCL_CMD_ALLREDUCE = 2,
    HCCL_CMD_REDUCE = 3,
    HCCL_CMD_SEND = 4,
    HCCL_CMD_RECEIVE = 5,
    HCCL_CMD_ALLGATHER = 6,
    HCCL_CMD_REDUCE_SCATTER = 7,
    HCCL_CMD_ALLTOALLV = 8,
    HCCL_CMD_ALLTOALLVC = 9,
    HCCL_CMD_ALLTOALL = 10,
    HCCL_CMD_GATHER = 11,
    HCCL_CMD_SCATTER = 12,
    HCCL_CMD_BATCH_SEND_RECV = 13,
    HCCL_CMD_BATCH_PUT = 14,
    HCCL_CMD_BATCH_GET = 15,
    HCCL_CMD_ALLGATHER_V = 16,
    HCCL_CMD_REDUCE_SCATTER_V = 17,
    HCCL_CMD_BATCH_WRITE = 18,
    HCCL_CMD_HALF_ALLTOALLV = 20,
    HCCL_CMD_ALL = 21,
    HCCL_CMD_FINALIZE = 100,
    HCCL_CMD_INTER_GROUP_SYNC = 101,
    HCCL_CMD_INIT = 102,
    HCCL_CMD_BARRIER = 103,
    HCCL_CMD_MAX = 104
} HcclCMDType;

/* ------------------------------------------------------------------------
 * Communicator state: HcclCommGetStatus, and the phases a state callback
 * (HcclCommRegCommStateCallback) is called at around destroy and resume.
 * ------------------------------------------------------------------------ */
typedef enum {
    HCCL_COMM_STATUS_READY = 0,
    HCCL_COMM_STATUS_SUSPENDING = 1,
    HCCL_COMM_STATUS_INVALID = 254,
    HCCL_COMM_STATUS_RESERVED = 255
} HcclCommStatus;

typedef enum {
    HCCL_COMM_STATE_PHASE_INVALID = -1,
    HCCL_COMM_STATE_PHASE_DESTROY_PRE = 0,
    HCCL_COMM_STATE_PHASE_DESTROY_POST = 1,
    HCCL_COMM_STATE_PHASE_RESUME_PRE = 2,
    HCCL_COMM_STATE_PHASE_RESUME_POST = 3
} HcclCommStatePhase;

/* ------------------------------------------------------------------------
 * Where an operation's steps run, as HcclConfigGetInfo reports it for
 * HCCL_CONFIG_TYPE_OP_EXPANSION_MODE. The hcclOpExpansionMode member counts
 * differently: 0 the platform's default, 1 host, 2 AI CPU, 3 AIV, 4 AIV
 * only, 5 CCU memory-slice, 6 CCU scheduled.
 * ------------------------------------------------------------------------ */
typedef enum {
    HCCL_OP_EXPANSION_MODE_INVALID = -1,
    HCCL_OP_EXPANSION_MODE_AI_CPU = 0,
    HCCL_OP_EXPANSION_MODE_AIV = 1,
    HCCL_OP_EXPANSION_MODE_HOST = 2,
    HCCL_OP_EXPANSION_MODE_HOST_TS = 3,
    HCCL_OP_EXPANSION_MODE_CCU_MS = 4,
    HCCL_OP_EXPANSION_MODE_CCU_SCHED = 5,
    HCCL_OP_EXPANSION_AIV_ONLY = 6
} HcclOpExpansionMode;

typedef enum {
    HCCL_CONFIG_TYPE_INVALID = -1,
    HCCL_CONFIG_TYPE_OP_EXPANSION_MODE = 0,
    HCCL_CONFIG_TYPE_HCCL_ALGO = 1,
    HCCL_CONFIG_TYPE_UB_MULTI_CHANNEL_NUM = 2
} HcclConfigType;

typedef HcclOpExpansionMode HcclConfigTypeOpExpansionMode;

#ifdef __cplusplus
}
#endif

#endif /* HCCL_TYPES_H_ */

/*
 * aclrt.h - the AscendCL runtime API for streams, events and
 * synchronization, as a header-only C library.
 *
 *   Programs written for the real runtime include "acl/acl.h" (which includes
 *   this file) and build unchanged. Exactly one C translation unit of the
 *   program also compiles the implementation:
 *
 *       #define ACLRT_IMPLEMENTATION
 *       #include "aclrt.h"
 *
 *   and the program links with `pkg-config --libs aclrt` (Concurrency Kit,
 *   liburcu, pthreads and libm). The implementation is C11; C++ code uses the API freely but
 *   keeps ACLRT_IMPLEMENTATION in a .c file.
 *
 * Options (define before including, in the implementation unit):
 *   ACLRT_STATIC   give every API function internal linkage (embedders that
 *                  include the implementation in the one file that uses it).
 *
 * Layout of this file: the public contract first (types, constants, error
 * codes, functions by capability, then the `aclrtx` extensions); the
 * implementation comes last, behind ACLRT_IMPLEMENTATION.
 *
 * Names, signatures, types, enum and flag values and error codes are those of
 * the public CANN runtime headers (acl_base_rt.h, acl_rt.h,
 * error_codes/rt_error_codes.h, ACL 1.17). Behaviour follows the runtime's
 * documentation; where it is silent, docs/SEMANTICS.md says what aclrt does.
 */
#ifndef ACLRT_H
#define ACLRT_H

#if defined(ACLRT_IMPLEMENTATION) && !defined(__cplusplus) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE 1 /* futex, clock_gettime, pthread extras; must precede any system header */
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ACLRT_VERSION_MAJOR 0
#define ACLRT_VERSION_MINOR 1
#define ACLRT_VERSION_PATCH 0

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------
 * Visibility and deprecation (as in acl_base_rt.h)
 * ------------------------------------------------------------------------ */
#ifndef ACL_FUNC_VISIBILITY
#if defined(_MSC_VER)
#ifdef FUNC_VISIBILITY
#define ACL_FUNC_VISIBILITY _declspec(dllexport)
#else
#define ACL_FUNC_VISIBILITY
#endif
#else
#ifdef FUNC_VISIBILITY
#define ACL_FUNC_VISIBILITY __attribute__((visibility("default")))
#else
#define ACL_FUNC_VISIBILITY
#endif
#endif
#endif /* ACL_FUNC_VISIBILITY */

#ifndef ACL_DEPRECATED_MESSAGE
#if defined(__GNUC__) && (__GNUC__ >= 6)
#define ACL_DEPRECATED __attribute__((deprecated))
#define ACL_DEPRECATED_MESSAGE(message) __attribute__((deprecated(message)))
#elif defined(_MSC_VER)
#define ACL_DEPRECATED __declspec(deprecated)
#define ACL_DEPRECATED_MESSAGE(message) __declspec(deprecated(message))
#else
#define ACL_DEPRECATED
#define ACL_DEPRECATED_MESSAGE(message)
#endif
#endif /* ACL_DEPRECATED_MESSAGE */

#if defined(ACLRT_STATIC)
/* Internal linkage for every entry point (one file embeds the library); quiet about the ones it does not call. */
#define ACLRT_STATIC_UNUSED __attribute__((unused))
#define ACLRT_API static ACLRT_STATIC_UNUSED
#else
#define ACLRT_API ACL_FUNC_VISIBILITY
#endif

/* ------------------------------------------------------------------------
 * Base types (acl_base_rt.h). Handles are opaque pointers; aclrt encodes a
 * kind, a slot and a generation in them, so a destroyed or garbage handle
 * is reported as ACL_ERROR_RT_INVALID_HANDLE instead of crashing.
 * ------------------------------------------------------------------------ */
typedef void *aclrtStream;
typedef void *aclmdlRITask;
typedef void *aclrtEvent;
typedef void *aclrtContext;
typedef void *aclrtNotify;
typedef void *aclrtCntNotify;
typedef void *aclrtLabel;
typedef void *aclrtLabelList;
typedef void *aclrtMbuf;
typedef int aclError;
typedef uint16_t aclFloat16;
typedef void *aclrtAllocatorDesc;
typedef void *aclrtAllocator;
typedef void *aclrtAllocatorBlock;
typedef void *aclrtAllocatorAddr;
typedef void *aclrtTaskGrp;
typedef void *aclmdlRI;
typedef void *aclrtDrvMemHandle;

/* ------------------------------------------------------------------------
 * Error codes. ACL_ERROR_* are `static const int` objects, as in
 * acl_base_rt.h (not usable in `case` labels or #if); ACL_ERROR_RT_* are
 * macros, as in error_codes/rt_error_codes.h.
 * ------------------------------------------------------------------------ */
static const int ACL_ERROR_NONE = 0;
static const int ACL_SUCCESS = 0;
static const int ACL_ERROR_INVALID_EXCEPTION_INFO = -1;

static const int ACL_ERROR_INVALID_PARAM = 100000;
static const int ACL_ERROR_UNINITIALIZE = 100001;
static const int ACL_ERROR_REPEAT_INITIALIZE = 100002;
static const int ACL_ERROR_INVALID_FILE = 100003;
static const int ACL_ERROR_WRITE_FILE = 100004;
static const int ACL_ERROR_INVALID_FILE_SIZE = 100005;
static const int ACL_ERROR_PARSE_FILE = 100006;
static const int ACL_ERROR_FILE_MISSING_ATTR = 100007;
static const int ACL_ERROR_FILE_ATTR_INVALID = 100008;
static const int ACL_ERROR_INVALID_DUMP_CONFIG = 100009;
static const int ACL_ERROR_INVALID_PROFILING_CONFIG = 100010;
static const int ACL_ERROR_INVALID_MODEL_ID = 100011;
static const int ACL_ERROR_DESERIALIZE_MODEL = 100012;
static const int ACL_ERROR_PARSE_MODEL = 100013;
static const int ACL_ERROR_READ_MODEL_FAILURE = 100014;
static const int ACL_ERROR_MODEL_SIZE_INVALID = 100015;
static const int ACL_ERROR_MODEL_MISSING_ATTR = 100016;
static const int ACL_ERROR_MODEL_INPUT_NOT_MATCH = 100017;
static const int ACL_ERROR_MODEL_OUTPUT_NOT_MATCH = 100018;
static const int ACL_ERROR_MODEL_NOT_DYNAMIC = 100019;
static const int ACL_ERROR_OP_TYPE_NOT_MATCH = 100020;
static const int ACL_ERROR_OP_INPUT_NOT_MATCH = 100021;
static const int ACL_ERROR_OP_OUTPUT_NOT_MATCH = 100022;
static const int ACL_ERROR_OP_ATTR_NOT_MATCH = 100023;
static const int ACL_ERROR_OP_NOT_FOUND = 100024;
static const int ACL_ERROR_OP_LOAD_FAILED = 100025;
static const int ACL_ERROR_UNSUPPORTED_DATA_TYPE = 100026;
static const int ACL_ERROR_FORMAT_NOT_MATCH = 100027;
static const int ACL_ERROR_BIN_SELECTOR_NOT_REGISTERED = 100028;
static const int ACL_ERROR_KERNEL_NOT_FOUND = 100029;
static const int ACL_ERROR_BIN_SELECTOR_ALREADY_REGISTERED = 100030;
static const int ACL_ERROR_KERNEL_ALREADY_REGISTERED = 100031;
static const int ACL_ERROR_INVALID_QUEUE_ID = 100032;
static const int ACL_ERROR_REPEAT_SUBSCRIBE = 100033;
static const int ACL_ERROR_STREAM_NOT_SUBSCRIBE = 100034;
static const int ACL_ERROR_THREAD_NOT_SUBSCRIBE = 100035;
static const int ACL_ERROR_WAIT_CALLBACK_TIMEOUT = 100036;
static const int ACL_ERROR_REPEAT_FINALIZE = 100037;
static const int ACL_ERROR_NOT_STATIC_AIPP = 100038;
static const int ACL_ERROR_COMPILING_STUB_MODE = 100039;
static const int ACL_ERROR_GROUP_NOT_SET = 100040;
static const int ACL_ERROR_GROUP_NOT_CREATE = 100041;
static const int ACL_ERROR_PROF_ALREADY_RUN = 100042;
static const int ACL_ERROR_PROF_NOT_RUN = 100043;
static const int ACL_ERROR_DUMP_ALREADY_RUN = 100044;
static const int ACL_ERROR_DUMP_NOT_RUN = 100045;
static const int ACL_ERROR_PROF_REPEAT_SUBSCRIBE = 148046;
static const int ACL_ERROR_PROF_API_CONFLICT = 148047;
static const int ACL_ERROR_INVALID_MAX_OPQUEUE_NUM_CONFIG = 148048;
static const int ACL_ERROR_INVALID_OPP_PATH = 148049;
static const int ACL_ERROR_OP_UNSUPPORTED_DYNAMIC = 148050;
static const int ACL_ERROR_RELATIVE_RESOURCE_NOT_CLEARED = 148051;
static const int ACL_ERROR_UNSUPPORTED_JPEG = 148052;
static const int ACL_ERROR_INVALID_BUNDLE_MODEL_ID = 148053;

static const int ACL_ERROR_BAD_ALLOC = 200000;
static const int ACL_ERROR_API_NOT_SUPPORT = 200001;
static const int ACL_ERROR_INVALID_DEVICE = 200002;
static const int ACL_ERROR_MEMORY_ADDRESS_UNALIGNED = 200003;
static const int ACL_ERROR_RESOURCE_NOT_MATCH = 200004;
static const int ACL_ERROR_INVALID_RESOURCE_HANDLE = 200005;
static const int ACL_ERROR_FEATURE_UNSUPPORTED = 200006;
static const int ACL_ERROR_PROF_MODULES_UNSUPPORTED = 200007;

static const int ACL_ERROR_STORAGE_OVER_LIMIT = 300000;

static const int ACL_ERROR_INTERNAL_ERROR = 500000;
static const int ACL_ERROR_FAILURE = 500001;
static const int ACL_ERROR_GE_FAILURE = 500002;
static const int ACL_ERROR_RT_FAILURE = 500003;
static const int ACL_ERROR_DRV_FAILURE = 500004;
static const int ACL_ERROR_PROFILING_FAILURE = 500005;

#define ACL_RT_SUCCESS 0
#define ACL_ERROR_RT_PARAM_INVALID 107000
#define ACL_ERROR_RT_INVALID_DEVICEID 107001
#define ACL_ERROR_RT_CONTEXT_NULL 107002
#define ACL_ERROR_RT_STREAM_CONTEXT 107003
#define ACL_ERROR_RT_MODEL_CONTEXT 107004
#define ACL_ERROR_RT_STREAM_MODEL 107005
#define ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID 107006
#define ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL 107007
#define ACL_ERROR_RT_ADDR_UNALIGNED 107008
#define ACL_ERROR_RT_FILE_OPEN 107009
#define ACL_ERROR_RT_FILE_WRITE 107010
#define ACL_ERROR_RT_STREAM_SUBSCRIBE 107011
#define ACL_ERROR_RT_THREAD_SUBSCRIBE 107012
#define ACL_ERROR_RT_GROUP_NOT_SET 107013
#define ACL_ERROR_RT_GROUP_NOT_CREATE 107014
#define ACL_ERROR_RT_STREAM_NO_CB_REG 107015
#define ACL_ERROR_RT_INVALID_MEMORY_TYPE 107016
#define ACL_ERROR_RT_INVALID_HANDLE 107017
#define ACL_ERROR_RT_INVALID_MALLOC_TYPE 107018
#define ACL_ERROR_RT_WAIT_TIMEOUT 107019
#define ACL_ERROR_RT_TASK_TIMEOUT 107020
#define ACL_ERROR_RT_SYSPARAMOPT_NOT_SET 107021
#define ACL_ERROR_RT_DEVICE_TASK_ABORT 107022
#define ACL_ERROR_RT_STREAM_ABORT 107023
#define ACL_ERROR_RT_CAPTURE_DEPENDENCY 107024
#define ACL_ERROR_RT_STREAM_UNJOINED 107025
#define ACL_ERROR_RT_MODEL_CAPTURED 107026
#define ACL_ERROR_RT_STREAM_CAPTURED 107027
#define ACL_ERROR_RT_EVENT_CAPTURED 107028
#define ACL_ERROR_RT_STREAM_NOT_CAPTURED 107029
#define ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT 107030
#define ACL_ERROR_RT_STREAM_CAPTURE_IMPLICIT 107031
#define ACL_ERROR_STREAM_CAPTURE_CONFLICT 107032
#define ACL_ERROR_STREAM_TASK_GROUP_STATUS 107033
#define ACL_ERROR_STREAM_TASK_GROUP_INTR 107034
#define ACL_ERROR_RT_TASK_ABORT_STOP 107035
#define ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED 107036
#define ACL_ERROR_RT_MODEL_RUNNING 107037
#define ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD 107038
#define ACL_ERROR_RT_INSUFFICIENT_INPUT_ARRAY 107039
#define ACL_ERROR_RT_MODEL_UPDATE_FAILED 107040
#define ACL_ERROR_RT_CAPTURE_MODE_BLOCK_ASYNC 107041
#define ACL_ERROR_RT_SYMBOL_NOT_FOUND 107042
#define ACL_ERROR_RT_INVALID_SYMBOL 107043
#define ACL_ERROR_RT_INVALID_DEVICE_FUNCTION 107044
#define ACL_ERROR_RT_SUB_ACLGRAPH_IS_CAPTURING 107045

#define ACL_ERROR_RT_FEATURE_NOT_SUPPORT 207000
#define ACL_ERROR_RT_MEMORY_ALLOCATION 207001
#define ACL_ERROR_RT_MEMORY_FREE 207002
#define ACL_ERROR_RT_AICORE_OVER_FLOW 207003
#define ACL_ERROR_RT_NO_DEVICE 207004
#define ACL_ERROR_RT_RESOURCE_ALLOC_FAIL 207005
#define ACL_ERROR_RT_NO_PERMISSION 207006
#define ACL_ERROR_RT_NO_EVENT_RESOURCE 207007
#define ACL_ERROR_RT_NO_STREAM_RESOURCE 207008
#define ACL_ERROR_RT_NO_NOTIFY_RESOURCE 207009
#define ACL_ERROR_RT_NO_MODEL_RESOURCE 207010
#define ACL_ERROR_RT_NO_CDQ_RESOURCE 207011
#define ACL_ERROR_RT_OVER_LIMIT 207012
#define ACL_ERROR_RT_QUEUE_EMPTY 207013
#define ACL_ERROR_RT_QUEUE_FULL 207014
#define ACL_ERROR_RT_REPEATED_INIT 207015
#define ACL_ERROR_RT_AIVEC_OVER_FLOW 207016
#define ACL_ERROR_RT_OVER_FLOW 207017
#define ACL_ERROR_RT_DEVICE_OOM 207018
#define ACL_ERROR_RT_FEATURE_NOT_SUPPORT_UPDATE_OP 207019
#define ACL_ERROR_RT_TIMEOUT 207020
#define ACL_ERROR_RT_LINK_TYPE_NOT_SUPPORTED 207021

#define ACL_ERROR_RT_INTERNAL_ERROR 507000
#define ACL_ERROR_RT_TS_ERROR 507001
#define ACL_ERROR_RT_STREAM_TASK_FULL 507002
#define ACL_ERROR_RT_STREAM_TASK_EMPTY 507003
#define ACL_ERROR_RT_STREAM_NOT_COMPLETE 507004
#define ACL_ERROR_RT_END_OF_SEQUENCE 507005
#define ACL_ERROR_RT_EVENT_NOT_COMPLETE 507006
#define ACL_ERROR_RT_CONTEXT_RELEASE_ERROR 507007
#define ACL_ERROR_RT_SOC_VERSION 507008
#define ACL_ERROR_RT_TASK_TYPE_NOT_SUPPORT 507009
#define ACL_ERROR_RT_LOST_HEARTBEAT 507010
#define ACL_ERROR_RT_MODEL_EXECUTE 507011
#define ACL_ERROR_RT_REPORT_TIMEOUT 507012
#define ACL_ERROR_RT_SYS_DMA 507013
#define ACL_ERROR_RT_AICORE_TIMEOUT 507014
#define ACL_ERROR_RT_AICORE_EXCEPTION 507015
#define ACL_ERROR_RT_AICORE_TRAP_EXCEPTION 507016
#define ACL_ERROR_RT_AICPU_TIMEOUT 507017
#define ACL_ERROR_RT_AICPU_EXCEPTION 507018
#define ACL_ERROR_RT_AICPU_DATADUMP_RSP_ERR 507019
#define ACL_ERROR_RT_AICPU_MODEL_RSP_ERR 507020
#define ACL_ERROR_RT_PROFILING_ERROR 507021
#define ACL_ERROR_RT_IPC_ERROR 507022
#define ACL_ERROR_RT_MODEL_ABORT_NORMAL 507023
#define ACL_ERROR_RT_KERNEL_UNREGISTERING 507024
#define ACL_ERROR_RT_RINGBUFFER_NOT_INIT 507025
#define ACL_ERROR_RT_RINGBUFFER_NO_DATA 507026
#define ACL_ERROR_RT_KERNEL_LOOKUP 507027
#define ACL_ERROR_RT_KERNEL_DUPLICATE 507028
#define ACL_ERROR_RT_DEBUG_REGISTER_FAIL 507029
#define ACL_ERROR_RT_DEBUG_UNREGISTER_FAIL 507030
#define ACL_ERROR_RT_LABEL_CONTEXT 507031
#define ACL_ERROR_RT_PROGRAM_USE_OUT 507032
#define ACL_ERROR_RT_DEV_SETUP_ERROR 507033
#define ACL_ERROR_RT_VECTOR_CORE_TIMEOUT 507034
#define ACL_ERROR_RT_VECTOR_CORE_EXCEPTION 507035
#define ACL_ERROR_RT_VECTOR_CORE_TRAP_EXCEPTION 507036
#define ACL_ERROR_RT_CDQ_BATCH_ABNORMAL 507037
#define ACL_ERROR_RT_DIE_MODE_CHANGE_ERROR 507038
#define ACL_ERROR_RT_DIE_SET_ERROR 507039
#define ACL_ERROR_RT_INVALID_DIEID 507040
#define ACL_ERROR_RT_DIE_MODE_NOT_SET 507041
#define ACL_ERROR_RT_AICORE_TRAP_READ_OVERFLOW 507042
#define ACL_ERROR_RT_AICORE_TRAP_WRITE_OVERFLOW 507043
#define ACL_ERROR_RT_VECTOR_CORE_TRAP_READ_OVERFLOW 507044
#define ACL_ERROR_RT_VECTOR_CORE_TRAP_WRITE_OVERFLOW 507045
#define ACL_ERROR_RT_STREAM_SYNC_TIMEOUT 507046
#define ACL_ERROR_RT_EVENT_SYNC_TIMEOUT 507047
#define ACL_ERROR_RT_FFTS_PLUS_TIMEOUT 507048
#define ACL_ERROR_RT_FFTS_PLUS_EXCEPTION 507049
#define ACL_ERROR_RT_FFTS_PLUS_TRAP_EXCEPTION 507050
#define ACL_ERROR_RT_SEND_MSG 507051
#define ACL_ERROR_RT_COPY_DATA 507052
#define ACL_ERROR_RT_DEVICE_MEM_ERROR 507053
#define ACL_ERROR_RT_HBM_MULTI_BIT_ECC_ERROR 507054
#define ACL_ERROR_RT_SUSPECT_DEVICE_MEM_ERROR 507055
#define ACL_ERROR_RT_LINK_ERROR 507056
#define ACL_ERROR_RT_SUSPECT_REMOTE_ERROR 507057
#define ACL_ERROR_RT_DRV_INTERNAL_ERROR 507899
#define ACL_ERROR_RT_AICPU_INTERNAL_ERROR 507900
#define ACL_ERROR_RT_SOCKET_CLOSE 507901
#define ACL_ERROR_RT_AICPU_INFO_LOAD_RSP_ERR 507902
#define ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED 507903
#define ACL_ERROR_RT_COMM_OP_RETRY_FAIL 507904
#define ACL_ERROR_SNAPSHOT_LOCK_TIMEOUT 507905
#define ACL_ERROR_SNAPSHOT_LOCK_FAILED 507906
#define ACL_ERROR_SNAPSHOT_UNLOCK_FAILED 507907
#define ACL_ERROR_SNAPSHOT_BACKUP_FAILED 507908
#define ACL_ERROR_SNAPSHOT_RESTORE_FAILED 507909
#define ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED 507910
#define ACL_ERROR_HOST_MEMORY_NOT_REGISTERED 507911
#define ACL_ERROR_SNAPSHOT_CALLBACK_FAILED 507912
#define ACL_ERROR_SNAPSHOT_REGISTER_CALLBACK_FAILED 507913
#define ACL_ERROR_RT_L3_PORT_ERROR 507914
#define ACL_ERROR_RT_CCU_TIMEOUT 507915
#define ACL_ERROR_RT_CCU_EXCEPTION 507916

/* The graph engine's codes (error_codes/ge_error_codes.h), which acl/acl_base.h brings in too. */
static const uint32_t ACL_ERROR_GE_PARAM_INVALID = 145000U;
static const uint32_t ACL_ERROR_GE_EXEC_NOT_INIT = 145001U;
static const uint32_t ACL_ERROR_GE_EXEC_MODEL_PATH_INVALID = 145002U;
static const uint32_t ACL_ERROR_GE_EXEC_MODEL_ID_INVALID = 145003U;
static const uint32_t ACL_ERROR_GE_EXEC_MODEL_DATA_SIZE_INVALID = 145006U;
static const uint32_t ACL_ERROR_GE_EXEC_MODEL_ADDR_INVALID = 145007U;
static const uint32_t ACL_ERROR_GE_EXEC_MODEL_QUEUE_ID_INVALID = 145008U;
static const uint32_t ACL_ERROR_GE_EXEC_LOAD_MODEL_REPEATED = 145009U;
static const uint32_t ACL_ERROR_GE_DYNAMIC_INPUT_ADDR_INVALID = 145011U;
static const uint32_t ACL_ERROR_GE_DYNAMIC_INPUT_LENGTH_INVALID = 145012U;
static const uint32_t ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID = 145013U;
static const uint32_t ACL_ERROR_GE_AIPP_BATCH_EMPTY = 145014U;
static const uint32_t ACL_ERROR_GE_AIPP_NOT_EXIST = 145015U;
static const uint32_t ACL_ERROR_GE_AIPP_MODE_INVALID = 145016U;
static const uint32_t ACL_ERROR_GE_OP_TASK_TYPE_INVALID = 145017U;
static const uint32_t ACL_ERROR_GE_OP_KERNEL_TYPE_INVALID = 145018U;
static const uint32_t ACL_ERROR_GE_PLGMGR_PATH_INVALID = 145019U;
static const uint32_t ACL_ERROR_GE_FORMAT_INVALID = 145020U;
static const uint32_t ACL_ERROR_GE_SHAPE_INVALID = 145021U;
static const uint32_t ACL_ERROR_GE_DATATYPE_INVALID = 145022U;
static const uint32_t ACL_ERROR_GE_MEMORY_ALLOCATION = 245000U;
static const uint32_t ACL_ERROR_GE_MEMORY_OPERATE_FAILED = 245001U;
static const uint32_t ACL_ERROR_GE_DEVICE_MEMORY_OPERATE_FAILED = 245002U;
static const uint32_t ACL_ERROR_GE_SUBHEALTHY = 345102U;
static const uint32_t ACL_ERROR_GE_USER_RAISE_EXCEPTION = 345103U;
static const uint32_t ACL_ERROR_GE_DATA_NOT_ALIGNED = 345104U;
static const uint32_t ACL_ERROR_GE_INTERNAL_ERROR = 545000U;
static const uint32_t ACL_ERROR_GE_LOAD_MODEL = 545001U;
static const uint32_t ACL_ERROR_GE_EXEC_LOAD_MODEL_PARTITION_FAILED = 545002U;
static const uint32_t ACL_ERROR_GE_EXEC_LOAD_WEIGHT_PARTITION_FAILED = 545003U;
static const uint32_t ACL_ERROR_GE_EXEC_LOAD_TASK_PARTITION_FAILED = 545004U;
static const uint32_t ACL_ERROR_GE_EXEC_LOAD_KERNEL_PARTITION_FAILED = 545005U;
static const uint32_t ACL_ERROR_GE_EXEC_RELEASE_MODEL_DATA = 545006U;
static const uint32_t ACL_ERROR_GE_COMMAND_HANDLE = 545007U;
static const uint32_t ACL_ERROR_GE_GET_TENSOR_INFO = 545008U;
static const uint32_t ACL_ERROR_GE_UNLOAD_MODEL = 545009U;
static const uint32_t ACL_ERROR_GE_MODEL_EXECUTE_TIMEOUT = 545601U;
static const uint32_t ACL_ERROR_GE_REDEPLOYING = 545602U;

/* ------------------------------------------------------------------------
 * Constants and types (acl_rt.h)
 * ------------------------------------------------------------------------ */
#define ACL_MAJOR_VERSION 1
#define ACL_MINOR_VERSION 17
#define ACL_PATCH_VERSION 0

/* Event creation flags. */
#define ACL_EVENT_SYNC 0x00000001U
#define ACL_EVENT_CAPTURE_STREAM_PROGRESS 0x00000002U
#define ACL_EVENT_TIME_LINE 0x00000008U
#define ACL_EVENT_DEVICE_USE_ONLY 0x00000010U
#define ACL_EVENT_EXTERNAL 0x00000020U
#define ACL_EVENT_IPC 0x00000040U

/* Stream creation flags. */
#define ACL_STREAM_FAST_LAUNCH 0x00000001U
#define ACL_STREAM_FAST_SYNC 0x00000002U
#define ACL_STREAM_PERSISTENT 0x00000004U
#define ACL_STREAM_HUGE 0x00000008U
#define ACL_STREAM_CPU_SCHEDULE 0x00000010U
#define ACL_STREAM_DEVICE_USE_ONLY 0x00000020U

#define ACL_STREAM_WAIT_VALUE_GEQ 0x00000000U
#define ACL_STREAM_WAIT_VALUE_EQ 0x00000001U
#define ACL_STREAM_WAIT_VALUE_AND 0x00000002U
#define ACL_STREAM_WAIT_VALUE_NOR 0x00000003U

#define ACL_CONTINUE_ON_FAILURE 0x00000000U
#define ACL_STOP_ON_FAILURE 0x00000001U

#define ACL_NOTIFY_DEFAULT 0x00000000U
#define ACL_NOTIFY_DEVICE_USE_ONLY 0x00000001U

#define ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT 0x0UL
#define ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION 0x02UL
#define ACL_RT_NOTIFY_IMPORT_FLAG_DEFAULT 0x0UL
#define ACL_RT_NOTIFY_IMPORT_FLAG_ENABLE_PEER_ACCESS 0x02UL

#define ACL_IPC_EVENT_HANDLE_SIZE 64U

/* Record and wait operation flags. */
#define ACL_EVENT_RECORD_DEFAULT 0x0U
#define ACL_EVENT_RECORD_EXTERNAL 0x01U
#define ACL_EVENT_WAIT_DEFAULT 0x0U
#define ACL_EVENT_WAIT_EXTERNAL 0x01U

typedef enum aclrtRunMode {
    ACL_DEVICE,
    ACL_HOST,
} aclrtRunMode;

typedef enum aclrtTsId {
    ACL_TS_ID_AICORE = 0,
    ACL_TS_ID_AIVECTOR = 1,
    ACL_TS_ID_RESERVED = 2,
} aclrtTsId;

typedef enum aclrtEventStatus {
    ACL_EVENT_STATUS_COMPLETE = 0,
    ACL_EVENT_STATUS_NOT_READY = 1,
    ACL_EVENT_STATUS_RESERVED = 2,
} aclrtEventStatus;

/* Mind the polarity: NOT_READY is 0 here, unlike every other status enum. */
typedef enum aclrtEventRecordedStatus {
    ACL_EVENT_RECORDED_STATUS_NOT_READY = 0,
    ACL_EVENT_RECORDED_STATUS_COMPLETE = 1,
} aclrtEventRecordedStatus;

typedef enum aclrtEventWaitStatus {
    ACL_EVENT_WAIT_STATUS_COMPLETE = 0,
    ACL_EVENT_WAIT_STATUS_NOT_READY = 1,
    ACL_EVENT_WAIT_STATUS_RESERVED = 0xFFFF,
} aclrtEventWaitStatus;

typedef enum aclrtStreamStatus {
    ACL_STREAM_STATUS_COMPLETE = 0,
    ACL_STREAM_STATUS_NOT_READY = 1,
    ACL_STREAM_STATUS_RESERVED = 0xFFFF,
} aclrtStreamStatus;

typedef enum aclrtCallbackBlockType {
    ACL_CALLBACK_NO_BLOCK,
    ACL_CALLBACK_BLOCK,
} aclrtCallbackBlockType;

typedef enum aclrtMemcpyKind {
    ACL_MEMCPY_HOST_TO_HOST,
    ACL_MEMCPY_HOST_TO_DEVICE,
    ACL_MEMCPY_DEVICE_TO_HOST,
    ACL_MEMCPY_DEVICE_TO_DEVICE,
    ACL_MEMCPY_DEFAULT,
    ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE,
    ACL_MEMCPY_INNER_DEVICE_TO_DEVICE,
    ACL_MEMCPY_INTER_DEVICE_TO_DEVICE,
} aclrtMemcpyKind;

typedef enum aclrtMemMallocPolicy {
    ACL_MEM_MALLOC_HUGE_FIRST,
    ACL_MEM_MALLOC_HUGE_ONLY,
    ACL_MEM_MALLOC_NORMAL_ONLY,
    ACL_MEM_MALLOC_HUGE_FIRST_P2P,
    ACL_MEM_MALLOC_HUGE_ONLY_P2P,
    ACL_MEM_MALLOC_NORMAL_ONLY_P2P,
    ACL_MEM_MALLOC_HUGE1G_ONLY,
    ACL_MEM_MALLOC_HUGE1G_ONLY_P2P,
    ACL_MEM_TYPE_LOW_BAND_WIDTH = 0x0100,
    ACL_MEM_TYPE_HIGH_BAND_WIDTH = 0x1000,
    ACL_MEM_ACCESS_USER_SPACE_READONLY = 0x100000,
} aclrtMemMallocPolicy;

typedef enum {
    ACL_RT_STREAM_WORK_ADDR_PTR = 0,
    ACL_RT_STREAM_WORK_SIZE,
    ACL_RT_STREAM_FLAG,
    ACL_RT_STREAM_PRIORITY,
} aclrtStreamConfigAttr;

typedef struct aclrtStreamConfigHandle {
    void *workptr;
    size_t workSize;
    size_t flag;
    uint32_t priority;
} aclrtStreamConfigHandle;

typedef enum {
    ACL_STREAM_ATTR_FAILURE_MODE = 1,
    ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK = 2,
    ACL_STREAM_ATTR_USER_CUSTOM_TAG = 3,
    ACL_STREAM_ATTR_CACHE_OP_INFO = 4,
    ACL_STREAM_ATTR_PRIORITY = 5,
} aclrtStreamAttr;

typedef union {
    uint64_t failureMode;
    uint32_t overflowSwitch;
    uint32_t userCustomTag;
    uint32_t cacheOpInfoSwitch;
    uint32_t streamPriority;
    uint32_t reserve[4];
} aclrtStreamAttrValue;

typedef enum aclrtLastErrLevel {
    ACL_RT_THREAD_LEVEL = 0,
} aclrtLastErrLevel;

typedef struct rtExceptionInfo aclrtExceptionInfo;

typedef void (*aclrtCallback)(void *userData);
typedef void (*aclrtHostFunc)(void *args);
typedef void (*aclrtExceptionInfoCallback)(aclrtExceptionInfo *exceptionInfo);
typedef void (*aclrtOpExceptionCallback)(aclrtExceptionInfo *exceptionInfo, void *userData);

typedef enum {
    ACL_RT_DEVICE_STATE_SET_PRE = 0,
    ACL_RT_DEVICE_STATE_SET_POST,
    ACL_RT_DEVICE_STATE_RESET_PRE,
    ACL_RT_DEVICE_STATE_RESET_POST,
} aclrtDeviceState;

typedef void (*aclrtDeviceStateCallback)(int32_t deviceId, aclrtDeviceState state, void *args);

typedef enum {
    ACL_RT_STREAM_STATE_CREATE_POST = 1,
    ACL_RT_STREAM_STATE_DESTROY_PRE,
} aclrtStreamState;

typedef void (*aclrtStreamStateCallback)(aclrtStream stm, aclrtStreamState state, void *args);

typedef enum {
    ACL_RT_CNT_NOTIFY_RECORD_SET_VALUE_MODE = 0,
    ACL_RT_CNT_NOTIFY_RECORD_ADD_MODE = 1,
    ACL_RT_CNT_NOTIFY_RECORD_BIT_OR_MODE = 2,
    ACL_RT_CNT_NOTIFY_RECORD_BIT_AND_MODE = 4,
} aclrtCntNotifyRecordMode;

typedef struct {
    aclrtCntNotifyRecordMode mode;
    uint32_t value;
} aclrtCntNotifyRecordInfo;

typedef enum {
    ACL_RT_CNT_NOTIFY_WAIT_LESS_MODE = 0,
    ACL_RT_CNT_NOTIFY_WAIT_EQUAL_MODE = 1,
    ACL_RT_CNT_NOTIFY_WAIT_BIGGER_MODE = 2,
    ACL_RT_CNT_NOTIFY_WAIT_BIGGER_OR_EQUAL_MODE = 3,
    ACL_RT_CNT_NOTIFY_WAIT_EQUAL_WITH_BITMASK_MODE = 4,
} aclrtCntNotifyWaitMode;

typedef struct {
    aclrtCntNotifyWaitMode mode;
    uint32_t value;
    uint32_t timeout;
    uint8_t isClear;
    uint8_t rsv[3];
} aclrtCntNotifyWaitInfo;

typedef struct aclrtIpcEventHandle {
    char reserved[ACL_IPC_EVENT_HANDLE_SIZE];
} aclrtIpcEventHandle;

/* A server's pids for the InterServer IPC allow-lists (super nodes; on one host sdid is not checked). */
typedef struct {
    uint32_t sdid;
    int32_t *pid;
    size_t num;
} aclrtServerPid;

typedef enum {
    ACL_MODEL_RI_CAPTURE_MODE_GLOBAL = 0,
    ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL,
    ACL_MODEL_RI_CAPTURE_MODE_RELAXED,
} aclmdlRICaptureMode;

typedef enum {
    ACL_MODEL_RI_CAPTURE_STATUS_NONE = 0,
    ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE,
    ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED,
} aclmdlRICaptureStatus;

/* aclmdlRITaskGetType: what a model's task is (other tasks: ACL_MODEL_RI_TASK_DEFAULT). */
typedef enum aclmdlRITaskType {
    ACL_MODEL_RI_TASK_DEFAULT,
    ACL_MODEL_RI_TASK_KERNEL,
    ACL_MODEL_RI_TASK_EVENT_RECORD,
    ACL_MODEL_RI_TASK_EVENT_WAIT,
    ACL_MODEL_RI_TASK_EVENT_RESET,
    ACL_MODEL_RI_TASK_VALUE_WRITE,
    ACL_MODEL_RI_TASK_VALUE_WAIT,
} aclmdlRITaskType;

/* Conditional tasks of a captured model (aclmdlRIAddCondTask). */
typedef void *aclmdlRICondHandle;

typedef enum {
    ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT = 1,
} aclmdlRICondHandleFlag;

typedef enum {
    ACL_MODEL_RI_COND_TYPE_IF = 0,
    ACL_MODEL_RI_COND_TYPE_WHILE = 1,
    ACL_MODEL_RI_COND_TYPE_SWITCH = 2,
} aclmdlRICondTaskType;

typedef struct tagAclmdlRICondTaskParams {
    aclmdlRICondHandle handle;
    aclmdlRICondTaskType type;
    uint32_t size;          /* branches: IF 1 or 2, WHILE 1, SWITCH 1 or more */
    aclmdlRI *modelRIArray; /* out: the branches, `size` of them */
} aclmdlRICondTaskParams;

/* aclmdlRIDebugJsonPrint: the model's streams and tasks, or with kernels' blocks and arguments too. */
#define ACL_MDLRI_DEBUG_JSON_PRINT_SUMMARY 0x0UL
#define ACL_MDLRI_DEBUG_JSON_PRINT_VERBOSE 0x1UL

/* aclmdlRIBindStream: a stream that runs from the model's start, or one activated during execution. */
#define ACL_MODEL_STREAM_FLAG_HEAD 0x00000000U
#define ACL_MODEL_STREAM_FLAG_DEFAULT 0x7FFFFFFFU

/* ========================================================================
 * Init and errors
 *
 * aclInit is reference-counted: a repeated call returns
 * ACL_ERROR_REPEAT_INITIALIZE (harmless) and the first configuration stays.
 * aclFinalize tears everything down; init -> finalize -> init cycles work.
 * aclGetRecentErrMsg returns and clears the calling thread's accumulated
 * error text (newest first), or NULL. aclrtGetLastError/PeekAtLastError
 * report the thread's most recent error code, parameter or asynchronous.
 * ======================================================================== */
ACLRT_API aclError aclInit(const char *configPath);
ACLRT_API aclError aclFinalize();
ACLRT_API aclError aclFinalizeReference(uint64_t *refCount);
ACLRT_API const char *aclGetRecentErrMsg();
ACLRT_API aclError aclrtPeekAtLastError(aclrtLastErrLevel level);
ACLRT_API aclError aclrtGetLastError(aclrtLastErrLevel level);

/* ========================================================================
 * Device and context
 *
 * aclrtSetDevice is reference-counted per device; the first call creates the
 * device's default context and default stream, shared by every thread that
 * sets the same device. A thread has one current context; a NULL stream
 * argument means that context's default stream, which is an ordinary stream:
 * no implicit synchronization with other streams.
 * ======================================================================== */
ACLRT_API aclError aclrtSetDevice(int32_t deviceId);
ACLRT_API aclError aclrtResetDevice(int32_t deviceId);
ACLRT_API aclError aclrtResetDeviceForce(int32_t deviceId);
ACLRT_API aclError aclrtGetDevice(int32_t *deviceId);
ACLRT_API aclError aclrtGetDeviceCount(uint32_t *count);
ACLRT_API aclError aclrtSynchronizeDevice(void);
ACLRT_API aclError aclrtSynchronizeDeviceWithTimeout(int32_t timeout);
ACLRT_API aclError aclrtCreateContext(aclrtContext *context, int32_t deviceId);
ACLRT_API aclError aclrtDestroyContext(aclrtContext context);
ACLRT_API aclError aclrtSetCurrentContext(aclrtContext context);
ACLRT_API aclError aclrtGetCurrentContext(aclrtContext *context);
ACLRT_API aclError aclrtCtxGetCurrentDefaultStream(aclrtStream *stream);
ACLRT_API aclError aclrtGetRunMode(aclrtRunMode *runMode);
/* Called before/after every aclrtSetDevice and aclrtResetDevice(Force) on the calling thread; a NULL
 * callback unregisters regName. Must not call device or context lifecycle functions. */
ACLRT_API aclError aclrtRegDeviceStateCallback(const char *regName, aclrtDeviceStateCallback callback, void *args);

/* ========================================================================
 * Snapshots of the process (acl_rt.h)
 *
 * A process moves RUNNING -> (Lock) LOCKED -> (Backup) BACKED_UP ->
 * (Restore) LOCKED ... -> (Unlock) RUNNING. Lock waits for the work
 * launched on every set device to finish; while the process is not
 * RUNNING, launches, device allocations, frees and synchronous copies from
 * user threads wait for Unlock. Backup keeps a host copy of every device
 * allocation (aclrtMalloc); Restore writes the last backup back into the
 * allocations still alive. A call out of order fails with its stage's
 * ACL_ERROR_SNAPSHOT_* code. `pid` is the calling process's id; the
 * reserved arguments are NULL. docs/SEMANTICS.md.
 * ======================================================================== */
typedef enum {
    ACL_RT_SNAPSHOT_LOCK_PRE = 0,
    ACL_RT_SNAPSHOT_BACKUP_PRE,
    ACL_RT_SNAPSHOT_BACKUP_POST,
    ACL_RT_SNAPSHOT_RESTORE_PRE,
    ACL_RT_SNAPSHOT_RESTORE_POST,
    ACL_RT_SNAPSHOT_UNLOCK_POST,
} aclrtSnapShotStage;

/* A process's state: running, or locked by aclrtSnapShotProcessLock. */
typedef enum aclrtProcessState {
    ACL_RT_PROCESS_STATE_RUNNING = 0,
    ACL_RT_PROCESS_STATE_LOCKED,
} aclrtProcessState;

/* Called once per set device at its stage; a nonzero result fails the stage (ACL_ERROR_SNAPSHOT_CALLBACK_FAILED). */
typedef uint32_t (*aclrtSnapShotCallBack)(int32_t deviceId, void *args);

typedef struct aclrtSnapShotBackupArgs {
    uint32_t backupFlags; /* reserved: 0 */
    char reserved[60];
} aclrtSnapShotBackupArgs;

typedef struct aclrtSnapShotRestoreArgs {
    uint32_t restoreFlags; /* reserved: 0 */
    char reserved[60];
} aclrtSnapShotRestoreArgs;

ACLRT_API aclError aclrtSnapShotProcessLock(int pid, void *reserve);
ACLRT_API aclError aclrtSnapShotProcessUnlock(int pid, void *reserve);
ACLRT_API aclError aclrtSnapShotProcessBackup(int pid, aclrtSnapShotBackupArgs *args);
ACLRT_API aclError aclrtSnapShotProcessRestore(int pid, aclrtSnapShotRestoreArgs *args);
/* At most one registration of a callback per stage; it is called with `args` unchanged. */
ACLRT_API aclError aclrtSnapShotCallbackRegister(aclrtSnapShotStage stage, aclrtSnapShotCallBack callback, void *args);
ACLRT_API aclError aclrtSnapShotCallbackUnregister(aclrtSnapShotStage stage, aclrtSnapShotCallBack callback);

/* ========================================================================
 * Streams
 *
 * A stream runs its tasks in submission order; streams run concurrently.
 * Timeouts of the *WithTimeout synchronizers are milliseconds, -1 = forever
 * (0 and values below -1 are invalid). DestroyStream waits for the stream's
 * work; DestroyStreamForce discards what has not started.
 * ======================================================================== */
ACLRT_API aclError aclrtCreateStream(aclrtStream *stream);
ACLRT_API aclError aclrtCreateStreamWithConfig(aclrtStream *stream, uint32_t priority, uint32_t flag);
ACLRT_API aclError aclrtCreateStreamV2(aclrtStream *stream, const aclrtStreamConfigHandle *handle);
ACLRT_API aclrtStreamConfigHandle *aclrtCreateStreamConfigHandle(void);
ACLRT_API aclError aclrtSetStreamConfigOpt(aclrtStreamConfigHandle *handle, aclrtStreamConfigAttr attr,
                                           const void *attrValue, size_t valueSize);
ACLRT_API aclError aclrtDestroyStreamConfigHandle(aclrtStreamConfigHandle *handle);
ACLRT_API aclError aclrtDestroyStream(aclrtStream stream);
ACLRT_API aclError aclrtDestroyStreamForce(aclrtStream stream);
ACLRT_API aclError aclrtSynchronizeStream(aclrtStream stream);
ACLRT_API aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout);
ACLRT_API aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus *status);
ACLRT_API aclError aclrtStreamGetId(aclrtStream stream, int32_t *streamId);
ACLRT_API aclError aclrtStreamGetPriority(aclrtStream stream, uint32_t *priority);
ACLRT_API aclError aclrtStreamGetFlags(aclrtStream stream, uint32_t *flags);
ACLRT_API aclError aclrtSetStreamFailureMode(aclrtStream stream, uint64_t mode);
ACLRT_API aclError aclrtSetStreamAttribute(aclrtStream stream, aclrtStreamAttr stmAttrType,
                                           aclrtStreamAttrValue *value);
ACLRT_API aclError aclrtGetStreamAttribute(aclrtStream stream, aclrtStreamAttr stmAttrType,
                                           aclrtStreamAttrValue *value);
ACLRT_API aclError aclrtDeviceGetStreamPriorityRange(int32_t *leastPriority, int32_t *greatestPriority);
ACLRT_API aclError aclrtGetStreamAvailableNum(uint32_t *streamCount);
/*
 * Stream control. Abort discards the stream's tasks that have not started
 * (a running one finishes) and returns when the stream is empty; waits that
 * were synchronizing it return ACL_ERROR_RT_STREAM_ABORT. Stop runs nothing
 * more after the running task, keeping the queued tasks (synchronizers
 * return ACL_ERROR_RT_TASK_ABORT_STOP) until an abort or a destroy. State
 * callbacks run after every stream creation and before every destruction,
 * default streams included; a NULL callback unregisters regName.
 */
ACLRT_API aclError aclrtStreamAbort(aclrtStream stream);
ACLRT_API aclError aclrtStreamStop(aclrtStream stream);
ACLRT_API aclError aclrtRegStreamStateCallback(const char *regName, aclrtStreamStateCallback callback, void *args);
/*
 * Capture and replay (aclmdlRI). Between aclmdlRICaptureBegin and
 * aclmdlRICaptureEnd the host functions, callbacks, host kernels, kernels,
 * copies, memsets and reductions submitted to the stream are recorded into a
 * model instead of running; aclmdlRIExecuteAsync replays them, in order, as
 * one task of a stream. An event recorded on a capturing stream forks the
 * capture to the streams that wait for it; the origin stream's wait for an
 * event recorded on such a stream joins it back. A capturing stream is not
 * synchronized, queried or destroyed (ACL_ERROR_RT_STREAM_CAPTURED); other
 * calls on it (event resets, waits for events from outside the capture,
 * notifies, value writes and waits, external tasks, ...) are refused with
 * ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT and invalidate the capture.
 * aclmdlRIDestroy lets a pending replay finish. docs/SEMANTICS.md.
 */
ACLRT_API aclError aclmdlRICaptureBegin(aclrtStream stream, aclmdlRICaptureMode mode);
ACLRT_API aclError aclmdlRICaptureGetInfo(aclrtStream stream, aclmdlRICaptureStatus *status, aclmdlRI *modelRI);
ACLRT_API aclError aclmdlRICaptureEnd(aclrtStream stream, aclmdlRI *modelRI);
ACLRT_API aclError aclmdlRICaptureThreadExchangeMode(aclmdlRICaptureMode *mode);
ACLRT_API aclError aclmdlRIExecuteAsync(aclmdlRI modelRI, aclrtStream stream);
ACLRT_API aclError aclmdlRIExecute(aclmdlRI modelRI, int32_t timeout);
ACLRT_API aclError aclmdlRIDestroy(aclmdlRI modelRI);
/*
 * A model's abort, name and id. aclmdlRIAbort: replays of the model
 * submitted before it and not finished drop their remaining steps (a step
 * running finishes) and count as done without an error; their streams go
 * on. Later replays run whole.
 * aclmdlRISetName (at most 127 bytes) / aclmdlRIGetName (maxLen must hold
 * the name and its NUL); aclmdlRIGetId: unique among live models.
 */
ACLRT_API aclError aclmdlRIAbort(aclmdlRI modelRI);
ACLRT_API aclError aclmdlRISetName(aclmdlRI modelRI, const char *name);
ACLRT_API aclError aclmdlRIGetName(aclmdlRI modelRI, uint32_t maxLen, char *name);
ACLRT_API aclError aclmdlRIGetId(aclmdlRI modelRI, uint32_t *modelRIId);
/*
 * Destroy callbacks: func(userData) runs once the model is destroyed and
 * no replay of it is left (on the destroying thread, or on the runtime
 * thread that ends the last replay); a function is registered once per
 * model (again: ACL_ERROR_RT_PARAM_INVALID).
 */
ACLRT_API aclError aclmdlRIDestroyRegisterCallback(aclmdlRI modelRI, aclrtCallback func, void *userData);
ACLRT_API aclError aclmdlRIDestroyUnregisterCallback(aclmdlRI modelRI, aclrtCallback func);
/*
 * A model described: aclmdlRIDebugJsonPrint writes it to `path` in the
 * trace event format (chrome://tracing, Perfetto: a track per model
 * stream, a task per sequence id); aclmdlRIDebugPrint writes it to
 * standard error.
 */
ACLRT_API aclError aclmdlRIDebugJsonPrint(aclmdlRI modelRI, const char *path, uint32_t flags);
ACL_DEPRECATED_MESSAGE("aclmdlRIDebugPrint is deprecated, use aclmdlRIDebugJsonPrint instead")
ACLRT_API aclError aclmdlRIDebugPrint(aclmdlRI modelRI);
/*
 * A model's streams and tasks. aclmdlRIGetStreams: a captured model's
 * streams are its own (the origin's, then those that joined), good for
 * aclmdlRIGetTasksByStream; a built model's are its bound streams. Both
 * listings: a NULL array asks for the number; an array too small is
 * filled and gets ACL_ERROR_RT_INSUFFICIENT_INPUT_ARRAY; a larger one gets
 * NULL after the last. aclmdlRITaskGetSeqId: the task's place in a
 * captured model (from 0, over all its streams in submission order).
 */
ACLRT_API aclError aclmdlRIGetStreams(aclmdlRI modelRI, aclrtStream *streams, uint32_t *numStreams);
ACLRT_API aclError aclmdlRIGetTasksByStream(aclrtStream stream, aclmdlRITask *tasks, uint32_t *numTasks);
ACLRT_API aclError aclmdlRITaskGetType(aclmdlRITask task, aclmdlRITaskType *type);
ACLRT_API aclError aclmdlRITaskGetSeqId(aclmdlRITask task, uint32_t *id);
/*
 * Conditional tasks. During a capture, aclmdlRICondHandleCreate gives the
 * model a condition, a 64-bit word in device memory (its address:
 * aclmdlRICondHandleGetCondPtr; with ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT
 * every replay starts by setting it to the default). aclmdlRIAddCondTask
 * captures a task that, at each replay, runs the branch the word picks
 * (IF: word != 0 the first, else the second if any; WHILE: the branch
 * while word != 0; SWITCH: branch `word`, none past the last); it makes
 * the branches, models captured with aclmdlRICaptureToModelRIBegin ..
 * aclmdlRICaptureEnd on another stream before the model's own capture
 * ends (else ACL_ERROR_RT_SUB_ACLGRAPH_IS_CAPTURING). Branches go with
 * their model. docs/SEMANTICS.md.
 */
ACLRT_API aclError aclmdlRICondHandleCreate(aclmdlRI modelRI, uint32_t defaultLaunchValue, aclmdlRICondHandleFlag flag,
                                            aclmdlRICondHandle *handle);
ACLRT_API aclError aclmdlRICondHandleGetCondPtr(aclmdlRICondHandle handle, uint64_t **ptr);
ACLRT_API aclError aclmdlRIAddCondTask(aclmdlRICondTaskParams params, aclrtStream stream, uint32_t flags);
ACLRT_API aclError aclmdlRICaptureToModelRIBegin(aclrtStream stream, aclmdlRI modelRI, aclmdlRICaptureMode mode);
/*
 * Task groups: aclmdlRICaptureTaskGrpBegin .. End on a capturing stream
 * name the tasks captured in between (the handle lives as long as the
 * model). After aclmdlRICaptureEnd, aclmdlRICaptureTaskUpdateBegin ..
 * End on a stream that does not capture collect that stream's tasks, as
 * many and of the same kinds, to replace the group's: replays submitted
 * after the End run them, earlier ones run the tasks they started with.
 * docs/SEMANTICS.md.
 */
ACLRT_API aclError aclmdlRICaptureTaskGrpBegin(aclrtStream stream);
ACLRT_API aclError aclmdlRICaptureTaskGrpEnd(aclrtStream stream, aclrtTaskGrp *handle);
ACLRT_API aclError aclmdlRICaptureTaskUpdateBegin(aclrtStream stream, aclrtTaskGrp handle);
ACLRT_API aclError aclmdlRICaptureTaskUpdateEnd(aclrtStream stream);
/*
 * Building a model explicitly: between aclmdlRIBindStream and
 * aclmdlRIEndTask the tasks submitted to a bound stream go into the model
 * instead of running (as in a capture); aclmdlRIBuildEnd makes it ready to
 * execute. A stream bound with ACL_MODEL_STREAM_FLAG_HEAD runs from the
 * start of each execution; one bound with ACL_MODEL_STREAM_FLAG_DEFAULT
 * only when activated (section "Persistent streams and stream
 * activation"). docs/SEMANTICS.md.
 */
ACLRT_API aclError aclmdlRIBuildBegin(aclmdlRI *modelRI, uint32_t flag);
ACLRT_API aclError aclmdlRIBindStream(aclmdlRI modelRI, aclrtStream stream, uint32_t flag);
ACLRT_API aclError aclmdlRIEndTask(aclmdlRI modelRI, aclrtStream stream);
ACLRT_API aclError aclmdlRIBuildEnd(aclmdlRI modelRI, void *reserve);
ACLRT_API aclError aclmdlRIUnbindStream(aclmdlRI modelRI, aclrtStream stream);
/*
 * Labels, in a model being built: aclrtSetLabel marks a place among a bound
 * stream's tasks, aclrtSwitchLabelByIndex adds a step that, at each
 * execution, reads a uint32_t index at ptr and jumps to that label of the
 * list (past the last: the last). aclmdlRIBuildEnd resolves the labels.
 */
ACLRT_API aclError aclrtCreateLabel(aclrtLabel *label);
ACLRT_API aclError aclrtSetLabel(aclrtLabel label, aclrtStream stream);
ACLRT_API aclError aclrtDestroyLabel(aclrtLabel label);
ACLRT_API aclError aclrtCreateLabelList(aclrtLabel *labels, size_t num, aclrtLabelList *labelList);
ACLRT_API aclError aclrtDestroyLabelList(aclrtLabelList labelList);
ACLRT_API aclError aclrtSwitchLabelByIndex(void *ptr, uint32_t maxValue, aclrtLabelList labelList, aclrtStream stream);

/* ========================================================================
 * Persistent streams and stream activation
 *
 * A stream made with ACL_STREAM_PERSISTENT keeps its tasks for a model
 * built explicitly (aclmdlRIBindStream): work submitted to it while it
 * does not collect for one (not bound, or its tasks ended) is refused
 * (ACL_ERROR_RT_STREAM_MODEL); synchronizing or
 * querying it returns at once. aclrtPersistentTaskClean removes such a
 * stream's tasks from the model it is bound to, whose build has ended:
 * later executions run without them. aclrtActiveStream and
 * aclrtSwitchStream add a step to a bound stream: at each execution it
 * starts a stream bound to the same model with
 * ACL_MODEL_STREAM_FLAG_DEFAULT, which then runs in parallel with the
 * rest of the execution (the execution ends when every stream it started
 * has); the switch does so only when `*leftValue cond *rightValue` holds
 * (values read at each execution), and then the stream that holds the
 * switch stops there. docs/SEMANTICS.md.
 * ======================================================================== */
typedef enum {
    ACL_RT_EQUAL = 0,
    ACL_RT_NOT_EQUAL,
    ACL_RT_GREATER,
    ACL_RT_GREATER_OR_EQUAL,
    ACL_RT_LESS,
    ACL_RT_LESS_OR_EQUAL
} aclrtCondition;

typedef enum {
    ACL_RT_SWITCH_INT32 = 0,
    ACL_RT_SWITCH_INT64 = 1,
} aclrtCompareDataType;

ACLRT_API aclError aclrtActiveStream(aclrtStream activeStream, aclrtStream stream);
ACLRT_API aclError aclrtSwitchStream(void *leftValue, aclrtCondition cond, void *rightValue,
                                     aclrtCompareDataType dataType, aclrtStream trueStream, aclrtStream falseStream,
                                     aclrtStream stream);
ACLRT_API aclError aclrtPersistentTaskClean(aclrtStream stream);

/* ========================================================================
 * Events
 *
 * A record captures the work submitted to the stream so far; query,
 * synchronize and stream waits refer to that captured work. Three flavours:
 *   aclrtCreateEvent            timestamps on; NOT_READY until recorded; a
 *                               stream wait needs a record first.
 *   aclrtCreateEventWithFlag    legacy: with ACL_EVENT_SYNC the event is a
 *                               flag that stays set until aclrtResetEvent,
 *                               and a wait issued before any record waits
 *                               for the next record.
 *   aclrtCreateEventExWithFlag  reusable: every record re-captures; complete
 *                               (and nothing to wait for) before its first
 *                               record; no reset, no QueryEvent.
 * Synchronize timeouts are milliseconds (-1 forever); stream-wait timeouts
 * are seconds (0 = never). Waits copy what the event captured at the call,
 * so re-recording does not change a pending wait, and an event may be
 * destroyed while work it captured is still pending.
 * ======================================================================== */
ACLRT_API aclError aclrtCreateEvent(aclrtEvent *event);
ACLRT_API aclError aclrtCreateEventWithFlag(aclrtEvent *event, uint32_t flag);
ACLRT_API aclError aclrtCreateEventExWithFlag(aclrtEvent *event, uint32_t flag);
ACLRT_API aclError aclrtDestroyEvent(aclrtEvent event);
ACLRT_API aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream);
ACLRT_API aclError aclrtRecordEventWithFlag(aclrtEvent event, aclrtStream stream, uint32_t flag);
ACLRT_API aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream);
ACL_DEPRECATED_MESSAGE("aclrtQueryEvent is deprecated, use aclrtQueryEventStatus instead")
ACLRT_API aclError aclrtQueryEvent(aclrtEvent event, aclrtEventStatus *status);
ACLRT_API aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus *status);
ACLRT_API aclError aclrtQueryEventWaitStatus(aclrtEvent event, aclrtEventWaitStatus *status);
ACLRT_API aclError aclrtSynchronizeEvent(aclrtEvent event);
ACLRT_API aclError aclrtSynchronizeEventWithTimeout(aclrtEvent event, int32_t timeout);
ACLRT_API aclError aclrtEventElapsedTime(float *ms, aclrtEvent startEvent, aclrtEvent endEvent);
ACLRT_API aclError aclrtEventGetTimestamp(aclrtEvent event, uint64_t *timestamp);
ACLRT_API aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event);
ACLRT_API aclError aclrtStreamWaitEventWithTimeout(aclrtStream stream, aclrtEvent event, int32_t timeout);
ACLRT_API aclError aclrtStreamWaitEventWithFlag(aclrtStream stream, aclrtEvent event, uint32_t timeout,
                                                uint32_t flag);
ACLRT_API aclError aclrtGetEventId(aclrtEvent event, uint32_t *eventId);
ACLRT_API aclError aclrtGetEventAvailNum(uint32_t *eventCount);
ACLRT_API aclError aclrtSetOpWaitTimeout(uint32_t timeout);
/*
 * IPC events: an event from aclrtCreateEventExWithFlag(ACL_EVENT_IPC) gives
 * a handle another process opens as an event of its own; a record through
 * either completes status, synchronize and stream waits of both
 * (docs/SEMANTICS.md, IPC). No timestamps, event id, reset or QueryEvent.
 */
ACLRT_API aclError aclrtIpcGetEventHandle(aclrtEvent event, aclrtIpcEventHandle *handle);
ACLRT_API aclError aclrtIpcOpenEventHandle(aclrtIpcEventHandle handle, aclrtEvent *event);

/* ========================================================================
 * Notifies, counting notifies, stream memory operations
 *
 * Notify: a record on one stream releases exactly one wait on another; the
 * wait may be enqueued first, and N waits need N records (records nobody
 * waits for yet are kept until a wait or aclrtNotifyBatchReset takes them).
 * aclrtWaitAndResetNotify's timeout is in seconds (0 = never).
 * Counting notify: a 32-bit counter; records set / add / OR / AND it, waits
 * compare it (less, equal, bigger, bigger-or-equal, equal under a bitmask),
 * optionally clearing it when they pass; timeouts in seconds (0 = never).
 * Value write / wait: a stream writes, or waits for a condition on, a 64-bit
 * word of aclrtMalloc memory (8-byte aligned) that host code and kernels may
 * write too. None of these waits holds a runtime thread while it waits.
 * ======================================================================== */
ACLRT_API aclError aclrtCreateNotify(aclrtNotify *notify, uint64_t flag);
ACLRT_API aclError aclrtDestroyNotify(aclrtNotify notify);
ACLRT_API aclError aclrtRecordNotify(aclrtNotify notify, aclrtStream stream);
ACLRT_API aclError aclrtWaitAndResetNotify(aclrtNotify notify, aclrtStream stream, uint32_t timeout);
ACLRT_API aclError aclrtGetNotifyId(aclrtNotify notify, uint32_t *notifyId);
ACLRT_API aclError aclrtNotifyBatchReset(aclrtNotify *notifies, size_t num);
ACLRT_API aclError aclrtCntNotifyCreate(aclrtCntNotify *cntNotify, uint64_t flag);
ACLRT_API aclError aclrtCntNotifyDestroy(aclrtCntNotify cntNotify);
ACLRT_API aclError aclrtCntNotifyRecord(aclrtCntNotify cntNotify, aclrtStream stream, aclrtCntNotifyRecordInfo *info);
ACLRT_API aclError aclrtCntNotifyWaitWithTimeout(aclrtCntNotify cntNotify, aclrtStream stream,
                                                 aclrtCntNotifyWaitInfo *info);
ACLRT_API aclError aclrtCntNotifyReset(aclrtCntNotify cntNotify, aclrtStream stream);
ACLRT_API aclError aclrtCntNotifyGetId(aclrtCntNotify cntNotify, uint32_t *notifyId);
ACLRT_API aclError aclrtValueWrite(void *devAddr, uint64_t value, uint32_t flag, aclrtStream stream);
ACLRT_API aclError aclrtValueWait(void *devAddr, uint64_t value, uint32_t flag, aclrtStream stream);
/*
 * IPC notifies: the exporting process gets a key (65-byte buffer) another
 * process imports as a notify of its own; the importer records, only the
 * exporter waits. With the DEFAULT export flag only processes on the
 * notify's allow-list may import (docs/SEMANTICS.md, IPC).
 */
ACLRT_API aclError aclrtNotifyGetExportKey(aclrtNotify notify, char *key, size_t len, uint64_t flags);
ACLRT_API aclError aclrtNotifyImportByKey(aclrtNotify *notify, const char *key, uint64_t flags);
ACLRT_API aclError aclrtNotifySetImportPid(aclrtNotify notify, int32_t *pid, size_t num);
ACLRT_API aclError aclrtNotifySetImportPidInterServer(aclrtNotify notify, aclrtServerPid *serverPids, size_t num);

/* ========================================================================
 * Tasks and memory
 *
 * aclrtLaunchHostFunc runs fn(args) on a runtime thread when the stream's
 * earlier tasks are done, and holds the stream's later tasks until it
 * returns. "Device" memory of the host backend is host memory; copies and
 * memsets check sizes as the real runtime does (count <= destMax).
 * ======================================================================== */
ACLRT_API aclError aclrtLaunchHostFunc(aclrtStream stream, aclrtHostFunc fn, void *args);
ACLRT_API aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy);
ACLRT_API aclError aclrtFree(void *devPtr);
ACLRT_API aclError aclrtMallocHost(void **hostPtr, size_t size);
ACLRT_API aclError aclrtFreeHost(void *hostPtr);
ACLRT_API aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind);
ACLRT_API aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count,
                                    aclrtMemcpyKind kind, aclrtStream stream);
ACLRT_API aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count);
ACLRT_API aclError aclrtMemsetAsync(void *devPtr, size_t maxCount, int32_t value, size_t count,
                                    aclrtStream stream);

/*
 * Allocation variants: device memory as aclrtMalloc's, and pinned host
 * memory as aclrtMallocHost's, freed by aclrtFree / aclrtFreeHost or their
 * WithDevSync forms. A configuration (may be NULL) names the module that
 * owns the memory (accepted, recorded nowhere), the device (which must be
 * the current one) and, for host memory, VA consistency (host memory is
 * already at the same address for every device). The WithDevSync frees
 * first wait for the work the device's streams (host memory: every
 * device's) had launched at the call.
 */
typedef enum {
    ACL_RT_MEM_ATTR_RSV = 0,
    ACL_RT_MEM_ATTR_MODULE_ID,
    ACL_RT_MEM_ATTR_DEVICE_ID,
    ACL_RT_MEM_ATTR_VA_FLAG,
} aclrtMallocAttrType;

typedef union {
    uint16_t moduleId;
    uint32_t deviceId;
    uint32_t vaFlag;
    uint8_t rsv[8];
} aclrtMallocAttrValue;

typedef struct {
    aclrtMallocAttrType attr;
    aclrtMallocAttrValue value;
} aclrtMallocAttribute;

typedef struct {
    aclrtMallocAttribute *attrs;
    size_t numAttrs;
} aclrtMallocConfig;

ACLRT_API aclError aclrtMallocAlign32(void **devPtr, size_t size, aclrtMemMallocPolicy policy);
ACLRT_API aclError aclrtMallocCached(void **devPtr, size_t size, aclrtMemMallocPolicy policy);
ACLRT_API aclError aclrtMallocWithCfg(void **devPtr, size_t size, aclrtMemMallocPolicy policy,
                                      aclrtMallocConfig *cfg);
ACLRT_API aclError aclrtMallocForTaskScheduler(void **devPtr, size_t size, aclrtMemMallocPolicy policy,
                                               aclrtMallocConfig *cfg);
ACLRT_API aclError aclrtMallocHostWithCfg(void **ptr, uint64_t size, aclrtMallocConfig *cfg);
ACLRT_API aclError aclrtFreeWithDevSync(void *devPtr);
ACLRT_API aclError aclrtFreeHostWithDevSync(void *hostPtr);

/*
 * Two-dimensional copies and 32-bit memsets. A 2-D copy moves `height`
 * rows of `width` bytes, rows `spitch` bytes apart in the source and
 * `dpitch` in the destination (width <= both pitches); the asynchronous
 * form is one task. aclrtMemsetD32 writes N 32-bit values (memSize >= 4N).
 * aclrtMemcpyAsyncWithCondition is aclrtMemcpyAsync (deprecated, as in
 * CANN).
 */
ACLRT_API aclError aclrtMemcpy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                 size_t height, aclrtMemcpyKind kind);
ACLRT_API aclError aclrtMemcpy2dAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                      size_t height, aclrtMemcpyKind kind, aclrtStream stream);
ACLRT_API aclError aclrtMemsetD32(void *ptr, size_t memSize, uint32_t value, size_t N);
ACLRT_API aclError aclrtMemsetD32Async(void *ptr, size_t memSize, uint32_t value, size_t N, aclrtStream stream);
ACL_DEPRECATED_MESSAGE("aclrtMemcpyAsyncWithCondition is deprecated, use aclrtMemcpyAsync instead")
ACLRT_API aclError aclrtMemcpyAsyncWithCondition(void *dst, size_t destMax, const void *src, size_t count,
                                                 aclrtMemcpyKind kind, aclrtStream stream);

/*
 * IPC memory: aclrtMalloc memory another process maps (the same bytes).
 * On the host backend, allocations of at least 64 KiB are shareable, from
 * a page-aligned address; keys need a 65-byte buffer. With the DEFAULT
 * export flag only processes on the key's allow-list may import
 * (aclrtIpcMemSetImportPid, pids from aclrtDeviceGetBareTgid). Imports end
 * with aclrtIpcMemClose, exports too (docs/SEMANTICS.md, IPC).
 */
#define ACL_RT_IPC_MEM_EXPORT_FLAG_DEFAULT 0x0UL
#define ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION 0x1UL
#define ACL_RT_IPC_MEM_IMPORT_FLAG_DEFAULT 0x0UL
#define ACL_RT_IPC_MEM_IMPORT_FLAG_ENABLE_PEER_ACCESS 0x1UL
#define ACL_RT_IPC_MEM_ATTR_ACCESS_LINK_SIO 0
#define ACL_RT_IPC_MEM_ATTR_ACCESS_LINK_HCCS 1
#define ACL_RT_IPC_MEM_ATTR_ACCESS_LINK_UB_ONE_PORT_PATH 2
#define ACL_RT_IPC_MEM_ATTR_ACCESS_LINK_UB_MULTI_PORT_PATH 3
typedef enum {
    ACL_RT_IPC_MEM_ATTR_ACCESS_LINK,
} aclrtIpcMemAttrType;
ACLRT_API aclError aclrtIpcMemGetExportKey(void *devPtr, size_t size, char *key, size_t len, uint64_t flags);
ACLRT_API aclError aclrtIpcMemClose(const char *key);
ACLRT_API aclError aclrtIpcMemImportByKey(void **devPtr, const char *key, uint64_t flags);
ACLRT_API aclError aclrtIpcMemSetImportPid(const char *key, int32_t *pid, size_t num);
ACLRT_API aclError aclrtIpcMemSetAttr(const char *key, aclrtIpcMemAttrType type, uint64_t attr);
ACLRT_API aclError aclrtIpcMemImportPidInterServer(const char *key, aclrtServerPid *serverPids, size_t num);

/* ========================================================================
 * Custom memory allocator (acl_rt_allocator.h)
 *
 * A descriptor carries a user allocator object and its callbacks; a
 * registration on a stream copies them, and aclrtAllocatorGetByStream hands
 * them back to whoever allocates memory for work on that stream. Object,
 * alloc, free and get-address-from-block are required to register;
 * alloc-advise is optional. Registering again on a stream replaces the
 * registration; unregistering a stream with none (or a dead one) succeeds.
 * The stream is an explicit handle (NULL is ACL_ERROR_INVALID_PARAM), and a
 * registration ends with its stream. aclrt itself runs no task that
 * allocates, so it never calls these functions: the program and embedders do.
 * ======================================================================== */
typedef void *(*aclrtAllocatorAllocFunc)(aclrtAllocator allocator, size_t size);
typedef void (*aclrtAllocatorFreeFunc)(aclrtAllocator allocator, aclrtAllocatorBlock block);
typedef void *(*aclrtAllocatorAllocAdviseFunc)(aclrtAllocator allocator, size_t size, aclrtAllocatorAddr addr);
typedef void *(*aclrtAllocatorGetAddrFromBlockFunc)(aclrtAllocatorBlock block);

ACLRT_API aclrtAllocatorDesc aclrtAllocatorCreateDesc();
ACLRT_API aclError aclrtAllocatorDestroyDesc(aclrtAllocatorDesc allocatorDesc);
ACLRT_API aclError aclrtAllocatorSetObjToDesc(aclrtAllocatorDesc allocatorDesc, aclrtAllocator allocator);
ACLRT_API aclError aclrtAllocatorSetAllocFuncToDesc(aclrtAllocatorDesc allocatorDesc, aclrtAllocatorAllocFunc func);
ACLRT_API aclError aclrtAllocatorSetFreeFuncToDesc(aclrtAllocatorDesc allocatorDesc, aclrtAllocatorFreeFunc func);
ACLRT_API aclError aclrtAllocatorSetAllocAdviseFuncToDesc(aclrtAllocatorDesc allocatorDesc,
                                                          aclrtAllocatorAllocAdviseFunc func);
ACLRT_API aclError aclrtAllocatorSetGetAddrFromBlockFuncToDesc(aclrtAllocatorDesc allocatorDesc,
                                                               aclrtAllocatorGetAddrFromBlockFunc func);
ACLRT_API aclError aclrtAllocatorRegister(aclrtStream stream, aclrtAllocatorDesc allocatorDesc);
ACLRT_API aclError aclrtAllocatorGetByStream(aclrtStream stream, aclrtAllocatorDesc *allocatorDesc,
                                             aclrtAllocator *allocator, aclrtAllocatorAllocFunc *allocFunc,
                                             aclrtAllocatorFreeFunc *freeFunc,
                                             aclrtAllocatorAllocAdviseFunc *allocAdviseFunc,
                                             aclrtAllocatorGetAddrFromBlockFunc *getAddrFromBlockFunc);
ACLRT_API aclError aclrtAllocatorUnregister(aclrtStream stream);

/* ========================================================================
 * Callbacks and host-function threads
 *
 * A user thread subscribes to streams with its pthread_self() value and
 * serves them by calling aclrtProcessReport (or aclrtProcessHostFunc) in a
 * loop; callbacks launched on those streams run inside that call, in stream
 * order, once each. A stream has one such thread; a thread serves streams of
 * one device. ACL_CALLBACK_BLOCK holds the stream's later tasks until the
 * callback has returned; NO_BLOCK does not. With a host-function thread
 * subscribed, aclrtLaunchHostFunc's functions run in that thread (and always
 * block the stream); without one, on a runtime thread. Process timeouts are
 * milliseconds (-1 forever; 0 and values below -1 are invalid).
 * Callbacks should not synchronize or destroy the stream they serve.
 * ======================================================================== */
ACLRT_API aclError aclrtSubscribeReport(uint64_t threadId, aclrtStream stream);
ACLRT_API aclError aclrtLaunchCallback(aclrtCallback fn, void *userData, aclrtCallbackBlockType blockType,
                                       aclrtStream stream);
ACLRT_API aclError aclrtProcessReport(int32_t timeout);
ACLRT_API aclError aclrtUnSubscribeReport(uint64_t threadId, aclrtStream stream);
ACLRT_API aclError aclrtSubscribeHostFunc(uint64_t hostFuncThreadId, aclrtStream exeStream);
ACLRT_API aclError aclrtProcessHostFunc(int32_t timeout);
ACLRT_API aclError aclrtUnSubscribeHostFunc(uint64_t hostFuncThreadId, aclrtStream exeStream);

/* ========================================================================
 * Shared buffers (mbufs)
 *
 * An mbuf is a buffer head (its valid length, its user data area of
 * ACLRT_MBUF_USER_DATA_SIZE bytes, its place in a chain) that points at a
 * reference-counted data area. aclrtCopyBufRef makes a second head over
 * the same data area; the area is freed with its last head. A chain is a
 * head buffer with others appended; freeing the head frees the chain.
 * The acltdt* names of acl_tdt_queue.h are the same calls (acltdtAllocBuf
 * takes a type: ACL_TDT_NORMAL_MEM only).
 * ======================================================================== */
typedef void *aclrtMbuf;
typedef void *acltdtBuf;

#define ACLRT_MBUF_USER_DATA_SIZE 96u

typedef enum { ACL_TDT_NORMAL_MEM = 0, ACL_TDT_DVPP_MEM } acltdtAllocBufType;

ACLRT_API aclError aclrtAllocBuf(aclrtMbuf *buf, size_t size);
ACLRT_API aclError aclrtFreeBuf(aclrtMbuf buf);
ACLRT_API aclError aclrtGetBufData(const aclrtMbuf buf, void **dataPtr, size_t *size);
ACLRT_API aclError aclrtGetBufDataLen(aclrtMbuf buf, size_t *len);
ACLRT_API aclError aclrtSetBufDataLen(aclrtMbuf buf, size_t len);
ACLRT_API aclError aclrtGetBufUserData(const aclrtMbuf buf, void *dataPtr, size_t size, size_t offset);
ACLRT_API aclError aclrtSetBufUserData(aclrtMbuf buf, const void *dataPtr, size_t size, size_t offset);
ACLRT_API aclError aclrtCopyBufRef(const aclrtMbuf buf, aclrtMbuf *newBuf);
ACLRT_API aclError aclrtAppendBufChain(aclrtMbuf headBuf, aclrtMbuf buf);
ACLRT_API aclError aclrtGetBufChainNum(aclrtMbuf headBuf, uint32_t *num);
ACLRT_API aclError aclrtGetBufFromChain(aclrtMbuf headBuf, uint32_t index, aclrtMbuf *buf);

/*
 * The same buffers under acl_tdt_queue.h's names.
 */
ACLRT_API aclError acltdtAllocBuf(size_t size, uint32_t type, acltdtBuf *buf);
ACLRT_API aclError acltdtFreeBuf(acltdtBuf buf);
ACLRT_API aclError acltdtGetBufData(const acltdtBuf buf, void **dataPtr, size_t *size);
ACLRT_API aclError acltdtSetBufDataLen(acltdtBuf buf, size_t len);
ACLRT_API aclError acltdtGetBufDataLen(acltdtBuf buf, size_t *len);
ACLRT_API aclError acltdtAppendBufChain(acltdtBuf headBuf, acltdtBuf buf);
ACLRT_API aclError acltdtGetBufChainNum(acltdtBuf headBuf, uint32_t *num);
ACLRT_API aclError acltdtGetBufFromChain(acltdtBuf headBuf, uint32_t index, acltdtBuf *buf);
ACLRT_API aclError acltdtGetBufUserData(const acltdtBuf buf, void *dataPtr, size_t size, size_t offset);
ACLRT_API aclError acltdtSetBufUserData(acltdtBuf buf, const void *dataPtr, size_t size, size_t offset);
ACLRT_API aclError acltdtCopyBufRef(const acltdtBuf buf, acltdtBuf *newBuf);

/* ========================================================================
 * Shared queues (acl_tdt_queue.h)
 *
 * A queue holds up to its depth of messages (an mbuf chain, or bytes with
 * user data), first in, first out, and is shared by threads and processes:
 * the process that creates it may do everything, another process what
 * acltdtGrantQueue gave its pid once it has called acltdtAttachQueue.
 * Timeouts are milliseconds: -1 waits as long as it takes, 0 answers at
 * once (ACL_ERROR_RT_QUEUE_FULL / ACL_ERROR_RT_QUEUE_EMPTY), more waits
 * that long. A bound route sends what is enqueued into its source queue
 * to each of its destination queues instead.
 * ======================================================================== */
#define ACL_TDT_QUEUE_PERMISSION_MANAGE 1
#define ACL_TDT_QUEUE_PERMISSION_DEQUEUE 2
#define ACL_TDT_QUEUE_PERMISSION_ENQUEUE 4

#define ACL_TDT_QUEUE_ROUTE_UNBIND 0
#define ACL_TDT_QUEUE_ROUTE_BIND 1
#define ACL_TDT_QUEUE_ROUTE_BIND_ABNORMAL 2

typedef struct tagMemQueueAttr acltdtQueueAttr;
typedef struct acltdtQueueRouteList acltdtQueueRouteList;
typedef struct acltdtQueueRouteQueryInfo acltdtQueueRouteQueryInfo;
typedef struct acltdtQueueRoute acltdtQueueRoute;

typedef enum { ACL_TDT_QUEUE_NAME_PTR = 0, ACL_TDT_QUEUE_DEPTH_UINT32 } acltdtQueueAttrType;

typedef enum {
    ACL_TDT_QUEUE_ROUTE_SRC_UINT32 = 0,
    ACL_TDT_QUEUE_ROUTE_DST_UINT32,
    ACL_TDT_QUEUE_ROUTE_STATUS_INT32
} acltdtQueueRouteParamType;

typedef enum {
    ACL_TDT_QUEUE_ROUTE_QUERY_SRC = 0,
    ACL_TDT_QUEUE_ROUTE_QUERY_DST = 1,
    ACL_TDT_QUEUE_ROUTE_QUERY_SRC_AND_DST = 2,
    ACL_TDT_QUEUE_ROUTE_QUERY_ABNORMAL = 100
} acltdtQueueRouteQueryMode;

typedef enum {
    ACL_TDT_QUEUE_ROUTE_QUERY_MODE_ENUM = 0,
    ACL_TDT_QUEUE_ROUTE_QUERY_SRC_ID_UINT32,
    ACL_TDT_QUEUE_ROUTE_QUERY_DST_ID_UINT32
} acltdtQueueRouteQueryInfoParamType;

ACLRT_API aclError acltdtCreateQueue(const acltdtQueueAttr *attr, uint32_t *qid);
ACLRT_API aclError acltdtDestroyQueue(uint32_t qid);
ACLRT_API aclError acltdtEnqueue(uint32_t qid, acltdtBuf buf, int32_t timeout);
ACLRT_API aclError acltdtDequeue(uint32_t qid, acltdtBuf *buf, int32_t timeout);
ACLRT_API aclError acltdtEnqueueData(uint32_t qid, const void *data, size_t dataSize, const void *userData,
                                     size_t userDataSize, int32_t timeout, uint32_t rsv);
ACLRT_API aclError acltdtDequeueData(uint32_t qid, void *data, size_t dataSize, size_t *retDataSize,
                                     void *userData, size_t userDataSize, int32_t timeout);
ACLRT_API aclError acltdtGrantQueue(uint32_t qid, int32_t pid, uint32_t permission, int32_t timeout);
ACLRT_API aclError acltdtAttachQueue(uint32_t qid, int32_t timeout, uint32_t *permission);

/*
 * Routes between queues.
 */
ACLRT_API aclError acltdtBindQueueRoutes(acltdtQueueRouteList *qRouteList);
ACLRT_API aclError acltdtUnbindQueueRoutes(acltdtQueueRouteList *qRouteList);
ACLRT_API aclError acltdtQueryQueueRoutes(const acltdtQueueRouteQueryInfo *queryInfo,
                                          acltdtQueueRouteList *qRouteList);

/*
 * Queue attributes, routes, route lists and route queries: plain objects.
 */
ACLRT_API acltdtQueueAttr *acltdtCreateQueueAttr();
ACLRT_API aclError acltdtDestroyQueueAttr(const acltdtQueueAttr *attr);
ACLRT_API aclError acltdtSetQueueAttr(acltdtQueueAttr *attr, acltdtQueueAttrType type, size_t len,
                                      const void *param);
ACLRT_API aclError acltdtGetQueueAttr(const acltdtQueueAttr *attr, acltdtQueueAttrType type, size_t len,
                                      size_t *paramRetSize, void *param);
ACLRT_API acltdtQueueRoute *acltdtCreateQueueRoute(uint32_t srcId, uint32_t dstId);
ACLRT_API aclError acltdtDestroyQueueRoute(const acltdtQueueRoute *route);
ACLRT_API aclError acltdtGetQueueRouteParam(const acltdtQueueRoute *route, acltdtQueueRouteParamType type,
                                            size_t len, size_t *paramRetSize, void *param);
ACLRT_API acltdtQueueRouteList *acltdtCreateQueueRouteList();
ACLRT_API aclError acltdtDestroyQueueRouteList(const acltdtQueueRouteList *routeList);
ACLRT_API aclError acltdtAddQueueRoute(acltdtQueueRouteList *routeList, const acltdtQueueRoute *route);
ACLRT_API aclError acltdtGetQueueRoute(const acltdtQueueRouteList *routeList, size_t index,
                                       acltdtQueueRoute *route);
ACLRT_API size_t acltdtGetQueueRouteNum(const acltdtQueueRouteList *routeList);
ACLRT_API acltdtQueueRouteQueryInfo *acltdtCreateQueueRouteQueryInfo();
ACLRT_API aclError acltdtDestroyQueueRouteQueryInfo(const acltdtQueueRouteQueryInfo *info);
ACLRT_API aclError acltdtSetQueueRouteQueryInfo(acltdtQueueRouteQueryInfo *param,
                                                acltdtQueueRouteQueryInfoParamType type, size_t len,
                                                const void *value);

/* ========================================================================
 * Exceptions
 *
 * When a task fails (a host kernel returns non-zero, a stream wait times
 * out, ...), the exception callbacks run on the runtime thread that ran it,
 * with the task id (as aclrtGetThreadLastTaskId gave it to the submitting
 * thread), stream id, submitting thread id (gettid), device id and error
 * code; then the stream's failure mode applies. aclrtSetExceptionInfoCallback
 * is one slot (last wins, NULL clears); Register/Unregister keep a list.
 * The getters return 0xFFFFFFFF for a NULL info.
 * ======================================================================== */
ACLRT_API aclError aclrtSetExceptionInfoCallback(aclrtExceptionInfoCallback callback);
ACLRT_API aclError aclrtExceptionInfoCallbackRegister(aclrtExceptionInfoCallback callback);
ACLRT_API aclError aclrtExceptionInfoCallbackUnregister(aclrtExceptionInfoCallback callback);
ACLRT_API uint32_t aclrtGetTaskIdFromExceptionInfo(const aclrtExceptionInfo *info);
ACLRT_API uint32_t aclrtGetStreamIdFromExceptionInfo(const aclrtExceptionInfo *info);
ACLRT_API uint32_t aclrtGetThreadIdFromExceptionInfo(const aclrtExceptionInfo *info);
ACLRT_API uint32_t aclrtGetDeviceIdFromExceptionInfo(const aclrtExceptionInfo *info);
ACLRT_API uint32_t aclrtGetErrorCodeFromExceptionInfo(const aclrtExceptionInfo *info);
ACLRT_API aclError aclrtGetThreadLastTaskId(uint32_t *taskId);

/* ========================================================================
 * Tensor data transfer: channels and datasets (acl_tdt.h)
 *
 * A channel is a bounded FIFO of datasets between two sides. On aclrt the
 * side CANN calls the device is another thread of the same process: every
 * handle created on the same device with the same name is an end of the
 * same channel (acltdtCreateChannel* with a name already open returns a new
 * handle to it), and one handle may both send and receive. A send copies
 * the dataset's tensors (their dims and bytes) into the channel, so the
 * sender's memory may be reused as soon as it returns; a receive fills an
 * empty dataset (or one filled by an earlier receive) with items whose
 * memory the dataset owns and frees. The capacity of
 * acltdtCreateChannelWithCapacity is 2..8192 datasets; acltdtCreateChannel
 * makes a channel of ACLRTX_TDT_DEFAULT_CAPACITY, which
 * acltdtQueryChannelSize and acltdtCleanChannel refuse
 * (ACL_ERROR_FEATURE_UNSUPPORTED), as CANN's do. Timeouts: -1 waits for
 * room (send) or data (receive), 0 returns ACL_ERROR_RT_QUEUE_FULL /
 * ACL_ERROR_RT_QUEUE_EMPTY at once, > 0 waits that many milliseconds and
 * then returns the same code. acltdtStopChannel stops the channel for every
 * handle: blocked and later sends and receives return ACL_ERROR_FAILURE.
 * Channels are of one process (a name is not seen by another process).
 * ======================================================================== */
typedef enum acltdtTensorType {
    ACL_TENSOR_DATA_UNDEFINED = -1,
    ACL_TENSOR_DATA_TENSOR = 0,
    ACL_TENSOR_DATA_END_OF_SEQUENCE = 1,
    ACL_TENSOR_DATA_ABNORMAL = 2,
    ACL_TENSOR_DATA_SLICE_TENSOR = 3,
    ACL_TENSOR_DATA_END_TENSOR = 4
} acltdtTensorType;

typedef struct acltdtDataItem acltdtDataItem;
typedef struct acltdtDataset acltdtDataset;
typedef struct acltdtChannelHandle acltdtChannelHandle;

/* The capacity of a channel made by acltdtCreateChannel (aclrt's choice). */
#define ACLRTX_TDT_DEFAULT_CAPACITY 128

/*
 * Datasets: an ordered list of data items. Items added by the program stay
 * the program's (acltdtDestroyDataset does not free them); items a receive
 * put there are the dataset's, and acltdtAddDataItem refuses such a dataset.
 */
ACLRT_API acltdtDataset *acltdtCreateDataset(void);
ACLRT_API aclError acltdtDestroyDataset(acltdtDataset *dataset);
ACLRT_API acltdtDataItem *acltdtGetDataItem(const acltdtDataset *dataset, size_t index);
ACLRT_API aclError acltdtAddDataItem(acltdtDataset *dataset, acltdtDataItem *dataItem);
ACLRT_API size_t acltdtGetDatasetSize(const acltdtDataset *dataset);
ACLRT_API const char *acltdtGetDatasetName(const acltdtDataset *dataset);

/*
 * Channels: create, send, receive, query, clean, stop, destroy.
 */
ACLRT_API acltdtChannelHandle *acltdtCreateChannel(uint32_t deviceId, const char *name);
ACLRT_API acltdtChannelHandle *acltdtCreateChannelWithCapacity(uint32_t deviceId, const char *name, size_t capacity);
ACLRT_API aclError acltdtDestroyChannel(acltdtChannelHandle *handle);
ACLRT_API aclError acltdtStopChannel(acltdtChannelHandle *handle);
ACLRT_API aclError acltdtCleanChannel(acltdtChannelHandle *handle);
ACLRT_API aclError acltdtSendTensor(const acltdtChannelHandle *handle, const acltdtDataset *dataset, int32_t timeout);
ACLRT_API aclError acltdtReceiveTensor(const acltdtChannelHandle *handle, acltdtDataset *dataset, int32_t timeout);
ACLRT_API aclError acltdtQueryChannelSize(const acltdtChannelHandle *handle, size_t *size);

/* ========================================================================
 * Peer access between devices
 *
 * Every pair of distinct devices can access each other (host devices share
 * one address space): aclrtDeviceCanAccessPeer says 1. Access is enabled per
 * direction: aclrtDeviceEnablePeerAccess(peer, 0) lets the current device
 * reach `peer`'s memory, until aclrtDeviceDisablePeerAccess or the end of the
 * context that was current when it was enabled. A copy (aclrtMemcpy,
 * aclrtMemcpyAsync) between the memory of two different devices needs the
 * device that runs it (the current one, or the stream's) to have access to
 * each of them that is not itself; without it the copy is refused with
 * ACL_ERROR_RT_PARAM_INVALID and nothing is copied.
 * ======================================================================== */
ACLRT_API aclError aclrtDeviceCanAccessPeer(int32_t *canAccessPeer, int32_t deviceId, int32_t peerDeviceId);
ACLRT_API aclError aclrtDeviceEnablePeerAccess(int32_t peerDeviceId, uint32_t flags);
ACLRT_API aclError aclrtDeviceDisablePeerAccess(int32_t peerDeviceId);
ACLRT_API aclError aclrtDevicePeerAccessStatus(int32_t deviceId, int32_t peerDeviceId, int32_t *status);

/* ========================================================================
 * Physical memory and virtual address ranges
 *
 * aclrtMallocPhysical makes a block of physical memory (a memory file) of a
 * device or of the host, its size rounded up to the allocation granularity;
 * aclrtReserveMemAddress reserves a range of addresses with nothing behind
 * it; aclrtMapMem puts a whole block at a granularity-aligned place in a
 * reserved range, and aclrtUnmapMem takes it away. Two mappings of one block
 * are the same memory. Mapped device memory is device memory for every call
 * that asks (copies, aclrtValueWrite/Wait, built-in tasks); it is not
 * aclrtMalloc memory (aclrtFree refuses it). A freed block lives on until
 * its last mapping goes. aclrtMemSetAccess changes the protection of a
 * mapping for every device at once (they share the address space).
 * Sharing: aclrtMemExportToShareableHandle gives a block a shareable handle
 * (one per block) and aclrtMemSetPidToShareableHandle whitelists processes;
 * aclrtMemImportFromShareableHandle in another process gives a handle of
 * that process to the same memory (in the exporting process itself it
 * returns ACL_ERROR_RT_FEATURE_NOT_SUPPORT: importing is across processes).
 * ======================================================================== */
#define ACL_RT_VMM_EXPORT_FLAG_DEFAULT 0x0UL
#define ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION 0x1UL

typedef enum aclrtMemAttr {
    ACL_DDR_MEM,
    ACL_HBM_MEM,
    ACL_DDR_MEM_HUGE,
    ACL_DDR_MEM_NORMAL,
    ACL_HBM_MEM_HUGE,
    ACL_HBM_MEM_NORMAL,
    ACL_DDR_MEM_P2P_HUGE,
    ACL_DDR_MEM_P2P_NORMAL,
    ACL_HBM_MEM_P2P_HUGE,
    ACL_HBM_MEM_P2P_NORMAL,
    ACL_HBM_MEM_HUGE1G,
    ACL_HBM_MEM_P2P_HUGE1G,
    ACL_MEM_NORMAL,
    ACL_MEM_HUGE,
    ACL_MEM_HUGE1G,
    ACL_MEM_P2P_NORMAL,
    ACL_MEM_P2P_HUGE,
    ACL_MEM_P2P_HUGE1G,
} aclrtMemAttr;

/* Page and memory kinds of a physical allocation, and the attributes they map to. */
enum aclrtMemPgType {
    NORMAL_PAGE_TYPE = 0U,
    HUGE_PAGE_TYPE,
    HUGE1G_PAGE_TYPE,
};
enum aclrtMemType {
    HBM_TYPE = 0U,
    DDR_TYPE,
    P2P_HBM_TYPE,
    P2P_DDR_TYPE,
};
struct MemAttrMapping {
    uint32_t pgType;  /* enum aclrtMemPgType */
    uint32_t memType; /* enum aclrtMemType */
    bool isHostAlloc;
    aclrtMemAttr memAttr;
};
#define ACL_RT_MAX_RECORD_PA_NUM_PER_DEV 20U

typedef enum aclrtMemLocationType {
    ACL_MEM_LOCATION_TYPE_HOST = 0,
    ACL_MEM_LOCATION_TYPE_DEVICE,
    ACL_MEM_LOCATION_TYPE_UNREGISTERED,
    ACL_MEM_LOCATION_TYPE_MANAGED,
    ACL_MEM_LOCATION_TYPE_HOST_NUMA = 4,
} aclrtMemLocationType;

typedef struct aclrtMemLocation {
    uint32_t id;
    aclrtMemLocationType type;
} aclrtMemLocation;

typedef enum aclrtMemAllocationType {
    ACL_MEM_ALLOCATION_TYPE_PINNED = 0,
} aclrtMemAllocationType;

typedef enum aclrtMemHandleType {
    ACL_MEM_HANDLE_TYPE_NONE = 0,
    ACL_MEM_HANDLE_TYPE_POSIX = 2,
} aclrtMemHandleType;

typedef struct aclrtPhysicalMemProp {
    aclrtMemHandleType handleType;
    aclrtMemAllocationType allocationType;
    aclrtMemAttr memAttr;
    aclrtMemLocation location;
    uint64_t reserve;
} aclrtPhysicalMemProp;

typedef enum aclrtMemGranularityOptions {
    ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM,
    ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED,
    ACL_RT_MEM_ALLOC_GRANULARITY_UNDEF = 0xFFFF,
} aclrtMemGranularityOptions;

typedef enum {
    ACL_RT_MEM_ACCESS_FLAGS_NONE = 0x0,
    ACL_RT_MEM_ACCESS_FLAGS_READ = 0x1,
    ACL_RT_MEM_ACCESS_FLAGS_READWRITE = 0x3,
} aclrtMemAccessFlags;

typedef struct {
    aclrtMemAccessFlags flags;
    aclrtMemLocation location;
    uint8_t rsv[12];
} aclrtMemAccessDesc;

ACLRT_API aclError aclrtMemGetAllocationGranularity(aclrtPhysicalMemProp *prop, aclrtMemGranularityOptions option,
                                                    size_t *granularity);
ACLRT_API aclError aclrtMallocPhysical(aclrtDrvMemHandle *handle, size_t size, const aclrtPhysicalMemProp *prop,
                                       uint64_t flags);
ACLRT_API aclError aclrtFreePhysical(aclrtDrvMemHandle handle);
ACLRT_API aclError aclrtReserveMemAddress(void **virPtr, size_t size, size_t alignment, void *expectPtr,
                                          uint64_t flags);
ACLRT_API aclError aclrtReleaseMemAddress(void *virPtr);
ACLRT_API aclError aclrtMapMem(void *virPtr, size_t size, size_t offset, aclrtDrvMemHandle handle, uint64_t flags);
ACLRT_API aclError aclrtUnmapMem(void *virPtr);
ACLRT_API aclError aclrtMemSetAccess(void *virPtr, size_t size, aclrtMemAccessDesc *desc, size_t count);
ACLRT_API aclError aclrtMemGetAccess(void *virPtr, aclrtMemLocation *location, uint64_t *flag);
ACLRT_API aclError aclrtMemExportToShareableHandle(aclrtDrvMemHandle handle, aclrtMemHandleType handleType,
                                                   uint64_t flags, uint64_t *shareableHandle);
ACLRT_API aclError aclrtMemSetPidToShareableHandle(uint64_t shareableHandle, int32_t *pid, size_t pidNum);
ACLRT_API aclError aclrtMemImportFromShareableHandle(uint64_t shareableHandle, int32_t deviceId,
                                                     aclrtDrvMemHandle *handle);
ACLRT_API aclError aclrtDeviceGetBareTgid(int32_t *pid);

/* ========================================================================
 * Shareable handles V2, fabric handles, physical-memory extras (acl_rt.h)
 *
 * The V2 calls take the kind of shareable handle they make or read:
 * ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT is the uint64_t of the V1 calls above;
 * ACL_MEM_SHARE_HANDLE_TYPE_FABRIC is an aclrtMemFabricHandle, 128 bytes
 * that say all an importer needs, so that they can travel by any channel
 * (a socket, a file, MPI) to a process of another "server". On aclrt a
 * server is a process: a fabric handle imports in any other process of the
 * same user on the same running Linux machine (it carries that boot's id,
 * and one from elsewhere is refused with ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
 * memory is never shared over a network. A block has one shareable handle,
 * of either kind; importing (V2: on the current device) is for other
 * processes only, as with V1.
 * aclrtMemRetainAllocationHandle gives a new handle to the block mapped at
 * an address (freed with aclrtFreePhysical, like any handle);
 * aclrtMemGetAllocationPropertiesFromHandle says how a block was allocated.
 * Links (SIO, HCCS, UB) are how one device reaches another's memory; the
 * devices of aclrt share one address space, so a link is validated and
 * recorded, and a mapping through a chosen link (aclrtMemMapSelectedLink)
 * is a second mapping of the same block. aclrtMemP2PMap checks that the
 * target device has peer access and that the range is device memory: the
 * pages are mapped already. aclrtReserveMemAddressNoUCMemory reserves as
 * aclrtReserveMemAddress does, at the address asked for (required), in
 * multiples of 1 GiB; every memory of aclrt goes through the CPU's caches.
 * ======================================================================== */
#define ACL_RT_MEM_LINK_IDX_0 0U /* SIO */
#define ACL_RT_MEM_LINK_IDX_1 1U /* HCCS */

typedef enum aclrtMemSharedHandleType {
    ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT = 0x1,
    ACL_MEM_SHARE_HANDLE_TYPE_FABRIC = 0x2,
} aclrtMemSharedHandleType;

typedef struct aclrtMemFabricHandle {
    uint8_t data[128];
} aclrtMemFabricHandle;

typedef enum {
    ACL_RT_MEM_ACCESS_LINK_SIO = 0,
    ACL_RT_MEM_ACCESS_LINK_HCCS = 1,
    ACL_RT_MEM_ACCESS_UB_ONE_PORT_PATH = 2,
    ACL_RT_MEM_ACCESS_UB_MULTI_PORT_PATH = 3,
} aclrtMemLinkType;

ACLRT_API aclError aclrtMemExportToShareableHandleV2(aclrtDrvMemHandle handle, uint64_t flags,
                                                     aclrtMemSharedHandleType shareType, void *shareableHandle);
ACLRT_API aclError aclrtMemImportFromShareableHandleV2(void *shareableHandle, aclrtMemSharedHandleType shareType,
                                                       uint64_t flags, aclrtDrvMemHandle *handle);
ACLRT_API aclError aclrtMemSetPidToShareableHandleV2(void *shareableHandle, aclrtMemSharedHandleType shareType,
                                                     int32_t *pid, size_t pidNum);
ACLRT_API aclError aclrtMemRetainAllocationHandle(void *virPtr, aclrtDrvMemHandle *handle);
ACLRT_API aclError aclrtMemGetAllocationPropertiesFromHandle(aclrtDrvMemHandle handle, aclrtPhysicalMemProp *prop);
ACLRT_API aclError aclrtReserveMemAddressNoUCMemory(void **virPtr, size_t size, size_t alignment, void *expectPtr,
                                                    uint64_t flags);
ACLRT_API aclError aclrtMemP2PMap(void *devPtr, size_t size, int32_t dstDevId, uint64_t flags);
ACLRT_API aclError aclrtMemMapSetLink(aclrtDrvMemHandle handle, aclrtMemLinkType adviceLink);
ACLRT_API aclError aclrtMemMapSelectedLink(void *virPtrDst, size_t size, void *virPtrSrc, uint32_t linkIdx);

/* ========================================================================
 * Memory faults (UCE) and their repair (acl_rt.h)
 *
 * A UCE (uncorrectable memory error) is a range of device memory whose
 * contents the hardware lost. A CPU reports none that aclrt could see, so
 * faults are made with aclrtxInjectMemUce ("aclrtx" section). A device
 * with faults reports them:
 * aclrtGetMemUceInfo lists the ranges, aclrtGetErrorVerbose says
 * ACL_RT_ERROR_MEMORY with tryRepair and the ranges (20 at most) as detail.
 * aclrtMemUceRepair repairs the ranges it is given, each one exactly as
 * reported; aclrtRepairError repairs a memory error's ranges (its detail,
 * or all of the device's when it has none). Repair keeps the memory and its
 * contents (aclrt lost nothing); the program restores what it needs.
 * aclrt's devices have no other hardware faults to repair.
 * The types (aclrtMemUceInfo, aclrtErrorInfo) are in "Error details".
 * ======================================================================== */
struct aclrtMemUceInfo;
struct aclrtErrorInfo;

ACLRT_API aclError aclrtGetMemUceInfo(int32_t deviceId, struct aclrtMemUceInfo *memUceInfoArray, size_t arraySize,
                                      size_t *retSize);
ACLRT_API aclError aclrtMemUceRepair(int32_t deviceId, struct aclrtMemUceInfo *memUceInfoArray, size_t arraySize);
ACLRT_API aclError aclrtRepairError(int32_t deviceId, const struct aclrtErrorInfo *errorInfo);

/* ========================================================================
 * Memory attributes and batch copies
 *
 * aclrtPointerGetAttributes says where a pointer's memory is: a device's
 * (aclrtMalloc, mapped device memory), the host's (aclrtMallocHost, mapped
 * host memory), or not the runtime's (UNREGISTERED, a success); the page
 * size is the system's. aclrtMemGetAddressRange gives the allocation or
 * mapping that holds an address. aclrtGetMemUsageInfo lists a device's
 * memory by owner, largest first: "APP" (the program's device memory) and
 * "RUNTIME" (the runtime's own), now and at its peak. A batch checks every
 * entry first, then copies each as aclrtMemcpy / aclrtMemcpyAsync would
 * (the asynchronous batch: a copy task per entry). A copy descriptor (device
 * memory of aclrtGetMemcpyDescSize bytes) holds a copy's addresses and
 * size, read when the copy runs; aclrtMemcpyAsyncWithOffset reads its two
 * base addresses from memory when it runs too (both only within a device:
 * ACL_MEMCPY_INNER_DEVICE_TO_DEVICE).
 * ======================================================================== */
typedef struct aclrtPtrAttributes {
    aclrtMemLocation location;
    uint32_t pageSize;
    uint32_t rsv[4];
} aclrtPtrAttributes;

typedef struct aclrtMemUsageInfo {
    char name[32];
    uint64_t curMemSize;
    uint64_t memPeakSize;
    size_t reserved[8];
} aclrtMemUsageInfo;

typedef struct {
    aclrtMemLocation dstLoc;
    aclrtMemLocation srcLoc;
    uint8_t rsv[16];
} aclrtMemcpyBatchAttr;

ACLRT_API aclError aclrtPointerGetAttributes(const void *ptr, aclrtPtrAttributes *attributes);
ACLRT_API aclError aclrtMemGetAddressRange(void *ptr, void **pbase, size_t *psize);
ACLRT_API aclError aclrtGetMemUsageInfo(int32_t deviceId, aclrtMemUsageInfo *memUsageInfo, size_t inputNum,
                                        size_t *outputNum);
ACLRT_API aclError aclrtMemcpyBatch(void **dsts, size_t *destMaxs, void **srcs, size_t *sizes, size_t numBatches,
                                    aclrtMemcpyBatchAttr *attrs, size_t *attrsIndexes, size_t numAttrs,
                                    size_t *failIndex);
ACLRT_API aclError aclrtMemcpyBatchV2(void **dsts, size_t *destMaxs, void **srcs, size_t *sizes, size_t numBatches,
                                      aclrtMemcpyBatchAttr *attrs, size_t *attrsIndexes, size_t numAttrs);
ACLRT_API aclError aclrtMemcpyBatchAsync(void **dsts, size_t *destMaxs, void **srcs, size_t *sizes,
                                         size_t numBatches, aclrtMemcpyBatchAttr *attrs, size_t *attrsIndexes,
                                         size_t numAttrs, size_t *failIndex, aclrtStream stream);
ACLRT_API aclError aclrtMemcpyBatchAsyncV2(void **dsts, size_t *destMaxs, void **srcs, size_t *sizes,
                                           size_t numBatches, aclrtMemcpyBatchAttr *attrs, size_t *attrsIndexes,
                                           size_t numAttrs, aclrtStream stream);
ACLRT_API aclError aclrtGetMemcpyDescSize(aclrtMemcpyKind kind, size_t *descSize);
ACLRT_API aclError aclrtSetMemcpyDesc(void *desc, aclrtMemcpyKind kind, void *srcAddr, void *dstAddr, size_t count,
                                      void *config);
ACLRT_API aclError aclrtMemcpyAsyncWithDesc(void *desc, aclrtMemcpyKind kind, aclrtStream stream);
ACLRT_API aclError aclrtMemcpyAsyncWithOffset(void **dst, size_t destMax, size_t dstDataOffset, const void **src,
                                              size_t count, size_t srcDataOffset, aclrtMemcpyKind kind,
                                              aclrtStream stream);

/* ========================================================================
 * Host registration, managed memory, cache maintenance (acl_rt.h)
 *
 * Host memory registered for the device: on the host backend a device
 * reaches host memory as it is, so the device address of registered memory
 * is its host address; registration records the range (a page-aligned
 * start, or aclrtMallocHost memory; no overlap with another registration)
 * so that aclrtHostGetDevicePointer and aclrtHostUnregister can check it. The cuda backend pins and maps the
 * range for the GPUs (cuMemHostRegister); with unified addressing the host
 * address is the GPU's too. Managed memory is device memory that the host
 * reads and writes as well (freed with aclrtFree); advice and prefetches
 * are recorded per 2 MiB page and read back by aclrtMemManagedGetAttr(s);
 * a prefetch is a task of its stream. Cache maintenance has nothing to do
 * on a CPU: the calls check their arguments, and the stream-ordered ones
 * are tasks of their stream that do nothing when they run, so the stream's
 * order and its events hold as on the device (docs/SEMANTICS.md).
 * ======================================================================== */
#define ACL_HOST_REG_MAPPED 0x2UL
#define ACL_HOST_REG_IOMEMORY 0x4UL
#define ACL_HOST_REG_READONLY 0x8UL
#define ACL_HOST_REG_PINNED 0x10000000UL

#define ACL_RT_MEM_ATTACH_GLOBAL 0x01U

#define ACL_RT_MEM_TYPE_DEV (0X2U)
#define ACL_RT_MEM_TYPE_DVPP (0X8U)
#define ACL_RT_MEM_TYPE_RSVD (0X10U)

#define ACL_RT_CMO_MAX_BARRIER_NUM 6U

typedef enum {
    ACL_HOST_REGISTER_MAPPED = 0,
    ACL_HOST_REGISTER_IOMEMORY = 0x04,
    ACL_HOST_REGISTER_READONLY = 0x08
} aclrtHostRegisterType;

typedef enum {
    ACL_RT_HAC_TYPE_STARS = 0,
    ACL_RT_HAC_TYPE_AICPU,
    ACL_RT_HAC_TYPE_AIC,
    ACL_RT_HAC_TYPE_AIV,
    ACL_RT_HAC_TYPE_PCIEDMA,
    ACL_RT_HAC_TYPE_RDMA,
    ACL_RT_HAC_TYPE_SDMA,
    ACL_RT_HAC_TYPE_DVPP,
    ACL_RT_HAC_TYPE_UDMA,
    ACL_RT_HAC_TYPE_CCU
} aclrtHacType;

typedef enum { ACL_RT_HOST_MEM_MAP_NOT_SUPPORTED = 0, ACL_RT_HOST_MEM_MAP_SUPPORTED } aclrtHostMemMapCapability;

typedef enum aclrtMemManagedAdviseType {
    ACL_MEM_ADVISE_SET_READ_MOSTLY = 0,
    ACL_MEM_ADVISE_UNSET_READ_MOSTLY,
    ACL_MEM_ADVISE_SET_PREFERRED_LOCATION,
    ACL_MEM_ADVISE_UNSET_PREFERRED_LOCATION,
    ACL_MEM_ADVISE_SET_ACCESSED_BY,
    ACL_MEM_ADVISE_UNSET_ACCESSED_BY,
} aclrtMemManagedAdviseType;

typedef enum aclrtMemManagedLocationType {
    ACL_MEM_LOCATIONTYPE_INVALID = 0,
    ACL_MEM_LOCATIONTYPE_DEVICE,
    ACL_MEM_LOCATIONTYPE_HOST,
    ACL_MEM_LOCATIONTYPE_HOST_NUMA,
    ACL_MEM_LOCATIONTYPE_HOST_NUMA_CURRENT,
} aclrtMemManagedLocationType;

typedef struct aclrtMemManagedLocation {
    aclrtMemManagedLocationType type;
    int32_t id;
} aclrtMemManagedLocation;

typedef enum aclrtMemManagedRangeAttribute {
    ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY = 1,
    ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION,
    ACL_MEM_RANGE_ATTRIBUTE_ACCESSED_BY,
    ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE,
    ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID,
    ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION,
    ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE,
    ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID,
} aclrtMemManagedRangeAttribute;

typedef enum aclrtCmoType {
    ACL_RT_CMO_TYPE_PREFETCH = 0,
    ACL_RT_CMO_TYPE_WRITEBACK,
    ACL_RT_CMO_TYPE_INVALID,
    ACL_RT_CMO_TYPE_FLUSH,
} aclrtCmoType;

typedef struct {
    aclrtCmoType cmoType;
    uint32_t barrierId;
} aclrtBarrierCmoInfo;

typedef struct {
    size_t barrierNum;
    aclrtBarrierCmoInfo cmoInfo[ACL_RT_CMO_MAX_BARRIER_NUM];
} aclrtBarrierTaskInfo;

/*
 * Host registration. aclrtHostRegister (MAPPED only) and aclrtHostRegisterV2
 * (MAPPED and/or PINNED; IOMEMORY and READONLY are reserved by CANN and
 * refused) take a range that overlaps no registered one.
 */
ACLRT_API aclError aclrtHostRegister(void *ptr, uint64_t size, aclrtHostRegisterType type, void **devPtr);
ACLRT_API aclError aclrtHostRegisterV2(void *ptr, uint64_t size, uint32_t flag);
ACLRT_API aclError aclrtHostGetDevicePointer(void *pHost, void **pDevice, uint32_t flag);
ACLRT_API aclError aclrtHostUnregister(void *ptr);
ACLRT_API aclError aclrtHostMemMapCapabilities(uint32_t deviceId, aclrtHacType hacType,
                                               aclrtHostMemMapCapability *capabilities);

/*
 * Managed memory: the size is rounded up to 2 MiB; advice and prefetches
 * take 2 MiB-aligned ranges inside one managed allocation. An attribute
 * read over pages that disagree is the "invalid" value (0 for read-mostly,
 * ACL_MEM_LOCATIONTYPE_INVALID and id -2 for a location).
 */
ACLRT_API aclError aclrtMemAllocManaged(void **ptr, uint64_t size, uint32_t flag);
ACLRT_API aclError aclrtMemManagedAdvise(const void *const ptr, uint64_t size, aclrtMemManagedAdviseType advise,
                                         aclrtMemManagedLocation location);
ACLRT_API aclError aclrtMemManagedGetAttr(aclrtMemManagedRangeAttribute attribute, const void *ptr, size_t size,
                                          void *data, size_t dataSize);
ACLRT_API aclError aclrtMemManagedGetAttrs(aclrtMemManagedRangeAttribute *attributes, size_t numAttributes,
                                           const void *ptr, size_t size, void **data, size_t *dataSizes);
ACLRT_API aclError aclrtMemManagedPrefetchAsync(const void *ptr, size_t size, aclrtMemManagedLocation location,
                                                uint32_t flags, aclrtStream stream);
ACLRT_API aclError aclrtMemManagedPrefetchBatchAsync(const void **ptrs, size_t *sizes, size_t count,
                                                     aclrtMemManagedLocation *prefetchLocs, size_t *prefetchLocIdxs,
                                                     size_t numPrefetchLocs, uint64_t flags, aclrtStream stream);

/*
 * Memory types and cache maintenance. aclrtCheckMemType says whether every
 * address is of one of the types asked (device memory, reserved addresses;
 * DVPP memory is device memory here). The cache calls are validated no-ops;
 * the asynchronous ones are tasks of their stream.
 */
ACLRT_API aclError aclrtCheckMemType(void **addrList, uint32_t size, uint32_t memType, uint32_t *checkResult,
                                     uint32_t reserve);
ACLRT_API aclError aclrtMemFlush(void *devPtr, size_t size);
ACLRT_API aclError aclrtMemInvalidate(void *devPtr, size_t size);
ACLRT_API aclError aclrtCmoAsync(void *src, size_t size, aclrtCmoType cmoType, aclrtStream stream);
ACLRT_API aclError aclrtCmoAsyncWithBarrier(void *src, size_t size, aclrtCmoType cmoType, uint32_t barrierId,
                                            aclrtStream stream);
ACLRT_API aclError aclrtCmoWaitBarrier(aclrtBarrierTaskInfo *taskInfo, aclrtStream stream, uint32_t flag);
ACLRT_API aclError aclrtCmoGetDescSize(size_t *size);
ACLRT_API aclError aclrtCmoSetDesc(void *cmoDesc, void *src, size_t size);
ACLRT_API aclError aclrtCmoAsyncWithDesc(void *cmoDesc, aclrtCmoType cmoType, aclrtStream stream,
                                         const void *reserve);
ACLRT_API aclError aclrtDeviceL2CacheFlush(void *rsv);

/* ========================================================================
 * Stream-ordered memory pools (acl_rt_memory_soma.h)
 *
 * A pool hands out device memory of the device its properties name, in
 * stream order. aclrtMemPoolMallocAsync returns the address at once; the
 * memory is the stream's from that point on. aclrtMemPoolFreeAsync gives it
 * back at its stream's point: a later allocation on the same stream may
 * reuse it at once (stream order keeps the uses apart), an allocation on
 * another stream only once the free's point has run. Freed memory stays in
 * the pool (reserved) until aclrtMemPoolTrimTo, or until the pool must grow:
 * it first returns what lies beyond the release threshold. A pool is
 * destroyed once its allocations are freed; its memory goes back after the
 * work launched before. maxSize bounds what the pool reserves (0: none).
 * ======================================================================== */
typedef void *aclrtMemPool;

typedef enum aclrtMemPoolAttr {
    ACL_RT_MEM_POOL_REUSE_FOLLOW_EVENT_DEPENDENCIES = 0x1,
    ACL_RT_MEM_POOL_REUSE_ALLOW_OPPORTUNISTIC = 0x2,
    ACL_RT_MEM_POOL_REUSE_ALLOW_INTERNAL_DEPENDENCIES = 0x3,
    ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD = 0x4,
    ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT = 0x5,
    ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_HIGH = 0x6,
    ACL_RT_MEM_POOL_ATTR_USED_MEM_CURRENT = 0x7,
    ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH = 0x8
} aclrtMemPoolAttr;

typedef struct {
    aclrtMemAllocationType allocType;
    aclrtMemHandleType handleType;
    aclrtMemLocation location;
    size_t maxSize;
    unsigned char reserved[32];
} aclrtMemPoolProps;

ACLRT_API aclError aclrtMemPoolCreate(aclrtMemPool *memPool, const aclrtMemPoolProps *poolProps);
ACLRT_API aclError aclrtMemPoolDestroy(const aclrtMemPool memPool);
ACLRT_API aclError aclrtMemPoolSetAttr(aclrtMemPool memPool, aclrtMemPoolAttr attr, void *value);
ACLRT_API aclError aclrtMemPoolGetAttr(aclrtMemPool memPool, aclrtMemPoolAttr attr, void *value);
ACLRT_API aclError aclrtMemPoolMallocAsync(void **ptr, size_t size, aclrtMemPool memPool, aclrtStream stream);
ACLRT_API aclError aclrtMemPoolFreeAsync(void *ptr, aclrtStream stream);
ACLRT_API aclError aclrtMemPoolTrimTo(aclrtMemPool memPool, size_t minBytesToKeep);

/* ========================================================================
 * Built-in tasks: reduce, random numbers
 *
 * aclrtReduceAsync combines `count` bytes of src into dst element by element
 * (dst = dst + src, max, min), in stream order, on device memory of the
 * stream's device. Floating-point results are correctly rounded (IEEE,
 * round to nearest even), integer sums wrap around. EQUAL has no documented
 * result and is ACL_ERROR_RT_FEATURE_NOT_SUPPORT.
 * aclrtRandomNumAsync fills device memory with random numbers from
 * Philox4x32-10 keyed by the seed, starting at the 128-bit counter stored at
 * randomCounterAddr and advancing it there: uniform, normal, truncated
 * normal (|z| <= 2) and dropout bitmasks. docs/SEMANTICS.md says exactly how
 * the generator's words become values.
 * ======================================================================== */
typedef enum {
    ACL_DT_UNDEFINED = -1,
    ACL_FLOAT = 0,
    ACL_FLOAT16 = 1,
    ACL_INT8 = 2,
    ACL_INT32 = 3,
    ACL_UINT8 = 4,
    ACL_INT16 = 6,
    ACL_UINT16 = 7,
    ACL_UINT32 = 8,
    ACL_INT64 = 9,
    ACL_UINT64 = 10,
    ACL_DOUBLE = 11,
    ACL_BOOL = 12,
    ACL_STRING = 13,
    ACL_COMPLEX64 = 16,
    ACL_COMPLEX128 = 17,
    ACL_BF16 = 27,
    ACL_INT4 = 29,
    ACL_UINT1 = 30,
    ACL_COMPLEX32 = 33,
    ACL_HIFLOAT8 = 34,
    ACL_FLOAT8_E5M2 = 35,
    ACL_FLOAT8_E4M3FN = 36,
    ACL_FLOAT8_E8M0 = 37,
    ACL_FLOAT6_E3M2 = 38,
    ACL_FLOAT6_E2M3 = 39,
    ACL_FLOAT4_E2M1 = 40,
    ACL_FLOAT4_E1M2 = 41,
} aclDataType;

typedef enum {
    ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM = 10,
    ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX = 11,
    ACL_RT_MEMCPY_SDMA_AUTOMATIC_MIN = 12,
    ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL = 13,
} aclrtReduceKind;

typedef struct {
    uint8_t isAddr;
    uint8_t valueOrAddr[8];
    uint8_t size;
    uint8_t rsv[6];
} aclrtRandomParaInfo;

typedef struct {
    aclrtRandomParaInfo dropoutRation;
} aclrtDropoutBitmaskInfo;

typedef struct {
    aclrtRandomParaInfo min;
    aclrtRandomParaInfo max;
} aclrtUniformDisInfo;

typedef struct {
    aclrtRandomParaInfo mean;
    aclrtRandomParaInfo stddev;
} aclrtNormalDisInfo;

typedef enum {
    ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK = 0,
    ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS,
    ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS,
    ACL_RT_RANDOM_NUM_FUNC_TYPE_TRUNCATED_NORMAL_DIS,
} aclrtRandomNumFuncType;

typedef struct {
    aclrtRandomNumFuncType funcType;
    union {
        aclrtDropoutBitmaskInfo dropoutBitmaskInfo;
        aclrtUniformDisInfo uniformDisInfo;
        aclrtNormalDisInfo normalDisInfo;
    } paramInfo;
} aclrtRandomNumFuncParaInfo;

typedef struct {
    aclDataType dataType;
    aclrtRandomNumFuncParaInfo randomNumFuncParaInfo;
    void *randomParaAddr;
    void *randomResultAddr;
    void *randomCounterAddr;
    aclrtRandomParaInfo randomSeed;
    aclrtRandomParaInfo randomNum;
    uint8_t rsv[8];
} aclrtRandomNumTaskInfo;

ACLRT_API aclError aclrtReduceAsync(void *dst, const void *src, uint64_t count, aclrtReduceKind kind, aclDataType type,
                                    aclrtStream stream, void *reserve);
ACLRT_API aclError aclrtRandomNumAsync(const aclrtRandomNumTaskInfo *taskInfo, const aclrtStream stream,
                                       void *reserve);

/* ========================================================================
 * Tensor data transfer: data items (acl_tdt.h)
 *
 * (Here rather than with the channels: it needs aclDataType, above.) A data
 * item describes one tensor: its kind (acltdtTensorType), dims, data type
 * and bytes. acltdtCreateDataItem keeps the program's pointer, it copies
 * nothing but the dims; only a TENSOR item has dims and data (the other
 * kinds take dims NULL and keep no data). Items a receive made are the
 * received dataset's: acltdtDestroyDataItem refuses them. The getters return
 * ACL_TENSOR_DATA_UNDEFINED, ACL_DT_UNDEFINED, NULL or 0 for a NULL item.
 * ======================================================================== */
ACLRT_API acltdtDataItem *acltdtCreateDataItem(acltdtTensorType tdtType, const int64_t *dims, size_t dimNum,
                                               aclDataType dataType, void *data, size_t size);
ACLRT_API aclError acltdtDestroyDataItem(acltdtDataItem *dataItem);
ACLRT_API acltdtTensorType acltdtGetTensorTypeFromItem(const acltdtDataItem *dataItem);
ACLRT_API aclDataType acltdtGetDataTypeFromItem(const acltdtDataItem *dataItem);
ACLRT_API void *acltdtGetDataAddrFromItem(const acltdtDataItem *dataItem);
ACLRT_API size_t acltdtGetDataSizeFromItem(const acltdtDataItem *dataItem);
ACLRT_API size_t acltdtGetDimNumFromItem(const acltdtDataItem *dataItem);
ACLRT_API aclError acltdtGetDimsFromItem(const acltdtDataItem *dataItem, int64_t *dims, size_t dimNum);
ACLRT_API aclError acltdtGetSliceInfoFromItem(const acltdtDataItem *dataItem, size_t *sliceNum, size_t *sliceId);

/* ========================================================================
 * Error details (acl_rt.h)
 *
 * aclrtGetErrorVerbose reports a device's hardware fault (memory UCE, link,
 * ...) for aclrtRepairError. aclrt's devices have no hardware fault that it
 * could observe, only the memory faults made with aclrtxInjectMemUce
 * ("Memory faults (UCE) and their repair"): ACL_RT_ERROR_MEMORY with them as
 * detail, else ACL_RT_NO_ERROR (a failing task is a software error, which
 * this call does not report on the device either).
 * The exception-info getters below read what an exception callback got for
 * a failing host kernel (aclrtxLaunchHostKernel): its args pointer and, as
 * the function handle, the kernel function itself. For any other failing
 * task there is none: ACL_ERROR_INVALID_EXCEPTION_INFO / ACL_ERROR_RT_PARAM_INVALID.
 * ======================================================================== */
#define MAX_MEM_UCE_INFO_ARRAY_SIZE 128
#define UCE_INFO_RESERVED_SIZE 14

typedef struct aclrtMemUceInfo {
    void *addr;
    size_t len;
    size_t reserved[UCE_INFO_RESERVED_SIZE];
} aclrtMemUceInfo;

typedef enum {
    ACL_RT_NO_ERROR = 0,
    ACL_RT_ERROR_MEMORY = 1,
    ACL_RT_ERROR_L2 = 2,
    ACL_RT_ERROR_AICORE = 3,
    ACL_RT_ERROR_LINK = 4,
    ACL_RT_ERROR_L3_PORT = 5,
    ACL_RT_ERROR_OTHERS = 0xFFFF,
} aclrtErrorType;

typedef enum aclrtAicoreErrorType {
    ACL_RT_AICORE_ERROR_UNKNOWN,
    ACL_RT_AICORE_ERROR_SW,
    ACL_RT_AICORE_ERROR_HW_LOCAL,
} aclrtAicoreErrorType;

#define ACL_RT_MEM_UCE_INFO_MAX_NUM 20
typedef struct {
    size_t arraySize;
    aclrtMemUceInfo memUceInfoArray[ACL_RT_MEM_UCE_INFO_MAX_NUM];
} aclrtMemUceInfoArray;

typedef union aclrtErrorInfoDetail {
    aclrtMemUceInfoArray uceInfo;
    aclrtAicoreErrorType aicoreErrType;
} aclrtErrorInfoDetail;

typedef struct aclrtErrorInfo {
    uint8_t tryRepair;
    uint8_t hasDetail;
    uint8_t reserved[2];
    aclrtErrorType errorType;
    aclrtErrorInfoDetail detail;
} aclrtErrorInfo;

typedef void *aclrtFuncHandle;

ACLRT_API aclError aclrtGetErrorVerbose(int32_t deviceId, aclrtErrorInfo *errorInfo);
ACLRT_API aclError aclrtGetArgsFromExceptionInfo(const aclrtExceptionInfo *info, void **devArgsPtr,
                                                 uint32_t *devArgsLen);
ACLRT_API aclError aclrtGetFuncHandleFromExceptionInfo(const aclrtExceptionInfo *info, aclrtFuncHandle *func);

/* ========================================================================
 * Dump configuration (acl_rt.h)
 *
 * A dump configuration is the "dump" object of a JSON file, as CANN
 * documents it (dump_path, dump_mode, dump_list, dump_op_switch,
 * dump_scene, dump_debug ...), given to aclmdlSetDump between
 * aclmdlInitDump and aclmdlFinalizeDump, or in aclInit's file. With a data
 * dump on, each kernel task (aclrtLaunchKernel*) writes the argument buffer
 * it runs with to a file under dump_path; with an exception dump on, a
 * failing kernel writes its arguments under the exception path. The dump
 * paths and the argument dump of single kernels are in acl/acl_dump.h.
 * What each call does on aclrt: docs/SEMANTICS.md, "Dump configuration".
 * ======================================================================== */

/* Start a dump configuration (after aclInit; once until aclmdlFinalizeDump). */
ACLRT_API aclError aclmdlInitDump(void);
/* Read a dump configuration file; it replaces the one set before and acts on the kernels run afterwards. */
ACLRT_API aclError aclmdlSetDump(const char *dumpCfgPath);
/* End the dump configuration: kernels run afterwards write nothing. */
ACLRT_API aclError aclmdlFinalizeDump(void);

/* ========================================================================
 * System and version (acl_base_rt.h, acl_rt.h)
 *
 * aclrt is the "runtime" package: aclsysGetVersionStr/Num report its own
 * version (ACLRT_VERSION_*, as "MAJOR.MINOR.PATCH"); any other package name
 * is not installed (ACL_ERROR_INVALID_FILE). The SoC of a device is the
 * device profile's ("Ascend910B1" by default; "aclrt-<backend>" with the
 * profile "host"); code built for any other SoC is not compatible with it. The half-precision conversions saturate, as
 * the runtime's do: no Inf or NaN is ever produced.
 * ======================================================================== */
#define ACL_PKG_VERSION_MAX_SIZE 128
#define ACL_PKG_VERSION_PARTS_MAX_SIZE 64

/* aclDataType: with the built-in tasks above. */

typedef enum {
    ACL_CANN_ATTR_UNDEFINED = -1,
    ACL_CANN_ATTR_INF_NAN = 0,
    ACL_CANN_ATTR_BF16 = 1,
    ACL_CANN_ATTR_JIT_COMPILE = 2
} aclCannAttr;

ACLRT_API aclError aclsysGetVersionStr(char *pkgName, char *versionStr);
ACLRT_API aclError aclsysGetVersionNum(char *pkgName, int32_t *versionNum);
ACLRT_API aclError aclGetCannAttributeList(const aclCannAttr **cannAttrList, size_t *num);
ACLRT_API aclError aclGetCannAttribute(aclCannAttr cannAttr, int32_t *value);
ACLRT_API const char *aclrtGetSocName();
ACLRT_API aclError aclrtCheckArchCompatibility(const char *socVersion, int32_t *canCompatible);
ACLRT_API float aclFloat16ToFloat(aclFloat16 value);
ACLRT_API aclFloat16 aclFloatToFloat16(float value);
ACLRT_API size_t aclDataTypeSize(aclDataType dataType);

/* ========================================================================
 * Data buffers, application logs and runtime options (acl_base_rt.h, acl_rt.h)
 *
 * What a program sets up around its device work, none of it on a stream:
 * buffers that describe memory to other calls, its own log lines, code
 * that runs at aclInit and aclFinalize, the runtime's version, process and
 * context options, and how long a kernel may run. What each call does on
 * aclrt: docs/SEMANTICS.md, "Data buffers, application logs and runtime
 * options".
 * ======================================================================== */

/*
 * Data buffers: an address and a size, owned by the caller (a buffer never
 * frees its memory). Creating one needs no aclInit.
 */
typedef struct aclDataBuffer aclDataBuffer;
/* A tensor's layout and where a buffer's memory lives, as other calls describe them with a data buffer. */
typedef enum {
    ACL_FORMAT_UNDEFINED = -1,
    ACL_FORMAT_NCHW = 0,
    ACL_FORMAT_NHWC = 1,
    ACL_FORMAT_ND = 2,
    ACL_FORMAT_NC1HWC0 = 3,
    ACL_FORMAT_FRACTAL_Z = 4,
    ACL_FORMAT_NC1HWC0_C04 = 12,
    ACL_FORMAT_HWCN = 16,
    ACL_FORMAT_NDHWC = 27,
    ACL_FORMAT_FRACTAL_NZ = 29,
    ACL_FORMAT_NCDHW = 30,
    ACL_FORMAT_NDC1HWC0 = 32,
    ACL_FRACTAL_Z_3D = 33,
    ACL_FORMAT_NC = 35,
    ACL_FORMAT_NCL = 47,
    ACL_FORMAT_FRACTAL_NZ_C0_16 = 50,
    ACL_FORMAT_FRACTAL_NZ_C0_32 = 51,
    ACL_FORMAT_FRACTAL_NZ_C0_2 = 52,
    ACL_FORMAT_FRACTAL_NZ_C0_4 = 53,
    ACL_FORMAT_FRACTAL_NZ_C0_8 = 54,
} aclFormat;
typedef enum { ACL_MEMTYPE_DEVICE = 0, ACL_MEMTYPE_HOST = 1, ACL_MEMTYPE_HOST_COMPILE_INDEPENDENT = 2 } aclMemType;
ACLRT_API aclDataBuffer *aclCreateDataBuffer(void *data, size_t size);
ACLRT_API aclError aclDestroyDataBuffer(const aclDataBuffer *dataBuffer);
ACLRT_API aclError aclUpdateDataBuffer(aclDataBuffer *dataBuffer, void *data, size_t size);
ACLRT_API void *aclGetDataBufferAddr(const aclDataBuffer *dataBuffer);
ACL_DEPRECATED_MESSAGE("aclGetDataBufferSize is deprecated, use aclGetDataBufferSizeV2 instead")
ACLRT_API uint32_t aclGetDataBufferSize(const aclDataBuffer *dataBuffer);
ACLRT_API size_t aclGetDataBufferSizeV2(const aclDataBuffer *dataBuffer);

/*
 * Application logs: one line per call, at or above the level
 * ASCEND_GLOBAL_LOG_LEVEL names (default ACL_ERROR; 4 silences them), to
 * stderr, or stdout with ASCEND_SLOG_PRINT_TO_STDOUT=1. A message is cut at
 * 1023 bytes with a "...[truncated]" mark.
 */
typedef enum {
    ACL_DEBUG = 0,
    ACL_INFO = 1,
    ACL_WARNING = 2,
    ACL_ERROR = 3,
} aclLogLevel;
#if defined(__GNUC__)
__attribute__((format(printf, 5, 6)))
#endif
ACLRT_API void aclAppLog(aclLogLevel logLevel, const char *func, const char *file, uint32_t line, const char *fmt, ...);
#define ACL_APP_LOG(level, fmt, ...) aclAppLog(level, __FUNCTION__, __FILE__, __LINE__, fmt, ##__VA_ARGS__)

/*
 * Device capabilities: the device profile's core counts and L2 size, as
 * aclrtGetDeviceInfo reports them.
 */
typedef enum {
    ACL_DEVICE_INFO_UNDEFINED = -1,
    ACL_DEVICE_INFO_AI_CORE_NUM = 0,
    ACL_DEVICE_INFO_VECTOR_CORE_NUM = 1,
    ACL_DEVICE_INFO_L2_SIZE = 2
} aclDeviceInfo;
ACLRT_API aclError aclGetDeviceCapability(uint32_t deviceId, aclDeviceInfo deviceInfo, int64_t *value);

/*
 * Init and finalize callbacks: code of a component that runs inside aclInit
 * (with the configuration file's text) and aclFinalize. One callback per
 * component type, any number of ACL_REG_TYPE_OTHER; aclInit calls those of
 * the model, the operator executor (only when a file is given), DVPP and
 * the others, in that order, and fails with the first failure; aclFinalize
 * those of the operator compiler, the model, DVPP and the others. A
 * callback registered after aclInit runs at once.
 */
typedef enum aclRegisterCallbackType {
    ACL_REG_TYPE_ACL_MODEL,
    ACL_REG_TYPE_ACL_OP_EXECUTOR,
    ACL_REG_TYPE_ACL_OP_CBLAS,
    ACL_REG_TYPE_ACL_OP_COMPILER,
    ACL_REG_TYPE_ACL_TDT_CHANNEL,
    ACL_REG_TYPE_ACL_TDT_QUEUE,
    ACL_REG_TYPE_ACL_DVPP,
    ACL_REG_TYPE_ACL_RETR,
    ACL_REG_TYPE_OTHER = 0xFFFF,
} aclRegisterCallbackType;
typedef aclError (*aclInitCallbackFunc)(const char *configStr, size_t len, void *userData);
typedef aclError (*aclFinalizeCallbackFunc)(void *userData);
ACLRT_API aclError aclInitCallbackRegister(aclRegisterCallbackType type, aclInitCallbackFunc cbFunc, void *userData);
ACLRT_API aclError aclInitCallbackUnRegister(aclRegisterCallbackType type, aclInitCallbackFunc cbFunc);
ACLRT_API aclError aclFinalizeCallbackRegister(aclRegisterCallbackType type, aclFinalizeCallbackFunc cbFunc,
                                               void *userData);
ACLRT_API aclError aclFinalizeCallbackUnRegister(aclRegisterCallbackType type, aclFinalizeCallbackFunc cbFunc);

/*
 * Versions: the ACL interface version (ACL_MAJOR_VERSION ...), and the
 * version of an installed package (aclrt is the runtime package).
 */
typedef enum aclCANNPackageName {
    ACL_PKG_NAME_CANN,
    ACL_PKG_NAME_RUNTIME,
    ACL_PKG_NAME_COMPILER,
    ACL_PKG_NAME_HCCL,
    ACL_PKG_NAME_TOOLKIT,
    ACL_PKG_NAME_OPP,
    ACL_PKG_NAME_OPP_KERNEL,
    ACL_PKG_NAME_DRIVER
} aclCANNPackageName;
typedef struct aclCANNPackageVersion {
    char version[ACL_PKG_VERSION_MAX_SIZE];
    char majorVersion[ACL_PKG_VERSION_PARTS_MAX_SIZE];
    char minorVersion[ACL_PKG_VERSION_PARTS_MAX_SIZE];
    char releaseVersion[ACL_PKG_VERSION_PARTS_MAX_SIZE];
    char patchVersion[ACL_PKG_VERSION_PARTS_MAX_SIZE];
    char reserved[ACL_PKG_VERSION_MAX_SIZE];
} aclCANNPackageVersion;
ACL_DEPRECATED_MESSAGE("aclrtGetVersion is deprecated, use aclSysGetVersion instead")
ACLRT_API aclError aclrtGetVersion(int32_t *majorVersion, int32_t *minorVersion, int32_t *patchVersion);
ACL_DEPRECATED_MESSAGE("aclsysGetCANNVersion is deprecated, use aclsysGetVersionStr and aclsysGetVersionNum instead")
ACLRT_API aclError aclsysGetCANNVersion(aclCANNPackageName name, aclCANNPackageVersion *version);

/*
 * System parameter options, for the process and for the current context:
 * a value is kept until aclFinalize (a context's until it is destroyed);
 * reading one never set is ACL_ERROR_RT_SYSPARAMOPT_NOT_SET.
 * ACL_OPT_ENABLE_KERNEL_EARLY_START is a process option only.
 */
typedef enum {
    ACL_OPT_DETERMINISTIC = 0,
    ACL_OPT_ENABLE_DEBUG_KERNEL = 1,
    ACL_OPT_STRONG_CONSISTENCY ACL_DEPRECATED_MESSAGE(
        "ACL_OPT_STRONG_CONSISTENCY is deprecated, use ACL_OPT_DETERMINISTIC with value 2 instead") = 2,
    ACL_OPT_ENABLE_KERNEL_EARLY_START = 3
} aclSysParamOpt;
ACLRT_API aclError aclrtSetSysParamOpt(aclSysParamOpt opt, int64_t value);
ACLRT_API aclError aclrtGetSysParamOpt(aclSysParamOpt opt, int64_t *value);
ACLRT_API aclError aclrtCtxSetSysParamOpt(aclSysParamOpt opt, int64_t value);
ACLRT_API aclError aclrtCtxGetSysParamOpt(aclSysParamOpt opt, int64_t *value);

/*
 * Operator execution timeouts: how long a kernel may run before its task
 * fails with ACL_ERROR_RT_AICORE_TIMEOUT (a launch's own timeout attribute
 * wins). Kept in steps of aclrtGetOpTimeOutInterval (1 ms); 0: no limit.
 */
ACLRT_API aclError aclrtSetOpExecuteTimeOut(uint32_t timeout);
ACLRT_API aclError aclrtSetOpExecuteTimeOutWithMs(uint32_t timeout);
ACLRT_API aclError aclrtSetOpExecuteTimeOutV2(uint64_t timeout, uint64_t *actualTimeout);
ACLRT_API aclError aclrtGetOpExecuteTimeout(uint32_t *const timeoutMs);
ACLRT_API aclError aclrtGetOpTimeOutInterval(uint64_t *interval);

/* ========================================================================
 * Device information and limits (acl_rt.h)
 *
 * A device reports the device profile the configuration names (aclrt.profile,
 * ACLRT_PROFILE; docs/CONFIGURATION.md): by default an Ascend910B1's figures
 * (24 AI Cores, 24 cube and 48 vector cores, 6 AI CPUs, 64 GiB of global
 * memory), while its work runs on the machine's CPUs. The profile "host"
 * reports the machine: its cores are the CPUs this process may run on
 * (reported as AI CPU, AI Core, cube and vector cores alike: the same cores
 * run every kind of task), its global memory the machine's RAM, its L2 the
 * CPU's. What neither has (SIMT warps, super-pod placement, an NPU
 * architecture number) is 0 where the runtime reports 0 for a device without
 * it, and ACL_ERROR_RT_FEATURE_NOT_SUPPORT otherwise.
 * Resource limits are what the runtime keeps them for: the core counts
 * reported to whoever sizes kernels (aclrtGetDeviceResLimit,
 * aclrtGetResInCurrentThread), per device until it is reset; as on the
 * device, a kernel launched with more blocks still runs all of them.
 * Utilization is not measured: -1 ("not available"), as the runtime reports.
 * aclrtGetMemInfo: the current device's global memory (total, as
 * ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE) and the part not allocated (free);
 * every aclrtMemAttr names that same memory on a host device.
 * ======================================================================== */
#define ACL_HOST_DEVICE_CONNECT_TYPE_PCIE 0
#define ACL_HOST_DEVICE_CONNECT_TYPE_HCCS 1
#define ACL_HOST_DEVICE_CONNECT_TYPE_UB 2

#define ACL_DEV_FEATURE_SUPPORT 0x00000001
#define ACL_DEV_FEATURE_NOT_SUPPORT 0x00000000

typedef enum aclrtDeviceStatus {
    ACL_RT_DEVICE_STATUS_NORMAL = 0,
    ACL_RT_DEVICE_STATUS_ABNORMAL,
    ACL_RT_DEVICE_STATUS_END = 0xFFFF,
} aclrtDeviceStatus;

typedef struct aclrtUtilizationExtendInfo aclrtUtilizationExtendInfo;

typedef struct aclrtUtilizationInfo {
    int32_t cubeUtilization;
    int32_t vectorUtilization;
    int32_t aicpuUtilization;
    int32_t memoryUtilization;
    aclrtUtilizationExtendInfo *utilizationExtend; /* reserved, must be NULL */
} aclrtUtilizationInfo;

typedef enum {
    ACL_DEV_ATTR_AICPU_CORE_NUM = 1,
    ACL_DEV_ATTR_AICORE_CORE_NUM = 101,
    ACL_DEV_ATTR_CUBE_CORE_NUM = 102,
    ACL_DEV_ATTR_VECTOR_CORE_NUM = 201,
    ACL_DEV_ATTR_WARP_SIZE = 202,
    ACL_DEV_ATTR_MAX_THREAD_PER_VECTOR_CORE = 203,
    ACL_DEV_ATTR_LOCAL_MEM_PER_VECTOR_CORE ACL_DEPRECATED_MESSAGE("Use ACL_DEV_ATTR_UBUF_PER_VECTOR_CORE instead") =
        204,
    ACL_DEV_ATTR_UBUF_PER_VECTOR_CORE = 204,
    ACL_DEV_ATTR_MAX_GRID_DIM_X = 205,
    ACL_DEV_ATTR_MAX_GRID_DIM_Y = 206,
    ACL_DEV_ATTR_MAX_GRID_DIM_Z = 207,
    ACL_DEV_ATTR_MAX_BLOCK_PER_GRID = 208,
    ACL_DEV_ATTR_MAX_THREADS_PER_BLOCK = 209,
    ACL_DEV_ATTR_MAX_BLOCK_DIM_X = 210,
    ACL_DEV_ATTR_MAX_BLOCK_DIM_Y = 211,
    ACL_DEV_ATTR_MAX_BLOCK_DIM_Z = 212,
    ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE = 301,
    ACL_DEV_ATTR_L2_CACHE_SIZE = 302,
    ACL_DEV_ATTR_SMP_ID = 401U,
    ACL_DEV_ATTR_PHY_CHIP_ID = 402U,
    ACL_DEV_ATTR_SUPER_POD_DEVIDE_ID = 403U, /* misspelt alias of ACL_DEV_ATTR_SUPER_POD_DEVICE_ID */
    ACL_DEV_ATTR_SUPER_POD_DEVICE_ID = 403U,
    ACL_DEV_ATTR_SUPER_POD_SERVER_ID = 404U,
    ACL_DEV_ATTR_SUPER_POD_ID = 405U,
    ACL_DEV_ATTR_CUST_OP_PRIVILEGE = 406U,
    ACL_DEV_ATTR_MAINBOARD_ID = 407U,
    ACL_DEV_ATTR_HD_CONNECT_TYPE = 408U,
    ACL_DEV_ATTR_DEVICE_FORM_FACTOR = 409U,
    ACL_DEV_ATTR_IS_VIRTUAL = 501U,
    ACL_DEV_ATTR_NPU_ARCH = 601U,
} aclrtDevAttr;

/* Device form factor returned by aclrtGetDeviceInfo with ACL_DEV_ATTR_DEVICE_FORM_FACTOR. */
#define ACL_DEVICE_FORM_FACTOR_POD 0
#define ACL_DEVICE_FORM_FACTOR_A_K 1
#define ACL_DEVICE_FORM_FACTOR_A_X 2
#define ACL_DEVICE_FORM_FACTOR_PCIE_CARD 3

typedef enum {
    ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV = 1,
    ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV = 21,
} aclrtDevFeatureType;

typedef enum {
    ACL_RT_DEV_RES_CUBE_CORE = 0,
    ACL_RT_DEV_RES_VECTOR_CORE,
} aclrtDevResLimitType;

ACLRT_API aclError aclrtGetDeviceInfo(uint32_t deviceId, aclrtDevAttr attr, int64_t *value);
ACLRT_API aclError aclrtGetDeviceCapability(int32_t deviceId, aclrtDevFeatureType devFeatureType, int32_t *value);
ACLRT_API aclError aclrtQueryDeviceStatus(int32_t deviceId, aclrtDeviceStatus *deviceStatus);
ACLRT_API aclError aclrtGetDeviceUtilizationRate(int32_t deviceId, aclrtUtilizationInfo *utilizationInfo);
ACLRT_API aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t *free, size_t *total);
ACLRT_API aclError aclrtGetDeviceResLimit(int32_t deviceId, aclrtDevResLimitType type, uint32_t *value);
ACLRT_API aclError aclrtSetDeviceResLimit(int32_t deviceId, aclrtDevResLimitType type, uint32_t value);
ACLRT_API aclError aclrtResetDeviceResLimit(int32_t deviceId);
ACLRT_API aclError aclrtGetResInCurrentThread(aclrtDevResLimitType type, uint32_t *value);

/*
 * A stream's resource limits: what aclrtGetResInCurrentThread reports in a
 * thread that uses the stream's (aclrtUseStreamResInCurrentThread), ahead
 * of the process's limit of the device. At most the profile's cores; kept
 * until reset or the stream is destroyed. A stream without one reports the
 * process's limit (aclrtGetStreamResLimit).
 */
ACLRT_API aclError aclrtGetStreamResLimit(aclrtStream stream, aclrtDevResLimitType type, uint32_t *value);
ACLRT_API aclError aclrtSetStreamResLimit(aclrtStream stream, aclrtDevResLimitType type, uint32_t value);
ACLRT_API aclError aclrtResetStreamResLimit(aclrtStream stream);
ACLRT_API aclError aclrtUseStreamResInCurrentThread(aclrtStream stream);
ACLRT_API aclError aclrtUnuseStreamResInCurrentThread(aclrtStream stream);

/*
 * Identity and topology. A device's UUID is stable for the machine and the
 * device id (derived from the machine id); its PCI bus id is synthesized,
 * "0000:<bus>:00.0" with bus 0x01 + the device id, unique in the process
 * as a virtual machine's are. Devices of one process share the machine's
 * coherent memory: every pair is ACL_RT_DEVS_TOPOLOGY_HCCS. There is no
 * ASCEND_RT_VISIBLE_DEVICES remapping and no container: user, logical and
 * physical device ids are the same.
 */
#define ACL_RT_DEVS_TOPOLOGY_HCCS 0x01ULL
#define ACL_RT_DEVS_TOPOLOGY_PIX 0x02ULL
#define ACL_RT_DEVS_TOPOLOGY_PIB 0x04ULL
#define ACL_RT_DEVS_TOPOLOGY_PHB 0x08ULL
#define ACL_RT_DEVS_TOPOLOGY_SYS 0x10ULL
#define ACL_RT_DEVS_TOPOLOGY_SIO 0x20ULL
#define ACL_RT_DEVS_TOPOLOGY_HCCS_SW 0x40ULL

typedef struct aclrtUuid {
    char bytes[16];
} aclrtUuid;

ACLRT_API aclError aclrtDeviceGetUuid(int32_t deviceId, aclrtUuid *uuid);
ACLRT_API aclError aclrtDeviceGetPCIBusId(int32_t deviceId, char *pciBusId, int32_t len);
ACLRT_API aclError aclrtDeviceGetByPCIBusId(const char *pciBusId, int32_t *deviceId);
ACLRT_API aclError aclrtGetDevicesTopo(uint32_t deviceId, uint32_t otherDeviceId, uint64_t *value);
ACLRT_API aclError aclrtGetLogicDevIdByUserDevId(const int32_t userDevid, int32_t *const logicDevId);
ACLRT_API aclError aclrtGetUserDevIdByLogicDevId(const int32_t logicDevId, int32_t *const userDevid);
ACLRT_API aclError aclrtGetLogicDevIdByPhyDevId(const int32_t phyDevId, int32_t *const logicDevId);
ACLRT_API aclError aclrtGetPhyDevIdByLogicDevId(const int32_t logicDevId, int32_t *const phyDevId);
ACLRT_API aclError aclrtGetUserDevIdByPhyDevId(const int32_t phyDevId, int32_t *const userDevId);
ACLRT_API aclError aclrtGetPhyDevIdByUserDevId(const int32_t userDevId, int32_t *const phyDevId);

/* ========================================================================
 * Device limits, atomics, schedulers and the primary context (acl_rt.h)
 *
 * The limits of aclrtDeviceSetLimit are process-wide (every device has
 * them) and are kept as the device profile's SoC would take them: an
 * Ascend910B-class part takes the SIMD stack and printf limits, rounded as
 * it rounds them, and has no SIMT (those limits are
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT). Host kernels run on the executors'
 * own stacks: the limits are reported, not applied.
 * Atomic capabilities: a SoC profile reports what its chip supports
 * between the host (or another device) and its memory, which for the
 * Ascend910B-class parts is none; the profile "host" on the host backend
 * reports the CPU's atomics, which work on device memory because it is
 * host memory. aclrtSetTsDevice checks its id and does nothing more: one
 * set of executors runs AI Core and vector tasks alike.
 * aclrtGetPrimaryCtxState: whether the device's default context exists.
 * ======================================================================== */
typedef enum aclrtDeviceLimit {
    ACL_RT_DEV_LIMIT_SIMT_STACK_SIZE = 0,
    ACL_RT_DEV_LIMIT_SIMT_DVG_WARP_STACK_SIZE = 1,
    ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE = 2,
    ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE = 3,
    ACL_RT_DEV_LIMIT_SIMT_PRINTF_FIFO_SIZE = 4,
} aclrtDeviceLimit;

typedef enum aclrtAtomicOperationCapability {
    ACL_RT_ATOMIC_CAPABILITY_SIGNED = 1U << 0,
    ACL_RT_ATOMIC_CAPABILITY_UNSIGNED = 1U << 1,
    ACL_RT_ATOMIC_CAPABILITY_REDUCATION = 1U << 2, /* misspelt alias of ACL_RT_ATOMIC_CAPABILITY_REDUCTION */
    ACL_RT_ATOMIC_CAPABILITY_REDUCTION = 1U << 2,
    ACL_RT_ATOMIC_CAPABILITY_SCALAR8 = 1U << 3,
    ACL_RT_ATOMIC_CAPABILITY_SCALAR16 = 1U << 4,
    ACL_RT_ATOMIC_CAPABILITY_SCALAR32 = 1U << 5,
    ACL_RT_ATOMIC_CAPABILITY_SCALAR64 = 1U << 6,
    ACL_RT_ATOMIC_CAPABILITY_SCALAR128 = 1U << 7,
    ACL_RT_ATOMIC_CAPABILITY_VECTOR32X4 = 1U << 8,
} aclrtAtomicOperationCapability;

typedef enum aclrtAtomicOperation {
    ACL_RT_ATOMIC_OPERATION_INTEGER_ADD = 0,
    ACL_RT_ATOMIC_OPERATION_INTEGER_MIN = 1,
    ACL_RT_ATOMIC_OPERATION_INTEGER_MAX = 2,
    ACL_RT_ATOMIC_OPERATION_INTEGER_INCREMENT = 3,
    ACL_RT_ATOMIC_OPERATION_INTEGER_DECREMENT = 4,
    ACL_RT_ATOMIC_OPERATION_AND = 5,
    ACL_RT_ATOMIC_OPERATION_OR = 6,
    ACL_RT_ATOMIC_OPERATION_XOR = 7,
    ACL_RT_ATOMIC_OPERATION_EXCHANGE = 8,
    ACL_RT_ATOMIC_OPERATION_CAS = 9,
    ACL_RT_ATOMIC_OPERATION_FLOAT_ADD = 10,
    ACL_RT_ATOMIC_OPERATION_FLOAT_MIN = 11,
    ACL_RT_ATOMIC_OPERATION_FLOAT_MAX = 12,
    ACL_RT_ATOMIC_OPERATION_DMA_ADD = 30,
    ACL_RT_ATOMIC_OPERATION_DMA_MIN = 31,
    ACL_RT_ATOMIC_OPERATION_DMA_MAX = 32,
    ACL_RT_ATOMIC_OPERATION_SIMD_SCALAR_ADD = 40,
    ACL_RT_ATOMIC_OPERATION_SIMD_SCALAR_MIN = 41,
    ACL_RT_ATOMIC_OPERATION_SIMD_SCALAR_MAX = 42,
    ACL_RT_ATOMIC_OPERATION_SIMD_SCALAR_CAS = 43,
    ACL_RT_ATOMIC_OPERATION_SIMD_SCALAR_EXCH = 44,
} aclrtAtomicOperation;

ACLRT_API aclError aclrtDeviceSetLimit(aclrtDeviceLimit limit, size_t value);
ACLRT_API aclError aclrtDeviceGetLimit(aclrtDeviceLimit limit, size_t *value);
ACLRT_API aclError aclrtDeviceGetHostAtomicCapabilities(uint32_t *capabilities, const aclrtAtomicOperation *operations,
                                                        const uint32_t count, int32_t deviceId);
ACLRT_API aclError aclrtDeviceGetP2PAtomicCapabilities(uint32_t *capabilities, const aclrtAtomicOperation *operations,
                                                       const uint32_t count, int32_t srcDeviceId, int32_t dstDeviceId);
ACLRT_API aclError aclrtSetTsDevice(aclrtTsId tsId);
ACLRT_API aclError aclrtGetPrimaryCtxState(int32_t deviceId, uint32_t *flags, int32_t *active);

/* ========================================================================
 * Compute groups (acl_rt.h)
 *
 * A device has one compute group, id 0, holding all of it: the profile's
 * AI Cores, AI CPUs and vector cores, the executor threads (which do the
 * copies a device's DMA engines do) and the streams it may have at once.
 * Selecting it (aclrtSetGroup) changes nothing, as the work already runs on
 * the whole device; another id is ACL_ERROR_RT_GROUP_NOT_CREATE.
 * ======================================================================== */
typedef enum aclrtGroupAttr {
    ACL_GROUP_AICORE_INT,
    ACL_GROUP_AIV_INT,
    ACL_GROUP_AIC_INT,
    ACL_GROUP_SDMANUM_INT,
    ACL_GROUP_ASQNUM_INT,
    ACL_GROUP_GROUPID_INT
} aclrtGroupAttr;

typedef struct tagRtGroupInfo aclrtGroupInfo;

ACLRT_API aclError aclrtSetGroup(int32_t groupId);
ACLRT_API aclError aclrtGetGroupCount(uint32_t *count);
ACLRT_API aclrtGroupInfo *aclrtCreateGroupInfo(void);
ACLRT_API aclError aclrtDestroyGroupInfo(aclrtGroupInfo *groupInfo);
ACLRT_API aclError aclrtGetAllGroupInfo(aclrtGroupInfo *groupInfo);
ACLRT_API aclError aclrtGetGroupInfoDetail(const aclrtGroupInfo *groupInfo, int32_t groupIndex, aclrtGroupAttr attr,
                                           void *attrValue, size_t valueLen, size_t *paramRetSize);

/* ========================================================================
 * Device task abort (acl_rt.h)
 *
 * aclrtDeviceTaskAbort stops the work of one device: the callbacks
 * registered with aclrtSetDeviceTaskAbortCallback run (PRE), every stream
 * of the device discards the tasks that have not started, a running task
 * finishes (host code cannot be interrupted), the device's contexts leave
 * their failed state and the callbacks run again (POST). A timeout
 * (ms, 0: none, at most 36 minutes) is checked between these steps, as the
 * runtime does: ACL_ERROR_RT_WAIT_TIMEOUT once it has passed.
 * ======================================================================== */
typedef enum {
    ACL_RT_DEVICE_TASK_ABORT_PRE = 0,
    ACL_RT_DEVICE_TASK_ABORT_POST,
} aclrtDeviceTaskAbortStage;

typedef int32_t (*aclrtDeviceTaskAbortCallback)(int32_t deviceId, aclrtDeviceTaskAbortStage stage, uint32_t timeout,
                                               void *args);

ACLRT_API aclError aclrtDeviceTaskAbort(int32_t deviceId, uint32_t timeout);
ACLRT_API aclError aclrtSetDeviceTaskAbortCallback(const char *regName, aclrtDeviceTaskAbortCallback callback,
                                                   void *args);

/* ========================================================================
 * Overflow detection (acl_rt.h)
 *
 * Host kernels compute with the CPU's IEEE 754 arithmetic: the device's
 * floating-point mode is ACL_RT_OVERFLOW_MODE_INFNAN, unless
 * aclrtSetDeviceSatMode sets ACL_RT_OVERFLOW_MODE_SATURATION (the section
 * below says what that does).
 * With a stream's overflow switch on, every block of a host kernel launched
 * on it runs with the CPU's floating-point exception flags watched: an
 * overflow, division by zero or invalid operation (a result that is Inf or
 * NaN) sets the process-wide overflow status. aclrtGetOverflowStatus copies
 * it, in stream order, into 64 bytes of the caller's memory (the first
 * uint32_t is 1 after an overflow, 0 otherwise; the rest is 0);
 * aclrtResetOverflowStatus clears it, in stream order.
 * ======================================================================== */
typedef enum aclrtFloatOverflowMode {
    ACL_RT_OVERFLOW_MODE_SATURATION = 0,
    ACL_RT_OVERFLOW_MODE_INFNAN,
    ACL_RT_OVERFLOW_MODE_UNDEF,
} aclrtFloatOverflowMode;

ACLRT_API aclError aclrtSetDeviceSatMode(aclrtFloatOverflowMode mode);
ACLRT_API aclError aclrtGetDeviceSatMode(aclrtFloatOverflowMode *mode);
ACLRT_API aclError aclrtSetStreamOverflowSwitch(aclrtStream stream, uint32_t flag);
ACLRT_API aclError aclrtGetStreamOverflowSwitch(aclrtStream stream, uint32_t *flag);
ACLRT_API aclError aclrtGetOverflowStatus(void *outputAddr, size_t outputSize, aclrtStream stream);
ACLRT_API aclError aclrtResetOverflowStatus(aclrtStream stream);

/* ========================================================================
 * Overflow status, the runtime's other names (acl_rt.h)
 *
 * The same process-wide status as aclrtGetOverflowStatus and
 * aclrtResetOverflowStatus above, under the names the runtime gives it for
 * saturation mode (aclrtGetFloatOverflowStatus, aclrtResetFloatOverflowStatus)
 * and for the NPU's float status (aclrtNpuGetFloatOverFlowStatus,
 * aclrtNpuClearFloatOverFlowStatus): each queues the same 64-byte copy, or
 * the same reset, in stream order; a NULL stream is the default stream.
 * `checkMode` selects nothing on the host, which has one status for every
 * mode. In saturation mode (aclrtSetDeviceSatMode above) streams made after
 * the call run their host kernels rounding toward zero: an overflow gives
 * the largest finite value of its sign instead of an infinity.
 * ======================================================================== */
ACLRT_API aclError aclrtGetFloatOverflowStatus(void *outputAddr, uint64_t outputSize, aclrtStream stream);
ACLRT_API aclError aclrtResetFloatOverflowStatus(aclrtStream stream);
ACLRT_API aclError aclrtNpuGetFloatOverFlowStatus(void *outputAddr, uint64_t outputSize, uint32_t checkMode,
                                                 aclrtStream stream);
ACLRT_API aclError aclrtNpuClearFloatOverFlowStatus(uint32_t checkMode, aclrtStream stream);

/* ========================================================================
 * Kernels: binaries, functions, arguments, launches (acl_rt.h)
 *
 * A binary is loaded from a file or from memory and gives functions by
 * name; a launch runs a function on `numBlocks` blocks, in stream order, as
 * one task. On the host backend a binary is a shared object and a function
 * is a symbol it exports with the host-kernel signature (aclrtxHostKernel
 * below): `aclError name(uint32_t blockIdx, uint32_t numBlocks, void *args)`,
 * called once per block, blocks in parallel; `args` points to the packed
 * argument buffer. The arguments come three ways: aclrtLaunchKernel(V2)
 * passes a buffer of device memory the kernel reads when it runs;
 * aclrtLaunchKernelWithHostArgs copies a host buffer at the launch;
 * aclrtLaunchKernelWithConfig copies what an args handle holds (parameters
 * appended in order, each at its natural alignment up to 8 bytes, then the
 * placeholder data). A non-zero return of a block fails the task like a
 * device kernel fault. An unloaded binary stays loaded until the launches
 * already queued from it have run. docs/SEMANTICS.md (Kernels) has the rest.
 * ======================================================================== */
typedef void *aclrtBinHandle;
typedef void *aclrtArgsHandle;
typedef void *aclrtParamHandle;
/* aclrtFuncHandle: with the error details above. */

#define ACL_RT_BINARY_MAGIC_ELF_AICORE 0x43554245U
#define ACL_RT_BINARY_MAGIC_ELF_VECTOR_CORE 0x41415246U
#define ACL_RT_BINARY_MAGIC_ELF_CUBE_CORE 0x41494343U

typedef enum aclrtBinaryLoadOptionType {
    ACL_RT_BINARY_LOAD_OPT_LAZY_LOAD = 1,
    ACL_RT_BINARY_LOAD_OPT_LAZY_MAGIC = 2,
    ACL_RT_BINARY_LOAD_OPT_MAGIC = 2,
    ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE = 3,
} aclrtBinaryLoadOptionType;

typedef union aclrtBinaryLoadOptionValue {
    uint32_t isLazyLoad;
    uint32_t magic;
    int32_t cpuKernelMode;
    uint32_t rsv[4];
} aclrtBinaryLoadOptionValue;

typedef struct {
    aclrtBinaryLoadOptionType type;
    aclrtBinaryLoadOptionValue value;
} aclrtBinaryLoadOption;

typedef struct aclrtBinaryLoadOptions {
    aclrtBinaryLoadOption *options;
    size_t numOpt;
} aclrtBinaryLoadOptions;

typedef enum {
    ACL_RT_ENGINE_TYPE_AIC = 0,
    ACL_RT_ENGINE_TYPE_AIV,
} aclrtEngineType;

/* A kernel's grid or block dimensions (1 where not given, in C++). */
typedef struct dim3 {
    uint32_t x;
    uint32_t y;
    uint32_t z;
#if defined(__cplusplus)
    constexpr dim3(uint32_t vx = 1, uint32_t vy = 1, uint32_t vz = 1) : x(vx), y(vy), z(vz) {}
#endif
} dim3;

/* A function's attributes and kernel types (what aclrtGetFunctionAttribute would report). */
typedef enum {
    ACL_FUNC_ATTR_KERNEL_TYPE = 1,
    ACL_FUNC_ATTR_KERNEL_RATIO = 2,
    ACL_FUNC_ATTR_KERNEL_SCHED_MODE = 3,
} aclrtFuncAttribute;
typedef enum {
    ACL_KERNEL_TYPE_AICORE = 0,
    ACL_KERNEL_TYPE_CUBE = 1,
    ACL_KERNEL_TYPE_VECTOR = 2,
    ACL_KERNEL_TYPE_MIX = 3,
    ACL_KERNEL_TYPE_AICPU = 100,
} aclrtKernelType;

/* What a task update changes (aclrtTaskUpdateAsync's attributes). */
typedef enum {
    ACL_RT_UPDATE_RANDOM_TASK = 1,
    ACL_RT_UPDATE_AIC_AIV_TASK,
} aclrtUpdateTaskAttrId;

typedef enum aclrtLaunchKernelAttrId {
    ACL_RT_LAUNCH_KERNEL_ATTR_SCHEM_MODE = 1,
    ACL_RT_LAUNCH_KERNEL_ATTR_LOCAL_MEMORY_SIZE ACL_DEPRECATED_MESSAGE(
        "Use ACL_RT_LAUNCH_KERNEL_ATTR_DYN_UBUF_SIZE instead") = 2,
    ACL_RT_LAUNCH_KERNEL_ATTR_DYN_UBUF_SIZE = 2,
    ACL_RT_LAUNCH_KERNEL_ATTR_ENGINE_TYPE = 3,
    ACL_RT_LAUNCH_KERNEL_ATTR_BLOCKDIM_OFFSET = 4,
    ACL_RT_LAUNCH_KERNEL_ATTR_BLOCK_TASK_PREFETCH = 5,
    ACL_RT_LAUNCH_KERNEL_ATTR_DATA_DUMP = 6,
    ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT = 7,
    /* ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT and ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT_US cannot be carried at the same time */
    ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT_US = 8,
    ACL_RT_LAUNCH_KERNEL_ATTR_ENABLE_PROFILING = 9,
} aclrtLaunchKernelAttrId;

typedef struct {
    uint32_t timeoutLow;  /* low 32 bits */
    uint32_t timeoutHigh; /* high 32 bits */
} aclrtTimeoutUs;

typedef union aclrtLaunchKernelAttrValue {
    uint8_t schemMode;
    ACL_DEPRECATED_MESSAGE("Use dynUbufSize instead")
    uint32_t localMemorySize; /* deprecated: dynUBufSize */
    uint32_t dynUBufSize;
    aclrtEngineType engineType;
    uint32_t blockDimOffset;
    uint8_t isBlockTaskPrefetch;
    uint8_t isDataDump;
    uint16_t timeout;         /* seconds */
    aclrtTimeoutUs timeoutUs; /* microseconds */
    uint8_t enableProfiling;  /* 0: disable, 1: enable */
    uint32_t rsv[4];
} aclrtLaunchKernelAttrValue;

typedef struct aclrtLaunchKernelAttr {
    aclrtLaunchKernelAttrId id;
    aclrtLaunchKernelAttrValue value;
} aclrtLaunchKernelAttr;

typedef struct aclrtLaunchKernelCfg {
    aclrtLaunchKernelAttr *attrs;
    size_t numAttrs;
} aclrtLaunchKernelCfg;

typedef struct {
    uint32_t addrOffset;
    uint32_t dataOffset;
} aclrtPlaceHolderInfo;

ACLRT_API aclError aclrtBinaryLoadFromFile(const char *binPath, aclrtBinaryLoadOptions *options,
                                           aclrtBinHandle *binHandle);
ACLRT_API aclError aclrtBinaryLoadFromData(const void *data, size_t length, const aclrtBinaryLoadOptions *options,
                                           aclrtBinHandle *binHandle);
ACLRT_API aclError aclrtBinaryGetFunction(const aclrtBinHandle binHandle, const char *kernelName,
                                          aclrtFuncHandle *funcHandle);
ACLRT_API aclError aclrtBinaryUnLoad(aclrtBinHandle binHandle);
ACLRT_API aclError aclrtBinaryGetDevAddress(const aclrtBinHandle binHandle, void **binAddr, size_t *binSize);
ACLRT_API aclError aclrtBinaryGetGlobal(aclrtBinHandle binHandle, const char *name, void **dptr, size_t *size);
ACLRT_API aclError aclrtGetFunctionName(aclrtFuncHandle funcHandle, uint32_t maxLen, char *name);
ACLRT_API aclError aclrtGetFunctionAddr(aclrtFuncHandle funcHandle, void **aicAddr, void **aivAddr);
ACLRT_API aclError aclrtGetFunctionSize(aclrtFuncHandle funcHandle, size_t *aicSize, size_t *aivSize);
ACLRT_API aclError aclrtFunctionGetBinary(const aclrtFuncHandle funcHandle, aclrtBinHandle *binHandle);
ACLRT_API aclError aclrtKernelArgsInit(aclrtFuncHandle funcHandle, aclrtArgsHandle *argsHandle);
ACLRT_API aclError aclrtKernelArgsAppend(aclrtArgsHandle argsHandle, void *param, size_t paramSize,
                                         aclrtParamHandle *paramHandle);
ACLRT_API aclError aclrtKernelArgsAppendPlaceHolder(aclrtArgsHandle argsHandle, aclrtParamHandle *paramHandle);
ACLRT_API aclError aclrtKernelArgsGetPlaceHolderBuffer(aclrtArgsHandle argsHandle, aclrtParamHandle paramHandle,
                                                       size_t dataSize, void **bufferAddr);
ACLRT_API aclError aclrtKernelArgsParaUpdate(aclrtArgsHandle argsHandle, aclrtParamHandle paramHandle, void *param,
                                             size_t paramSize);
ACLRT_API aclError aclrtKernelArgsFinalize(aclrtArgsHandle argsHandle);
ACLRT_API aclError aclrtLaunchKernel(aclrtFuncHandle funcHandle, uint32_t numBlocks, const void *argsData,
                                     size_t argsSize, aclrtStream stream);
ACLRT_API aclError aclrtLaunchKernelV2(aclrtFuncHandle funcHandle, uint32_t numBlocks, const void *argsData,
                                       size_t argsSize, aclrtLaunchKernelCfg *cfg, aclrtStream stream);
ACLRT_API aclError aclrtLaunchKernelWithConfig(aclrtFuncHandle funcHandle, uint32_t numBlocks, aclrtStream stream,
                                               aclrtLaunchKernelCfg *cfg, aclrtArgsHandle argsHandle, void *reserve);
ACLRT_API aclError aclrtLaunchKernelWithHostArgs(aclrtFuncHandle funcHandle, uint32_t numBlocks, aclrtStream stream,
                                                 aclrtLaunchKernelCfg *cfg, void *hostArgs, size_t argsSize,
                                                 aclrtPlaceHolderInfo *placeHolderArray, size_t placeHolderNum);

/*
 * A captured model's tasks, read and changed (aclmdlRITask handles come
 * from aclmdlRIGetTasksByStream). aclmdlRITaskGetParams: a kernel's
 * function, arguments (the model's copy: read, do not free) and blocks, or
 * a replayed event record's or wait's event; other tasks have none
 * (ACL_ERROR_RT_PARAM_INVALID). aclmdlRITaskSetParams (a kernel's function,
 * arguments, blocks and launch configuration) and aclmdlRITaskDisable
 * (the task no longer runs) are staged: the model is not executed until
 * aclmdlRIUpdate applies them to the replays submitted after it.
 * docs/SEMANTICS.md.
 */
typedef struct aclmdlRIKernelTaskParams {
    aclrtFuncHandle funcHandle;
    aclrtLaunchKernelCfg *cfg;
    void *args;
    uint32_t isHostArgs;
    size_t argsSize;
    uint32_t numBlocks;
    uint32_t rsv[10];
} aclmdlRIKernelTaskParams;

typedef struct aclmdlRIEventRecordTaskParams {
    aclrtEvent event;
    uint32_t eventFlag;  /* the flags the event was created with */
    uint32_t recordFlag; /* ACL_EVENT_RECORD_DEFAULT or ACL_EVENT_RECORD_EXTERNAL */
} aclmdlRIEventRecordTaskParams;

typedef struct aclmdlRIEventWaitTaskParams {
    aclrtEvent event;
    uint32_t eventFlag;
    uint32_t waitFlag; /* ACL_EVENT_WAIT_DEFAULT or ACL_EVENT_WAIT_EXTERNAL */
} aclmdlRIEventWaitTaskParams;

typedef struct aclmdlRIEventResetTaskParams {
    aclrtEvent event;
    uint32_t eventFlag;
    uint32_t resetFlag;
} aclmdlRIEventResetTaskParams;

typedef struct aclmdlRIValueWriteTaskParams {
    void *devAddr;
    uint64_t value;
} aclmdlRIValueWriteTaskParams;

typedef struct aclmdlRIValueWaitTaskParams {
    void *devAddr;
    uint64_t value;
    uint32_t flag;
} aclmdlRIValueWaitTaskParams;

typedef struct aclmdlRITaskParams {
    aclmdlRITaskType type;
    uint32_t rsv0[3];
    aclrtTaskGrp taskGrp;
    void *opInfoPtr;
    size_t opInfoSize;
    uint8_t rsv1[32];
    union {
        uint8_t rsv2[128];
        struct aclmdlRIKernelTaskParams kernelTaskParams;
        struct aclmdlRIEventRecordTaskParams eventRecordTaskParams;
        struct aclmdlRIEventWaitTaskParams eventWaitTaskParams;
        struct aclmdlRIEventResetTaskParams eventResetTaskParams;
        struct aclmdlRIValueWriteTaskParams valueWriteTaskParams;
        struct aclmdlRIValueWaitTaskParams valueWaitTaskParams;
    };
} aclmdlRITaskParams;

ACLRT_API aclError aclmdlRITaskGetParams(aclmdlRITask task, aclmdlRITaskParams *params);
ACLRT_API aclError aclmdlRITaskSetParams(aclmdlRITask task, aclmdlRITaskParams *params);
ACLRT_API aclError aclmdlRIKernelTaskGetAttribute(aclmdlRITask task, aclrtLaunchKernelAttrId attrId,
                                                  aclrtLaunchKernelAttrValue *attrValue);
ACLRT_API aclError aclmdlRITaskDisable(aclmdlRITask task);
ACLRT_API aclError aclmdlRIUpdate(aclmdlRI modelRI);

/* ========================================================================
 * Kernels: binary descriptors, lookups by address, exception callbacks (acl_rt.h)
 *
 * aclrtCreateBinary describes a binary in the caller's memory (nothing is
 * copied; NULL with the reason in aclGetRecentErrMsg for NULL data or a
 * zero length); aclrtBinaryLoad loads it as aclrtBinaryLoadFromData does;
 * aclrtDestroyBinary frees the descriptor only (a destroyed or foreign one:
 * ACL_ERROR_INVALID_PARAM). aclrtGetFuncBySymbol gives the function whose
 * host address (dlsym of a loaded binary's file) is `symbol`;
 * aclrtBinaryGetFunctionByEntry the function of a binary whose entry is
 * `funcEntry`: what aclrtGetFunctionAddr gives, or the kernel's host
 * address. aclrtBinarySetExceptionCallback: the binary's own callback, last
 * set wins, NULL clears; it runs with the exception info and `userData`
 * when a kernel of the binary fails, before the process-wide callbacks.
 * ======================================================================== */
typedef void *aclrtBinary;

ACLRT_API aclrtBinary aclrtCreateBinary(const void *data, size_t dataLen);
ACLRT_API aclError aclrtDestroyBinary(aclrtBinary binary);
ACLRT_API aclError aclrtBinaryLoad(const aclrtBinary binary, aclrtBinHandle *binHandle);
ACLRT_API aclError aclrtGetFuncBySymbol(const void *symbol, aclrtFuncHandle *funcHandle);
ACLRT_API aclError aclrtBinaryGetFunctionByEntry(aclrtBinHandle binHandle, uint64_t funcEntry,
                                                 aclrtFuncHandle *funcHandle);
ACLRT_API aclError aclrtBinarySetExceptionCallback(aclrtBinHandle binHandle, aclrtOpExceptionCallback callback,
                                                   void *userData);

/* ========================================================================
 * Device variables (acl_rt.h)
 *
 * A device variable is a global variable of a loaded binary; its symbol is
 * the host address of that variable as the binary's shared object exports
 * it (dlsym of the binary's file gives it; on the host backend it is also
 * the address aclrtBinaryGetGlobal gives). aclrtGetSymbolAddress and
 * aclrtGetSymbolSize give the variable's device address and size (on the
 * cuda backend the module's global); the copies move `count` bytes at
 * `offset` into the variable, checked against its size, with the kinds
 * HOST_TO_DEVICE (to) or DEVICE_TO_HOST (from), or DEFAULT. An address that
 * is not the start of a variable of a loaded binary:
 * ACL_ERROR_RT_PARAM_INVALID. docs/SEMANTICS.md (Device variables).
 * ======================================================================== */
ACLRT_API aclError aclrtGetSymbolAddress(const void *symbol, void **devPtr);
ACLRT_API aclError aclrtGetSymbolSize(const void *symbol, size_t *size);
ACLRT_API aclError aclrtMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset,
                                       aclrtMemcpyKind kind);
ACLRT_API aclError aclrtMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count, size_t offset,
                                            aclrtMemcpyKind kind, aclrtStream stream);
ACLRT_API aclError aclrtMemcpyFromSymbol(void *dst, size_t dstMax, const void *symbol, size_t count, size_t offset,
                                         aclrtMemcpyKind kind);
ACLRT_API aclError aclrtMemcpyFromSymbolAsync(void *dst, size_t dstMax, const void *symbol, size_t count,
                                              size_t offset, aclrtMemcpyKind kind, aclrtStream stream);

/* ========================================================================
 * Profiling (acl_prof.h)
 *
 * aclprofInit names a directory for the results (made if missing; it must
 * be writable). A configuration names the devices to profile; between
 * aclprofStart and aclprofStop every task that runs on them is recorded
 * (device, stream, kind, start and end), and aclprofStop writes them as a
 * Chrome trace (chrome://tracing, Perfetto) into the directory:
 * aclrt_trace_<pid>_<n>.json. aclprofFinalize stops a session still
 * running. The data type bits and AI Core metrics are kept in the trace;
 * the tasks are what is recorded whatever they ask. Order errors:
 * ACL_ERROR_REPEAT_INITIALIZE (a second aclprofInit), ACL_ERROR_PROF_NOT_RUN
 * (before aclprofInit, or aclprofStop with no session),
 * ACL_ERROR_PROF_ALREADY_RUN (aclprofStart while a session runs).
 * ======================================================================== */
#define ACL_PROF_ACL_API 0x0001ULL
#define ACL_PROF_TASK_TIME 0x0002ULL
#define ACL_PROF_AICORE_METRICS 0x0004ULL
#define ACL_PROF_AICPU 0x0008ULL
#define ACL_PROF_L2CACHE 0x0010ULL
#define ACL_PROF_HCCL_TRACE 0x0020ULL
#define ACL_PROF_TRAINING_TRACE 0x0040ULL
#define ACL_PROF_MSPROFTX 0x0080ULL
#define ACL_PROF_RUNTIME_API 0x0100ULL
#define ACL_PROF_GE_API_L0 0x0200ULL
#define ACL_PROF_TASK_TIME_L0 0x0800ULL
#define ACL_PROF_TASK_MEMORY 0x1000ULL
#define ACL_PROF_TASK_TIME_L2 0x2000ULL
#define ACL_PROF_OP_ATTR 0x4000ULL
#define ACL_PROF_TASK_TIME_L3 0x8000ULL
#define ACL_PROF_GE_API_L1 0x01000000ULL
#define ACL_PROF_API_STATS 0x400000000ULL
#define ACL_PROF_AICORE_SHAPE 0x800000000ULL

typedef enum {
    ACL_AICORE_ARITHMETIC_UTILIZATION = 0,
    ACL_AICORE_PIPE_UTILIZATION = 1,
    ACL_AICORE_MEMORY_BANDWIDTH = 2,
    ACL_AICORE_L0B_AND_WIDTH = 3,
    ACL_AICORE_RESOURCE_CONFLICT_RATIO = 4,
    ACL_AICORE_MEMORY_UB = 5,
    ACL_AICORE_L2_CACHE = 6,
    ACL_AICORE_PIPE_EXECUTE_UTILIZATION = 7,
    ACL_AICORE_MEMORY_ACCESS = 8,
    ACL_AICORE_NONE = 0xFF,
} aclprofAicoreMetrics;

typedef struct aclprofConfig aclprofConfig;
typedef struct aclprofAicoreEvents aclprofAicoreEvents;

ACLRT_API aclError aclprofInit(const char *profilerResultPath, size_t length);
ACLRT_API aclError aclprofFinalize(void);
ACLRT_API aclprofConfig *aclprofCreateConfig(uint32_t *deviceIdList, uint32_t deviceNums,
                                             aclprofAicoreMetrics aicoreMetrics,
                                             const aclprofAicoreEvents *aicoreEvents, uint64_t dataTypeConfig);
ACLRT_API aclError aclprofDestroyConfig(const aclprofConfig *profilerConfig);
ACLRT_API aclError aclprofStart(const aclprofConfig *profilerConfig);
ACLRT_API aclError aclprofStop(const aclprofConfig *profilerConfig);

/* ========================================================================
 * Profiling: settings, msproftx markers, steps, traces (acl_prof.h)
 *
 * Everything here lands in the Chrome trace of the running session
 * (aclprofStart .. aclprofStop): host-side markers under the process
 * "host", one thread per calling OS thread; markers given a stream under
 * that stream's device and stream, at the point the stream reaches them.
 * Outside a session the markers are ACL_ERROR_PROF_NOT_RUN.
 * ======================================================================== */
typedef enum {
    ACL_STEP_START = 0,
    ACL_STEP_END = 1,
} aclprofStepTag;

typedef enum {
    ACL_PROF_ARGS_MIN = 0,
    ACL_PROF_STORAGE_LIMIT = 1,
    ACL_PROF_SYS_HARDWARE_MEM_FREQ = 3,
    ACL_PROF_LLC_MODE = 4,
    ACL_PROF_SYS_IO_FREQ = 5,
    ACL_PROF_SYS_INTERCONNECTION_FREQ = 6,
    ACL_PROF_DVPP_FREQ = 7,
    ACL_PROF_HOST_SYS = 8,
    ACL_PROF_HOST_SYS_USAGE = 9,
    ACL_PROF_HOST_SYS_USAGE_FREQ = 10,
    ACL_PROF_LOW_POWER_FREQ = 11,
    ACL_PROF_SYS_MEM_SERVICEFLOW = 12,
    ACL_PROF_SYS_CPU_FREQ = 13,
    ACL_PROF_OPTYPE = 14,
    ACL_PROF_NTS_METRICS = 15,
    ACL_PROF_PATH = 16,
    ACL_PROF_ARGS_MAX = 17,
} aclprofConfigType;

typedef enum { ACL_PROF_MESSAGE_TYPE_TENSOR_INFO = 0 } aclprofMessageType;

typedef struct aclprofStopConfig aclprofStopConfig;
typedef struct aclprofStepInfo aclprofStepInfo;

/* The tensor description of aclprofRangePushEx; a program may bring its own (same layout). */
#ifndef ACL_PROF_TENSOR_DATA_SHAPE_LEN
#define ACL_PROF_TENSOR_DATA_SHAPE_LEN 8
#endif
#ifndef ACL_PROF_TENSOR_INFO_DEFINED
#define ACL_PROF_TENSOR_INFO_DEFINED
#define ACL_PROF_EVENT_ATTR_VERSION 1
typedef struct aclprofTensor {
    uint32_t type; /* 0 input, 1 output */
    uint32_t format;
    uint32_t dataType;
    uint32_t shapeDim; /* entries of shape used, at most ACL_PROF_TENSOR_DATA_SHAPE_LEN */
    uint32_t shape[ACL_PROF_TENSOR_DATA_SHAPE_LEN];
} aclprofTensor;
typedef struct aclprofTensorInfo {
    uint64_t opNameId; /* aclprofStr2Id of the op's name */
    uint64_t opTypeId; /* aclprofStr2Id of its type */
    uint32_t resv;
    uint32_t tensorNum;
    uint32_t kernelType;
    uint32_t blockNums;
    void *stream;
    aclprofTensor *tensors;
} aclprofTensorInfo;
typedef struct aclprofEventAttributes {
    uint16_t version;
    uint16_t size;
    uint32_t messageType; /* aclprofMessageType */
    union Message {
        aclprofTensorInfo *tensorInfo;
    } message;
} aclprofEventAttributes;
#endif

/*
 * Settings: aclprofSetConfig checks a setting's value (the number or path
 * its type takes) and keeps it for the next session, whose trace lists it;
 * ACL_PROF_PATH (before aclprofInit) names the result directory.
 */
ACLRT_API aclError aclprofSetConfig(aclprofConfigType configType, const char *config, size_t configLength);

/*
 * msproftx markers: a stamp carries a message (under 128 bytes); aclprofMark
 * is an instant event, aclprofPush .. aclprofPop a range nested per thread,
 * aclprofRangeStart .. aclprofRangeStop a range any thread may end (by the
 * id it returned). aclprofMarkEx puts an instant event into a stream's
 * order. aclprofRangePushEx .. aclprofRangePop is a range (per thread)
 * carrying an op's tensor description. aclprofStr2Id hashes a string.
 */
ACLRT_API void *aclprofCreateStamp(void);
ACLRT_API void aclprofDestroyStamp(void *stamp);
ACLRT_API aclError aclprofSetStampTraceMessage(void *stamp, const char *msg, uint32_t msgLen);
ACLRT_API aclError aclprofMark(void *stamp);
ACLRT_API aclError aclprofMarkEx(const char *msg, size_t msgLen, aclrtStream stream);
ACLRT_API aclError aclprofPush(void *stamp);
ACLRT_API aclError aclprofPop(void);
ACLRT_API aclError aclprofRangeStart(void *stamp, uint32_t *rangeId);
ACLRT_API aclError aclprofRangeStop(uint32_t rangeId);
ACLRT_API aclError aclprofRangePushEx(aclprofEventAttributes *attr);
ACLRT_API aclError aclprofRangePop(void);
ACLRT_API uint64_t aclprofStr2Id(const char *message);

/*
 * Steps: a step info marks one iteration; aclprofGetStepTimestamp records
 * its start, then its end (each once), in the stream's order.
 */
ACLRT_API aclprofStepInfo *aclprofCreateStepInfo(void);
ACLRT_API void aclprofDestroyStepInfo(aclprofStepInfo *stepinfo);
ACLRT_API aclError aclprofGetStepTimestamp(aclprofStepInfo *stepInfo, aclprofStepTag tag, aclrtStream stream);

/*
 * Trace records: aclrtProfTrace puts the record userdata holds (up to 18
 * bytes, packed: uint64_t id, uint64_t modelId, uint16_t tagId; the bytes
 * not given are 0) into the stream's order; the trace shows it when the
 * stream reaches it.
 */
ACLRT_API aclError aclrtProfTrace(void *userdata, int32_t length, aclrtStream stream);

/* ========================================================================
 * Profiling: op subscription (acl_prof.h)
 *
 * A subscription follows one model (aclmdlRI, by its aclmdlRIGetId id):
 * every replay of it writes, for each of its tasks as it completes, one
 * op descriptor (aclprofGetOpDescSize bytes) into the pipe or file the
 * configuration's fd names, whole (one write each). The op's type is its
 * task's kind ("kernel", "memcpy", ...), its name the kernel's function
 * name (other tasks: kind and step number). aclprofModelUnSubscribe closes
 * the fd once the replays in flight are done. Subscriptions and profiling
 * sessions (aclprofInit .. aclprofFinalize) exclude each other
 * (ACL_ERROR_PROF_API_CONFLICT).
 * ======================================================================== */
#define ACL_PROF_MAX_OP_NAME_LEN 257
#define ACL_PROF_MAX_OP_TYPE_LEN 65

typedef enum {
    ACL_SUBSCRIBE_OP = 0,
    ACL_SUBSCRIBE_SUBGRAPH = 1,
    ACL_SUBSCRIBE_OP_THREAD = 2,
    ACL_SUBSCRIBE_NONE = 0xFF,
} aclprofSubscribeOpFlag;

typedef enum { ACL_SUBSCRIBE_ATTRI_THREADID = 0, ACL_SUBSCRIBE_ATTRI_NONE } aclprofSubscribeOpAttri;

typedef struct aclprofSubscribeConfig aclprofSubscribeConfig;

/*
 * Subscriptions: a configuration (time info switch 0 or 1, AI Core metrics,
 * fd: a pointer to an open file descriptor) given to aclprofModelSubscribe.
 */
ACLRT_API aclprofSubscribeConfig *aclprofCreateSubscribeConfig(int8_t timeInfoSwitch, aclprofAicoreMetrics aicoreMetrics,
                                                               void *fd);
ACLRT_API aclError aclprofDestroySubscribeConfig(const aclprofSubscribeConfig *profSubscribeConfig);
ACLRT_API aclError aclprofModelSubscribe(uint32_t modelId, const aclprofSubscribeConfig *profSubscribeConfig);
ACLRT_API aclError aclprofModelUnSubscribe(uint32_t modelId);

/*
 * Op descriptors: read from the subscription's fd, opInfoLen bytes (whole
 * descriptors) at opInfo; index picks one. Times are microseconds of
 * CLOCK_MONOTONIC. A buffer that is not whole descriptors, or a bad index,
 * is refused (ACL_ERROR_INVALID_PARAM; the number getters return 0).
 */
ACLRT_API aclError aclprofGetOpDescSize(size_t *opDescSize);
ACLRT_API aclError aclprofGetOpNum(const void *opInfo, size_t opInfoLen, uint32_t *opNumber);
ACLRT_API aclError aclprofGetOpTypeLen(const void *opInfo, size_t opInfoLen, uint32_t index, size_t *opTypeLen);
ACLRT_API aclError aclprofGetOpType(const void *opInfo, size_t opInfoLen, uint32_t index, char *opType,
                                    size_t opTypeLen);
ACLRT_API aclError aclprofGetOpNameLen(const void *opInfo, size_t opInfoLen, uint32_t index, size_t *opNameLen);
ACLRT_API aclError aclprofGetOpName(const void *opInfo, size_t opInfoLen, uint32_t index, char *opName,
                                    size_t opNameLen);
ACLRT_API uint64_t aclprofGetOpStart(const void *opInfo, size_t opInfoLen, uint32_t index);
ACLRT_API uint64_t aclprofGetOpEnd(const void *opInfo, size_t opInfoLen, uint32_t index);
ACLRT_API uint64_t aclprofGetOpDuration(const void *opInfo, size_t opInfoLen, uint32_t index);
ACLRT_API size_t aclprofGetModelId(const void *opInfo, size_t opInfoLen, uint32_t index);
ACLRT_API aclprofSubscribeOpFlag aclprofGetOpFlag(const void *opInfo, size_t opInfoLen, uint32_t index);
ACLRT_API const char *aclprofGetOpAttriValue(const void *opInfo, size_t opInfoLen, uint32_t index,
                                             aclprofSubscribeOpAttri attri);

/* ========================================================================
 * aclrtx: extensions beyond the ACL API (not part of the real runtime)
 * ======================================================================== */

/*
 * Host kernel: the CPU stand-in for a device kernel. One task that runs
 * fn(blockIdx, numBlocks, args) for every blockIdx in [0, numBlocks); blocks
 * may run in parallel on the device's executor threads, and the task
 * completes when all have returned. A non-zero return fails the task like a
 * device kernel fault (the stream's next synchronize returns that code, and
 * the stream's failure mode applies).
 */
typedef aclError (*aclrtxHostKernel)(uint32_t blockIdx, uint32_t numBlocks, void *args);
ACLRT_API aclError aclrtxLaunchHostKernel(aclrtStream stream, uint32_t numBlocks, aclrtxHostKernel fn, void *args);

/* The backend in use ("host", "cuda", or a registered one); NULL before the runtime starts. */
ACLRT_API const char *aclrtxGetBackendName(void);

/*
 * External progress. With aclrt.progress "external" in the aclInit JSON (or
 * ACLRT_PROGRESS=external), and for every backend registered below, the
 * runtime starts no threads: the program's own threads run the streams of a
 * device by calling aclrtxDeviceProgress, which fires the timers that are
 * due (wait timeouts), then runs up to `budget` tasks of the ready streams
 * on the calling thread. It may be called from several threads at once.
 * `info` (may be NULL) says how many tasks ran, how many streams are still
 * ready (call again at once while any are) and the earliest timer
 * (CLOCK_MONOTONIC ns; UINT64_MAX: none). aclrtxDeviceProgressFd gives an
 * eventfd that becomes readable when work arrives or a timer moves earlier:
 * an event loop waits on it (and on the deadline) between calls. The fd is
 * the device's for the life of the process (the same across aclFinalize and
 * aclInit); do not close it. A budget of 0 only fires timers and reports.
 * docs/EMBEDDING.md has the whole picture and an epoll example.
 */
typedef struct aclrtxProgressInfo {
    uint32_t tasksRun;       /* tasks this call ran (or dropped, for discarded streams) */
    uint32_t streamsReady;   /* streams still ready after it */
    uint64_t nextDeadlineNs; /* earliest timer, absolute CLOCK_MONOTONIC ns; UINT64_MAX: none */
} aclrtxProgressInfo;
ACLRT_API aclError aclrtxDeviceProgress(int32_t deviceId, uint32_t budget, aclrtxProgressInfo *info);
ACLRT_API aclError aclrtxDeviceProgressFd(int32_t deviceId, int *fd);

/*
 * External tasks: the program's own asynchronous work (a transfer, a kernel
 * of another API) as a task of a stream. When the stream reaches it, `start`
 * is called on the thread running the stream, with a token, and must not
 * block: it starts the work. The task is complete when any thread calls
 * aclrtxCompleteExternalTask(token, code) (start itself may); the stream's
 * later tasks run after that. A non-zero code fails the task like a device
 * fault (exception callbacks, the stream's error, its failure mode). Events,
 * waits, synchronizes, abort and destroy treat it like any task: a task
 * discarded before it started never calls `start`; one that started is
 * waited for. Completing a token twice, or a token that names no pending
 * task, is ACL_ERROR_RT_PARAM_INVALID.
 */
typedef struct aclrtxExternalToken {
    uint64_t stream; /* opaque */
    uint64_t task;   /* opaque */
} aclrtxExternalToken;
typedef void (*aclrtxExternalStart)(aclrtxExternalToken token, void *userData);
ACLRT_API aclError aclrtxLaunchExternalTask(aclrtStream stream, aclrtxExternalStart start, void *userData);
ACLRT_API aclError aclrtxCompleteExternalTask(aclrtxExternalToken token, aclError code);

/*
 * Backends an embedding runtime registers: devices of its own, driven by
 * its own threads (external progress above), with its memory and clock.
 * Select one by name with ACLRT_BACKEND or aclrt.backend in the aclInit
 * JSON before the runtime starts. The struct is copied; `name` must stay
 * valid while registered. Required: version, size, name, open. Memory from
 * memAlloc must be addressable by the host (copies and sets run on the CPU;
 * work of the device's own goes through external tasks).
 */
#define ACLRTX_BACKEND_VERSION 1u
#define ACLRTX_BACKEND_NAME_MAX 31
typedef struct aclrtxBackend {
    uint32_t version;   /* ACLRTX_BACKEND_VERSION */
    uint32_t size;      /* sizeof(aclrtxBackend) */
    const char *name;   /* at most ACLRTX_BACKEND_NAME_MAX bytes; not "host" or "cuda" */
    void *user;         /* passed to every callback */
    aclError (*open)(void *user, uint32_t *deviceCount);     /* at runtime start: how many devices (1..64) */
    void (*close)(void *user);                               /* at aclFinalize (optional) */
    aclError (*deviceStart)(void *user, int32_t deviceId);   /* first use of a device (optional) */
    void (*deviceStop)(void *user, int32_t deviceId);        /* at aclFinalize (optional) */
    void (*workArrived)(void *user, int32_t deviceId);       /* call aclrtxDeviceProgress soon (optional) */
    aclError (*memAlloc)(void *user, int32_t deviceId, size_t size, void **ptr); /* aclrtMalloc (optional) */
    void (*memFree)(void *user, int32_t deviceId, void *ptr);                    /* aclrtFree (with memAlloc) */
    uint64_t (*timestampNs)(void *user, int32_t deviceId);   /* event timestamps (optional: CLOCK_MONOTONIC) */
} aclrtxBackend;
ACLRT_API aclError aclrtxRegisterBackend(const aclrtxBackend *backend);
ACLRT_API aclError aclrtxUnregisterBackend(const char *name);

/*
 * HCOM group record/wait tasks: the C form of the graph engine's
 * KernelLaunchInfo::CreateHcomRecordTask and its wait counterpart. A record
 * task wakes, on other streams, the wait tasks created with the same group
 * name (NULL or "" is "group"; at most ACLRTX_HCOM_GROUP_NAME_MAX bytes).
 * Give each task a stream id (aclrtStreamGetId), serialize it
 * (aclrtxHcomTaskSerialize; buf NULL asks for the size), put serialized tasks
 * back to back, and launch the list: each task goes to its stream, in list
 * order. Record/wait pairs are counted: the k-th wait launched on a group is
 * released by the group's k-th record, so a pipeline repeats without resets.
 * A list is validated completely first (format, names, stream ids: live
 * streams of the current context); a rejected list runs nothing and fails
 * with ACL_ERROR_RT_PARAM_INVALID. Format: docs/SEMANTICS.md.
 */
#define ACLRTX_HCOM_GROUP_NAME_MAX 127
#define ACLRTX_HCOM_DEFAULT_GROUP "group"
typedef struct aclrtxHcomTask aclrtxHcomTask;
ACLRT_API aclError aclrtxCreateHcomRecordTask(aclrtxHcomTask **task, const char *groupName);
ACLRT_API aclError aclrtxCreateHcomWaitTask(aclrtxHcomTask **task, const char *groupName);
ACLRT_API aclError aclrtxHcomTaskSetStreamId(aclrtxHcomTask *task, int32_t streamId);
ACLRT_API aclError aclrtxHcomTaskSerialize(const aclrtxHcomTask *task, void *buf, size_t size, size_t *needed);
ACLRT_API aclError aclrtxDestroyHcomTask(aclrtxHcomTask *task);
ACLRT_API aclError aclrtxLaunchHcomTaskList(const void *bytes, size_t size);

/*
 * The stream-ordering sanitizer (aclrt.sanitize "streams", ACLRT_SANITIZE=streams;
 * docs/SANITIZER.md). It follows what orders the tasks of streams (stream order, event
 * and notify waits, value waits, synchronizes) and the bytes each task reads and writes,
 * and reports two accesses to the same bytes, one a write, that nothing orders; also
 * uses after free, memory freed while a task could still use it and then allocated
 * again; with "streams,uninit", reads of device memory nothing wrote; with
 * "streams,free", every free while work not ordered before it may use the block.
 *
 * A kernel is taken to read and write, from each device pointer among its packed
 * arguments, to the end of that pointer's block; host functions, callbacks and
 * external tasks touch nothing. aclrtxDeclareAccess says what the next task this
 * thread launches on `stream` touches instead: call it once per range (mode
 * ACLRTX_ACCESS_*), ACLRTX_ACCESS_NONE alone for "nothing". Without the sanitizer it
 * checks its arguments and does nothing.
 *
 * Reports go to stderr and to the callback of aclrtxSetSanitizerCallback (after
 * stderr, on the thread whose call found it; NULL: none); aclrtxSanitizerReportCount
 * says how many there were since the runtime started (0 while it is off). Between
 * aclrtxSanitizerIgnoreBegin and _End (they nest), the calling thread's accesses are
 * neither checked nor remembered (the tasks it launches, its synchronous copies); what
 * orders streams still counts. For code that races on purpose.
 */
#define ACLRTX_ACCESS_NONE 0u
#define ACLRTX_ACCESS_READ 1u
#define ACLRTX_ACCESS_WRITE 2u
#define ACLRTX_ACCESS_READ_WRITE 3u
#define ACLRTX_SANITIZER_RACE 0u           /* what a report is about */
#define ACLRTX_SANITIZER_USE_AFTER_FREE 1u
#define ACLRTX_SANITIZER_FREE_RACE 2u
#define ACLRTX_SANITIZER_UNINIT 3u
#define ACLRTX_SANITIZER_FREE_IN_USE 4u
typedef struct aclrtxSanitizerAccess { /* one side of a report: streamId -1 is the host */
    const char *api;    /* the call that made the access ("aclrtMemcpyAsync") */
    const char *task;   /* the task's kind ("memcpy", "kernel"), or "host" */
    int32_t streamId;
    uint32_t taskId;    /* as aclrtGetThreadLastTaskId numbers it */
    int32_t deviceId;
    uint32_t write;     /* 1: a write */
    const void *caller; /* the return address of the call, in the program */
} aclrtxSanitizerAccess;
typedef struct aclrtxSanitizerReport {
    uint32_t kind;                /* ACLRTX_SANITIZER_* */
    const void *address;          /* the bytes both touch */
    size_t size;
    aclrtxSanitizerAccess first;  /* the earlier access (a use after free: the free) */
    aclrtxSanitizerAccess second; /* the access that found it */
    const char *text;             /* the report as written to stderr; valid during the callback */
} aclrtxSanitizerReport;
typedef void (*aclrtxSanitizerCallback)(const aclrtxSanitizerReport *report, void *userData);
ACLRT_API aclError aclrtxDeclareAccess(aclrtStream stream, const void *ptr, size_t size, uint32_t mode);
ACLRT_API aclError aclrtxSetSanitizerCallback(aclrtxSanitizerCallback callback, void *userData);
ACLRT_API uint64_t aclrtxSanitizerReportCount(void);
ACLRT_API void aclrtxSanitizerIgnoreBegin(void);
ACLRT_API void aclrtxSanitizerIgnoreEnd(void);

/*
 * Memory faults made on purpose: from now on, device memory [addr, addr+len)
 * of device deviceId has an uncorrectable error (UCE), which the device
 * reports until it is repaired ("Memory faults (UCE) and their repair").
 * The range must lie in one allocation of device memory of that device; a
 * device holds 128 faults at most (ACL_ERROR_RT_PARAM_INVALID past that).
 */
ACLRT_API aclError aclrtxInjectMemUce(int32_t deviceId, void *addr, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* ACLRT_H */

/* ========================================================================
 * Implementation
 * ======================================================================== */
#if defined(ACLRT_IMPLEMENTATION) && !defined(ACLRT_IMPLEMENTATION_DONE)
#define ACLRT_IMPLEMENTATION_DONE
#ifdef __cplusplus
/* One clear error, and nothing more is read: the implementation would add thousands. */
#error "aclrt: the implementation is C11 (its shared state is C11 _Atomic objects, which C++ does not accept). Put '#define ACLRT_IMPLEMENTATION' + '#include \"aclrt.h\"' in a .c file and compile it as C; C++ files include aclrt.h (or acl/acl.h) without ACLRT_IMPLEMENTATION."
#else
#include "impl/aclrt_impl.h" /* the core */
#include "backends/host/host.h" /* the backends built in */
#include "backends/cuda/cuda.h" /* NVIDIA GPUs through the CUDA driver, opened at run time */
/* The order in which the core looks a backend's name up among those built in. */
ACLRT_BUILTIN_BACKENDS(&aclrt_backend_host, &aclrt_backend_cuda)
/* The stream-ordering sanitizer the core's hooks call while it is on. */
ACLRT_SANITIZER(&aclrt_san_ops)
#endif /* __cplusplus */
#endif

/*
 * acl/acl_dump.h - the dump paths and the argument dump of CANN's
 * acl_dump.h: where data and exception dumps go, a program's own tensors
 * saved as exception information, and the argument buffers of the kernels
 * run between aclopStartDumpArgs and aclopStopDumpArgs. Kept out of
 * aclrt.h, as CANN keeps it out of acl/acl.h: its enumerators (DATA_DUMP,
 * OVERFLOW_DUMP ...) would otherwise be in every program. The dump
 * configuration itself (aclmdlInitDump ...) is in aclrt.h. What each call
 * does on aclrt: docs/SEMANTICS.md, "Dump configuration".
 */
#ifndef ACLRT_ACL_DUMP_H
#define ACLRT_ACL_DUMP_H

#include "../aclrt.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ACL_DUMP_MAX_FILE_PATH_LENGTH 4096

/*
 * One piece of a dump file, given to the callback of acldumpRegCallback
 * instead of being written: bufLen bytes at dataBuf belong at `offset` of
 * the file fileName would have named; isLastChunk is 1 on a file's last
 * piece. The callback's second argument is sizeof(acldumpChunk) + bufLen.
 */
typedef struct acldumpChunk {
    char fileName[ACL_DUMP_MAX_FILE_PATH_LENGTH];
    uint32_t bufLen;
    uint32_t isLastChunk;
    int64_t offset; /* -1: appended */
    int32_t flag;   /* reserved: 0 */
#ifdef __cplusplus
    uint8_t dataBuf[0]; /* C++ has no flexible array member: the compilers take a zero-length one */
#else
    uint8_t dataBuf[];
#endif
} acldumpChunk;

/* Data dumps go to messageCallback instead of files, until acldumpUnregCallback; flag must be 0 (no files). */
ACLRT_API aclError acldumpRegCallback(int32_t (*const messageCallback)(const acldumpChunk *, int32_t), int32_t flag);
/* No more chunks to the callback once this returns (but to one running on this thread). */
ACLRT_API void acldumpUnregCallback(void);

/* aclopStartDumpArgs / aclopStopDumpArgs: the argument buffers of the kernels. */
#define ACL_OP_DUMP_OP_AICORE_ARGS 0x00000001U

typedef enum acldumpType {
    AIC_ERR_BRIEF_DUMP = 1,
    AIC_ERR_NORM_DUMP = 2,
    AIC_ERR_DETAIL_DUMP = 3,
    DATA_DUMP = 4,
    OVERFLOW_DUMP = 5
} acldumpType;

#define ACL_DUMP_MAX_SHAPE_NUM 25

typedef enum acldumpTensorType {
    ACL_DUMP_TENSOR_INPUT = 0,
    ACL_DUMP_TENSOR_OUTPUT,
    ACL_DUMP_TENSOR_WORKSPACE
} acldumpTensorType;

/* How tensorAddr leads to the data: through one or two pointers, or directly (RAW). */
typedef enum acldumpTensorAddressType {
    ACL_DUMP_ADDR_PTR = 0,
    ACL_DUMP_ADDR_PTR_PTR,
    ACL_DUMP_ADDR_RAW
} acldumpTensorAddressType;

typedef enum acldumpTensorPlacement {
    ACL_DUMP_PLACEMENT_DEVICE = 0,
    ACL_DUMP_PLACEMENT_HOST,
    ACL_DUMP_PLACEMENT_END
} acldumpTensorPlacement;

/* One tensor for acldumpSaveExceptionInfo: tensorSize bytes at tensorAddr, described. */
typedef struct acldumpTensorInfo {
    acldumpTensorType type;
    size_t tensorSize;
    int32_t format;
    int32_t dataType;
    int64_t *tensorAddr;
    acldumpTensorAddressType addrType;
    acldumpTensorPlacement placement;
    uint32_t argsOffset;
    uint32_t shapeNum;       /* dims used in shape, at most ACL_DUMP_MAX_SHAPE_NUM */
    uint32_t originShapeNum; /* dims used in originShape, at most ACL_DUMP_MAX_SHAPE_NUM */
    uint64_t shape[ACL_DUMP_MAX_SHAPE_NUM];
    uint64_t originShape[ACL_DUMP_MAX_SHAPE_NUM];
} acldumpTensorInfo;

/* Write the argument buffer of each kernel run from now on into the directory `path`. */
ACLRT_API aclError aclopStartDumpArgs(uint32_t dumpType, const char *path);
/* Stop writing kernels' argument buffers. */
ACLRT_API aclError aclopStopDumpArgs(uint32_t dumpType);
/* The directory a dump type writes to under the configuration in force; NULL if none. */
ACLRT_API const char *acldumpGetPath(acldumpType dumpType);
/* Save tensors (device memory) with a tag as <exception info path><fileName>.custom.<milliseconds>. */
ACLRT_API aclError acldumpSaveExceptionInfo(const char *fileName, const char *userTag,
                                            const acldumpTensorInfo *tensors, size_t tensorCount);
/* The exception info path of the current device, "<dump path>/extra-info/data-dump/<device>/". */
ACLRT_API aclError acldumpGetExceptionInfoPath(char *path, size_t maxLen);

#ifdef __cplusplus
}
#endif

#endif /* ACLRT_ACL_DUMP_H */

/*
 * hccl/hccl.h - the HCCL API: communicators, collective and point-to-point
 * operations on aclrt streams, and the calls around them.
 *
 *   Programs written for CANN include <hccl/hccl.h> and build unchanged:
 *   the functions are those of CANN's hccl.h together with the
 *   communicator header it includes (hccl_comm.h), with the same names,
 *   parameter types and order. Types and constants are in hccl_types.h.
 *
 *   Every function is declared ACLRT_API, as aclrt.h declares its own, so it
 *   is exported from the shared library, and under ACLRT_STATIC it has
 *   internal linkage like the rest of the library. (CANN marks these
 *   declarations weak; aclrt's definitions are ordinary ones.)
 *
 *   Counts are in elements of the given HcclDataType. An operation is queued
 *   on `stream` and the call returns once it is queued; the results are
 *   there when the stream reaches that point (aclrtSynchronizeStream).
 */
#ifndef HCCL_H_
#define HCCL_H_
/* CANN's hccl.h brings in hccl_comm.h; this file holds what that one declares. */
#ifndef HCCL_COMM_H_
#define HCCL_COMM_H_
#endif

#include "hccl_types.h"
#include "../acl/acl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------
 * Creating and destroying communicators. The root-info path: one rank calls
 * HcclGetRootInfo, the program hands the bytes to every rank, and each rank
 * calls HcclCommInitRootInfo with the same nRanks and its own rank.
 * ------------------------------------------------------------------------ */
ACLRT_API HcclResult HcclGetRootInfo(HcclRootInfo *rootInfo);
ACLRT_API HcclResult HcclCommInitRootInfo(uint32_t nRanks, const HcclRootInfo *rootInfo, uint32_t rank,
                                          HcclComm *comm);
ACLRT_API HcclResult HcclCommInitRootInfoConfig(uint32_t nRanks, const HcclRootInfo *rootInfo, uint32_t rank,
                                                const HcclCommConfig *config, HcclComm *comm);
/* Several roots (rootInfoList holds nRoot of them, the same on every rank); nExtRoot must be 0. */
ACLRT_API HcclResult HcclGetRootInfoScalable(HcclRootInfo *rootInfo);
ACLRT_API HcclResult HcclCommInitRootInfoScalable(uint32_t nRanks, uint32_t nRoot, const HcclRootInfo *rootInfoList,
                                                  uint32_t rank, uint32_t nExtRoot, const HcclCommConfig *config,
                                                  HcclComm *comm);
/* From a rank table file (clusterInfo is its path). */
ACLRT_API HcclResult HcclCommInitClusterInfo(const char *clusterInfo, uint32_t rank, HcclComm *comm);
ACLRT_API HcclResult HcclCommInitClusterInfoConfig(const char *clusterInfo, uint32_t rank, HcclCommConfig *config,
                                                   HcclComm *comm);
/* One process, ndev devices: comms receives ndev communicators, rank i on devices[i]. */
ACLRT_API HcclResult HcclCommInitAll(uint32_t ndev, int32_t *devices, HcclComm *comms);
/* A communicator of rankNum ranks (rankIds, ranks of comm) inside *comm. */
ACLRT_API HcclResult HcclCreateSubCommConfig(HcclComm *comm, uint32_t rankNum, uint32_t *rankIds, uint64_t subCommId,
                                             uint32_t subCommRankId, HcclCommConfig *config, HcclComm *subComm);
ACLRT_API HcclResult HcclCommDestroy(HcclComm comm);

/* ------------------------------------------------------------------------
 * Queries and errors.
 * ------------------------------------------------------------------------ */
ACLRT_API HcclResult HcclGetRankSize(HcclComm comm, uint32_t *rankSize);
ACLRT_API HcclResult HcclGetRankId(HcclComm comm, uint32_t *rank);
/* commName: room for COMM_NAME_MAX_LENGTH bytes. */
ACLRT_API HcclResult HcclGetCommName(HcclComm comm, char *commName);
ACLRT_API HcclResult HcclCommGetHandleWithName(const char *commName, HcclComm *comm);
/* The error an operation already queued on comm ran into, if any. */
ACLRT_API HcclResult HcclGetCommAsyncError(HcclComm comm, HcclResult *asyncError);
ACLRT_API const char *HcclGetErrorString(HcclResult code);

/* ------------------------------------------------------------------------
 * Configuration: process-wide settings, which HcclCommConfig items this
 * library knows (see HcclCommConfigCapability), and what a communicator
 * settled on.
 * ------------------------------------------------------------------------ */
ACLRT_API HcclResult HcclSetConfig(HcclConfig config, HcclConfigValue configValue);
ACLRT_API HcclResult HcclGetConfig(HcclConfig config, HcclConfigValue *configValue);
ACLRT_API uint32_t HcclGetCommConfigCapability(void);
ACLRT_API HcclResult HcclConfigGetInfo(HcclComm comm, HcclConfigType cfgType, uint32_t infoLen, void *info);

/* ------------------------------------------------------------------------
 * Collective operations: every rank of comm makes the same call, in the
 * same order. root is a rank of comm.
 * ------------------------------------------------------------------------ */
ACLRT_API HcclResult HcclAllReduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType,
                                   HcclReduceOp op, HcclComm comm, aclrtStream stream);
ACLRT_API HcclResult HcclBroadcast(void *buf, uint64_t count, HcclDataType dataType, uint32_t root, HcclComm comm,
                                   aclrtStream stream);
ACLRT_API HcclResult HcclReduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType, HcclReduceOp op,
                                uint32_t root, HcclComm comm, aclrtStream stream);
/* recvCount elements per rank; the send buffer holds rank-size times that. */
ACLRT_API HcclResult HcclReduceScatter(void *sendBuf, void *recvBuf, uint64_t recvCount, HcclDataType dataType,
                                       HcclReduceOp op, HcclComm comm, aclrtStream stream);
/* sendCounts and sendDispls: uint64_t arrays, one entry per rank. */
ACLRT_API HcclResult HcclReduceScatterV(void *sendBuf, const void *sendCounts, const void *sendDispls, void *recvBuf,
                                        uint64_t recvCount, HcclDataType dataType, HcclReduceOp op, HcclComm comm,
                                        aclrtStream stream);
ACLRT_API HcclResult HcclScatter(void *sendBuf, void *recvBuf, uint64_t recvCount, HcclDataType dataType,
                                 uint32_t root, HcclComm comm, aclrtStream stream);
/* sendCount elements from each rank; the receive buffer holds rank-size times that. */
ACLRT_API HcclResult HcclAllGather(void *sendBuf, void *recvBuf, uint64_t sendCount, HcclDataType dataType,
                                   HcclComm comm, aclrtStream stream);
/* recvCounts and recvDispls: uint64_t arrays, one entry per rank. */
ACLRT_API HcclResult HcclAllGatherV(void *sendBuf, uint64_t sendCount, void *recvBuf, const void *recvCounts,
                                    const void *recvDispls, HcclDataType dataType, HcclComm comm, aclrtStream stream);
ACLRT_API HcclResult HcclAlltoAll(const void *sendBuf, uint64_t sendCount, HcclDataType sendType,
                                  const void *recvBuf, uint64_t recvCount, HcclDataType recvType, HcclComm comm,
                                  aclrtStream stream);
/* Counts and displacements: uint64_t arrays, one entry per rank. */
ACLRT_API HcclResult HcclAlltoAllV(const void *sendBuf, const void *sendCounts, const void *sdispls,
                                   HcclDataType sendType, const void *recvBuf, const void *recvCounts,
                                   const void *rdispls, HcclDataType recvType, HcclComm comm, aclrtStream stream);
/* sendCountMatrix: rank-size x rank-size uint64_t, row i what rank i sends to each rank. */
ACLRT_API HcclResult HcclAlltoAllVC(const void *sendBuf, const void *sendCountMatrix, HcclDataType sendType,
                                    const void *recvBuf, HcclDataType recvType, HcclComm comm, aclrtStream stream);
ACLRT_API HcclResult HcclBarrier(HcclComm comm, aclrtStream stream);

/* ------------------------------------------------------------------------
 * Point to point. Each HcclSend is matched by one HcclRecv of the same
 * count and type on the peer; a batch queues its items as one operation.
 * ------------------------------------------------------------------------ */
ACLRT_API HcclResult HcclSend(void *sendBuf, uint64_t count, HcclDataType dataType, uint32_t destRank,
                              HcclComm comm, aclrtStream stream);
ACLRT_API HcclResult HcclRecv(void *recvBuf, uint64_t count, HcclDataType dataType, uint32_t srcRank,
                              HcclComm comm, aclrtStream stream);
ACLRT_API HcclResult HcclBatchSendRecv(HcclSendRecvItem *sendRecvInfo, uint32_t itemNum, HcclComm comm,
                                       aclrtStream stream);

/* ------------------------------------------------------------------------
 * Groups (experimental in CANN): calls between HcclGroupStart and
 * HcclGroupEnd are issued together at the end.
 * ------------------------------------------------------------------------ */
ACLRT_API HcclResult HcclGroupStart(void);
ACLRT_API HcclResult HcclGroupEnd(void);
ACLRT_API HcclResult HcclGroupStatusGet(bool *isGroupEnabled);

/* ------------------------------------------------------------------------
 * Memory a communicator uses directly: a reserved virtual range (alignment
 * and flags 0), physical memory mapped into it (offset and flags 0), and
 * symmetric windows (flag 1), the same size on every rank.
 * ------------------------------------------------------------------------ */
ACLRT_API HcclResult HcclCommSetMemoryRange(HcclComm comm, void *baseVirPtr, size_t size, size_t alignment,
                                            uint64_t flags);
ACLRT_API HcclResult HcclCommUnsetMemoryRange(HcclComm comm, void *baseVirPtr);
ACLRT_API HcclResult HcclCommActivateCommMemory(HcclComm comm, void *virPtr, size_t size, size_t offset,
                                                aclrtDrvMemHandle handle, uint64_t flags);
ACLRT_API HcclResult HcclCommDeactivateCommMemory(HcclComm comm, void *virPtr);
ACLRT_API HcclResult HcclCommSymWinRegister(HcclComm comm, void *addr, uint64_t size, HcclCommSymWindow *winHandle,
                                            uint32_t flag);
ACLRT_API HcclResult HcclCommSymWinDeregister(HcclCommSymWindow winHandle);
/* The window holding [ptr, ptr + size), and ptr's offset in it. */
ACLRT_API HcclResult HcclCommSymWinGet(HcclComm comm, void *ptr, size_t size, HcclCommSymWindow *winHandle,
                                       size_t *offset);

/* ------------------------------------------------------------------------
 * Fault handling: suspend and resume a communicator, follow its state,
 * switch ranks to their backup network interface.
 * ------------------------------------------------------------------------ */
typedef HcclResult (*HcclCommStateCallback)(HcclComm comm, HcclCommStatePhase state, void *args);

ACLRT_API HcclResult HcclCommSuspend(HcclComm comm);
ACLRT_API HcclResult HcclCommResume(HcclComm comm);
ACLRT_API HcclResult HcclCommGetStatus(const char *commId, HcclCommStatus *status);
/* regName names the caller (e.g. "HCCL"); cb runs at each HcclCommStatePhase. */
ACLRT_API HcclResult HcclCommRegCommStateCallback(const char *regName, HcclCommStateCallback cb, void *args);
ACLRT_API HcclResult HcclCommWorkingDevNicSet(HcclComm comm, uint32_t *ranks, bool *useBackup, uint32_t nRanks);

#ifdef __cplusplus
}
#endif

#endif /* HCCL_H_ */

/*
 * impl/hccl/hccl_abi.h - one rank's part of an HCCL operation, and the table
 * of functions through which the runtime drives MPI.
 *
 * The MPI engine is compiled against the MPI library's own mpi.h (MPI
 * implementations differ in their ABI), either into a plugin,
 * libaclrt_hccl_mpi.so, that the runtime opens when a communicator spans
 * processes (hccl_engine.h), or into the program itself when the file that
 * defines ACLRT_IMPLEMENTATION also defines ACLRT_HCCL_MPI. Either way the
 * runtime sees only this table, and calls it from one thread, the engine
 * thread: so MPI is never called concurrently by the runtime, and MPI's
 * thread level MPI_THREAD_SERIALIZED suffices for it.
 */
#ifndef ACLRT_IMPL_HCCL_HCCL_ABI_H
#define ACLRT_IMPL_HCCL_HCCL_ABI_H

#include "../../hccl/hccl_types.h"

#include <stddef.h>
#include <stdint.h>

/* What an operation does (the API call it came from). */
enum aclrt_hccl_kind {
    ACLRT_HCCL_ALLREDUCE = 1,
    ACLRT_HCCL_BROADCAST,
    ACLRT_HCCL_ALLGATHER,
    ACLRT_HCCL_ALLGATHERV,
    ACLRT_HCCL_REDUCE_SCATTER,
    ACLRT_HCCL_REDUCE_SCATTERV,
    ACLRT_HCCL_REDUCE,
    ACLRT_HCCL_SCATTER,
    ACLRT_HCCL_ALLTOALL,
    ACLRT_HCCL_ALLTOALLV,
    ACLRT_HCCL_ALLTOALLVC,
    ACLRT_HCCL_BARRIER,
    ACLRT_HCCL_BATCH, /* sends and receives (HcclSend, HcclRecv, HcclBatchSendRecv, a group) */
};

/*
 * One rank's arguments, as its API call gave them; counts in elements. The
 * arrays belong to the operation (copied at the call): for the V kinds
 * `counts`/`displs` hold nranks entries each of the side that varies
 * (ALLGATHERV: receive; REDUCE_SCATTERV: send), ALLTOALLV holds send counts,
 * send displacements, receive counts, receive displacements (4 x nranks),
 * ALLTOALLVC the nranks x nranks matrix.
 */
struct aclrt_hccl_args {
    enum aclrt_hccl_kind kind;
    void *send;
    void *recv;
    uint64_t count; /* the scalar count of the call (send, receive or both, per the call) */
    HcclDataType type;
    HcclDataType recv_type; /* ALLTOALL(V/VC) */
    HcclReduceOp op;
    uint32_t root;
    const uint64_t *counts;
    const uint64_t *displs;
    const uint64_t *v; /* ALLTOALLV: 4 x nranks; ALLTOALLVC: nranks x nranks */
    uint32_t nitems;   /* BATCH */
    const HcclSendRecvItem *items;
};

#define ACLRT_HCCL_MPI_ABI_VERSION 1u
#define ACLRT_HCCL_MPI_ENTRY "aclrt_hccl_mpi_engine"

/*
 * The engine. Every function returns HCCL_SUCCESS or an HcclResult with a
 * message in `msg` (at most ACLRT_HCCL_MSG bytes). Messages of the
 * rendezvous travel on MPI_COMM_WORLD with the tags given.
 */
#define ACLRT_HCCL_MSG 256
#define ACLRT_HCCL_WHY (ACLRT_HCCL_MSG + 64) /* a message with a line of context */
struct aclrt_hccl_mpi {
    uint32_t version;
    /* MPI_Init_thread(MULTIPLE) unless MPI is initialized; the process's place in MPI_COMM_WORLD. */
    HcclResult (*init)(int *world_rank, int *world_size, int *thread_level, char *msg);
    /* Sends `len` bytes (copied) to a world rank; completion is checked by test. */
    HcclResult (*post)(int world_rank, int tag, const void *buf, size_t len, void **req, char *msg);
    /* A message with `tag` from anyone, if one is there: *len 0 when none. */
    HcclResult (*take)(int tag, void *buf, size_t cap, int *src, size_t *len, char *msg);
    /* The communicator of these world ranks (comm rank i = ranks[i]); collective over them. */
    HcclResult (*comm_create)(const int *ranks, int n, int tag, void **comm, char *msg);
    void (*comm_free)(void *comm);
    /* Starts one rank's part of an operation on a communicator: nonblocking. */
    HcclResult (*start)(void *comm, int rank, int nranks, const struct aclrt_hccl_args *a, void **req, char *msg);
    /* *done 1 once the request completed (it is freed then), with its result. */
    HcclResult (*test)(void *req, int *done, char *msg);
    /* Gives up on a request that will never complete (a peer is gone); frees what it can. */
    void (*abandon)(void *req);
    /* MPI_Finalize if init initialized MPI. */
    void (*finalize)(void);
};

typedef const struct aclrt_hccl_mpi *(*aclrt_hccl_mpi_entry_fn)(uint32_t version);

#endif /* ACLRT_IMPL_HCCL_HCCL_ABI_H */

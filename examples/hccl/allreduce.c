/*
 * hccl/allreduce.c - one rank per process, started by mpirun: rank 0 makes
 * the root info, MPI_Bcast hands it to the others, each process makes its
 * communicator and sums a buffer over all ranks with HcclAllReduce on its
 * stream. MPI is only the launcher and the messenger of the root info here;
 * the collective itself also rides MPI, inside the runtime.
 *
 * Against `make install PREFIX=$HOME/aclrt` (the MPI engine is found next to libascendcl.so):
 *   mpicc -I$HOME/aclrt/include examples/hccl/allreduce.c -L$HOME/aclrt/lib64 -lhccl -o allreduce
 *   LD_LIBRARY_PATH=$HOME/aclrt/lib64 mpirun -np 4 ./allreduce
 */
#include "acl/acl.h"
#include "hccl/hccl.h"

#include <mpi.h>
#include <stdio.h>

#define COUNT (1 << 20)

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    aclInit(NULL);
    aclrtSetDevice(0);

    HcclRootInfo root;
    if (rank == 0)
        HcclGetRootInfo(&root);
    MPI_Bcast(&root, sizeof root, MPI_BYTE, 0, MPI_COMM_WORLD);
    HcclComm comm;
    if (HcclCommInitRootInfo((uint32_t)size, &root, (uint32_t)rank, &comm) != HCCL_SUCCESS) {
        fprintf(stderr, "rank %d: %s\n", rank, aclGetRecentErrMsg());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    aclrtStream stream;
    float *buf;
    aclrtCreateStream(&stream);
    aclrtMalloc((void **)&buf, COUNT * sizeof *buf, ACL_MEM_MALLOC_HUGE_FIRST);
    for (int i = 0; i < COUNT; i++)
        buf[i] = (float)(rank + 1);
    HcclAllReduce(buf, buf, COUNT, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, stream);
    int rc = aclrtSynchronizeStream(stream);
    float want = (float)size * (float)(size + 1) / 2; /* 1 + 2 + ... + size */
    int ok = rc == 0 && buf[0] == want && buf[COUNT - 1] == want;
    printf("rank %d of %d: %s (%.0f)\n", rank, size, ok ? "ok" : "WRONG", buf[COUNT - 1]);

    aclrtFree(buf);
    aclrtDestroyStream(stream);
    HcclCommDestroy(comm);
    aclFinalize();
    MPI_Finalize();
    return ok ? 0 : 1;
}

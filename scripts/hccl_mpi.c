/*
 * scripts/hccl_mpi.c - the MPI engine of HCCL as a plugin,
 * libaclrt_hccl_mpi.so: built with the MPI library's compiler wrapper
 * (mpicc) and installed next to libascendcl.so, which opens it when a
 * communicator spans processes (impl/hccl/hccl_engine.h). It holds no
 * runtime: only the MPI calls behind struct aclrt_hccl_mpi.
 */
#include "impl/hccl/hccl_mpi.h"

__attribute__((visibility("default"))) const struct aclrt_hccl_mpi *aclrt_hccl_mpi_engine(uint32_t version)
{
    return version == ACLRT_HCCL_MPI_ABI_VERSION ? &aclrt_hccl_mpi_table : NULL;
}

/*
 * tests/install/hccl_mpi.c - an MPI program built against an installed
 * aclrt (-lhccl -lacl_rt, the CANN paths), run by make test-install under
 * mpirun where the MPI engine was installed.
 *
 * Each rank makes a communicator of every rank from one root info (rank 0's,
 * broadcast with MPI), all-reduces its rank + 1 and checks the sum. Then it
 * reads /proc/self/maps for the MPI engine the runtime opened: rank 0 prints
 * its path ("engine: PATH"), which make compares with the install's lib64/.
 * The program is linked with a RUNPATH, not run with LD_LIBRARY_PATH, and
 * ACLRT_HCCL_MPI_PLUGIN is unset: only the runtime's own folder has it.
 * Exit status 0 when every check held.
 */
#include <acl/acl.h>
#include <hccl/hccl.h>
#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define ENGINE "/libaclrt_hccl_mpi.so"
#define COUNT 1024

#define CHECK(cond, ...)                                                                                   \
    do {                                                                                                   \
        if (!(cond)) {                                                                                     \
            fprintf(stderr, "rank %d: FAIL %s:%d: ", rank, __FILE__, __LINE__);                          \
            fprintf(stderr, __VA_ARGS__);                                                                  \
            fprintf(stderr, " (%s)\n", aclGetRecentErrMsg() ? aclGetRecentErrMsg() : "");                \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                                  \
        }                                                                                                  \
    } while (0)

/* The path of the mapped file whose name ends in ENGINE, or "" if none is mapped. */
static void engine_path(char *out, size_t size)
{
    char line[4352];
    out[0] = '\0';
    FILE *f = fopen("/proc/self/maps", "r");
    if (f == NULL)
        return;
    while (fgets(line, sizeof line, f) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        char *path = strchr(line, '/');
        size_t n = path != NULL ? strlen(path) : 0;
        if (n >= sizeof ENGINE - 1 && strcmp(path + n - (sizeof ENGINE - 1), ENGINE) == 0) {
            snprintf(out, size, "%s", path);
            break;
        }
    }
    fclose(f);
}

int main(int argc, char **argv)
{
    int rank = -1, size = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(aclInit(NULL) == ACL_SUCCESS, "aclInit");
    CHECK(aclrtSetDevice(0) == ACL_SUCCESS, "aclrtSetDevice");

    HcclRootInfo root;
    memset(&root, 0, sizeof root);
    if (rank == 0)
        CHECK(HcclGetRootInfo(&root) == HCCL_SUCCESS, "HcclGetRootInfo");
    MPI_Bcast(&root, (int)sizeof root, MPI_BYTE, 0, MPI_COMM_WORLD);
    HcclComm comm = NULL;
    CHECK(HcclCommInitRootInfo((uint32_t)size, &root, (uint32_t)rank, &comm) == HCCL_SUCCESS,
          "HcclCommInitRootInfo");

    aclrtStream stream = NULL;
    CHECK(aclrtCreateStream(&stream) == ACL_SUCCESS, "aclrtCreateStream");
    static int32_t host[COUNT];
    void *buf = NULL;
    for (int i = 0; i < COUNT; i++)
        host[i] = rank + 1;
    CHECK(aclrtMalloc(&buf, sizeof host, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS, "aclrtMalloc");
    CHECK(aclrtMemcpy(buf, sizeof host, host, sizeof host, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS, "to device");
    CHECK(HcclAllReduce(buf, buf, COUNT, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, comm, stream) == HCCL_SUCCESS,
          "HcclAllReduce");
    CHECK(aclrtSynchronizeStream(stream) == ACL_SUCCESS, "aclrtSynchronizeStream");
    CHECK(aclrtMemcpy(host, sizeof host, buf, sizeof host, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS, "to host");
    for (int i = 0; i < COUNT; i++)
        CHECK(host[i] == size * (size + 1) / 2, "element %d: %d, expected %d", i, host[i], size * (size + 1) / 2);

    char path[4096];
    engine_path(path, sizeof path);
    CHECK(path[0] != '\0', "no %s is mapped: the communicator did not go through the MPI engine", ENGINE + 1);
    if (rank == 0)
        printf("engine: %s\n", path);

    CHECK(HcclCommDestroy(comm) == HCCL_SUCCESS, "HcclCommDestroy");
    CHECK(aclrtFree(buf) == ACL_SUCCESS, "aclrtFree");
    CHECK(aclrtDestroyStream(stream) == ACL_SUCCESS, "aclrtDestroyStream");
    CHECK(aclrtResetDevice(0) == ACL_SUCCESS, "aclrtResetDevice");
    CHECK(aclFinalize() == ACL_SUCCESS, "aclFinalize");
    MPI_Finalize();
    return 0;
}

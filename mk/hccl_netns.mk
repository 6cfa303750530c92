# mk/hccl_netns.mk - HCCL across simulated hosts (included after mk/hccl.mk, whose rules it uses).
#
#   make test-hccl-netns   tests/hccl/test_hccl_mpi.c (release) under `mpirun -np 4`, one rank in
#                          each of four network namespaces joined by veth links to a bridge, MPI
#                          over TCP only (no shared memory between ranks), as if on four hosts:
#                          passes when the program does, every rank ran in its own namespace and
#                          the links carried the data (scripts/hccl_netns.sh). Needs root, `ip` and
#                          namespaces; where the machine refuses them it says "skipped: <why>"
#
# Settings: MPIRUN (mpirun, from mk/hccl.mk), HCCL_NETNS_SUBNET (10.213.0, the namespaces' /24;
# they are apart from the machine's own network), TEST_TIMEOUT (the bound on mpirun).

.PHONY: test-hccl-netns

test-hccl-netns: $(BUILD)/hccl/test_hccl_mpi_release $(HCCL_MPI_PLUGIN)
	@echo "== hccl: 4 processes in 4 network namespaces (mpirun over TCP), release =="
	@MPIRUN=$(MPIRUN) scripts/hccl_netns.sh ./$(BUILD)/hccl/test_hccl_mpi_release $(HCCL_MPI_PLUGIN) $(TEST_TIMEOUT)

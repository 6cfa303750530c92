# mk/hccl.mk - HCCL across processes: the MPI engine and the tests that run under mpirun.
#
#   make hccl-mpi          $(BUILD)/lib/libaclrt_hccl_mpi.so, the MPI engine (built with mpicc)
#   make test-hccl-mpi     tests/hccl/test_hccl_mpi.c under `mpirun -np 4` (oversubscribed), in
#                          the release build
#
# MPI is Open MPI from Debian (make deps installs it); MPICC names another wrapper (MPICH's).
# mpirun runs as root only when told so: MPIRUN_FLAGS carries that where the user is root.

MPICC ?= mpicc
MPIRUN ?= mpirun
HCCL_NP ?= 4
MPIRUN_FLAGS := --oversubscribe $(if $(filter 0,$(shell id -u)),--allow-run-as-root) --mca btl self,vader,tcp
HCCL_MPI_PLUGIN := $(BUILD)/lib/libaclrt_hccl_mpi.so
HCCL_MPI_SOURCES := scripts/hccl_mpi.c impl/hccl/hccl_mpi.h impl/hccl/hccl_abi.h impl/hccl/hccl_reduce.h \
                    $(wildcard hccl/*.h) impl/core/base.h impl/core/half.h
# The runtime finds the engine here (else next to the library that holds it).
HCCL_ENV := ACLRT_HCCL_MPI_PLUGIN=$(CURDIR)/$(HCCL_MPI_PLUGIN)

.PHONY: hccl-mpi test-hccl-mpi

hccl-mpi: $(HCCL_MPI_PLUGIN)

$(HCCL_MPI_PLUGIN): $(HCCL_MPI_SOURCES)
	@mkdir -p $(@D)
	$(MPICC) $(CSTD) $(WARN) -Werror -O2 -g -fPIC -shared -fvisibility=hidden -I. $< -o $@

$(BUILD)/hccl/test_hccl_mpi: tests/hccl/test_hccl_mpi.c tests/check.h $(BUILD)/release/impl.o
	@mkdir -p $(@D)
	$(MPICC) $(CSTD) $(WARN) -Werror $(FLAGS_release) $< $(BUILD)/release/impl.o -o $@ $(LIBS)

test-hccl-mpi: $(BUILD)/hccl/test_hccl_mpi $(HCCL_MPI_PLUGIN)
	@echo "== hccl: $(HCCL_NP) processes (mpirun) =="
	@$(HCCL_ENV) $(BOUNDED) $(MPIRUN) $(MPIRUN_FLAGS) -x ACLRT_HCCL_MPI_PLUGIN -np $(HCCL_NP) ./$<

# ---- CANN's HCCL test programs against make install --------------------------------------
#
#   make test-hccl-cann    hccl_test (oam-tools' src/hccl_test: HCCL_TEST_SRC, else a clone cached
#                          in $(BUILD)/oam-tools) built with its own Makefile against make install
#                          into $(BUILD)/prefix-hccl, its 11 programs under `mpirun -np $(HCCL_NP)`
#                          with the result check on (scripts/hccl_test_cann.sh; HCCL_TEST_FULL=1:
#                          every data type and reduction they check). Offline: skipped, and said so.

HCCL_CANN_PREFIX := $(BUILD)/prefix-hccl

.PHONY: test-hccl-cann

test-hccl-cann: dist $(BUILD)/lib/libascendcl.so $(HCCL_MPI_PLUGIN)
	@rm -rf $(HCCL_CANN_PREFIX)
	@$(MAKE) --no-print-directory install PREFIX=$(CURDIR)/$(HCCL_CANN_PREFIX) >/dev/null
	@PREFIX=$(CURDIR)/$(HCCL_CANN_PREFIX) BUILD=$(BUILD) MPICC=$(MPICC) MPIRUN=$(MPIRUN) \
	  MPIRUN_FLAGS="$(MPIRUN_FLAGS)" HCCL_NP=$(HCCL_NP) scripts/hccl_test_cann.sh

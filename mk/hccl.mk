# mk/hccl.mk - HCCL across processes: the MPI engine and the tests that run under mpirun.
#
#   make hccl-mpi          $(BUILD)/lib/libaclrt_hccl_mpi.so, the MPI engine (built with mpicc)
#   make test-hccl-mpi     examples/hccl/allreduce.c, then
#                          tests/hccl/test_hccl_mpi.c under `mpirun -np 4` (oversubscribed), in
#                          the release, ThreadSanitizer and AddressSanitizer builds, and the release build
#                          under the stream-ordering sanitizer (ACLRT_SANITIZE=streams: no report); then again
#                          with a rank that kills itself in the middle of an allreduce: the job must end
#                          (mpirun reports it), not hang; then in the cuda, cuda-tsan and cuda-asan builds:
#                          the cuda backend, HCCL through NCCL, through the test doubles of the CUDA
#                          driver and NCCL (their ranks meet across processes in /dev/shm)
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

# One program per variant of the runtime: release, ThreadSanitizer, AddressSanitizer. Open MPI
# itself is not instrumented; it keeps memory until exit, so the leak check is off under ASan.
HCCL_MPI_VARIANTS := release tsan asan
HCCL_ENV_asan := ASAN_OPTIONS=detect_leaks=0
# The same program on the cuda backend (the doubles' paths compiled into impl.o, tests/impl_cuda.c).
HCCL_MPI_CUDA_VARIANTS := cuda cuda-tsan cuda-asan
HCCL_ENV_cuda-asan := ASAN_OPTIONS=detect_leaks=0
define hccl_mpi_variant
$(BUILD)/hccl/test_hccl_mpi_$(1): tests/hccl/test_hccl_mpi.c tests/check.h tests/hccl_ref.h $(BUILD)/$(1)/impl.o
	@mkdir -p $$(@D)
	$(MPICC) $(CSTD) $(WARN) -Werror $(FLAGS_$(1)) $$< $(BUILD)/$(1)/impl.o -o $$@ $(LIBS)
endef
$(foreach v,$(HCCL_MPI_VARIANTS) $(HCCL_MPI_CUDA_VARIANTS),$(eval $(call hccl_mpi_variant,$(v))))

# The example of examples/hccl/, built against the tree (its first comment builds it against an install).
$(BUILD)/hccl/allreduce: examples/hccl/allreduce.c $(BUILD)/release/impl.o
	@mkdir -p $(@D)
	$(MPICC) $(CSTD) $(WARN) -Werror -O2 -I. $< $(BUILD)/release/impl.o -o $@ $(LIBS)

test-hccl-mpi: $(addprefix $(BUILD)/hccl/test_hccl_mpi_,$(HCCL_MPI_VARIANTS) $(HCCL_MPI_CUDA_VARIANTS)) $(HCCL_MPI_PLUGIN) \
               $(BUILD)/hccl/allreduce
	@echo "== hccl: examples/hccl/allreduce.c, $(HCCL_NP) processes =="
	@$(HCCL_ENV) $(BOUNDED) $(MPIRUN) $(MPIRUN_FLAGS) -x ACLRT_HCCL_MPI_PLUGIN -np $(HCCL_NP) ./$(BUILD)/hccl/allreduce
	@for v in $(HCCL_MPI_VARIANTS); do \
	  echo "== hccl: $(HCCL_NP) processes (mpirun), $$v =="; \
	  env $(HCCL_ENV) $$( [ $$v = asan ] && echo $(HCCL_ENV_asan) ) $(BOUNDED) $(MPIRUN) $(MPIRUN_FLAGS) \
	    -x ACLRT_HCCL_MPI_PLUGIN -x ASAN_OPTIONS -np $(HCCL_NP) ./$(BUILD)/hccl/test_hccl_mpi_$$v || exit 1; \
	done
	@echo "== hccl: $(HCCL_NP) processes (mpirun), release, under the stream-ordering sanitizer =="
	@$(HCCL_ENV) ACLRT_SANITIZE=streams $(BOUNDED) $(MPIRUN) $(MPIRUN_FLAGS) -x ACLRT_HCCL_MPI_PLUGIN -x ACLRT_SANITIZE \
	  -np $(HCCL_NP) ./$(BUILD)/hccl/test_hccl_mpi_release > $(BUILD)/hccl/sanitize.log 2>&1; rc=$$?; \
	  if [ $$rc != 0 ] || grep -q '^aclrt sanitizer: ' $(BUILD)/hccl/sanitize.log; then cat $(BUILD)/hccl/sanitize.log; \
	    echo "FAIL: HCCL over MPI under ACLRT_SANITIZE=streams (mpirun exit $$rc)"; exit 1; fi; \
	  tail -n $(HCCL_NP) $(BUILD)/hccl/sanitize.log
	@$(HCCL_ENV) HCCL_KILL_RANK=1 $(BOUNDED) $(MPIRUN) $(MPIRUN_FLAGS) -x ACLRT_HCCL_MPI_PLUGIN -x HCCL_KILL_RANK \
	  -np $(HCCL_NP) ./$(BUILD)/hccl/test_hccl_mpi_release >$(BUILD)/hccl/killed.log 2>&1; rc=$$?; \
	  if [ $$rc = 0 ] || [ $$rc = 124 ]; then cat $(BUILD)/hccl/killed.log; \
	    echo "FAIL: a rank killed mid-operation: mpirun exited $$rc (0: nobody noticed; 124: hung)"; exit 1; fi; \
	  echo "hccl: a rank killed in the middle of an allreduce ends the job (mpirun exit $$rc), no hang (ok)"
	@for v in $(HCCL_MPI_CUDA_VARIANTS); do \
	  echo "== hccl: $(HCCL_NP) processes (mpirun), $$v: the cuda backend, HCCL through NCCL (the test doubles) =="; \
	  env $$( [ $$v = cuda-asan ] && echo $(HCCL_ENV_cuda-asan) ) $(BOUNDED) $(MPIRUN) $(MPIRUN_FLAGS) \
	    -x ASAN_OPTIONS -np $(HCCL_NP) ./$(BUILD)/hccl/test_hccl_mpi_$$v || exit 1; \
	done

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

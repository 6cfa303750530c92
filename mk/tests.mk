# mk/tests.mk - the test programs, built and run per variant.
#
#   make test-<variant>   every tests/test_*.c of the variant (built TEST_BUILD_JOBS at a time), each
#                         run bounded (TEST_TIMEOUT), one after the other
#   make test-cpp         a C++17 ACL program builds and runs; C++ refuses the implementation clearly
#   make test-negative    ThreadSanitizer still reports a race planted in code like ours
#   make test-schedule    the deterministic schedule's seed driver finds a planted ordering bug
#   make test-sanitize    the suite and the examples run clean under the stream-ordering sanitizer
#   make $(BUILD)/<variant>/test_x   one program (then run it: ./$(BUILD)/<variant>/test_x)
#
# Each test program is tests/test_<capability>.c linked with one implementation unit (tests/impl.c,
# or the variant's IMPL_SRC_<variant>), compiled with the variant's FLAGS_<variant>; TESTS_<variant>
# narrows the list of programs where a variant cannot run some of them.

VARIANTS := release tsan asan dist external $(CUDA_VARIANTS)
ifeq ($(BACKEND),cuda)
VARIANTS += gpu
endif

FLAGS_release := -O2 -g -I.
FLAGS_tsan := -O1 -g -fsanitize=thread -Wno-tsan -I.
FLAGS_asan := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all -I.
# Against the one-file dist/aclrt.h (make dist), with the acl/ headers next to it.
FLAGS_dist := -O2 -g -I$(BUILD)/dist-include

# The same tests with external progress: no runtime threads, test threads drive the devices.
FLAGS_external := -O2 -g -I.
IMPL_SRC_external := tests/impl_external.c
# test_embed drives progress by hand: the external configuration's driver threads would too.
# test_reliability runs each case in a forked child, which has no driver thread.
# test_wake_handoff, test_one_cpu_wake watch the host backend's executor threads, which external
# progress has none of.
TESTS_external = $(filter-out test_embed test_reliability test_wake_handoff test_one_cpu_wake,$(TESTS))

# The same tests on the cuda backend (tests/impl_cuda.c), through the driver test double
# and the NCCL test double (mk/cuda.mk), built per variant with its flags.
FLAGS_cuda := $(FLAGS_release)
FLAGS_cuda-tsan := $(FLAGS_tsan)
FLAGS_cuda-asan := $(FLAGS_asan)
# Not on the cuda backend:
#   test_sysinfo, test_bad_input: assert the backend's name ("host") and the SoC name;
#   test_embed: registers backends, which run on the host backend's machinery, and selects them by name;
#   test_schedule: the deterministic schedule is a mode of the host backend;
#   test_wake_handoff, test_one_cpu_wake: watch the host backend's executor threads.
TESTS_CUDA = $(filter-out test_sysinfo test_bad_input test_embed test_schedule test_wake_handoff test_one_cpu_wake,$(TESTS))
define cuda_variant
IMPL_SRC_$(1) := tests/impl_cuda.c
IMPL_DEPS_$(1) := $(BUILD)/$(1)/libcuda_fake.so $(BUILD)/$(1)/libnccl_fake.so
IMPL_DEFS_$(1) := -DACLRT_TEST_CUDA_LIBRARY='"$(CURDIR)/$(BUILD)/$(1)/libcuda_fake.so"' \
                  -DACLRT_TEST_NCCL_LIBRARY='"$(CURDIR)/$(BUILD)/$(1)/libnccl_fake.so"'
TESTS_$(1) = $$(TESTS_CUDA)
endef
$(foreach v,$(CUDA_VARIANTS),$(eval $(call cuda_variant,$(v))))
# Under ThreadSanitizer a forked child may start no thread (test_fork's child then runs
# without threads of its own), and the driver runs streams on threads of its own.
TESTS_cuda-tsan = $(filter-out test_fork,$(TESTS_CUDA))
# Under GCC 12's AddressSanitizer a fork can leave the sanitizer's allocator lock held in the child,
# and on the cuda backend the child's driver (the test double) starts threads of its own, which then
# wait for it for ever: test_fork runs on the cuda backend in the cuda variant only.
TESTS_cuda-asan = $(filter-out test_fork,$(TESTS_CUDA))

# On a GPU (BACKEND=cuda): libcuda.so.1. Not test_kernel, test_symbol, test_kernel_ext,
# test_dump nor test_device_lost: their binaries are host shared objects, which only the test
# double loads (its stand-in for a module); a GPU's driver loads cubins, fatbins and PTX. Nor
# test_hccl: its four ranks set values in device memory with the CPU (test_hccl_device runs
# HCCL there, through NCCL).
FLAGS_gpu := $(FLAGS_release)
IMPL_SRC_gpu := tests/impl_cuda.c
TESTS_gpu = $(filter-out test_kernel test_symbol test_kernel_ext test_dump test_device_lost test_hccl,$(TESTS_CUDA))

# Kernels the tests load as binaries (tests/kernels/*.c -> $(BUILD)/kernels/lib*.so); the tests
# find them through their absolute directory, compiled in, from any working directory.
KERNEL_DIR := $(abspath $(BUILD))/kernels
TEST_KERNELS := $(patsubst tests/kernels/%.c,$(BUILD)/kernels/lib%.so,$(wildcard tests/kernels/*.c))
KERNEL_FLAGS := -DACLRT_TEST_KERNEL_DIR='"$(KERNEL_DIR)"'
# The test programs of a variant build in parallel (one job per CPU); they run one at a time.
TEST_BUILD_JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: $(addprefix test-,$(sort $(VARIANTS) gpu)) test-cpp test-negative test-schedule test-sanitize

define variant_rules
$(BUILD)/$(1)/impl.o: $(or $(IMPL_SRC_$(1)),tests/impl.c) $(SOURCES) $(if $(filter dist,$(1)),$(BUILD)/dist-include/aclrt.h) \
    $(IMPL_DEPS_$(1))
	@mkdir -p $$(@D)
	$(CC) $(CSTD) $(WARN) -Werror $(FLAGS_$(1)) $(IMPL_DEFS_$(1)) -c $$< -o $$@

$(BUILD)/$(1)/%: tests/%.c $(wildcard tests/*.h) $(BUILD)/$(1)/impl.o $(TEST_KERNELS)
	$(CC) $(CSTD) $(WARN) -Werror $(FLAGS_$(1)) $(KERNEL_FLAGS) $$< $(BUILD)/$(1)/impl.o -o $$@ $(LIBS) -lm

test-$(1): $(BUILD)/$(1)/impl.o $(TEST_KERNELS)
	@$$(MAKE) --no-print-directory -j$(TEST_BUILD_JOBS) $(addprefix $(BUILD)/$(1)/,$(or $(TESTS_$(1)),$(TESTS)))
	@echo "== $(1) =="
	@for t in $(or $(TESTS_$(1)),$(TESTS)); do $(BOUNDED) ./$(BUILD)/$(1)/$$$$t || exit 1; done
endef
$(foreach v,$(sort $(VARIANTS) $(CUDA_VARIANTS) gpu),$(eval $(call variant_rules,$(v))))

# The test kernels: plain shared objects (not instrumented), one build for every variant.
$(BUILD)/kernels/lib%.so: tests/kernels/%.c aclrt.h
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) -Werror -O2 -fPIC -shared -I. $< -o $@

# The dist variant's include directory: dist/aclrt.h (mk/install.mk), the acl/ and hccl/ headers.
$(BUILD)/dist-include/aclrt.h: dist/aclrt.h
	@mkdir -p $(BUILD)/dist-include/acl/error_codes $(BUILD)/dist-include/hccl
	cp dist/aclrt.h $@
	cp acl/*.h $(BUILD)/dist-include/acl/
	cp acl/error_codes/*.h $(BUILD)/dist-include/acl/error_codes/
	cp hccl/*.h $(BUILD)/dist-include/hccl/

# A C++17 ACL-style program builds unchanged against acl/acl.h.
$(BUILD)/release/cpp_program: tests/cpp_program.cpp $(BUILD)/release/impl.o $(SOURCES)
	$(CXX) $(CXXSTD) $(WARN) -Werror -O2 -I. $< $(BUILD)/release/impl.o -o $@ $(LIBS)

test-cpp: $(BUILD)/release/cpp_program
	@echo "== C++ program =="
	@./$(BUILD)/release/cpp_program
	@tests/cpp_impl_error.sh $(BUILD)/cpp_impl_error.log $(CXX) $(CXXSTD)

test-negative: $(BUILD)/tsan/impl.o
	@$(CC) $(CSTD) $(FLAGS_tsan) tests/tsan_negative.c $(BUILD)/tsan/impl.o -o $(BUILD)/tsan/tsan_negative $(LIBS)
	@if TSAN_OPTIONS="halt_on_error=0 exitcode=66" ./$(BUILD)/tsan/tsan_negative >$(BUILD)/tsan_negative.log 2>&1; then \
	  echo "FAIL: ThreadSanitizer missed the planted race"; exit 1; \
	elif grep -q "data race" $(BUILD)/tsan_negative.log; then \
	  echo "ThreadSanitizer negative check: planted race reported (ok)"; \
	else cat $(BUILD)/tsan_negative.log; exit 1; fi

# The stream-ordering sanitizer (ACLRT_SANITIZE=streams, docs/SANITIZER.md) on programs that are right:
# every test program of the release variant (but test_sanitize, which plants races and configures the
# sanitizer itself) and every example, each bounded; a program fails on any report (at aclFinalize it
# exits with status 66; one that never finalizes is caught by the report's text).
SANITIZE_TESTS = $(filter-out test_sanitize,$(TESTS))
SANITIZE_LOG = $(BUILD)/sanitize.log
test-sanitize: $(addprefix $(BUILD)/release/,$(TESTS)) examples
	@echo "== the suite and the examples under the stream-ordering sanitizer =="
	@for p in $(addprefix $(BUILD)/release/,$(SANITIZE_TESTS)) $(addprefix $(BUILD)/examples/,$(EXAMPLES)) \
	          $(VECTOR_ADD_DIR)/vector_add; do \
	  ACLRT_SANITIZE=streams $(BOUNDED) ./$$p > $(SANITIZE_LOG) 2>&1; status=$$?; \
	  if [ $$status -ne 0 ] || grep -q '^aclrt sanitizer: ' $(SANITIZE_LOG); then \
	    cat $(SANITIZE_LOG); echo "FAIL: $$p under ACLRT_SANITIZE=streams (exit status $$status)"; exit 1; fi; \
	  echo "$$p: $$(tail -n 1 $(SANITIZE_LOG))"; \
	done

# The deterministic schedule (ACLRT_SCHEDULE=deterministic:SEED): scripts/schedule_seeds.sh runs the
# ordering bug planted in tests/test_schedule.c ("flaky": two streams share a buffer with no event
# between them) under seeds 1..8 and must name a failing seed; the command it prints must fail again,
# three times; the same program ordered by an event ("correct") must pass under all 8. Then the
# stream-ordering sanitizer's planted races (tests/test_sanitize.c) under seeds 1..3: each reported
# exactly once whatever order the seed gives the device's work.
SCHEDULE_PROGRAM = ./$(BUILD)/release/test_schedule
test-schedule: $(BUILD)/release/test_schedule $(BUILD)/release/test_sanitize
	@echo "== deterministic schedule =="
	@out=$$(scripts/schedule_seeds.sh 8 $(SCHEDULE_PROGRAM) flaky); status=$$?; echo "$$out"; \
	if [ $$status -ne 1 ]; then echo "FAIL: no seed of 1..8 showed the planted bug (exit status $$status)"; exit 1; fi; \
	again=$$(echo "$$out" | sed -n 's/^reproduce with: //p'); \
	if [ -z "$$again" ]; then echo "FAIL: the driver printed no command to run again"; exit 1; fi; \
	for i in 1 2 3; do \
	  eval "$$again" >/dev/null; status=$$?; \
	  if [ $$status -ne 1 ]; then echo "FAIL: run again, it exited with $$status: $$again"; exit 1; fi; \
	done; \
	echo "run again three times, it failed each time (ok)"
	@scripts/schedule_seeds.sh 8 $(SCHEDULE_PROGRAM) correct
	@scripts/schedule_seeds.sh 3 ./$(BUILD)/release/test_sanitize

# mk/cuda.mk - the cuda backend where no GPU is needed.
#
#   make test-cuda-no-gpu   the backend where it cannot run: no driver file, no GPU, cuInit failing
#   make test-cuda-decls    its own declarations of the driver against the toolkit's cuda.h
#                           (CUDA_INCLUDE; said to be skipped when there is no cuda.h)
#   make test-cuda-rules    the test double fails where a GPU fails: each rule of fake_cuda.c's
#                           head, a misuse planted by a program of tests/cuda_fake/rule_*.c, run
#                           strict (caught) and with the rule's relaxing knob (let pass)
#   make test-nccl-fake     the NCCL test double (tests/nccl_fake/fake_nccl.c) alone: its check
#                           program, four ranks on four fake GPUs (threads, then threads and child
#                           processes), in cuda, cuda-tsan and cuda-asan
#
# The suite on this backend runs in the variants cuda, cuda-tsan and cuda-asan of mk/tests.mk,
# through the CUDA driver test double of tests/cuda_fake/ (fake_cuda.c), built here per variant.
# make test BACKEND=cuda adds the variant gpu: the suite on the machine's GPUs, through
# libcuda.so.1 (docs/CUDA.md).

CUDA_VARIANTS := cuda cuda-tsan cuda-asan
# NVCC: the CUDA compiler, for kernels of examples and the benchmark (optional).
NVCC ?= $(firstword $(shell command -v nvcc 2>/dev/null) $(wildcard /usr/local/cuda/bin/nvcc))
CUDA_INCLUDE ?= $(firstword $(wildcard /usr/local/cuda/include) $(patsubst %/cuda.h,%,$(wildcard /usr/include/cuda.h)))

.PHONY: test-cuda-no-gpu test-cuda-decls test-cuda-rules test-nccl-fake

# The test double, as a shared library per variant (instrumented like the tests).
$(BUILD)/%/libcuda_fake.so: tests/cuda_fake/fake_cuda.c
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) -Werror $(FLAGS_$*) -fPIC -shared -fvisibility=hidden $< -o $@ -lpthread -ldl

# The NCCL test double (libnccl.so.2's stand-in), per variant like the driver's, next to it: it
# works on the driver double's streams and memory (the double finds it already loaded).
# It borrows the runtime's 16-bit float conversions (impl/core/half.h).
$(BUILD)/%/libnccl_fake.so: tests/nccl_fake/fake_nccl.c impl/core/half.h impl/core/base.h
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) -Werror $(FLAGS_$*) -fPIC -shared -fvisibility=hidden $< -o $@ -lpthread -ldl -lm

$(BUILD)/cuda/no_gpu: tests/cuda_fake/no_gpu.c $(SOURCES)
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) -Werror $(FLAGS_cuda-asan) $< -o $@ $(LIBS)

test-cuda-no-gpu: $(BUILD)/cuda/no_gpu $(BUILD)/cuda-asan/libcuda_fake.so
	@echo "== cuda backend without a GPU =="
	@ACLRT_CUDA_LIBRARY=/nonexistent/libcuda.so.1 ./$(BUILD)/cuda/no_gpu "cannot open the CUDA driver"
	@ACLRT_CUDA_LIBRARY=$(CURDIR)/$(BUILD)/cuda-asan/libcuda_fake.so ACLRT_FAKE_CUDA_DEVICES=0 \
	  ./$(BUILD)/cuda/no_gpu "found no GPU"
	@ACLRT_CUDA_LIBRARY=$(CURDIR)/$(BUILD)/cuda-asan/libcuda_fake.so ACLRT_FAKE_CUDA_INIT_RESULT=100 \
	  ./$(BUILD)/cuda/no_gpu "cuInit failed with CUDA_ERROR_NO_DEVICE"

test-cuda-decls:
	@if [ -n "$(CUDA_INCLUDE)" ] && [ -f "$(CUDA_INCLUDE)/cuda.h" ]; then \
	  mkdir -p $(BUILD) && \
	  $(CC) $(CSTD) $(WARN) -Werror -I. -I$(CUDA_INCLUDE) tests/cuda_fake/check_decls.c -o $(BUILD)/cuda_decls && \
	  ./$(BUILD)/cuda_decls; \
	else echo "cuda_decls: skipped: no cuda.h (set CUDA_INCLUDE to the toolkit's include directory)"; fi

# The rules' programs call the double directly (linked by its absolute path, the cuda variant's build).
CUDA_RULES := rule_host_access rule_host_fns rule_no_calls rule_memops rule_fork rule_kernel_fault rule_ipc
CUDA_RULES += rule_peer rule_context rule_kernel_params
CUDA_RULES += rule_capture rule_pageable
CUDA_RULES_FAKE := $(CURDIR)/$(BUILD)/cuda/libcuda_fake.so
CUDA_RULES_KERNELS := $(BUILD)/kernels/libtest_kernels.so

$(BUILD)/cuda-rules/%: tests/cuda_fake/%.c tests/cuda_fake/rules.h $(BUILD)/cuda/libcuda_fake.so
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) -Werror $(FLAGS_cuda) $< -o $@ $(CUDA_RULES_FAKE) -lpthread -ldl

test-cuda-rules: $(addprefix $(BUILD)/cuda-rules/,$(CUDA_RULES)) $(CUDA_RULES_KERNELS)
	@echo "== the test double's rules: strict, then relaxed =="
	@$(BOUNDED) ./$(BUILD)/cuda-rules/rule_host_access $(CUDA_RULES_KERNELS)
	@ACLRT_FAKE_CUDA_HOST_ACCESS=1 $(BOUNDED) ./$(BUILD)/cuda-rules/rule_host_access $(CUDA_RULES_KERNELS)
	@$(BOUNDED) ./$(BUILD)/cuda-rules/rule_host_fns
	@ACLRT_FAKE_CUDA_PARALLEL_HOST_FUNCS=1 $(BOUNDED) ./$(BUILD)/cuda-rules/rule_host_fns
	@names=$$(nm -D --defined-only $(BUILD)/cuda/libcuda_fake.so | awk '$$3 ~ /^cu/ {print $$3}'); \
	  case " $$(echo $$names) " in *" cuInit "*) ;; *) echo "rule_no_calls: no entry points listed"; exit 1;; esac; \
	  $(BOUNDED) ./$(BUILD)/cuda-rules/rule_no_calls $$names
	@$(BOUNDED) ./$(BUILD)/cuda-rules/rule_memops
	@ACLRT_FAKE_CUDA_HOST_ACCESS=1 $(BOUNDED) ./$(BUILD)/cuda-rules/rule_memops
	@$(BOUNDED) ./$(BUILD)/cuda-rules/rule_fork
	@ACLRT_FAKE_CUDA_FORK_OK=1 $(BOUNDED) ./$(BUILD)/cuda-rules/rule_fork
	@$(BOUNDED) ./$(BUILD)/cuda-rules/rule_kernel_fault $(CUDA_RULES_KERNELS)
	@ACLRT_FAKE_CUDA_KERNEL_FAULT_RECOVERS=1 $(BOUNDED) ./$(BUILD)/cuda-rules/rule_kernel_fault $(CUDA_RULES_KERNELS)
	@$(BOUNDED) ./$(BUILD)/cuda-rules/rule_ipc
	@$(BOUNDED) ./$(BUILD)/cuda-rules/rule_peer $(CUDA_RULES_KERNELS)
	@ACLRT_FAKE_CUDA_PEER_OPEN=1 $(BOUNDED) ./$(BUILD)/cuda-rules/rule_peer $(CUDA_RULES_KERNELS)
	@ACLRT_FAKE_CUDA_NO_PEER=1 $(BOUNDED) ./$(BUILD)/cuda-rules/rule_peer $(CUDA_RULES_KERNELS)
	@$(BOUNDED) ./$(BUILD)/cuda-rules/rule_context
	@$(BOUNDED) ./$(BUILD)/cuda-rules/rule_kernel_params $(CUDA_RULES_KERNELS)
	@ACLRT_FAKE_CUDA_ANY_LAUNCH=1 $(BOUNDED) ./$(BUILD)/cuda-rules/rule_kernel_params $(CUDA_RULES_KERNELS)
	@$(BOUNDED) ./$(BUILD)/cuda-rules/rule_capture
	@$(BOUNDED) ./$(BUILD)/cuda-rules/rule_pageable
	@ACLRT_FAKE_CUDA_PAGEABLE_ASYNC=1 $(BOUNDED) ./$(BUILD)/cuda-rules/rule_pageable

# The NCCL double's check program opens both doubles at run time (as a CUDA program would its
# libraries), built and run per variant; the init and execution bounds short for the cases that
# wait for a rank that never comes.
NCCL_FAKE_ENV := ACLRT_FAKE_CUDA_DEVICES=4 ACLRT_FAKE_NCCL_INIT_TIMEOUT_MS=3000 ACLRT_FAKE_NCCL_EXEC_TIMEOUT_MS=4000

$(BUILD)/nccl-fake/%/check_nccl: tests/nccl_fake/check_nccl.c
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) -Werror $(FLAGS_$*) $< -o $@ -lpthread -ldl

test-nccl-fake: $(foreach v,$(CUDA_VARIANTS),$(BUILD)/nccl-fake/$(v)/check_nccl $(BUILD)/$(v)/libcuda_fake.so \
                  $(BUILD)/$(v)/libnccl_fake.so)
	@echo "== the NCCL test double: $(CUDA_VARIANTS) =="
	@for v in $(CUDA_VARIANTS); do \
	  echo "-- $$v"; \
	  $(NCCL_FAKE_ENV) $(BOUNDED) ./$(BUILD)/nccl-fake/$$v/check_nccl \
	    $(CURDIR)/$(BUILD)/$$v/libcuda_fake.so $(CURDIR)/$(BUILD)/$$v/libnccl_fake.so || exit 1; \
	done

# mk/cuda.mk - the cuda backend where no GPU is needed.
#
#   make test-cuda-no-gpu   the backend where it cannot run: no driver file, no GPU, cuInit failing
#   make test-cuda-decls    its own declarations of the driver against the toolkit's cuda.h
#                           (CUDA_INCLUDE; said to be skipped when there is no cuda.h)
#
# The suite on this backend runs in the variants cuda, cuda-tsan and cuda-asan of mk/tests.mk,
# through the CUDA driver test double of tests/cuda_fake/ (fake_cuda.c), built here per variant.
# make test BACKEND=cuda adds the variant gpu: the suite on the machine's GPUs, through
# libcuda.so.1 (docs/CUDA.md).

CUDA_VARIANTS := cuda cuda-tsan cuda-asan
# NVCC: the CUDA compiler, for kernels of examples and the benchmark (optional).
NVCC ?= $(firstword $(shell command -v nvcc 2>/dev/null) $(wildcard /usr/local/cuda/bin/nvcc))
CUDA_INCLUDE ?= $(firstword $(wildcard /usr/local/cuda/include) $(patsubst %/cuda.h,%,$(wildcard /usr/include/cuda.h)))

.PHONY: test-cuda-no-gpu test-cuda-decls

# The test double, as a shared library per variant (instrumented like the tests).
$(BUILD)/%/libcuda_fake.so: tests/cuda_fake/fake_cuda.c
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) -Werror $(FLAGS_$*) -fPIC -shared -fvisibility=hidden $< -o $@ -lpthread -ldl

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

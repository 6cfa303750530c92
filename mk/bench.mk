# mk/bench.mk - the benchmark harness (bench/bench.mk: bench-build, bench-run, bench-smoke) and the
# cuda backend's benchmark.
#
#   make bench-run [QUICK=1]   what make bench runs on the host backend (bench/bench.mk)
#   make bench-smoke           a QUICK run into $(BUILD)/bench/smoke and a check of its output
#   make bench-cuda [QUICK=1]  the cuda backend next to the raw driver (bench/cuda/cuda_bench.c), on
#                              libcuda.so.1 or the file ACLRT_CUDA_LIBRARY names; what make bench
#                              BACKEND=cuda runs
#   make bench-cuda-smoke      the same, QUICK, on the driver test double (mk/cuda.mk)
#   make bench-sanitize [QUICK=1]  what the stream-ordering sanitizer costs a copy pipeline: off and on
#                              in turn, in one run (bench/sanitize/sanitize_cost.c)

include bench/bench.mk

CUDA_BENCH := $(BUILD)/bench/aclrt-cuda-bench
# Its kernel: the test double's stand-in (a host shared object), or on a GPU a fatbin built by nvcc.
CUDA_BENCH_KERNEL = $(if $(ACLRT_CUDA_LIBRARY),$(BENCH_KERNEL),$(if $(NVCC),$(BUILD)/bench/cuda_nop.fatbin))

.PHONY: bench-cuda bench-cuda-smoke bench-sanitize

SANITIZE_COST := $(BUILD)/bench/aclrt-sanitize-cost

$(SANITIZE_COST): bench/sanitize/sanitize_cost.c $(SOURCES)
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) -Werror -O2 -g -I. $< -o $@ $(LIBS)

bench-sanitize: $(SANITIZE_COST)
	$(SANITIZE_COST) $(BENCH_QUICK_FLAG)

$(CUDA_BENCH): bench/cuda/cuda_bench.c $(SOURCES)
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) -Werror -O2 -g -I. $< -o $@ $(LIBS)

$(BUILD)/bench/cuda_nop.fatbin: bench/cuda/nop.cu
	@mkdir -p $(@D)
	$(NVCC) --fatbin $< -o $@

bench-cuda: $(CUDA_BENCH) $(CUDA_BENCH_KERNEL)
	@mkdir -p $(BENCH_OUT)
	$(CUDA_BENCH) $(BENCH_QUICK_FLAG) $(if $(CUDA_BENCH_KERNEL),--kernel $(abspath $(CUDA_BENCH_KERNEL))) \
	  --out $(BENCH_OUT)/cuda-latest.txt

bench-cuda-smoke: $(CUDA_BENCH) $(BUILD)/cuda/libcuda_fake.so $(BENCH_KERNEL)
	@echo "== cuda benchmark smoke run (QUICK, test double) =="
	@ACLRT_CUDA_LIBRARY=$(CURDIR)/$(BUILD)/cuda/libcuda_fake.so $(CUDA_BENCH) --quick \
	  --kernel $(abspath $(BENCH_KERNEL)) --out $(BUILD)/bench/cuda-smoke.txt > $(BUILD)/bench/cuda-smoke.log 2>&1 || \
	  { cat $(BUILD)/bench/cuda-smoke.log; echo "FAIL: the cuda benchmark did not complete"; exit 1; }
	@cat $(BUILD)/bench/cuda-smoke.txt

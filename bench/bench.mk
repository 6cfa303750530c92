# bench/bench.mk - the benchmark harness, included by the top Makefile.
#
#   make bench-run [QUICK=1] [REPEAT=N] [PLACEMENTS="two one"]
#                              build, run N times in each placement (bench/repeat.py: the
#                              spread of the runs and the targets), write bench/results/latest.{json,csv}
#                              and (with gnuplot) latency.png, scaling.png (outputs:
#                              git ignores bench/results/, a run leaves the tree clean)
#   make bench-smoke           QUICK run (once per placement) into $(BUILD)/bench/smoke + JSON shape
#                              check; never fails on timing, no plot
#
# Standalone: make -f bench/bench.mk bench-run QUICK=1 CC=gcc BUILD=build
#
# The harness is built with -O2 against this source tree: one implementation
# unit (bench/aclrt_impl.c: ACLRT_IMPLEMENTATION + aclrt.h) compiled as C11,
# linked with -lck -lurcu-cds -lurcu-bp -lurcu-common -lpthread -lm -ldl. Binaries go to $(BUILD)/bench/,
# with the kernel binary of the launch_kernel cases (bench/kernels/nop.c -> libbench_kernel.so).

BUILD ?= build
BENCH_OUT ?= bench/results
BENCH_BUILD := $(BUILD)/bench
BENCH_BIN := $(BENCH_BUILD)/aclrt-bench
BENCH_SRCS := $(filter-out bench/aclrt_impl.c,$(wildcard bench/*.c))
BENCH_OBJS := $(patsubst bench/%.c,$(BENCH_BUILD)/%.o,$(BENCH_SRCS))
BENCH_IMPL_OBJ := $(BENCH_BUILD)/aclrt_impl.o
BENCH_ACLRT_SOURCES := aclrt.h $(wildcard acl/*.h acl/*/*.h hccl/*.h impl/*.h impl/*/*.h backends/*.h backends/*/*.h)
BENCH_CFLAGS := -std=c11 -O2 -g -Wall -Wextra -Wshadow -Wno-unused-function -I. -Ibench
BENCH_LIBS := -lck -lurcu-cds -lurcu-bp -lurcu-common -lpthread -lm -ldl
# The binary the launch_kernel cases load (bench/kernels/nop.c), by its absolute path.
BENCH_KERNEL := $(BENCH_BUILD)/libbench_kernel.so
BENCH_KERNEL_FLAG := -DBENCH_KERNEL_PATH='"$(abspath $(BENCH_KERNEL))"'
BENCH_QUICK_FLAG := $(if $(filter 1 yes true,$(QUICK)),--quick)
# How many runs of the harness per placement, and the placements (bench/repeat.py): "two" puts the
# harness's threads on one CPU and the runtimes' on the others, "one" all of them on one CPU, "free"
# leaves it to the scheduler.
REPEAT ?= 3
PLACEMENTS ?= two one
BENCH_GIT = $(shell git rev-parse --short HEAD 2>/dev/null)$(shell git diff --quiet HEAD -- 2>/dev/null || echo +changes)

.PHONY: bench-run bench-smoke bench-build

bench-build: $(BENCH_BIN)

$(BENCH_IMPL_OBJ): bench/aclrt_impl.c $(BENCH_ACLRT_SOURCES) bench/bench.mk
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) -c $< -o $@

$(BENCH_BUILD)/%.o: bench/%.c $(wildcard bench/*.h) aclrt.h bench/bench.mk
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) $(BENCH_KERNEL_FLAG) -DBENCH_CFLAGS='"$(BENCH_CFLAGS)"' -c $< -o $@

$(BENCH_KERNEL): bench/kernels/nop.c aclrt.h bench/bench.mk
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) -fPIC -shared $< -o $@

$(BENCH_BIN): $(BENCH_OBJS) $(BENCH_IMPL_OBJ) | $(BENCH_KERNEL)
	$(CC) $(BENCH_CFLAGS) $(BENCH_OBJS) $(BENCH_IMPL_OBJ) -o $@ $(BENCH_LIBS)

bench-run: $(BENCH_BIN)
	@mkdir -p $(BENCH_OUT)
	BENCH_GIT="$(BENCH_GIT)" python3 bench/repeat.py --bin $(BENCH_BIN) $(BENCH_QUICK_FLAG) --repeat $(REPEAT) \
	  --placements "$(PLACEMENTS)" --out $(BENCH_OUT) --data $(BENCH_BUILD)
	@if command -v gnuplot >/dev/null 2>&1; then \
	  gnuplot -e "datadir='$(BENCH_BUILD)'; outdir='$(BENCH_OUT)'; quick='$(BENCH_QUICK_FLAG)'" bench/plot.gp && \
	  echo "wrote $(BENCH_OUT)/latency.png and $(BENCH_OUT)/scaling.png"; \
	else \
	  echo "gnuplot not found (Debian package gnuplot-nox): plot skipped"; \
	fi

bench-smoke: $(BENCH_BIN)
	@mkdir -p $(BENCH_BUILD)/smoke
	@echo "== benchmark harness smoke run (QUICK, once in each placement) =="
	@if ! BENCH_GIT="$(BENCH_GIT)" python3 bench/repeat.py --bin $(BENCH_BIN) --quick --repeat 1 \
	      --placements "two one" --out $(BENCH_BUILD)/smoke --data $(BENCH_BUILD)/smoke \
	      > $(BENCH_BUILD)/smoke/output.txt 2>&1; then \
	  tail -n 40 $(BENCH_BUILD)/smoke/output.txt; echo "FAIL: the benchmark harness did not complete"; exit 1; \
	fi
	@python3 bench/check_results.py $(BENCH_BUILD)/smoke/latest.json $(BENCH_BUILD)/smoke/latest.csv

# mk/bench_hccl.mk - HCCL across processes next to the raw MPI operation (bench/hccl/hccl_bench.c).
#
#   make bench-hccl [QUICK=1]  under `mpirun -np N` for each N of HCCL_BENCH_NP (2 4): allreduce,
#                              allgather, broadcast and send/recv, 8 B ... 64 MiB, HCCL on a stream
#                              against the blocking MPI call; a table on stdout and
#                              $(BENCH_OUT)/hccl-npN.json. make bench runs it after bench-run.
#   make bench-hccl-smoke      a QUICK run at -np 2 into $(BUILD)/bench/hccl-smoke-np2.json, and a
#                              check of its output; never fails on timing
#
# Both fail only when a result is wrong (or a call fails); a missed target prints a MISS line.
# Without mpirun (or mpicc) both say so and succeed. The program is built with mpicc against the
# harness's implementation unit ($(BENCH_IMPL_OBJ), -O2) and reaches MPI through the plugin
# (make hccl-mpi) as any program does. Processes are not bound to cores (--bind-to none): a rank
# runs the runtime's threads (its stream's executor, the HCCL engine) next to its own.

HCCL_BENCH := $(BENCH_BUILD)/aclrt-hccl-bench
HCCL_BENCH_NP ?= 2 4
HCCL_BENCH_ENV = $(HCCL_ENV) BENCH_GIT="$(BENCH_GIT)"
HCCL_BENCH_MPIRUN = $(MPIRUN) $(MPIRUN_FLAGS) --bind-to none -x ACLRT_HCCL_MPI_PLUGIN -x BENCH_GIT
HCCL_BENCH_HAVE_MPI = command -v $(MPIRUN) >/dev/null 2>&1 && command -v $(MPICC) >/dev/null 2>&1

.PHONY: bench-hccl bench-hccl-run bench-hccl-smoke bench-hccl-smoke-run

$(HCCL_BENCH): bench/hccl/hccl_bench.c $(wildcard hccl/*.h) $(BENCH_IMPL_OBJ) mk/bench_hccl.mk
	@mkdir -p $(@D)
	$(MPICC) $(BENCH_CFLAGS) -Werror $< $(BENCH_IMPL_OBJ) -o $@ $(BENCH_LIBS)

bench-hccl:
	@if $(HCCL_BENCH_HAVE_MPI); then $(MAKE) --no-print-directory bench-hccl-run; \
	 else echo "bench-hccl: skipped, no mpirun"; fi

bench-hccl-run: $(HCCL_BENCH) $(HCCL_MPI_PLUGIN)
	@mkdir -p $(BENCH_OUT)
	@for np in $(HCCL_BENCH_NP); do \
	  echo "== hccl benchmark: $$np processes (mpirun) =="; \
	  $(HCCL_BENCH_ENV) $(HCCL_BENCH_MPIRUN) -np $$np ./$(HCCL_BENCH) $(BENCH_QUICK_FLAG) --out $(BENCH_OUT)/hccl-np$$np.json || exit 1; \
	done

bench-hccl-smoke:
	@if $(HCCL_BENCH_HAVE_MPI); then $(MAKE) --no-print-directory bench-hccl-smoke-run; \
	 else echo "bench-hccl-smoke: skipped, no mpirun"; fi

bench-hccl-smoke-run: $(HCCL_BENCH) $(HCCL_MPI_PLUGIN)
	@echo "== hccl benchmark smoke run (QUICK, 2 processes) =="
	@if ! $(HCCL_BENCH_ENV) $(BOUNDED) $(HCCL_BENCH_MPIRUN) -np 2 ./$(HCCL_BENCH) --quick --out $(BENCH_BUILD)/hccl-smoke-np2.json \
	      > $(BENCH_BUILD)/hccl-smoke.log 2>&1; then \
	  tail -n 40 $(BENCH_BUILD)/hccl-smoke.log; echo "FAIL: the hccl benchmark did not complete"; exit 1; \
	fi
	@python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); \
	  ops = {r["op"] for r in d["results"]}; \
	  assert d["nranks"] == 2 and d["wrong"] == 0, "wrong results"; \
	  assert ops == {"allreduce", "allgather", "broadcast", "sendrecv"}, ops; \
	  assert all(r["hccl"]["p50_us"] > 0 and r["mpi"]["p50_us"] > 0 for r in d["results"]), "a zero time"; \
	  print("hccl benchmark smoke: %d results, checked" % len(d["results"]))' $(BENCH_BUILD)/hccl-smoke-np2.json

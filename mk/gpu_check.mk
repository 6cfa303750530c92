# mk/gpu_check.mk - the cuda backend checked whole in one go, on a GPU or on the driver test double.
#
#   make gpu-check [OUT=dir]   scripts/gpu_check.sh: the build, the suite, examples/ on the cuda
#                              backend, vector_add with its fatbin, the benchmark next to the raw
#                              driver; report.md and report.json in OUT ($(BUILD)/gpu-check)
#   make gpu-deps              Concurrency Kit, liburcu and jsmn unpacked into gpu-deps/root (Debian
#                              packages, dpkg -x), for a machine that cannot install them: carry
#                              gpu-deps with the tree; make gpu-check builds against it there

GPU_DEPS_PKGS := libck0 libck-dev liburcu8 liburcu-dev libjsmn-dev

.PHONY: gpu-check gpu-deps

gpu-check:
	@echo "== gpu-check =="
	@BUILD=$(BUILD) GPU_CHECK_OUT=$(or $(OUT),$(BUILD)/gpu-check) \
	  GPU_CHECK_TESTS="$(TESTS_gpu)" GPU_CHECK_DOUBLE_TESTS="$(TESTS_cuda)" \
	  GPU_CHECK_DOUBLE_KERNEL=$(abspath $(BENCH_KERNEL)) scripts/gpu_check.sh

gpu-deps:
	@rm -rf gpu-deps && mkdir -p gpu-deps/debs
	cd gpu-deps/debs && apt-get download $(GPU_DEPS_PKGS)
	for d in gpu-deps/debs/*.deb; do dpkg -x $$d gpu-deps/root || exit 1; done
	@du -sh gpu-deps

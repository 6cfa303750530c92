# aclrt - the AscendCL runtime API (streams, events, synchronization), header-only.
#
# The two commands of the README:
#   make test    installs missing packages (as root), then runs TEST_STEPS below: the whole suite
#                in every variant, the checks, the user's build and install paths, examples, the
#                benchmark's smoke runs
#   make bench   builds and runs the benchmark harness, prints the table
#                (QUICK=1: the short run that make test smoke-checks; BACKEND=cuda: the cuda backend)
#
# The rules are in mk/, one file per concern; the head of each names its targets:
#   mk/deps.mk        deps, deps-bench: the Debian packages (installed as root, else the apt-get line)
#   mk/tests.mk       the test programs in variants: test-release, test-tsan, test-asan, test-dist,
#                     test-external, test-cuda*, test-gpu; test-cpp, test-negative, test-schedule
#   mk/cuda.mk        the CUDA driver test double, test-cuda-no-gpu, test-cuda-decls, test-cuda-rules;
#                     the NCCL test double, test-nccl-fake
#   mk/checks.mk      check, check-headers, check-layering, check-docs, docs, coverage
#   mk/install.mk     dist, install (PREFIX, DESTDIR), test-install
#   mk/python.mk      python, test-python, install-python, test-pip-install (PYTHON)
#   mk/examples.mk    examples, run-examples
#   mk/soak.mk        soak, test-soak-short, test-reliability (SOAK_*)
#   mk/bench.mk       bench-run, bench-smoke, bench-cuda, bench-cuda-smoke (bench/bench.mk)
#   mk/first_hour.mk  test-first-hour: the README's commands, run as a user would
#   mk/hccl_headers.mk check-hccl-layout: the HCCL headers' names, values, sizes and offsets
#   mk/hccl.mk        hccl-mpi, test-hccl-mpi: HCCL across processes (MPI)
#   mk/hccl_netns.mk  test-hccl-netns: HCCL ranks in network namespaces, as on separate hosts
#   mk/bench_hccl.mk  bench-hccl, bench-hccl-smoke: HCCL next to raw MPI under mpirun
# And here: make (deps, check, every test program and example built, none run), make clean.
#
# Settings (make NAME=value): BUILD (build), TEST_TIMEOUT (300 s), QUICK=1, BACKEND=cuda,
# PREFIX (/usr/local), DESTDIR, PYTHON (python3), SOAK_SECONDS, SOAK_VARIANT, SOAK_IN_TEST,
# CC, CXX, CLANG, CLANGXX.

SHELL := /bin/bash
.DEFAULT_GOAL := all

CC := gcc
CXX := g++
CLANG := clang
CLANGXX := clang++
PREFIX ?= /usr/local
# Every output goes under BUILD (make BUILD=dir for a separate tree), except dist/ and python/build/.
BUILD := build

WARN := -Wall -Wextra -Wshadow -Wno-unused-function
CSTD := -std=c11
CXXSTD := -std=c++17
# What a program that contains the implementation links (the README's build lines name the same).
LIBS := -lck -lurcu-cds -lurcu-bp -lurcu-common -lpthread -lm -ldl

SOURCES := aclrt.h $(wildcard acl/*.h acl/*/*.h hccl/*.h impl/*.h impl/*/*.h backends/*.h backends/*/*.h)
TESTS := $(patsubst tests/%.c,%,$(wildcard tests/test_*.c))
EXAMPLES := $(patsubst examples/%.c,%,$(wildcard examples/*.c))

# Each test program runs bounded: past TEST_TIMEOUT seconds its threads' stacks are printed and it fails.
TEST_TIMEOUT ?= 300
BOUNDED := scripts/run_bounded.sh $(TEST_TIMEOUT)

export TSAN_OPTIONS ?= halt_on_error=1 second_deadlock_stack=1
export ASAN_OPTIONS ?= detect_leaks=1 abort_on_error=1
export UBSAN_OPTIONS ?= print_stacktrace=1 halt_on_error=1

# ---------------------------------------------------------------------------
# make test runs these steps, in this order (the file with their rules):
#   deps                                the Debian packages (mk/deps.mk)
#   check check-headers check-layering  warning-free with gcc and clang, C11 and C++17; every header
#   check-docs                          alone; the include layering; the generated docs current and
#                                       their links whole (mk/checks.mk)
#   test-cuda-decls test-cuda-no-gpu    the cuda backend's declarations against cuda.h; the backend
#   test-cuda-rules                     without a GPU; the driver test double fails where a GPU
#   test-nccl-fake                      fails, each of its rules checked; the NCCL test double's
#                                       check program in the three cuda variants (mk/cuda.mk)
#   test-<variant>                      every test program in each of VARIANTS: release tsan asan dist
#                                       external cuda-tsan cuda-asan, gpu with BACKEND=cuda
#                                       (mk/tests.mk; the cuda variant runs in gpu-check)
#   test-cpp test-negative              a C++17 program; ThreadSanitizer still sees a planted race
#   test-schedule                       the deterministic schedule's seed driver finds a planted
#                                       ordering bug, and its seed fails again; the sanitizer's
#                                       planted races under three seeds (mk/tests.mk)
#   test-sanitize                       the suite and the examples run clean under the stream-
#                                       ordering sanitizer (mk/tests.mk)
#   check-hccl-layout test-hccl-mpi     HCCL's headers' ABI; HCCL under mpirun -np 4 in three builds,
#                                       then on the cuda backend (through the doubles) in three more
#   test-hccl-netns test-hccl-cann      (mk/hccl_headers.mk, mk/hccl.mk); the same with each rank in a
#                                       network namespace of its own, MPI over TCP (mk/hccl_netns.mk);
#                                       CANN's hccl_test against make install (mk/hccl.mk)
#   test-install test-pip-install       make install, then pkg-config, CANN's paths and CMake
#                                       (mk/install.mk); pip install (mk/python.mk)
#   run-examples                        every example, built and run (mk/examples.mk)
#   bench-smoke                         the benchmark harness, QUICK, its output checked (mk/bench.mk)
#   bench-hccl-smoke                    the HCCL benchmark, QUICK, 2 processes (mk/bench_hccl.mk)
#   test-soak-short                     the soak programs, 5 s a variant; SOAK_IN_TEST=0 leaves it
#                                       out (mk/soak.mk)
#   test-python                         the acl module's unittest suite (mk/python.mk)
#   gpu-check                           the cuda backend whole (the cuda variant's suite, examples/,
#                                       the cuda benchmark), on the test double where there is no
#                                       GPU, its report checked (mk/gpu_check.mk)
#   test-first-hour                     the README's build, install and Python commands, from a clean
#                                       copy of the tree (mk/first_hour.mk)
TEST_STEPS = deps \
             check check-headers check-layering check-docs \
             test-cuda-decls test-cuda-no-gpu test-cuda-rules test-nccl-fake \
             $(addprefix test-,$(filter-out cuda,$(VARIANTS))) \
             test-cpp test-negative test-schedule test-sanitize \
             check-hccl-layout test-hccl-mpi test-hccl-netns test-hccl-cann \
             test-install test-pip-install \
             run-examples \
             bench-smoke bench-hccl-smoke \
             $(if $(filter 1,$(SOAK_IN_TEST)),test-soak-short) \
             test-python \
             gpu-check \
             test-first-hour

# The order matters: tests.mk's variant rules use cuda.mk's settings, bench.mk uses bench/bench.mk.
include mk/deps.mk mk/cuda.mk mk/tests.mk mk/checks.mk mk/install.mk mk/python.mk mk/examples.mk \
        mk/soak.mk mk/bench.mk mk/first_hour.mk mk/hccl_headers.mk mk/hccl.mk mk/hccl_netns.mk mk/bench_hccl.mk \
        mk/gpu_check.mk

.PHONY: all test bench clean

all: deps check $(foreach v,$(VARIANTS),$(addprefix $(BUILD)/$(v)/,$(TESTS))) examples

test: $(TEST_STEPS)
	@echo "make test: all passed"

# make bench: the benchmark harness on the host backend (QUICK=1: a short run), then the HCCL
# benchmark under mpirun (bench-hccl; skipped without MPI).
# make bench BACKEND=cuda: the cuda backend next to the raw driver (bench/cuda/cuda_bench.c), on
# libcuda.so.1, or on the file ACLRT_CUDA_LIBRARY names (the test double: the figures then only
# say that it runs).
bench: deps-bench
ifeq ($(BACKEND),cuda)
	@$(MAKE) --no-print-directory bench-cuda
else
	@$(MAKE) --no-print-directory bench-run
	@$(MAKE) --no-print-directory bench-hccl
endif

clean: clean-python
	rm -rf $(BUILD) dist

.PRECIOUS: $(BUILD)/%/impl.o
.SECONDARY:

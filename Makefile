# aclrt - the AscendCL runtime API (streams, events, synchronization), header-only.
#
# The two commands of the README:
#   make test    installs missing packages (as root), builds and runs the whole
#                suite: normal, ThreadSanitizer, AddressSanitizer+UBSan,
#                against the one-file dist/aclrt.h, and with external progress
#                (no runtime threads); the layering check; examples; install check
#   make bench   builds and runs the benchmark harness, prints the table
#                (QUICK=1: the short run that make test smoke-checks)
#
# Other targets:
#   make             library checks (gcc and clang, C11 and C++17), tests, examples
#   make dist        dist/aclrt.h: the whole library as one header
#   make install     PREFIX=/usr/local: headers, aclrt.pc for pkg-config, and
#                    the CANN package's shape: include/acl/..., the
#                    implementation as lib64/libascendcl.so, and a CMake
#                    package (find_package(aclrt): target aclrt::aclrt)
#   pip install --no-build-isolation .   the acl Python module (pyproject.toml)
#   make soak        a bounded reliability run (SOAK_SECONDS=60, SOAK_VARIANT=release|tsan|asan)
#   make test-reliability   tests/test_reliability.c in release, tsan and asan
#   make deps        install (as root) or name the Debian packages needed
#   make check-layering  no dependency cycle between the files of impl/ and
#                    backends/, no concrete backend included from impl/
#                    (scripts/check_layering.py; its own tests run first)
#   make clean

SHELL := /bin/bash
.DEFAULT_GOAL := all

CC := gcc
CXX := g++
CLANG := clang
CLANGXX := clang++
PREFIX ?= /usr/local
BUILD := build

WARN := -Wall -Wextra -Wshadow -Wno-unused-function
CSTD := -std=c11
CXXSTD := -std=c++17
LIBS := -lck -lurcu-cds -lurcu-bp -lurcu-common -lpthread -lm -ldl

# Kernels the tests load as binaries (tests/kernels/*.c -> build/kernels/lib*.so); the tests find them
# through their absolute directory, compiled in, from any working directory.
KERNEL_DIR := $(abspath $(BUILD))/kernels
TEST_KERNELS := $(patsubst tests/kernels/%.c,$(BUILD)/kernels/lib%.so,$(wildcard tests/kernels/*.c))
KERNEL_FLAGS := -DACLRT_TEST_KERNEL_DIR='"$(KERNEL_DIR)"'

# Build variants of the test suite.
VARIANTS := release tsan asan dist external cuda cuda-tsan cuda-asan
FLAGS_release := -O2 -g -I.
# The same tests with external progress: no runtime threads, test threads drive the devices.
FLAGS_external := -O2 -g -I.
IMPL_SRC_external := tests/impl_external.c
# test_embed drives progress by hand: the external configuration's driver threads would too.
# test_reliability runs each case in a forked child, which has no driver thread.
TESTS_external = $(filter-out test_embed test_reliability,$(TESTS))
FLAGS_tsan := -O1 -g -fsanitize=thread -Wno-tsan -I.
FLAGS_asan := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all -I.
FLAGS_dist := -O2 -g -I$(BUILD)/dist-include

# The same tests on the cuda backend (tests/impl_cuda.c), through the CUDA
# driver test double of tests/cuda_fake/, built per variant with its flags:
# cuda, cuda-tsan and cuda-asan in make test.
# make test BACKEND=cuda adds the variant gpu: the suite on the machine's
# GPUs, through libcuda.so.1 (docs/CUDA.md).
CUDA_VARIANTS := cuda cuda-tsan cuda-asan
FLAGS_cuda := $(FLAGS_release)
FLAGS_cuda-tsan := $(FLAGS_tsan)
FLAGS_cuda-asan := $(FLAGS_asan)
FLAGS_gpu := $(FLAGS_release)
IMPL_SRC_gpu := tests/impl_cuda.c
# Not on the cuda backend:
#   test_sysinfo, test_bad_input: assert the backend's name and SoC name ("host", "aclrt-host");
#   test_embed: registers backends, which run on the host backend's machinery, and selects them by name.
TESTS_CUDA = $(filter-out test_sysinfo test_bad_input test_embed,$(TESTS))
# On a GPU, not test_kernel either: its binaries are host shared objects, which only the test
# double loads (its stand-in for a module); a GPU's driver loads cubins, fatbins and PTX.
TESTS_gpu = $(filter-out test_kernel,$(TESTS_CUDA))
define cuda_variant
IMPL_SRC_$(1) := tests/impl_cuda.c
IMPL_DEPS_$(1) := $(BUILD)/$(1)/libcuda_fake.so
IMPL_DEFS_$(1) := -DACLRT_TEST_CUDA_LIBRARY='"$(CURDIR)/$(BUILD)/$(1)/libcuda_fake.so"'
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
ifeq ($(BACKEND),cuda)
VARIANTS += gpu
endif

export TSAN_OPTIONS ?= halt_on_error=1 second_deadlock_stack=1
export ASAN_OPTIONS ?= detect_leaks=1 abort_on_error=1
export UBSAN_OPTIONS ?= print_stacktrace=1 halt_on_error=1

SOURCES := aclrt.h $(wildcard acl/*.h acl/*/*.h impl/*.h impl/*/*.h backends/*.h backends/*/*.h)
TESTS := $(patsubst tests/%.c,%,$(wildcard tests/test_*.c))
EXAMPLES := $(patsubst examples/%.c,%,$(wildcard examples/*.c))

# Debian packages: for the test suite, and in addition for the benchmark plots.
TEST_PKGS := gcc g++ clang make libck-dev libjsmn-dev liburcu-dev python3 python3-dev pkg-config cmake \
             python3-venv python3-setuptools python3-wheel
BENCH_PKGS := $(TEST_PKGS) gnuplot-nox

.PHONY: all test bench deps deps-bench dist install check check-headers check-layering examples clean \
        $(addprefix test-,$(VARIANTS)) test-cpp test-install test-negative test-pip-install \
        soak soak-coverage test-soak-short test-reliability test-cuda-decls test-cuda-no-gpu

all: deps check $(foreach v,$(VARIANTS),$(addprefix $(BUILD)/$(v)/,$(TESTS))) examples

# ---------------------------------------------------------------------------
# deps: install what is missing when root, otherwise print the exact command.
define install_pkgs
	@missing=""; for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "deps: installing$$missing"; \
	    DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null || exit 1; \
	  else \
	    echo "deps: missing packages. Run:"; echo "  sudo apt-get install -y$$missing"; exit 1; \
	  fi; \
	fi
endef

deps:
	$(call install_pkgs,$(TEST_PKGS))

deps-bench:
	$(call install_pkgs,$(BENCH_PKGS))

# ---------------------------------------------------------------------------
# dist: the one-file header, plus acl/ compat headers next to it for tests.
dist: dist/aclrt.h

dist/aclrt.h: $(SOURCES) scripts/amalgamate.py
	python3 scripts/amalgamate.py aclrt.h $@

$(BUILD)/dist-include/aclrt.h: dist/aclrt.h
	@mkdir -p $(BUILD)/dist-include/acl/error_codes
	cp dist/aclrt.h $@
	cp acl/*.h $(BUILD)/dist-include/acl/
	cp acl/error_codes/*.h $(BUILD)/dist-include/acl/error_codes/

# ---------------------------------------------------------------------------
# Test binaries: each tests/test_<capability>.c linked with the one
# implementation unit tests/impl.c, per variant. Each program runs bounded:
# past TEST_TIMEOUT seconds its threads' stacks are printed and it fails.
TEST_TIMEOUT ?= 300
BOUNDED := scripts/run_bounded.sh $(TEST_TIMEOUT)
define variant_rules
$(BUILD)/$(1)/impl.o: $(or $(IMPL_SRC_$(1)),tests/impl.c) $(SOURCES) $(if $(filter dist,$(1)),$(BUILD)/dist-include/aclrt.h) \
    $(IMPL_DEPS_$(1))
	@mkdir -p $$(@D)
	$(CC) $(CSTD) $(WARN) -Werror $(FLAGS_$(1)) $(IMPL_DEFS_$(1)) -c $$< -o $$@

$(BUILD)/$(1)/%: tests/%.c $(wildcard tests/*.h) $(BUILD)/$(1)/impl.o $(TEST_KERNELS)
	$(CC) $(CSTD) $(WARN) -Werror $(FLAGS_$(1)) $(KERNEL_FLAGS) $$< $(BUILD)/$(1)/impl.o -o $$@ $(LIBS) -lm

test-$(1): $(addprefix $(BUILD)/$(1)/,$(or $(TESTS_$(1)),$(TESTS)))
	@echo "== $(1) =="
	@for t in $(or $(TESTS_$(1)),$(TESTS)); do $(BOUNDED) ./$(BUILD)/$(1)/$$$$t || exit 1; done
endef
$(foreach v,$(sort $(VARIANTS) $(CUDA_VARIANTS) gpu),$(eval $(call variant_rules,$(v))))

# The CUDA driver test double, as a shared library per variant (instrumented like the tests).
$(BUILD)/%/libcuda_fake.so: tests/cuda_fake/fake_cuda.c
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) -Werror $(FLAGS_$*) -fPIC -shared -fvisibility=hidden $< -o $@ -lpthread -ldl

# The cuda backend's own declarations of the driver (backends/cuda_driver.h) against the toolkit's
# cuda.h: compiled and run where cuda.h is installed (CUDA_INCLUDE), said to be skipped otherwise.
CUDA_INCLUDE ?= $(firstword $(wildcard /usr/local/cuda/include) $(patsubst %/cuda.h,%,$(wildcard /usr/include/cuda.h)))

# The cuda backend where it cannot run: no driver file, no GPU, cuInit failing (tests/cuda_fake/no_gpu.c).
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

# The test kernels: plain shared objects (not instrumented), one build for every variant.
$(BUILD)/kernels/lib%.so: tests/kernels/%.c aclrt.h
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) -Werror -O2 -fPIC -shared -I. $< -o $@

# A C++17 ACL-style program builds unchanged against acl/acl.h.
$(BUILD)/release/cpp_program: tests/cpp_program.cpp $(BUILD)/release/impl.o $(SOURCES)
	$(CXX) $(CXXSTD) $(WARN) -Werror -O2 -I. $< $(BUILD)/release/impl.o -o $@ $(LIBS)

test-cpp: $(BUILD)/release/cpp_program
	@echo "== C++ program =="
	@./$(BUILD)/release/cpp_program
	@if $(CXX) $(CXXSTD) -I. -c tests/cpp_impl_error.cpp -o /dev/null 2>$(BUILD)/cpp_impl_error.log; then \
	  echo "FAIL: defining ACLRT_IMPLEMENTATION in C++ compiled"; exit 1; \
	elif grep -q "implementation is C11" $(BUILD)/cpp_impl_error.log; then \
	  echo "C++ translation unit with ACLRT_IMPLEMENTATION: clear #error (ok)"; \
	else cat $(BUILD)/cpp_impl_error.log; exit 1; fi

# ThreadSanitizer must still report a race planted in code like ours.
test-negative: $(BUILD)/tsan/impl.o
	@$(CC) $(CSTD) $(FLAGS_tsan) tests/tsan_negative.c $(BUILD)/tsan/impl.o -o $(BUILD)/tsan/tsan_negative $(LIBS)
	@if TSAN_OPTIONS="halt_on_error=0 exitcode=66" ./$(BUILD)/tsan/tsan_negative >$(BUILD)/tsan_negative.log 2>&1; then \
	  echo "FAIL: ThreadSanitizer missed the planted race"; exit 1; \
	elif grep -q "data race" $(BUILD)/tsan_negative.log; then \
	  echo "ThreadSanitizer negative check: planted race reported (ok)"; \
	else cat $(BUILD)/tsan_negative.log; exit 1; fi

# make install into a scratch prefix, then build ACL programs against it the
# three ways a program's build does: pkg-config (header-only), the CANN
# package's paths (-I$PREFIX/include -L$PREFIX/lib64 -lascendcl), and CMake's
# find_package(aclrt) (tests/install).
test-install: dist
	@rm -rf $(BUILD)/prefix $(BUILD)/prefix-cmake
	@$(MAKE) --no-print-directory install PREFIX=$(CURDIR)/$(BUILD)/prefix >/dev/null
	@PKG_CONFIG_PATH=$(BUILD)/prefix/lib/pkgconfig; export PKG_CONFIG_PATH; \
	  printf '#define ACLRT_IMPLEMENTATION\n#include "aclrt.h"\n' > $(BUILD)/prefix/impl.c; \
	  $(CC) $(CSTD) -O2 $$(pkg-config --cflags aclrt) -c $(BUILD)/prefix/impl.c -o $(BUILD)/prefix/impl.o && \
	  $(CXX) $(CXXSTD) -O2 $$(pkg-config --cflags aclrt) tests/cpp_program.cpp $(BUILD)/prefix/impl.o \
	    -o $(BUILD)/prefix/cpp_program $$(pkg-config --libs aclrt) && ./$(BUILD)/prefix/cpp_program >/dev/null && \
	  echo "make install + pkg-config aclrt: an ACL C++ program builds and runs (ok)"
	@test -f $(BUILD)/prefix/include/acl/acl.h && test -f $(BUILD)/prefix/include/acl/error_codes/rt_error_codes.h
	@$(CXX) $(CXXSTD) -O2 -I$(BUILD)/prefix/include tests/cpp_program.cpp -o $(BUILD)/prefix/cann_program \
	    -L$(BUILD)/prefix/lib64 -lascendcl && \
	  LD_LIBRARY_PATH=$(CURDIR)/$(BUILD)/prefix/lib64 ./$(BUILD)/prefix/cann_program >/dev/null && \
	  echo "make install, CANN layout: -I\$$PREFIX/include -L\$$PREFIX/lib64 -lascendcl builds and runs (ok)"
	@cmake -S tests/install -B $(BUILD)/prefix-cmake -DCMAKE_PREFIX_PATH=$(CURDIR)/$(BUILD)/prefix \
	    -DCMAKE_CXX_COMPILER=$(CXX) >$(BUILD)/prefix-cmake.log 2>&1 && \
	  cmake --build $(BUILD)/prefix-cmake >>$(BUILD)/prefix-cmake.log 2>&1 && \
	  ./$(BUILD)/prefix-cmake/cpp_program >/dev/null && \
	  echo "make install + CMake find_package(aclrt), target aclrt::aclrt: builds and runs (ok)" || \
	  { cat $(BUILD)/prefix-cmake.log; exit 1; }

# pip install . (pyproject.toml, setup.py) into a scratch virtual environment,
# with the setuptools and wheel already installed (no build isolation, no
# index), then import the module from outside the tree and run a host function.
# PIP_PYTHON: the first of $(PYTHON) and /usr/bin/python3 that has them and Python.h.
PIP_PYTHON ?= $(shell for p in $(PYTHON) /usr/bin/python3; do \
  $$p -c 'import os, setuptools, sysconfig, wheel; assert os.path.exists(sysconfig.get_paths()["include"] + "/Python.h")' \
  >/dev/null 2>&1 && { echo $$p; break; }; done)

test-pip-install:
	@test -n "$(PIP_PYTHON)" || { echo "test-pip-install: no python3 with setuptools, wheel and Python.h; Debian:"; \
	  echo "  apt-get install -y python3-dev python3-venv python3-setuptools python3-wheel"; exit 1; }
	@rm -rf $(BUILD)/venv && mkdir -p $(BUILD) && $(PIP_PYTHON) -m venv --system-site-packages $(BUILD)/venv
	@$(BUILD)/venv/bin/python -m pip install --no-build-isolation --no-index . >$(BUILD)/pip-install.log 2>&1 || \
	  { cat $(BUILD)/pip-install.log; exit 1; }
	@cd $(BUILD) && ./venv/bin/python -c 'import acl; \
	  assert "site-packages" in acl.__file__, acl.__file__; \
	  seen = []; acl.init(); acl.rt.set_device(0); stream, ret = acl.rt.create_stream(); \
	  assert acl.rt.launch_host_func(stream, seen.append, "ran") == 0; \
	  assert acl.rt.synchronize_stream(stream) == 0 and seen == ["ran"], seen; \
	  acl.rt.destroy_stream(stream); acl.rt.reset_device(0); acl.finalize()' && \
	  echo "pip install --no-build-isolation . ($(PIP_PYTHON)): import acl runs a host function (ok)"

# ---------------------------------------------------------------------------
# Library checks: warning-free under gcc and clang; the API in C11 and C++17.
check: $(SOURCES)
	@mkdir -p $(BUILD)/check
	@printf '#include "acl/acl.h"\nint main(void){ aclrtStream s = 0; (void)s; return ACL_SUCCESS; }\n' > $(BUILD)/check/api.c
	@cp $(BUILD)/check/api.c $(BUILD)/check/api.cpp
	$(CC) $(CSTD) -pedantic $(WARN) -Werror -I. -c $(BUILD)/check/api.c -o /dev/null
	$(CLANG) $(CSTD) -pedantic $(WARN) -Werror -I. -c $(BUILD)/check/api.c -o /dev/null
	$(CXX) $(CXXSTD) $(WARN) -Werror -I. -c $(BUILD)/check/api.cpp -o /dev/null
	$(CLANGXX) $(CXXSTD) $(WARN) -Werror -I. -c $(BUILD)/check/api.cpp -o /dev/null
	$(CC) $(CSTD) $(WARN) -Werror -O2 -I. -c tests/impl.c -o /dev/null
	$(CLANG) $(CSTD) $(WARN) -Werror -O2 -I. -c tests/impl.c -o /dev/null
	$(CC) $(CSTD) -Wall -Wextra -Werror -O2 -I. -c tests/impl.c -o /dev/null
	$(CC) $(CSTD) -Wall -Wextra -Werror -O2 -DACLRT_STATIC -I. -c tests/impl.c -o /dev/null
	$(CLANG) $(CSTD) -Wall -Wextra -Werror -O2 -DACLRT_STATIC -I. -c tests/impl.c -o /dev/null

# Every header of impl/ and backends/ stands alone: a translation unit holding only
# `#include "<header>"` compiles warning-free. All are tried; the failures are listed.
IMPL_HEADERS = $(sort $(wildcard impl/*.h impl/*/*.h backends/*.h backends/*/*.h))
check-headers:
	@failed=""; for h in $(IMPL_HEADERS); do \
	  printf '#include "%s"\n' "$$h" | $(CC) $(CSTD) $(WARN) -Werror -fsyntax-only -I. -x c - \
	    >$(BUILD)/check-headers.log 2>&1 || { cat $(BUILD)/check-headers.log; failed="$$failed $$h"; }; \
	done; \
	if [ -n "$$failed" ]; then echo "check-headers: these do not compile on their own:$$failed"; exit 1; fi; \
	echo "check-headers: $(words $(IMPL_HEADERS)) headers compile on their own (ok)"

# Layering: the checker's tests on small fixture trees, then the real tree.
check-layering:
	python3 scripts/test_check_layering.py
	python3 scripts/check_layering.py

# ---------------------------------------------------------------------------
# examples/vector_add: main.c loads the binary of the backend in use: the host kernel built as a
# shared object, or (cuda) the .cu kernel compiled to a fatbin, when nvcc is installed (built
# here, run only on a machine with a GPU and a cuda backend).
NVCC ?= $(firstword $(shell command -v nvcc 2>/dev/null) $(wildcard /usr/local/cuda/bin/nvcc))
VECTOR_ADD_DIR := $(BUILD)/examples/vector_add
VECTOR_ADD := $(VECTOR_ADD_DIR)/vector_add $(VECTOR_ADD_DIR)/libvector_add.so \
              $(if $(NVCC),$(VECTOR_ADD_DIR)/vector_add.fatbin)

examples: $(addprefix $(BUILD)/examples/,$(EXAMPLES)) $(VECTOR_ADD)

$(BUILD)/examples/%: examples/%.c $(BUILD)/release/impl.o
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) -Werror -O2 -I. $< $(BUILD)/release/impl.o -o $@ $(LIBS) -lm

$(VECTOR_ADD_DIR)/vector_add: examples/vector_add/main.c $(BUILD)/release/impl.o
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) -Werror -O2 -I. -DVECTOR_ADD_DIR='"$(abspath $(VECTOR_ADD_DIR))"' $< \
	  $(BUILD)/release/impl.o -o $@ $(LIBS) -lm

$(VECTOR_ADD_DIR)/libvector_add.so: examples/vector_add/vector_add_host.c aclrt.h
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) -Werror -O2 -fPIC -shared -I. $< -o $@

$(VECTOR_ADD_DIR)/vector_add.fatbin: examples/vector_add/vector_add.cu
	@mkdir -p $(@D)
	$(NVCC) --fatbin $< -o $@

run-examples: examples $(BUILD)/cuda/libcuda_fake.so
	@echo "== examples =="
	@for e in $(EXAMPLES); do echo "-- $$e"; $(BOUNDED) ./$(BUILD)/examples/$$e || exit 1; done
	@echo "-- vector_add"; $(BOUNDED) ./$(VECTOR_ADD_DIR)/vector_add
	@echo "-- vector_add, cuda backend on the driver test double (its stand-in module: the host kernel)"; \
	  ACLRT_BACKEND=cuda ACLRT_CUDA_LIBRARY=$(CURDIR)/$(BUILD)/cuda/libcuda_fake.so \
	  ./$(VECTOR_ADD_DIR)/vector_add $(VECTOR_ADD_DIR)/libvector_add.so

# ---------------------------------------------------------------------------
test: deps check check-headers check-layering test-cuda-decls test-cuda-no-gpu $(addprefix test-,$(VARIANTS)) test-cpp test-negative test-install test-pip-install \
      run-examples bench-smoke
	@echo "make test: all passed"

# ---------------------------------------------------------------------------
# Reliability: tests/test_reliability.c (each case in a child process, killed
# and reported past its bound) in release, tsan and asan. Every variant runs;
# the target fails if any did.
RELIABILITY_VARIANTS := release tsan asan

test-reliability: $(addsuffix /test_reliability,$(addprefix $(BUILD)/,$(RELIABILITY_VARIANTS)))
	@status=0; for v in $(RELIABILITY_VARIANTS); do echo "== reliability ($$v) =="; \
	  ./$(BUILD)/$$v/test_reliability || status=1; done; exit $$status

# make soak: a bounded reliability run of the programs in tests/soak/ (random
# mixed work on many threads and streams, invariants checked as it runs, an
# API fuzzer, lifetime races, exhaustion, fork and signals, timeout
# accuracy; a watchdog ends a hung run with status 2). SOAK_SECONDS (60) long,
# release by default; SOAK_VARIANT=tsan|asan builds it with the sanitizer
# flags above. SOAK_SEED, SOAK_SKIP, SOAK_ONLY, ... : tests/soak/main.c.
SOAK_SECONDS ?= 60
SOAK_VARIANT ?= release
SOAK_SOURCES := $(wildcard tests/soak/*.c)
SOAK_VARIANTS := release tsan asan
# The short form runs in `make test` (SOAK_IN_TEST=0 leaves it out).
SOAK_IN_TEST ?= 1
SOAK_TEST_SECONDS ?= 5

define soak_rules
$(BUILD)/$(1)/soak: $(SOAK_SOURCES) tests/soak/soak.h $(BUILD)/$(1)/impl.o $(TEST_KERNELS)
	@mkdir -p $$(@D)
	$(CC) $(CSTD) $(WARN) -Werror $(FLAGS_$(1)) $(KERNEL_FLAGS) $(SOAK_SOURCES) $(BUILD)/$(1)/impl.o -o $$@ $(LIBS) -lm
endef
$(foreach v,$(SOAK_VARIANTS),$(eval $(call soak_rules,$(v))))

# Every function aclrt.h declares must be named in the fuzzer.
soak-coverage:
	@missing=""; for f in $$(grep -o 'ACLRT_API [^;]*(' aclrt.h | sed 's/.*[ *]\([A-Za-z0-9_]*\)($$/\1/'); do \
	  grep -q "\"$$f\"" tests/soak/fuzz.c || missing="$$missing $$f"; done; \
	if [ -n "$$missing" ]; then echo "soak: tests/soak/fuzz.c does not exercise:$$missing"; exit 1; fi

soak: deps soak-coverage $(BUILD)/$(SOAK_VARIANT)/soak
	@echo "== soak ($(SOAK_VARIANT), $(SOAK_SECONDS) s) =="
	@SOAK_SECONDS=$(SOAK_SECONDS) timeout -k 10 $$(( $(SOAK_SECONDS) + 900 )) ./$(BUILD)/$(SOAK_VARIANT)/soak

test-soak-short: soak-coverage $(addsuffix /soak,$(addprefix $(BUILD)/,$(SOAK_VARIANTS)))
	@for v in $(SOAK_VARIANTS); do echo "== soak ($$v, $(SOAK_TEST_SECONDS) s) =="; \
	  SOAK_SECONDS=$(SOAK_TEST_SECONDS) timeout -k 10 $$(( $(SOAK_TEST_SECONDS) + 900 )) ./$(BUILD)/$$v/soak \
	    > $(BUILD)/soak-$$v.log 2>&1 || { cat $(BUILD)/soak-$$v.log; exit 1; }; \
	  tail -n 3 $(BUILD)/soak-$$v.log; done

ifeq ($(SOAK_IN_TEST),1)
test: test-soak-short
endif

# ---------------------------------------------------------------------------
# python: the `acl` extension module (pyACL's interface, python/*.c), built
# against the aclrt.h of this tree for the python3 on PATH (PYTHON=...).
# Objects and the module go to python/build/; a copy of the module goes to
# the repository root, so that `python3 -c "import acl"` works there: a
# module file takes precedence over the acl/ header directory, which Python
# would otherwise import as an (empty) namespace package. Elsewhere: set
# PYTHONPATH=<this repo>/python/build, or make install-python.
PYTHON ?= python3
PY_INCLUDE = $(shell $(PYTHON) -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>/dev/null)
PY_EXT := $(shell $(PYTHON) -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))' 2>/dev/null)
PY_BUILD := python/build
PY_MODULE := $(PY_BUILD)/acl$(PY_EXT)
PY_OBJS := $(patsubst python/%.c,$(PY_BUILD)/%.o,$(wildcard python/*.c))
# Only PyInit_acl is exported: the runtime's symbols stay inside the module.
PY_CFLAGS = $(CSTD) $(WARN) -Werror -O2 -g -fPIC -fvisibility=hidden -I. -Ipython -I$(PY_INCLUDE)
PYTHON_SITE ?= $(shell $(PYTHON) -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])' 2>/dev/null)

.PHONY: python test-python install-python clean-python

python: acl$(PY_EXT)

$(PY_BUILD)/%.o: python/%.c $(wildcard python/*.h) $(SOURCES)
	@mkdir -p $(@D)
	@test -f $(PY_INCLUDE)/Python.h || { echo "python: no Python.h for $(PYTHON) (Debian: apt-get install python3-dev)"; exit 1; }
	$(CC) $(PY_CFLAGS) -c $< -o $@

$(PY_MODULE): $(PY_OBJS)
	$(CC) -shared $(PY_OBJS) -o $@ $(LIBS)

acl$(PY_EXT): $(PY_MODULE)
	cp $< $@

# unittest, run from python/build so that `import acl` is the module just built.
test-python: python $(TEST_KERNELS)
	@echo "== python (acl module) =="
	@cd $(PY_BUILD) && ACLRT_TEST_KERNEL_DIR=$(KERNEL_DIR) $(PYTHON) -m unittest discover -s $(CURDIR)/tests/python \
	  -t $(CURDIR)/tests/python

install-python: $(PY_MODULE)
	install -D -m 755 $(PY_MODULE) $(DESTDIR)$(PYTHON_SITE)/acl$(PY_EXT)

clean-python:
	rm -rf $(PY_BUILD) acl$(PY_EXT)

# make test and make clean include the python module.
test: test-python
clean: clean-python

# make bench: the benchmark harness on the host backend (QUICK=1: a short run).
# make bench BACKEND=cuda: the cuda backend next to the raw driver (bench/cuda/cuda_bench.c), on
# libcuda.so.1, or on the file ACLRT_CUDA_LIBRARY names (the test double: the figures then only
# say that it runs).
bench: deps-bench
ifeq ($(BACKEND),cuda)
	@$(MAKE) --no-print-directory bench-cuda
else
	@$(MAKE) --no-print-directory bench-run
endif

include bench/bench.mk

CUDA_BENCH := $(BUILD)/bench/aclrt-cuda-bench
# Its kernel: the test double's stand-in (a host shared object), or on a GPU a fatbin built by nvcc.
CUDA_BENCH_KERNEL = $(if $(ACLRT_CUDA_LIBRARY),$(BENCH_KERNEL),$(if $(NVCC),$(BUILD)/bench/cuda_nop.fatbin))

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

# make test: the cuda benchmark runs (quick) on the test double.
bench-cuda-smoke: $(CUDA_BENCH) $(BUILD)/cuda/libcuda_fake.so $(BENCH_KERNEL)
	@echo "== cuda benchmark smoke run (QUICK, test double) =="
	@ACLRT_CUDA_LIBRARY=$(CURDIR)/$(BUILD)/cuda/libcuda_fake.so $(CUDA_BENCH) --quick \
	  --kernel $(abspath $(BENCH_KERNEL)) --out $(BUILD)/bench/cuda-smoke.txt > $(BUILD)/bench/cuda-smoke.log 2>&1 || \
	  { cat $(BUILD)/bench/cuda-smoke.log; echo "FAIL: the cuda benchmark did not complete"; exit 1; }
	@cat $(BUILD)/bench/cuda-smoke.txt

test: bench-cuda-smoke
.PHONY: bench-cuda bench-cuda-smoke

# The implementation as a shared library, named as in a CANN package.
$(BUILD)/lib/libascendcl.so: scripts/ascendcl.c $(SOURCES)
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) -Werror -O2 -g -fPIC -shared -I. $< -o $@ -Wl,-soname,libascendcl.so $(LIBS)

ACLRT_VERSION := $(shell sed -n 's/^.define ACLRT_VERSION_[A-Z]* \([0-9]*\)$$/\1/p' aclrt.h | paste -sd. -)
empty :=
space := $(empty) $(empty)

install: dist $(BUILD)/lib/libascendcl.so
	install -d $(DESTDIR)$(PREFIX)/include/acl/error_codes $(DESTDIR)$(PREFIX)/lib/pkgconfig \
	  $(DESTDIR)$(PREFIX)/lib64 $(DESTDIR)$(PREFIX)/lib/cmake/aclrt
	install -m 644 dist/aclrt.h $(DESTDIR)$(PREFIX)/include/aclrt.h
	install -m 644 acl/*.h $(DESTDIR)$(PREFIX)/include/acl/
	install -m 644 acl/error_codes/*.h $(DESTDIR)$(PREFIX)/include/acl/error_codes/
	install -m 755 $(BUILD)/lib/libascendcl.so $(DESTDIR)$(PREFIX)/lib64/libascendcl.so
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBS@|$(LIBS)|' scripts/aclrt.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/aclrt.pc
	sed -e 's|@VERSION@|$(ACLRT_VERSION)|' -e 's|@CMAKE_LIBS@|$(subst $(space),;,$(patsubst -l%,%,$(LIBS)))|' \
	  scripts/aclrtConfig.cmake.in > $(DESTDIR)$(PREFIX)/lib/cmake/aclrt/aclrtConfig.cmake
	sed -e 's|@VERSION@|$(ACLRT_VERSION)|' scripts/aclrtConfigVersion.cmake.in \
	  > $(DESTDIR)$(PREFIX)/lib/cmake/aclrt/aclrtConfigVersion.cmake

clean:
	rm -rf $(BUILD) dist

.PRECIOUS: $(BUILD)/%/impl.o
.SECONDARY:

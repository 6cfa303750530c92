# mk/deps.mk - the Debian packages the build needs.
#
#   make deps         the packages of the test suite
#   make deps-bench   and gnuplot-nox for the benchmark's plots
#
# As root, the missing ones are installed (apt-get); otherwise the exact apt-get line is printed
# and make stops.

# Open MPI: the launcher and headers of MPI programs built against make install (HCCL's tests).
TEST_PKGS := gcc g++ clang make libck-dev libjsmn-dev liburcu-dev python3 python3-dev pkg-config cmake \
             python3-venv python3-setuptools python3-wheel openmpi-bin libopenmpi-dev
BENCH_PKGS := $(TEST_PKGS) gnuplot-nox

.PHONY: deps deps-bench

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

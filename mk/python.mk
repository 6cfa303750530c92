# mk/python.mk - the `acl` extension module (pyACL's interface, python/*.c), for CPython 3.10+.
#
#   make python             builds python/build/acl<EXT_SUFFIX> for PYTHON (python3 on PATH; make
#                           python PYTHON=python3.12 for another) against the aclrt.h of this tree,
#                           and copies it to the repository root, so that `python3 -c "import acl"`
#                           works there: a module file takes precedence over the acl/ header
#                           directory, which Python would otherwise import as an (empty) namespace
#                           package. Elsewhere: PYTHONPATH=<this repo>/python/build, or:
#   make install-python     into PYTHON's site-packages (PYTHON_SITE=dir; DESTDIR honoured)
#   make test-python        the unittest suite of tests/python/ against the module just built
#   make test-pip-install   pip install --no-build-isolation . (pyproject.toml, setup.py) into a
#                           scratch virtual environment, then import acl from outside the tree
#
# The objects of each interpreter go to their own directory (python/build/<EXT_SUFFIX's tag>/),
# so that building for another one compiles again, and the modules of several sit side by side.

PYTHON ?= python3
PY_INCLUDE = $(shell $(PYTHON) -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>/dev/null)
PY_EXT := $(shell $(PYTHON) -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))' 2>/dev/null)
PY_VERSION_OK := $(shell $(PYTHON) -c 'import sys; print(int(sys.version_info >= (3, 10)))' 2>/dev/null)
PY_BUILD := python/build
# .cpython-311-x86_64-linux-gnu.so -> python/build/cpython-311-x86_64-linux-gnu
PY_OBJ_DIR := $(PY_BUILD)/$(patsubst .%,%,$(basename $(PY_EXT)))
PY_MODULE := $(PY_BUILD)/acl$(PY_EXT)
PY_OBJS := $(patsubst python/%.c,$(PY_OBJ_DIR)/%.o,$(wildcard python/*.c))
# Only PyInit_acl is exported: the runtime's symbols stay inside the module.
PY_CFLAGS = $(CSTD) $(WARN) -Werror -O2 -g -fPIC -fvisibility=hidden -I. -Ipython -I$(PY_INCLUDE)
PYTHON_SITE ?= $(shell $(PYTHON) -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])' 2>/dev/null)

.PHONY: python python-interpreter test-python install-python clean-python test-pip-install

python: acl$(PY_EXT)

# Says what is missing before anything is compiled: an interpreter that runs, 3.10 or later,
# its Python.h.
python-interpreter:
	@test -n "$(PY_EXT)" || { echo "python: $(PYTHON) does not run (make python PYTHON=<a python3>)"; exit 1; }
	@test "$(PY_VERSION_OK)" = 1 || { echo "python: $(PYTHON) is older than 3.10, which the acl module needs"; exit 1; }
	@test -f $(PY_INCLUDE)/Python.h || { echo "python: no Python.h for $(PYTHON) (Debian: apt-get install python3-dev)"; exit 1; }

$(PY_OBJ_DIR)/%.o: python/%.c $(wildcard python/*.h) $(SOURCES) | python-interpreter
	@mkdir -p $(@D)
	$(CC) $(PY_CFLAGS) -c $< -o $@

$(PY_MODULE): $(PY_OBJS) | python-interpreter
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

# The copies at the root, of every interpreter built for.
clean-python:
	rm -rf $(PY_BUILD) $(sort acl$(PY_EXT) $(wildcard acl.*.so))

# pip install . with the setuptools and wheel already installed (no build isolation, no index),
# as the README says: a virtual environment that sees the system's packages. PIP_PYTHON: the
# first of $(PYTHON) and /usr/bin/python3 that has setuptools, wheel and Python.h.
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

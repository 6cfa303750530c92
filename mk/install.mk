# mk/install.mk - the one-file header, the shared library, and make install.
#
#   make dist           dist/aclrt.h: the whole library as one header
#   make install        into PREFIX (/usr/local; DESTDIR honoured):
#                         include/aclrt.h (dist/aclrt.h), include/acl/... (the CANN package's headers)
#                         lib64/libascendcl.so     the implementation as a shared library (CANN's path)
#                         lib64/libacl_rt.so, libhccl.so, libmsprofiler.so, libacl_tdt_channel.so, libacl_tdt_queue.so, libprofapi.so
#                                                  links to it: CANN's other library names, so a program
#                                                  linked with -lacl_rt -lhccl -lmsprofiler loads one
#                                                  library (its soname, libascendcl.so)
#                         include/hccl/            the hccl/ headers, once the tree has them
#                         lib64/libaclrt_hccl_mpi.so
#                                                  the MPI engine of HCCL (mk/hccl.mk), where mpicc is
#                                                  installed: the runtime opens it next to itself
#                         lib/libascendcl.so       a link to it, where the system's linker and loader look
#                         lib/pkgconfig/aclrt.pc   pkg-config: the header-only form and its dependencies
#                         lib/cmake/aclrt/         find_package(aclrt): aclrt::aclrt, aclrt::headers
#                         bin/setenv.bash, set_env.sh
#                                                  the environment script where CANN's package has it
#                                                  (ASCEND_HOME_PATH, ASCEND_INSTALL_PATH, lib64 on
#                                                  LD_LIBRARY_PATH; the samples' run.sh sources them)
#                       As root, without DESTDIR, into a PREFIX whose lib/ the loader searches
#                       (/usr/local on Debian), it runs ldconfig.
#   make test-install   install into $(BUILD)/prefix, then build and run programs against it the
#                       ways a program's build does: pkg-config, the CANN package's paths
#                       (-I$PREFIX/include -L$PREFIX/lib64 -lascendcl), CMake's find_package(aclrt)
#                       (tests/install), the loader's cache through lib/, and the other library
#                       names (-lhccl -lacl_rt -lmsprofiler: one NEEDED libascendcl.so; each loads);
#                       where the MPI engine was installed, an MPI program (tests/install/hccl_mpi.c)
#                       under mpirun: libascendcl.so opens the engine from its own folder; and
#                       lib64/libhccl.so through Python's ctypes as pyhccl uses it (tests/python/
#                       test_hccl_ctypes.py: four threads, one root info, ACLRT_DEVICES=4)
#                       and bin/setenv.bash (sourced, with set_env.sh: lib64/ once on LD_LIBRARY_PATH)

.PHONY: dist install test-install

dist: dist/aclrt.h

dist/aclrt.h: $(SOURCES) scripts/amalgamate.py
	python3 scripts/amalgamate.py aclrt.h $@

# The implementation as a shared library, named as in a CANN package.
$(BUILD)/lib/libascendcl.so: scripts/ascendcl.c $(SOURCES)
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) -Werror -O2 -g -fPIC -shared -I. $< -o $@ -Wl,-soname,libascendcl.so $(LIBS)

# ldconfig: in /sbin, which a user's PATH on Debian does not name.
LDCONFIG ?= $(firstword $(wildcard /sbin/ldconfig /usr/sbin/ldconfig) ldconfig)
ACLRT_VERSION := $(shell sed -n 's/^.define ACLRT_VERSION_[A-Z]* \([0-9]*\)$$/\1/p' aclrt.h | paste -sd. -)
empty :=
space := $(empty) $(empty)

# CANN ships the runtime, HCCL and the profiler as libraries of their own; here one library has them
# all, under each name (links), with one soname so that a program loads it once.
LIB_ALIASES := libacl_rt.so libhccl.so libmsprofiler.so libacl_tdt_channel.so libacl_tdt_queue.so libprofapi.so
HCCL_HEADERS := $(wildcard hccl/*.h)
# The MPI engine (its rule: mk/hccl.mk), where there is an MPI compiler to build it.
MPICC ?= mpicc
HCCL_MPI_INSTALL := $(if $(shell command -v $(MPICC) 2>/dev/null),$(BUILD)/lib/libaclrt_hccl_mpi.so)

install: dist $(BUILD)/lib/libascendcl.so $(HCCL_MPI_INSTALL)
	install -d $(DESTDIR)$(PREFIX)/include/acl/error_codes $(DESTDIR)$(PREFIX)/lib/pkgconfig \
	  $(DESTDIR)$(PREFIX)/lib64 $(DESTDIR)$(PREFIX)/lib/cmake/aclrt
	install -m 644 dist/aclrt.h $(DESTDIR)$(PREFIX)/include/aclrt.h
	install -m 644 acl/*.h $(DESTDIR)$(PREFIX)/include/acl/
	install -m 644 acl/error_codes/*.h $(DESTDIR)$(PREFIX)/include/acl/error_codes/
	install -m 755 $(BUILD)/lib/libascendcl.so $(DESTDIR)$(PREFIX)/lib64/libascendcl.so
	for n in $(LIB_ALIASES); do ln -sfn libascendcl.so $(DESTDIR)$(PREFIX)/lib64/$$n; done
	$(if $(HCCL_MPI_INSTALL),install -m 755 $(HCCL_MPI_INSTALL) $(DESTDIR)$(PREFIX)/lib64/libaclrt_hccl_mpi.so)
	if [ -n "$(HCCL_HEADERS)" ]; then install -d $(DESTDIR)$(PREFIX)/include/hccl && \
	  install -m 644 $(HCCL_HEADERS) $(DESTDIR)$(PREFIX)/include/hccl/; fi
	ln -sfn ../lib64/libascendcl.so $(DESTDIR)$(PREFIX)/lib/libascendcl.so
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(ACLRT_VERSION)|' scripts/aclrt.pc.in \
	  > $(DESTDIR)$(PREFIX)/lib/pkgconfig/aclrt.pc
	install -d $(DESTDIR)$(PREFIX)/bin
	sed -e 's|@PREFIX@|$(PREFIX)|g' scripts/setenv.bash.in > $(DESTDIR)$(PREFIX)/bin/setenv.bash
	cp $(DESTDIR)$(PREFIX)/bin/setenv.bash $(DESTDIR)$(PREFIX)/set_env.sh
	sed -e 's|@VERSION@|$(ACLRT_VERSION)|' -e 's|@CMAKE_LIBS@|$(subst $(space),;,$(patsubst -l%,%,$(LIBS)))|' \
	  scripts/aclrtConfig.cmake.in > $(DESTDIR)$(PREFIX)/lib/cmake/aclrt/aclrtConfig.cmake
	sed -e 's|@VERSION@|$(ACLRT_VERSION)|' scripts/aclrtConfigVersion.cmake.in \
	  > $(DESTDIR)$(PREFIX)/lib/cmake/aclrt/aclrtConfigVersion.cmake
	@if [ -n "$(DESTDIR)" ]; then :; \
	elif [ "$$(id -u)" = 0 ] && $(LDCONFIG) -NXv 2>/dev/null | grep -q '^$(PREFIX)/lib:'; then \
	  $(LDCONFIG) && echo "install: ldconfig: the loader finds $(PREFIX)/lib/libascendcl.so"; \
	else \
	  echo "install: $(PREFIX)/lib is not on the loader's path: run programs with" \
	       "LD_LIBRARY_PATH=$(PREFIX)/lib64 (or link with -Wl,-rpath,$(PREFIX)/lib64)"; \
	fi

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
	@test "$$(env -u LD_LIBRARY_PATH bash -c '. $(BUILD)/prefix/bin/setenv.bash && . $(BUILD)/prefix/set_env.sh && \
	    echo "$$LD_LIBRARY_PATH"')" = "$(CURDIR)/$(BUILD)/prefix/lib64" && \
	  test -f $(BUILD)/prefix/include/acl/acl_tdt.h && test -L $(BUILD)/prefix/lib64/libacl_tdt_channel.so && \
	  echo "make install, CANN's samples' environment: bin/setenv.bash and set_env.sh put lib64/ on LD_LIBRARY_PATH once (ok)" || \
	  { echo "FAIL: \$$PREFIX/bin/setenv.bash, set_env.sh: lib64/ not (or twice) on LD_LIBRARY_PATH, or acl_tdt.h missing"; exit 1; }
	@$(CXX) $(CXXSTD) -O2 -I$(BUILD)/prefix/include tests/cpp_program.cpp -o $(BUILD)/prefix/cann_program \
	    -L$(BUILD)/prefix/lib64 -lascendcl && \
	  LD_LIBRARY_PATH=$(CURDIR)/$(BUILD)/prefix/lib64 ./$(BUILD)/prefix/cann_program >/dev/null && \
	  echo "make install, CANN layout: -I\$$PREFIX/include -L\$$PREFIX/lib64 -lascendcl builds and runs (ok)"
	@echo $(CURDIR)/$(BUILD)/prefix/lib > $(BUILD)/prefix/ld.so.conf && \
	  $(LDCONFIG) -X -C $(BUILD)/prefix/ld.so.cache -f $(BUILD)/prefix/ld.so.conf && \
	  $(LDCONFIG) -p -C $(BUILD)/prefix/ld.so.cache | grep -q 'libascendcl.so .*=> $(CURDIR)/$(BUILD)/prefix/lib/libascendcl.so$$' && \
	  $(CXX) $(CXXSTD) -O2 -I$(BUILD)/prefix/include tests/cpp_program.cpp -o $(BUILD)/prefix/lib_program \
	    -L$(BUILD)/prefix/lib -lascendcl && \
	  echo "make install, lib/libascendcl.so: ldconfig caches it, -L\$$PREFIX/lib -lascendcl links (ok)" || \
	  { echo "FAIL: \$$PREFIX/lib/libascendcl.so: not cached by ldconfig, or -lascendcl does not link"; exit 1; }
	@cmake -S tests/install -B $(BUILD)/prefix-cmake -DCMAKE_PREFIX_PATH=$(CURDIR)/$(BUILD)/prefix \
	    -DCMAKE_C_COMPILER=$(CC) -DCMAKE_CXX_COMPILER=$(CXX) >$(BUILD)/prefix-cmake.log 2>&1 && \
	  cmake --build $(BUILD)/prefix-cmake >>$(BUILD)/prefix-cmake.log 2>&1 && \
	  ./$(BUILD)/prefix-cmake/cpp_program >/dev/null && ./$(BUILD)/prefix-cmake/header_only >/dev/null && \
	  echo "make install + CMake find_package(aclrt), targets aclrt::aclrt and aclrt::headers: build and run (ok)" || \
	  { cat $(BUILD)/prefix-cmake.log; exit 1; }
	@$(CXX) $(CXXSTD) -O2 -I$(BUILD)/prefix/include tests/cpp_program.cpp -o $(BUILD)/prefix/names_program \
	    -L$(BUILD)/prefix/lib64 -lhccl -lacl_rt -lmsprofiler && \
	  LD_LIBRARY_PATH=$(CURDIR)/$(BUILD)/prefix/lib64 ./$(BUILD)/prefix/names_program >/dev/null && \
	  test "$$(readelf -d $(BUILD)/prefix/names_program | grep -c 'NEEDED.*\[lib\(ascendcl\|hccl\|acl_rt\|msprofiler\)')" = 1 && \
	  readelf -d $(BUILD)/prefix/names_program | grep -q 'NEEDED.*\[libascendcl\.so\]' && \
	  test -f $(BUILD)/prefix/include/acl/acl_prof.h && \
	  for n in libascendcl.so $(LIB_ALIASES); do \
	    python3 -c 'import ctypes, sys; ctypes.CDLL(sys.argv[1]).aclprofInit' $(CURDIR)/$(BUILD)/prefix/lib64/$$n || exit 1; \
	  done && \
	  echo "make install, CANN's other names: -lhccl -lacl_rt -lmsprofiler link one libascendcl.so; each name loads (ok)" || \
	  { echo "FAIL: libhccl.so, libacl_rt.so, libmsprofiler.so: do not link to one libascendcl.so, or do not load"; exit 1; }
	@if [ -n "$(HCCL_MPI_INSTALL)" ]; then \
	  test -f $(BUILD)/prefix/lib64/libaclrt_hccl_mpi.so && \
	  $(MPICC) $(CSTD) -O2 -I$(BUILD)/prefix/include tests/install/hccl_mpi.c -o $(BUILD)/prefix/hccl_mpi \
	    -L$(BUILD)/prefix/lib64 -lhccl -lacl_rt -Wl,--enable-new-dtags,-rpath,$(CURDIR)/$(BUILD)/prefix/lib64 && \
	  out=$$(env -u ACLRT_HCCL_MPI_PLUGIN -u LD_LIBRARY_PATH $(BOUNDED) $(MPIRUN) $(MPIRUN_FLAGS) -np 2 \
	    ./$(BUILD)/prefix/hccl_mpi) && \
	  test "$$out" = "engine: $$(readlink -f $(BUILD)/prefix/lib64/libaclrt_hccl_mpi.so)" && \
	  echo "make install, the MPI engine: libascendcl.so opens lib64/libaclrt_hccl_mpi.so next to itself (ok)" || \
	  { echo "FAIL: the installed runtime did not run HCCL across processes with the engine next to it: $$out"; \
	    exit 1; }; \
	else \
	  echo "make install: no $(MPICC): the MPI engine is not installed (its check skipped)"; \
	fi
	@cd tests/python && ACLRT_TEST_LIBHCCL=$(CURDIR)/$(BUILD)/prefix/lib64/libhccl.so \
	  python3 -m unittest test_hccl_ctypes >$(CURDIR)/$(BUILD)/prefix/hccl-ctypes.log 2>&1 && \
	  ! grep -q skipped $(CURDIR)/$(BUILD)/prefix/hccl-ctypes.log && \
	  echo "make install, libhccl.so through ctypes (pyhccl's calls): 4 threads, one root info, 4 devices (ok)" || \
	  { cat $(BUILD)/prefix/hccl-ctypes.log; echo "FAIL: \$$PREFIX/lib64/libhccl.so through ctypes"; exit 1; }

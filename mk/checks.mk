# mk/checks.mk - checks of the library's source, no test program run.
#
#   make check            warning-free under gcc and clang; the API in C11 and C++17; ACLRT_STATIC
#   make check-headers    every header of impl/ and backends/ compiles on its own
#   make check-layering   the include layering of impl/ and backends/ (scripts/check_layering.py;
#                         its own tests on small fixture trees run first)
#   make check-docs       the generated docs are current (docs/COVERAGE.md, the tree in
#                         docs/ARCHITECTURE.md) and every link and path in the docs resolves
#   make docs             regenerates them (after changing aclrt.h, or adding, moving or
#                         describing a header)
#   make coverage         per CANN header, how many of its functions aclrt implements, and which not

.PHONY: check check-headers check-layering check-docs docs coverage

coverage:
	@python3 scripts/gen_coverage.py --report

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

# A translation unit holding only `#include "<header>"` compiles warning-free. All are tried;
# the failures are listed.
# The MPI engine needs mpi.h: it is tried with the MPI compiler wrapper (MPICC, mk/hccl.mk).
MPI_HEADERS = impl/hccl/hccl_mpi.h
IMPL_HEADERS = $(sort $(filter-out $(MPI_HEADERS),$(wildcard impl/*.h impl/*/*.h backends/*.h backends/*/*.h)))
check-headers:
	@mkdir -p $(BUILD)
	@for h in $(MPI_HEADERS); do \
	  printf '#include "%s"\n' "$$h" | $(MPICC) $(CSTD) $(WARN) -Werror -fsyntax-only -I. -x c - || exit 1; \
	done
	@failed=""; for h in $(IMPL_HEADERS); do \
	  printf '#include "%s"\n' "$$h" | $(CC) $(CSTD) $(WARN) -Werror -fsyntax-only -I. -x c - \
	    >$(BUILD)/check-headers.log 2>&1 || { cat $(BUILD)/check-headers.log; failed="$$failed $$h"; }; \
	done; \
	if [ -n "$$failed" ]; then echo "check-headers: these do not compile on their own:$$failed"; exit 1; fi; \
	echo "check-headers: $(words $(IMPL_HEADERS)) headers compile on their own (ok)"

check-layering:
	python3 scripts/test_check_layering.py
	python3 scripts/check_layering.py

docs:
	python3 scripts/gen_coverage.py
	python3 scripts/gen_tree.py

check-docs:
	python3 scripts/gen_coverage.py --check
	python3 scripts/gen_tree.py --check
	python3 scripts/check_doc_links.py

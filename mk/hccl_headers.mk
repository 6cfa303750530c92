# mk/hccl_headers.mk - the HCCL headers' ABI: CANN's names, values, sizes and offsets.
#
#   make check-hccl-layout   each of hccl/hccl_types.h and hccl/hccl.h compiles on its own as C11
#                            (gcc -pedantic) and C++11 and C++17 (g++); tests/hccl/test_hccl_layout.c,
#                            built each of those three ways, runs and passes

HCCL_HEADERS := hccl/hccl_types.h hccl/hccl.h
HCCL_LAYOUT_WARN := -pedantic -Wall -Wextra -Werror
HCCL_LAYOUT_CXXSTDS := 11 17
HCCL_LAYOUT_PROGRAMS := $(BUILD)/hccl/layout_c11 $(addprefix $(BUILD)/hccl/layout_cxx,$(HCCL_LAYOUT_CXXSTDS))

.PHONY: check-hccl-layout

check-hccl-layout: $(HCCL_LAYOUT_PROGRAMS)
	@for h in $(HCCL_HEADERS); do \
	  printf '#include "%s"\n' "$$h" | $(CC) -std=c11 $(HCCL_LAYOUT_WARN) -fsyntax-only -I. -x c - || exit 1; \
	  for s in $(HCCL_LAYOUT_CXXSTDS); do \
	    printf '#include "%s"\n' "$$h" | $(CXX) -std=c++$$s $(HCCL_LAYOUT_WARN) -fsyntax-only -I. -x c++ - || exit 1; \
	  done; \
	done; \
	echo "check-hccl-layout: $(words $(HCCL_HEADERS)) headers compile on their own (ok)"
	@for p in $(HCCL_LAYOUT_PROGRAMS); do printf '%s: ' "$$p"; $$p || exit 1; done

# The one source, as C and as C++.
$(BUILD)/hccl/layout_c11: tests/hccl/test_hccl_layout.c $(HCCL_HEADERS) $(SOURCES)
	@mkdir -p $(@D)
	$(CC) -std=c11 $(HCCL_LAYOUT_WARN) -I. $< -o $@

$(BUILD)/hccl/layout_cxx%: tests/hccl/test_hccl_layout.c $(HCCL_HEADERS) $(SOURCES)
	@mkdir -p $(@D)
	$(CXX) -std=c++$* $(HCCL_LAYOUT_WARN) -I. -x c++ $< -x none -o $@

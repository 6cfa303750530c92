# mk/soak.mk - reliability runs.
#
#   make test-reliability   tests/test_reliability.c (each case in a child process, killed and
#                           reported past its bound) in release, tsan and asan; every variant
#                           runs, the target fails if any did
#   make soak               a bounded run of the programs in tests/soak/ (random mixed work on many
#                           threads and streams, invariants checked as it runs, an API fuzzer,
#                           lifetime races, exhaustion, fork and signals, timeout accuracy; a
#                           watchdog ends a hung run with status 2): SOAK_SECONDS (60) long,
#                           SOAK_VARIANT=release|tsan|asan (release); SOAK_SEED, SOAK_SKIP,
#                           SOAK_ONLY, ...: tests/soak/main.c
#   make test-soak-short    each variant SOAK_TEST_SECONDS (5) long; in make test unless SOAK_IN_TEST=0
#   make soak-coverage      every function aclrt.h declares is named in the fuzzer

SOAK_SECONDS ?= 60
SOAK_VARIANT ?= release
SOAK_SOURCES := $(wildcard tests/soak/*.c)
SOAK_VARIANTS := release tsan asan
SOAK_IN_TEST ?= 1
SOAK_TEST_SECONDS ?= 5
RELIABILITY_VARIANTS := release tsan asan

.PHONY: soak soak-coverage test-soak-short test-reliability

test-reliability: $(addsuffix /test_reliability,$(addprefix $(BUILD)/,$(RELIABILITY_VARIANTS)))
	@status=0; for v in $(RELIABILITY_VARIANTS); do echo "== reliability ($$v) =="; \
	  ./$(BUILD)/$$v/test_reliability || status=1; done; exit $$status

define soak_rules
$(BUILD)/$(1)/soak: $(SOAK_SOURCES) tests/soak/soak.h $(BUILD)/$(1)/impl.o $(TEST_KERNELS)
	@mkdir -p $$(@D)
	$(CC) $(CSTD) $(WARN) -Werror $(FLAGS_$(1)) $(KERNEL_FLAGS) $(SOAK_SOURCES) $(BUILD)/$(1)/impl.o -o $$@ $(LIBS) -lm
endef
$(foreach v,$(SOAK_VARIANTS),$(eval $(call soak_rules,$(v))))

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

# mk/examples.mk - the programs of examples/.
#
#   make examples       builds every example into $(BUILD)/examples/ (linked with the release
#                       variant's implementation unit; each example's first comment gives the
#                       one-line build of a fresh clone instead)
#   make run-examples   builds and runs them, vector_add also on the cuda backend's test double
#
# examples/vector_add: main.c loads the binary of the backend in use: the host kernel built as a
# shared object, or (cuda) the .cu kernel compiled to a fatbin, when nvcc is installed (built
# here, run only on a machine with a GPU and a cuda backend).

VECTOR_ADD_DIR := $(BUILD)/examples/vector_add
VECTOR_ADD := $(VECTOR_ADD_DIR)/vector_add $(VECTOR_ADD_DIR)/libvector_add.so \
              $(if $(NVCC),$(VECTOR_ADD_DIR)/vector_add.fatbin)

.PHONY: examples run-examples

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

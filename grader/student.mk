# Builds a student's driver: the student's files, compiled, linked with the kit's call table
# and driver. The grader runs it inside the sandbox, in a staging folder that holds only
#   student.mk  flags.mk (the compile commands)  include/ (the lab headers)
#   kit/ (the call table, the driver, the emulator's runtime)  emu/ (its headers and rewriter)
#   src/NN-name/FILE (the spliced student files)  out/ (what this writes)
# and nothing else of the kit: no kit sources, no solutions, no other student's files.
#
#   make -f student.mk LAB=02 SRCS=src/02-kogge-stone/kogge_stone.cu [devcheck]

include flags.mk
LAB  ?=
SRCS ?=
OUT  := out
DIR  := $(dir $(firstword $(SRCS)))
OBJS := $(foreach s,$(SRCS),$(OUT)/$(notdir $(s)).o)
BIN  := $(OUT)/lab$(LAB)_driver

.PHONY: driver devcheck
driver: $(BIN)

$(BIN): $(OBJS) $(wildcard kit/*.o)
	$(DRIVER_LINK) -o $@ $^ $(DRIVER_LIBS)

$(OUT):
	mkdir -p $@

$(OUT)/%.c.o: $(DIR)%.c | $(OUT)
	$(STUDENT_CC) -c $< -o $@

ifdef STUDENT_REWRITE
$(OUT)/%.cu.o: $(DIR)%.cu | $(OUT)
	$(STUDENT_REWRITE) $< $@.cpp && $(STUDENT_CXX) -c $@.cpp -o $@
else
$(OUT)/%.cu.o: $(DIR)%.cu | $(OUT)
	$(STUDENT_NVCC) -c $< -o $@
endif

# On emu, where nvcc is installed, the student's .cu files also go through nvcc's device
# compiler: a kernel that calls a host function fails here as it would on a GPU.
devcheck: $(if $(DEVCHECK),$(foreach s,$(filter %.cu,$(SRCS)),$(OUT)/$(notdir $(s)).ptx))
$(OUT)/%.cu.ptx: $(DIR)%.cu | $(OUT)
	$(DEVCHECK) $< -o $@

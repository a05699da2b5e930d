# Builds a student's driver: the student's files, compiled, linked with the kit's call table
# and driver. The grader runs it inside the sandbox, in a staging folder that holds only
#   student.mk  flags.mk (the compile commands)  include/ (the lab headers)
#   kit/ (the call table, the driver, the emulator's runtime)  emu/ (its headers and rewriter)
#   src/NN-name/FILE (the spliced student files)  out/ (what this writes)
# and nothing else of the kit: no kit sources, no solutions, no other student's files.
#
#   make -f student.mk LAB=02 SRCS=src/02-kogge-stone/kogge_stone.cu check
#   make -f student.mk LAB=02 SRCS=src/02-kogge-stone/kogge_stone.cu driver [devcheck]
#
# `check` runs first, alone: the real preprocessor reads the student's file as the compiler
# will, and grade.py checks what it read (grader/grading/codecheck.py) before anything is compiled.

include flags.mk
# Trigraphs off everywhere: an ISO mode (-std=c11) turns them on in C, so C builds in the
# matching GNU mode (C++17 has none).
STUDENT_CC := $(patsubst -std=c%,-std=gnu%,$(STUDENT_CC))
LAB  ?=
SRCS ?=
OUT  := out
DIR  := $(dir $(firstword $(SRCS)))
OBJS := $(foreach s,$(SRCS),$(OUT)/$(notdir $(s)).o)
BIN  := $(OUT)/lab$(LAB)_driver

.PHONY: driver devcheck check
driver: $(BIN)

$(BIN): $(OBJS) $(wildcard kit/*.o)
	$(DRIVER_LINK) -o $@ $^ $(DRIVER_LIBS) $(LAB_LIBS)

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

# ---- the source check ------------------------------------------------------------------------
# grade.py writes, for each student file F, check/F (the spliced file, each STUDENT marker
# replaced by a sentinel that check/marks.h defines), check/F.iso (the student regions alone,
# each at its own line numbers) and check/marks.h. Three runs of the preprocessor per file:
#   out/F.full.i   the spliced file with this backend's own compile flags (-dD: directives kept)
#   out/F.isod.i   the regions alone, nothing predefined, no include path (-dD)
#   out/F.isou.i   the same with -dU: each macro a region tests or expands, at its first use
# each with its messages in .err and its exit status in .rc. The recipe never fails: grade.py
# reads the statuses.
CHECK_FILES := $(notdir $(SRCS))
check: $(foreach f,$(CHECK_FILES),$(OUT)/$(f).full.i $(OUT)/$(f).isod.i $(OUT)/$(f).isou.i)

ifdef STUDENT_NVCC
CHECK_FULL_CU = $(STUDENT_NVCC) -E -Xcompiler -dD -include check/marks.h -x cu
else
CHECK_FULL_CU = $(STUDENT_CXX) -E -dD -include check/marks.h -x c++
endif
CHECK_FULL_C = $(STUDENT_CC) -E -dD -include check/marks.h -x c
# The regions alone are read with the same compiler and language standard as the build.
CHECK_CXX = $(if $(STUDENT_CXX),$(firstword $(STUDENT_CXX)),g++)
CHECK_ISO_CU = $(CHECK_CXX) $(firstword $(filter -std=%,$(STUDENT_CXX) $(STUDENT_NVCC)) -std=c++17) -x c++
CHECK_ISO_C = $(firstword $(STUDENT_CC)) $(filter -std=%,$(STUDENT_CC)) -x c
CHECK_ISO = -E -undef -nostdinc -Werror=undef -Werror=deprecated

# run OUTPUT COMMAND...: the output, its messages and its exit status, whatever happens (the
# output by redirection, not -o, which the compiler deletes when it fails: a run stopped at the
# sandbox's file size leaves what it wrote, for the check to see its size)
check_run = $(2) > $(1) 2> $(1).err; echo $$? > $(1).rc

$(OUT)/%.cu.full.i: check/%.cu | $(OUT)
	@$(call check_run,$@,$(CHECK_FULL_CU) $<)
$(OUT)/%.c.full.i: check/%.c | $(OUT)
	@$(call check_run,$@,$(CHECK_FULL_C) $<)
$(OUT)/%.cu.isod.i: check/%.cu.iso | $(OUT)
	@$(call check_run,$@,$(CHECK_ISO_CU) $(CHECK_ISO) -dD $<)
$(OUT)/%.cu.isou.i: check/%.cu.iso | $(OUT)
	@$(call check_run,$@,$(CHECK_ISO_CU) $(CHECK_ISO) -dU $<)
$(OUT)/%.c.isod.i: check/%.c.iso | $(OUT)
	@$(call check_run,$@,$(CHECK_ISO_C) $(CHECK_ISO) -dD $<)
$(OUT)/%.c.isou.i: check/%.c.iso | $(OUT)
	@$(call check_run,$@,$(CHECK_ISO_C) $(CHECK_ISO) -dU $<)

# Builds a lab's programs for one backend. The grader calls it twice, for two kinds of code:
#
# The kit's own programs, trusted (no student code; built once, kept under build/kit/):
#   make -f grader/grading/build.mk kit BACKEND=emu LAB=02 TEST_SRC=grader/trusted/tests/lab02_test.c \
#        CALLS_SRC=grader/trusted/tests/lab02_calls.cu
#     build/kit/tests/lab02_tests          the tests: inputs, references, checks, timing, verdicts
#     build/kit/BACKEND/lab02_calls.o      the lab's call table (what the driver may call)
#     build/kit/BACKEND/driver/*.o         the driver's main loop and device side
#     build/kit/BACKEND/scanlab-clean-driver   a driver without student code (the yardstick)
#     build/kit/cuda/libscanlab-trusted.so the tests' own device side on a GPU (hx_dev.cu):
#                                          buffers they own, inputs, checks on the device
#     build/kit/bin/scanlab-sandbox        the sandbox that fences off student code
#
#     build/kit/BACKEND/student/           what a student's build needs: the call table and the
#                                          driver's objects, the headers, the compile commands
#                                          (flags.mk) and grader/grading/student.mk, which builds it
#
# The student's driver, untrusted, is built by grader/grading/student.mk in a staging folder that the
# grader fills from build/kit/BACKEND/student/ and the spliced student files, inside the
# sandbox, as a user that can write only that folder and sees nothing else of the kit.
#
# BACKEND is cuda, emu or cpu (cpu: a lab without kernels, built with the host compiler alone).

BACKEND      ?= emu
SM           ?= 90
LAB          ?=
TEST_SRC     ?=
CALLS_SRC    ?=
STUDENT_SRCS ?=
OUT          ?= build/sub/$(BACKEND)/manual/lab$(LAB)

CC     ?= cc
CXX    ?= g++
NVCC   ?= nvcc
PYTHON ?= python3

KIT    := build/kit
KITB   := $(KIT)/$(BACKEND)

# CUnit: the system's, or one unpacked into .deps/root (see `make deps`). Only the tests use it.
CUNIT_ROOT := $(firstword $(wildcard .deps/root/usr/include/CUnit/CUnit.h))
ifneq ($(CUNIT_ROOT),)
CUNIT_INC := -I.deps/root/usr/include
CUNIT_LIB := .deps/root/usr/lib/x86_64-linux-gnu/libcunit.a
else
CUNIT_INC :=
CUNIT_LIB := $(firstword $(wildcard /usr/lib/*/libcunit.a /usr/lib/libcunit.a) -lcunit)
endif

KIT_WARN := -Wall -Wextra -Werror
# A student's warnings are shown, not fatal (the self-test holds the kit's files to zero).
STUDENT_WARN := -Wall -Wextra

.PHONY: kit driver sandbox
.DEFAULT_GOAL := kit

# ---- the tests (trusted; the same binary for every backend) -----------------------------------

TEST_INC  := -Igrader/trusted/harness -Ireference $(CUNIT_INC)
TEST_OBJS := $(patsubst %,$(KIT)/tests/obj/%.o,$(subst /,_,grader/trusted/harness/harness.c grader/trusted/harness/hx_call.c \
               grader/trusted/harness/hx_verify.c grader/trusted/harness/main.c $(wildcard reference/*.c)))
TEST_BIN  := $(KIT)/tests/lab$(LAB)_tests
TEST_HDRS := $(wildcard grader/trusted/harness/*.h reference/*.h)

$(KIT)/tests/obj/grader_trusted_harness_%.c.o: grader/trusted/harness/%.c $(TEST_HDRS) | $(KIT)/tests/obj
	$(CC) -std=gnu11 -O2 -g $(KIT_WARN) $(TEST_INC) -c $< -o $@
$(KIT)/tests/obj/reference_%.c.o: reference/%.c $(TEST_HDRS) | $(KIT)/tests/obj
	$(CC) -std=c11 -O2 -g $(KIT_WARN) $(TEST_INC) -c $< -o $@
$(KIT)/tests/obj/lab$(LAB)_test.o: $(TEST_SRC) $(TEST_HDRS) | $(KIT)/tests/obj
	$(if $(filter %.c,$(TEST_SRC)),$(CC) -std=c11,$(CXX) -std=c++17 -x c++) -O2 -g $(KIT_WARN) $(TEST_INC) -c $< -o $@
$(TEST_BIN): $(TEST_OBJS) $(KIT)/tests/obj/lab$(LAB)_test.o
	$(CXX) -o $@ $^ $(CUNIT_LIB) -lm -ldl
$(KIT)/tests/obj:
	mkdir -p $@

# ---- the sandbox --------------------------------------------------------------------------------

SANDBOX := $(KIT)/bin/scanlab-sandbox
$(SANDBOX): grader/trusted/harness/sandbox.c
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 $(KIT_WARN) $< -o $@
sandbox: $(SANDBOX)

# ---- the driver's kit parts, per backend -----------------------------------------------------

DRIVER_INC   := -Igrader/trusted/driver -Igrader/trusted/harness -Igrader/trusted/include
DRIVER_HDRS  := grader/trusted/driver/driver.h grader/trusted/harness/hx_proto.h $(wildcard grader/trusted/include/*.h)
CALLS_OBJ    := $(KITB)/lab$(LAB)_calls.o
# Lab 08's NCCL: the kit's stand-in and its route to NCCL itself (nccl_shim.h), beside the calls;
# and its driver linked with --wrap for each call that waits for the device, so that the call
# table counts the student's (lab08_calls.cu), the same way on every backend.
LAB08_WRAP   := cudaDeviceSynchronize cudaStreamSynchronize cudaEventSynchronize cudaMemset cudaMemcpyAsync
ifeq ($(LAB),08)
CALLS_OBJ    += $(KITB)/driver/nccl_shim.o $(KITB)/driver/nccl_process.o
LAB_LINK      = $(foreach f,$(LAB08_WRAP),$(if $(filter cuda,$(BACKEND)),-Xlinker --wrap=$(f),-Wl,--wrap=$(f)))
endif
CLEAN_DRIVER := $(KITB)/scanlab-clean-driver
$(KITB)/driver:
	mkdir -p $@

# The call thread's confinement (a seccomp filter), the same on every backend.
$(KITB)/driver/confine.o: grader/trusted/driver/confine.c $(DRIVER_HDRS) | $(KITB)/driver
	$(CC) -std=gnu11 -O2 -g $(KIT_WARN) $(DRIVER_INC) -c $< -o $@

ifeq ($(BACKEND),cpu)
DRIVER_OBJS := $(KITB)/driver/driver.o $(KITB)/driver/driver_host.o $(KITB)/driver/confine.o
$(KITB)/driver/driver.o $(KITB)/driver/driver_host.o: $(KITB)/driver/%.o: grader/trusted/driver/%.c $(DRIVER_HDRS) | $(KITB)/driver
	$(CC) -std=gnu11 -O2 -g $(KIT_WARN) $(DRIVER_INC) -c $< -o $@
$(KITB)/%_calls.o: grader/trusted/tests/%_calls.c $(DRIVER_HDRS) | $(KITB)/driver
	$(CC) -std=c11 -O2 -g $(KIT_WARN) $(DRIVER_INC) -c $< -o $@
LINK = $(CC) -o $@ $^ -lm -pthread
define FLAGS
STUDENT_CC = $(CC) -std=c11 -O2 -g $(STUDENT_WARN) -Iinclude
DRIVER_LINK = $(CC)
DRIVER_LIBS = -lm -pthread
endef
endif

# On emu the student's files are built with the memory probes (grader/emu/README.md): every
# launch of student code runs under the race detector, so a missing barrier fails under every
# schedule, and the efficiency tests read the launches' counters.
ifeq ($(BACKEND),emu)
include grader/emu/emu.mk
DRIVER_OBJS := $(KITB)/driver/driver.o $(KITB)/driver/driver_dev.o $(KITB)/driver/confine.o
EMU_COMPILE = $(EMU_CXX) $(EMU_CXXFLAGS) $(EMU_CPPFLAGS)
$(KITB)/driver/driver.o: grader/trusted/driver/driver.c $(DRIVER_HDRS) | $(KITB)/driver
	$(CC) -std=gnu11 -O2 -g $(KIT_WARN) $(DRIVER_INC) -c $< -o $@
$(KITB)/driver/driver_dev.o: grader/trusted/driver/driver_dev.cu $(DRIVER_HDRS) $(EMU_LIB) | $(KITB)/driver
	$(EMU_REWRITE) $< $@.cpp && $(EMU_COMPILE) $(KIT_WARN) $(DRIVER_INC) -c $@.cpp -o $@
$(KITB)/%_calls.o: grader/trusted/tests/%_calls.cu $(DRIVER_HDRS) $(EMU_LIB) grader/trusted/driver/nccl_shim.h | $(KITB)/driver
	$(EMU_REWRITE) $< $@.cpp && $(EMU_COMPILE) $(KIT_WARN) $(DRIVER_INC) -c $@.cpp -o $@
NCCL_HDRS := grader/trusted/driver/nccl_shim.h grader/trusted/driver/nccl_shim_internal.h
$(KITB)/driver/nccl_%.o: grader/trusted/driver/nccl_%.cu $(NCCL_HDRS) $(EMU_LIB) | $(KITB)/driver
	$(EMU_REWRITE) $< $@.cpp && $(EMU_COMPILE) $(KIT_WARN) $(DRIVER_INC) -c $@.cpp -o $@
LINK = $(EMU_CXX) $(EMU_CXXFLAGS) -o $@ $^ $(EMU_LIB) $(EMU_LDLIBS) $(EMU_FAST_LD) -lm
STUDENT_LIBS := $(EMU_LIB)
# A student's file is built for the student's loop, edit to result in seconds: line tables only
# (-g1: what the race detector's and the hang detector's file:line need; full debug information
# took 40 % of the compile), and nvcc's device pass without its optimiser (-G: the check that a
# kernel calls no host function is its front end's; 1.2 s instead of 4.2 s for lab 06), beside
# the compile (grade.py runs this make with -j2). Neither changes the code the probes count.
# STUDENT_OPT=-O1 (make test's quick build, grade.py) replaces -O2 for a first result sooner.
# The student kit holds scanlab_emu.h precompiled for these options (beside the header, where
# GCC looks first; it reads the header's text where the .gch does not fit, and for -E): the
# header was over half of a small lab's compile (lab 02's file, 0.64 s). A .gch keeps no
# `#pragma GCC diagnostic`: EMU_PRAGMA_FLAGS at the end does what the header's pragmas do.
define FLAGS
STUDENT_REWRITE = $(EMU_PYTHON) emu/cu2cpp.py
STUDENT_CXX = $(EMU_CXX) $(EMU_CXXFLAGS) -g1 $$(STUDENT_OPT) $(EMU_PROBE_FLAGS) -Iemu/include -include scanlab_emu.h $(STUDENT_WARN) -Iinclude $(EMU_PRAGMA_FLAGS)
DRIVER_LINK = $(EMU_CXX) $(EMU_CXXFLAGS)
DRIVER_LIBS = kit/$(notdir $(EMU_LIB)) $(EMU_LDLIBS) $(EMU_FAST_LD) -lm
DEVCHECK = $(if $(shell command -v $(NVCC)),$(NVCC) -G -std=c++17 -arch=sm_$(SM) -Iinclude --ptx)
endef
endif

ifeq ($(BACKEND),cuda)
NVCC_BASE = -O3 -lineinfo -std=c++17 -arch=sm_$(SM) -Xcompiler -Wall,-Wextra
DRIVER_OBJS := $(KITB)/driver/driver.o $(KITB)/driver/driver_dev.o $(KITB)/driver/confine.o
CUDA_INC := -I$(dir $(shell command -v $(NVCC)))../include
$(KITB)/driver/driver.o: grader/trusted/driver/driver.c $(DRIVER_HDRS) | $(KITB)/driver
	$(CC) -std=gnu11 -O2 -g $(KIT_WARN) $(DRIVER_INC) -c $< -o $@
$(KITB)/driver/driver_dev.o: grader/trusted/driver/driver_dev.cu $(DRIVER_HDRS) | $(KITB)/driver
	$(NVCC) $(NVCC_BASE) -Werror all-warnings $(DRIVER_INC) -c $< -o $@
$(KITB)/%_calls.o: grader/trusted/tests/%_calls.cu $(DRIVER_HDRS) grader/trusted/driver/nccl_shim.h | $(KITB)/driver
	$(NVCC) $(NVCC_BASE) -Werror all-warnings $(DRIVER_INC) -c $< -o $@
NCCL_HDRS := grader/trusted/driver/nccl_shim.h grader/trusted/driver/nccl_shim_internal.h
$(KITB)/driver/nccl_%.o: grader/trusted/driver/nccl_%.cu $(NCCL_HDRS) | $(KITB)/driver
	$(NVCC) $(NVCC_BASE) -Werror all-warnings $(DRIVER_INC) -c $< -o $@
LINK = $(NVCC) -arch=sm_$(SM) -o $@ $^ -lcuda
define FLAGS
STUDENT_NVCC = $(NVCC) $(NVCC_BASE) -Iinclude
DRIVER_LINK = $(NVCC) -arch=sm_$(SM)
DRIVER_LIBS = -lcuda
endef
# The tests' own device side, loaded by the harness on this backend. No fast math: the checks'
# float arithmetic must round as the host's does.
TRUSTED_LIB := $(KITB)/libscanlab-trusted.so
$(TRUSTED_LIB): grader/trusted/harness/hx_dev.cu grader/trusted/harness/hx_dev.h grader/trusted/harness/hx_verify.h grader/trusted/harness/hx_proto.h | $(KITB)/driver
	$(NVCC) -O2 -std=c++17 -arch=sm_$(SM) -shared -Xcompiler -fPIC,-Wall,-Wextra -Werror all-warnings \
	  -Igrader/trusted/harness $< -o $@ -lcuda
endif

$(KITB)/clean_calls.o: grader/trusted/driver/clean_calls.c $(DRIVER_HDRS) | $(KITB)/driver
	$(CC) -std=c11 -O2 -g $(KIT_WARN) $(DRIVER_INC) -c $< -o $@
$(CLEAN_DRIVER): $(DRIVER_OBJS) $(KITB)/clean_calls.o
	$(LINK)

# What a student's build needs, and nothing else (grader/grading/student.mk says how it is used).
STUDENT_KIT := $(KITB)/student
# On emu, the precompiled header every lab's student kit holds, made once for all of them (in a
# folder of its own laid out as a student kit's, then moved: a kit build of another lab may be
# making it too).
STUDENT_PCH := $(if $(filter emu,$(BACKEND)),$(STUDENT_KIT)/scanlab_emu.h.gch)
$(STUDENT_KIT)/scanlab_emu.h.gch: $(wildcard grader/emu/include/*.h) grader/grading/build.mk grader/emu/emu.mk
	mkdir -p $(@D) && d=$$(mktemp -d $(@D)/pch.XXXXXX) && trap 'rm -rf "$$d"' EXIT && trap 'exit 1' INT TERM && \
	  mkdir -p $$d/emu && cp -r grader/emu/include $$d/emu/ && \
	  (cd $$d && $(EMU_CXX) $(EMU_CXXFLAGS) -g1 $(EMU_PROBE_FLAGS) -Iemu/include \
	    -x c++-header emu/include/scanlab_emu.h -o emu/include/scanlab_emu.h.gch) && \
	  mv $$d/emu/include/scanlab_emu.h.gch $@
$(STUDENT_KIT)/lab$(LAB)/.ready: $(CALLS_OBJ) $(DRIVER_OBJS) $(STUDENT_LIBS) $(STUDENT_PCH) grader/grading/student.mk \
    grader/grading/build.mk $(wildcard grader/trusted/include/*.h grader/emu/include/*.h) grader/emu/cu2cpp.py
	rm -rf $(@D) && mkdir -p $(@D)/kit $(@D)/include
	cp $(CALLS_OBJ) $(DRIVER_OBJS) $(STUDENT_LIBS) $(@D)/kit/
	cp grader/trusted/include/*.h $(@D)/include/
	cp grader/grading/student.mk $(@D)/
	$(if $(filter emu,$(BACKEND)),mkdir -p $(@D)/emu && cp -r grader/emu/include grader/emu/cu2cpp.py $(@D)/emu/)
	$(if $(STUDENT_PCH),cp $(STUDENT_PCH) $(@D)/emu/include/)
	printf '%s\n' "$$FLAGS" > $(@D)/flags.mk
	$(if $(LAB_LINK),printf 'LAB_LIBS = %s\n' '$(LAB_LINK)' >> $(@D)/flags.mk)
	touch $@
export FLAGS

kit: $(SANDBOX) $(CLEAN_DRIVER) $(TRUSTED_LIB) $(if $(LAB),$(TEST_BIN) $(CALLS_OBJ) $(STUDENT_KIT)/lab$(LAB)/.ready)

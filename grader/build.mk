# Builds one lab's test binary for one submission and one backend.
# The grader calls it; so can you:
#   make -f grader/build.mk BACKEND=emu LAB=02 SRC_DIR=skeletons \
#        STUDENT_FILES="02-kogge-stone/kogge_stone.cu" TEST_SRC=grader/tests/lab02_test.cu \
#        OUT=build/emu/skeletons/lab02
# BACKEND is cuda, emu or cpu (cpu: a lab without kernels, built with the host compiler alone).

BACKEND       ?= emu
SM            ?= 90
LAB           ?=
SRC_DIR       ?= skeletons
STUDENT_FILES ?=
KIT_SOURCES   ?=
TEST_SRC      ?=
OUT           ?= build/$(BACKEND)/lab$(LAB)

CC     ?= cc
NVCC   ?= nvcc
PYTHON ?= python3

# CUnit: the system's, or one unpacked into .deps/root (see `make deps`).
CUNIT_ROOT := $(firstword $(wildcard .deps/root/usr/include/CUnit/CUnit.h))
ifneq ($(CUNIT_ROOT),)
CUNIT_INC := -I.deps/root/usr/include
CUNIT_LIB := .deps/root/usr/lib/x86_64-linux-gnu/libcunit.a
else
CUNIT_INC :=
CUNIT_LIB := $(firstword $(wildcard /usr/lib/*/libcunit.a /usr/lib/libcunit.a) -lcunit)
endif

INCLUDES := -Igrader/harness -Igrader/include -Ireference $(CUNIT_INC)
# Kit code must build without warnings; a student's warnings are shown, not fatal (the kit's
# self-test holds the skeletons and solutions to zero warnings).
WARN     = $(if $(filter $(SRC_DIR)/%,$(1)),-Wall -Wextra,-Wall -Wextra -Werror)
CFLAGS_C = -std=c11 -O2 -g $(call WARN,$(1)) $(INCLUDES) -DHX_BACKEND_NAME='"$(BACKEND)"'

HOST_C_SRCS := grader/harness/harness.c grader/harness/main.c $(wildcard reference/*.c)
CUDA_SRCS   := grader/harness/harness_cuda.cu
ALL_SRCS    := $(HOST_C_SRCS) $(KIT_SOURCES) $(addprefix $(SRC_DIR)/,$(STUDENT_FILES)) $(TEST_SRC)
ifneq ($(BACKEND),cpu)
ALL_SRCS    += $(CUDA_SRCS)
endif

# Object names: the source path with / replaced by _, so sources from anywhere never collide.
obj = $(OUT)/obj/$(subst /,_,$(1)).o
OBJS := $(foreach s,$(ALL_SRCS),$(call obj,$(s)))
BIN  := $(OUT)/lab$(LAB)_tests

.PHONY: all
all: $(BIN)

ifeq ($(BACKEND),cuda)
NVCCFLAGS = -O3 -lineinfo -std=c++17 -arch=sm_$(SM) $(INCLUDES) -Xcompiler -Wall,-Wextra \
            $(if $(filter $(SRC_DIR)/%,$(1)),,-Werror all-warnings) -DHX_BACKEND_NAME='"cuda"'
CUDA_INC  := -I$(dir $(shell command -v $(NVCC)))../include
define compile
$(call obj,$(1)): $(1) | $(OUT)/obj
	$(if $(filter %.cu,$(1)),$(NVCC) $(call NVCCFLAGS,$(1)) -c $$< -o $$@,$(CC) $(call CFLAGS_C,$(1)) $(CUDA_INC) -c $$< -o $$@)
endef
$(BIN): $(OBJS)
	$(NVCC) -arch=sm_$(SM) -o $@ $^ $(CUNIT_LIB)
endif

ifeq ($(BACKEND),emu)
include grader/emu/emu.mk
define compile
$(call obj,$(1)): $(1) $(EMU_LIB) | $(OUT)/obj
	$(if $(filter %.cu,$(1)),$(EMU_REWRITE) $$< $$@.cpp && $(EMU_CXX) $(EMU_CXXFLAGS) $(EMU_CPPFLAGS) $(call WARN,$(1)) $(INCLUDES) -DHX_BACKEND_NAME='"emu"' -c $$@.cpp -o $$@,$(CC) $(call CFLAGS_C,$(1)) $(EMU_CFLAGS_C) -c $$< -o $$@)
endef
$(BIN): $(OBJS) $(EMU_LIB)
	$(EMU_CXX) $(EMU_CXXFLAGS) -o $@ $(OBJS) $(EMU_LIB) $(CUNIT_LIB) $(EMU_LDLIBS) -lm
endif

ifeq ($(BACKEND),cpu)
define compile
$(call obj,$(1)): $(1) | $(OUT)/obj
	$(CC) $(call CFLAGS_C,$(1)) -c $$< -o $$@
endef
$(BIN): $(OBJS)
	$(CC) -o $@ $^ $(CUNIT_LIB) -lm
endif

$(foreach s,$(ALL_SRCS),$(eval $(call compile,$(s))))

$(OUT)/obj:
	mkdir -p $@

# Headers are few and shared: rebuild when any of them changes.
$(OBJS): $(wildcard grader/harness/*.h grader/include/*.h reference/*.h)

# CPU emulation backend ("emu"): build variables and targets.
#
# Included by the top-level Makefile; also works on its own from the repository root:
#   make -f grader/emu/emu.mk emu-test
#   make -f grader/emu/emu.mk emu-run FILE=path/prog.cu ARGS="..."
#   make -f grader/emu/emu.mk emu-probe-cost [EMU_COST_ARGS="--lab 05"]
#   make -f grader/emu/emu.mk emu-corpus [PROBE=1]
#
# grader/emu/bin/emu-nvcc builds any CUDA program for the emu, as nvcc would (it reads this
# file's variables through `make emu-flags`).
#
# A .cu file is built for emu as
#   $(EMU_REWRITE) SRC.cu OBJ.cpp && $(EMU_CXX) $(EMU_CXXFLAGS) $(EMU_CPPFLAGS) -c OBJ.cpp -o OBJ.o
# and linked with $(EMU_LIB) $(EMU_LDLIBS). A .c file that includes <cuda_runtime.h> is compiled
# with $(EMU_CFLAGS_C).

# keep the includer's default goal: the rules below must not become it
EMU_SAVED_DEFAULT_GOAL := $(.DEFAULT_GOAL)

EMU_DIR      := grader/emu
EMU_PYTHON   ?= python3
EMU_CXX      ?= g++
EMU_CXXFLAGS ?= -std=c++17 -O2 -g1 -pthread -Wno-unknown-pragmas
EMU_CPPFLAGS ?= -I$(EMU_DIR)/include -include scanlab_emu.h
EMU_CFLAGS_C ?= -I$(EMU_DIR)/include
EMU_LDLIBS   ?= -pthread
# GNU gold, where binutils has it, links the kit's own programs with the runtime below (the
# graded drivers, the emu's tests, emu-run) in half the time of the default ld.bfd (0.11 s
# against 0.23 s for a graded lab 05 driver; make check links about 450 of them); its absence
# only costs that time. Not emu-nvcc's links: a program's own build (CMake 4.4's compiler
# check on the GPU machine) failed to link through it with gold, and passes with the default
# linker
EMU_FAST_LD  := $(if $(shell command -v ld.gold 2>/dev/null),-fuse-ld=gold)
EMU_REWRITE  ?= $(EMU_PYTHON) $(EMU_DIR)/cu2cpp.py
# added to EMU_CXXFLAGS for .cu files built with the memory probes (counters, race detector):
# GCC's ThreadSanitizer instrumentation, whose entry points the runtime defines (no libtsan),
# no optimisation that merges or splits a thread's accesses, and nvcc's inlining: nvcc inlines
# the device functions a kernel calls, then drops the loads whose values go unused (a block
# scan's total that the caller ignores); GCC's default limits leave larger functions called,
# their loads kept. Two passes left out for the compile's time (lab 06's file took 15 s, a
# quarter less without them), neither changing what the probes count: the scheduling after
# register allocation (it reorders instructions, never the calls the probes are), and jump
# threading (it copies paths to drop branches; the counters of every profiled kernel, emu
# test and graded figure are the same without it). No value numbering past a store that may
# alias (sccvn-max-alias-queries-per-access=0): GCC proved that `x[a] = x[b]; x[b] += left;`
# reads back the value x[b] held and dropped the second load, which nvcc keeps (ncu counts it);
# the counters of every profiled kernel are the same with the parameter
EMU_PROBE_FLAGS ?= -fsanitize=thread -Wno-tsan --param tsan-instrument-func-entry-exit=0 \
  --param tsan-distinguish-volatile=1 -fno-tree-sra \
  -fno-tree-vectorize -fno-tree-slp-vectorize -fno-store-merging \
  --param max-inline-insns-auto=400 --param max-inline-insns-single=2000 \
  -fno-schedule-insns2 -fno-thread-jumps --param sccvn-max-alias-queries-per-access=0 \
  -DSCANLAB_EMU_PROBED
# added instead, without the probes, for a .cu file whose code uses `volatile` (cu2cpp.py marks
# it on its first line): GCC's hooks before each access, which the runtime passes over but for
# the volatile ones, where the lanes of a warp take their steps in turn, as a converged warp
# runs on a GPU (pre-Volta warp-synchronous code gets a GPU's answer; README, "Lockstep warps")
EMU_LOCKSTEP_FLAGS ?= -fsanitize=thread -Wno-tsan --param tsan-instrument-func-entry-exit=0 \
  --param tsan-distinguish-volatile=1
# A precompiled scanlab_emu.h (pch.py says how emu-nvcc and the emu's tests make and use it; the
# grader's student kit holds one for its compiles) drops the header's `#pragma GCC diagnostic
# ignored` lines: these options, read from the header, do their work at the end of a compile
EMU_PRAGMA_FLAGS := $(patsubst -W%,-Wno-%,$(shell sed -n 's/^\#pragma GCC diagnostic ignored "\(-W[a-z-]*\)".*/\1/p' $(EMU_DIR)/include/scanlab_emu.h))
EMU_RT_BUILD := build/emu-rt
EMU_LIB      := $(EMU_RT_BUILD)/libscanlab_emu.a

EMU_RT_SRCS    := $(wildcard $(EMU_DIR)/runtime/*.cpp)
EMU_RT_OBJS    := $(patsubst $(EMU_DIR)/runtime/%.cpp,$(EMU_RT_BUILD)/%.o,$(EMU_RT_SRCS))
EMU_RT_HEADERS := $(wildcard $(EMU_DIR)/include/*.h $(EMU_DIR)/runtime/*.h)
# -g1: line tables and functions, what a backtrace or addr2line needs; the same machine code as
# -g (compared file by file), a library a fifth the size (2.2 MB against 9.4), each link of it
# 0.04 s shorter (make check links it about 450 times). For a debugger: make emu-clean, then
# EMU_RT_CXXFLAGS="-std=c++17 -O2 -g -pthread -Wall -Wextra" (the objects do not follow the options).
EMU_RT_CXXFLAGS ?= -std=c++17 -O2 -g1 -pthread -Wall -Wextra

$(EMU_LIB): $(EMU_RT_OBJS)
	@mkdir -p $(@D)
	@rm -f $@
	@ar rcs $@ $^ >&2

$(EMU_RT_OBJS): $(EMU_RT_BUILD)/%.o: $(EMU_DIR)/runtime/%.cpp $(EMU_RT_HEADERS)
	@mkdir -p $(@D)
	@echo "emu: compiling $<" >&2
	@$(EMU_CXX) $(EMU_RT_CXXFLAGS) -I$(EMU_DIR)/include -I$(EMU_DIR)/runtime -c $< -o $@ >&2

# ---- emu-run: build one standalone CUDA program and run it ----------------------------
EMU_RUN_DIR  := build/emu-run
EMU_RUN_NAME  = $(subst /,_,$(basename $(FILE)))
EMU_RUN_BIN   = $(EMU_RUN_DIR)/$(EMU_RUN_NAME)
# extra flags for emu-run builds (e.g. EMU_RUN_FLAGS="-Igrader/trusted/harness"); EMU_PROBE=1 builds
# with the memory probes (counters in SCANLAB_EMU_PROFILE, the race detector)
EMU_RUN_FLAGS ?=
EMU_PROBE ?=

.PHONY: emu-run emu-test emu-probe-cost emu-corpus emu-lib emu-flags emu-clean
emu-lib: $(EMU_LIB)

# what grader/emu/bin/emu-nvcc builds with (one variable a line), so the flags live here only
emu-flags:
	@echo 'EMU_CXX=$(EMU_CXX)'
	@echo 'EMU_CXXFLAGS=$(EMU_CXXFLAGS)'
	@echo 'EMU_LDLIBS=$(EMU_LDLIBS)'
	@echo 'EMU_LIB=$(EMU_LIB)'
	@echo 'EMU_PROBE_FLAGS=$(EMU_PROBE_FLAGS)'
	@echo 'EMU_LOCKSTEP_FLAGS=$(EMU_LOCKSTEP_FLAGS)'
	@echo 'EMU_PRAGMA_FLAGS=$(EMU_PRAGMA_FLAGS)'

emu-run: $(EMU_LIB) ## build one CUDA file for the emu and run it: make emu-run FILE=prog.cu [ARGS=...]
	@test -n "$(FILE)" || { echo "usage: make emu-run FILE=path/prog.cu [ARGS=\"...\"]" >&2; exit 2; }
	@mkdir -p $(EMU_RUN_DIR)
	@$(EMU_REWRITE) $(FILE) $(EMU_RUN_BIN).cpp -I$(dir $(FILE)) >&2
	@$(EMU_CXX) $(EMU_CXXFLAGS) $(EMU_CPPFLAGS) -I$(dir $(FILE)) $(EMU_RUN_FLAGS) \
	  $(if $(filter 1,$(EMU_PROBE)),$(EMU_PROBE_FLAGS),$$(head -1 $(EMU_RUN_BIN).cpp | grep -q '^/\* scanlab-emu: volatile \*/' && echo '$(EMU_LOCKSTEP_FLAGS)')) \
	  -c $(EMU_RUN_BIN).cpp -o $(EMU_RUN_BIN).o >&2
	@$(EMU_CXX) $(EMU_CXXFLAGS) $(EMU_RUN_BIN).o $(EMU_LIB) $(EMU_LDLIBS) $(EMU_FAST_LD) -o $(EMU_RUN_BIN) >&2
	@$(EMU_RUN_BIN) $(ARGS)

# ---- emu-test: the emulator's own test suite ------------------------------------------
emu-test: $(if $(wildcard $(EMU_DIR)/tests),$(EMU_LIB))
	@test -d $(EMU_DIR)/tests || { echo "make emu-test needs the full kit: the student kit leaves the emulator's tests out"; exit 2; }
	@$(EMU_PYTHON) $(EMU_DIR)/tests/run_tests.py --build=build/emu-test \
	  --cxx="$(EMU_CXX)" --cxxflags="$(EMU_CXXFLAGS)" --cppflags="$(EMU_CPPFLAGS)" \
	  --cflags="$(EMU_CFLAGS_C)" --lib="$(EMU_LIB)" --ldlibs="$(EMU_LDLIBS) $(EMU_FAST_LD)" \
	  --rewrite="$(EMU_REWRITE)" --probe-flags="$(EMU_PROBE_FLAGS)" \
	  --lockstep-flags="$(EMU_LOCKSTEP_FLAGS)" $(EMU_TEST_ARGS)

# ---- emu-corpus: CUDA programs of several styles, built by their own Makefile or CMake ----
# with grader/emu/bin/emu-nvcc as the CUDA compiler, each run and checked (grader/emu/corpus/);
# PROBE=1 builds them with the memory probes, NATIVE=1 with the toolkit's nvcc (on a GPU)
emu-corpus: $(if $(wildcard $(EMU_DIR)/corpus),$(EMU_LIB)) ## build and run the emu's corpus of CUDA programs with emu-nvcc (PROBE=1: with the probes)
	@test -d $(EMU_DIR)/corpus || { echo "make emu-corpus needs the full kit: the student kit leaves the corpus out"; exit 2; }
	@$(EMU_PYTHON) $(EMU_DIR)/corpus/run.py $(if $(filter 1,$(PROBE)),--probe) $(if $(filter 1,$(NATIVE)),--native)

# ---- emu-probe-cost: what the memory probes cost ---------------------------------------
# tests/bench_scan3.cu with and without EMU_PROBE_FLAGS, one worker, best of 5 each, taking turns;
# EMU_COST_ARGS="--lab 05" also times that lab's graded tests (its solution, as make grade runs
# them) both ways, "--rounds N" sets the rounds
EMU_COST_ARGS ?=
emu-probe-cost: $(if $(wildcard $(EMU_DIR)/tests),$(EMU_LIB))
	@test -d $(EMU_DIR)/tests || { echo "make emu-probe-cost needs the full kit: the student kit leaves the emulator's tests out"; exit 2; }
	@$(EMU_PYTHON) $(EMU_DIR)/tests/probe_cost.py --build=build/emu-test \
	  --cxx="$(EMU_CXX)" --cxxflags="$(EMU_CXXFLAGS)" --cppflags="$(EMU_CPPFLAGS)" --lib="$(EMU_LIB)" \
	  --ldlibs="$(EMU_LDLIBS) $(EMU_FAST_LD)" --rewrite="$(EMU_REWRITE)" --probe-flags="$(EMU_PROBE_FLAGS)" $(EMU_COST_ARGS)

emu-clean:
	rm -rf $(EMU_RT_BUILD) $(EMU_RUN_DIR) build/emu-test

.DEFAULT_GOAL := $(EMU_SAVED_DEFAULT_GOAL)

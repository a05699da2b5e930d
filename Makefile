# ScanLab: the one front door. `make help` lists every target.

SHELL       := /bin/bash
PYTHON      ?= python3
LAB         ?=
SUBMISSION  ?= skeletons
SM          ?= 90
T           ?=
# cuda where a GPU answers and nvcc is present, emu (the CPU emulation of CUDA) otherwise.
BACKEND     ?= $(shell $(PYTHON) -c 'import sys; sys.path.insert(0, "grader/grading"); import grade; print(grade.detect_backend())')
export BACKEND SM

# A value from the command line as one word for the shell, quoted whatever it holds: a path with
# a space, a ; or a $ (a handin's name as an LMS saved it) reaches the program as it is, and
# never runs as a command.
q            = '$(subst ','\'',$(1))'
# The paths among them are taken as typed ($(value ...)), never expanded by make: a handin named
# `a$(shell id)` is a name, as `a;id` is; and they stay out of the recipes' environment, where
# make would expand them too.
PATH_VARS   := SUBMISSION CLASS STUDENT ROSTER COURSE ARRIVALS CLASS_OUT EARLIER
unexport $(PATH_VARS)
GRADE       := $(PYTHON) grader/grading/grade.py --backend $(call q,$(BACKEND)) --sm $(call q,$(SM))
LAB_ARGS     = $(if $(LAB),--lab $(call q,$(LAB)))
TEST_ARGS    = $(foreach t,$(T),--test $(call q,$(t)))

# Targets that need the reference solutions: not listed in the student kit, which has none; there
# each says so and stops, installing nothing (make deps installs what grading needs).
KIT_ONLY    := check|check-gpu|bench|student-kit|emu-corpus
FULL_KIT    = test -d solutions || { echo "make $@ needs the full kit (its reference solutions and self-test); this is \
the student kit. Your work: make test LAB=NN (one lab, every message), make grade (the score), make handin."; exit 2; }
.DEFAULT_GOAL := help
.PHONY: help grade grade-class similarity test check check-gpu deps docs slides handin student-kit autograder bench profile ranks ranks-build clean

help: ## list the targets
	@echo "ScanLab: parallel prefix sum (scan) on NVIDIA GPUs, as labs."
	@echo
	@echo "Usage: make TARGET [LAB=NN] [SUBMISSION=path] [BACKEND=cuda|emu] [SM=90] [T=test]"
	@echo
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/^([a-z-]+):.*## (.*)/  \1|\2/' | \
	  $(if $(wildcard solutions),cat,grep -vE '^  ($(KIT_ONLY))\|') | \
	  awk -F'|' '{printf "  %-14s %s\n", $$1, $$2}' | sed 's/^    /  /'
	@echo
	@echo "Variables:"
	@echo "  LAB=NN         one lab ($(shell ls grader/manifests | sed -n 's/lab\([0-9]*\).toml/\1/p' | head -1)..$(shell ls grader/manifests | sed -n 's/lab\([0-9]*\).toml/\1/p' | tail -1)); default every lab"
	@echo "  SUBMISSION=p   folder or handin tarball with a student's files (default skeletons/)"
	@echo "  BACKEND=b      cuda (a GPU) or emu (kernels on the CPU); default: cuda if a GPU answers"
	@echo "  SM=90          CUDA architecture for nvcc (90 = Hopper: H100, H200)"
	@echo "  T=a,b          run only the named tests (T=a, T=a,b or T=\"a b\")"
	@echo "  SCANLAB_EMU_SCHEDULE=forward|reverse|random:SEED   thread order on emu"
	@echo "  CLASS=dir      grade-class, similarity: one entry per student (a folder or a handin archive)"
	@echo "  COURSE=f       grade-class: deadlines, grace days, penalties, extensions (grader/course/course.example.toml)"
	@echo "  ROSTER=f       grade-class: students' LMS identities: writes canvas.csv and grades.csv"
	@echo "  ARRIVALS=f     grade-class: when each submission arrived (GitHub Classroom's grades CSV, or student,time)"
	@echo "  SIMILARITY=1   grade-class: also compare the students' code (as make similarity)"
	@echo "  JOBS=N         grade-class: students graded at once (default: the cores)"
	@echo "  REGRADE=1      grade-class: every student again, changed or not"
	@echo "  RELEASE=1      grade-class: release the tests the manifests hold (visibility) to the LMS files, feedback.txt"
	@echo "  STUDENT=name   grade-class: regrade only this student (a,b for several); every other row stays"
	@echo "  RUNNER=slurm   grade-class: through a Slurm job array (SLURM_ARGS=\"--partition=gpu ...\" for sbatch)"
	@echo "  CLASS_OUT=dir  grade-class, similarity: where the gradebook and reports go (default build/class/labNN, one lab)"
	@echo "  EARLIER=dir    similarity: an earlier term's class, compared with this one"

grade: ## grade SUBMISSION (default skeletons/), all labs or LAB=NN; writes results.json
	@grader/deps.sh grade
	@$(GRADE) $(LAB_ARGS) $(TEST_ARGS) --submission $(call q,$(value SUBMISSION))

grade-class: ## grade every student in CLASS=dir into build/class/labNN/ (gradebook, report.html; COURSE=, ROSTER=, SIMILARITY=1)
	@test -n $(call q,$(value CLASS)) || { echo "make grade-class needs a folder: make grade-class CLASS=submissions/"; exit 2; }
	@grader/deps.sh $(if $(SIMILARITY),similarity,grade)
	@$(PYTHON) grader/course/grade_class.py --class $(call q,$(value CLASS)) --backend $(call q,$(BACKEND)) $(LAB_ARGS) $(TEST_ARGS) \
	  $(if $(JOBS),--jobs $(call q,$(JOBS))) $(if $(REGRADE),--regrade) $(if $(RELEASE),--release) $(if $(value STUDENT),--student $(call q,$(value STUDENT))) $(if $(RUNNER),--runner $(call q,$(RUNNER))) \
	  $(if $(SLURM_ARGS),--slurm-args $(call q,$(SLURM_ARGS))) $(if $(value COURSE),--course $(call q,$(value COURSE))) \
	  $(if $(value ROSTER),--roster $(call q,$(value ROSTER))) $(if $(value ARRIVALS),--arrivals $(call q,$(value ARRIVALS))) $(if $(SIMILARITY),--similarity) \
	  $(if $(value CLASS_OUT),--out $(call q,$(value CLASS_OUT)))

similarity: ## compare the students' own code across CLASS=dir (Dolos) into build/class/similarity/
	@test -n $(call q,$(value CLASS)) || { echo "make similarity needs a folder: make similarity CLASS=submissions/"; exit 2; }
	@grader/deps.sh similarity
	@$(PYTHON) grader/course/similarity.py --class $(call q,$(value CLASS)) $(LAB_ARGS) $(if $(value EARLIER),--earlier $(call q,$(value EARLIER))) \
	  --out $(call q,$(if $(value CLASS_OUT),$(value CLASS_OUT),build/class)/similarity)

test: ## run one lab's tests on your working copy, every message, first results in seconds: make test LAB=02
	@test -n $(call q,$(LAB)) || { echo "make test needs a lab: make test LAB=02"; exit 2; }
	@grader/deps.sh grade
	@$(GRADE) --lab $(call q,$(LAB)) $(TEST_ARGS) --submission $(call q,$(value SUBMISSION)) --verbose --quick

check: ## the kit's own tests: solutions pass, skeletons fail, grader, emu, docs, slides
	@$(FULL_KIT)
	@grader/deps.sh grade
	@$(PYTHON) grader/selftest/run.py --deps check

check-gpu: ## on a GPU: solutions pass with timing, skeletons fail, sanitizers clean
	@$(FULL_KIT)
	@grader/deps.sh grade
	@$(PYTHON) grader/selftest/run.py --gpu

deps: ## install what grading needs, and in the full kit what make check needs (Debian/Ubuntu, root or sudo)
	@if [ -d solutions ]; then grader/deps.sh check; else grader/deps.sh grade; fi

docs: ## build the HTML docs (Doxygen) into build/docs/html
	@grader/deps.sh docs
	@mkdir -p build/docs
	@doxygen grader/docs/Doxyfile > build/docs/doxygen.log 2> build/docs/warnings.log || \
	  { cat build/docs/warnings.log; echo "docs: doxygen failed"; exit 1; }
	@if [ -s build/docs/warnings.log ]; then cat build/docs/warnings.log; \
	  echo "docs: warnings (above)"; exit 1; fi
	@$(PYTHON) grader/docs/docs_check.py build/docs/html
	@echo "docs: build/docs/html/index.html"

slides: ## build every lab's slide deck into build/slides/*.pdf
	@grader/deps.sh slides
	@$(PYTHON) grader/course/kit.py slides

handin: ## pack your student files into build/handin.tar.gz, to submit
	@$(PYTHON) grader/course/kit.py handin --from $(call q,$(value SUBMISSION))

student-kit: ## pack the kit without solutions into build/scanlab-student.tar.gz
	@$(FULL_KIT)
	@$(PYTHON) grader/course/kit.py student-kit

autograder: ## a Gradescope autograder (emu, no solutions): make autograder LAB=02
	@$(PYTHON) grader/course/kit.py autograder $(foreach l,$(LAB),--lab $(call q,$(l))) $(if $(value COURSE),--course $(call q,$(value COURSE)))

bench: ## time every solution against the device copy and CUB (GPU only)
	@$(FULL_KIT)
	@grader/deps.sh grade
	@$(PYTHON) grader/measure/bench.py

profile: ## memory counters of a lab's kernels, emu and ncu (on a GPU) compared: make profile LAB=03 or LAB=all
	@test -n $(call q,$(LAB)) || { echo "make profile needs a lab: make profile LAB=03 (or LAB=all)"; exit 2; }
	@grader/deps.sh grade
	@$(PYTHON) grader/measure/profile_banks.py --lab $(call q,$(LAB))

RANKS       ?= 3
RANKS_SRC    = $(firstword $(wildcard $(value SUBMISSION)/08-multi-gpu/multi_gpu.cu $(value SUBMISSION)/multi_gpu.cu))
RANKS_BIN   ?= build/ranks/$(BACKEND)/lab08_ranks
RANKS_INC    = -Igrader/trusted/include -Igrader/trusted/driver -Igrader/trusted/harness
ranks-build: ## lab 08 as processes: build SUBMISSION's multi_gpu.cu into build/ranks/BACKEND/lab08_ranks
	@test -n $(call q,$(RANKS_SRC)) || { echo $(call q,make ranks: no multi_gpu.cu in $(value SUBMISSION)/08-multi-gpu/ or $(value SUBMISSION)/); exit 2; }
	@mkdir -p $(call q,$(dir $(RANKS_BIN)))
	$(if $(filter emu,$(BACKEND)),SCANLAB_EMU_LOOPS=0 grader/emu/bin/emu-nvcc -O2,nvcc -O3 -std=c++17 -arch=sm_$(call q,$(SM))) $(RANKS_INC) \
	  labs/08-multi-gpu/ranks/lab08_ranks.cu $(call q,$(RANKS_SRC)) grader/trusted/driver/nccl_shim.cu \
	  grader/trusted/driver/nccl_process.cu -o $(call q,$(RANKS_BIN)) -ldl

ranks: ranks-build ## lab 08's ranks as RANKS=3 processes on this host (ARGS="--time N" times them; srun: lab08_ranks.sbatch)
	@labs/08-multi-gpu/ranks/run_ranks.sh $(call q,$(RANKS)) $(call q,$(RANKS_BIN)) $(ARGS)

clean: ## remove build/
	rm -rf build

# The CPU emulation backend's own targets: emu-run FILE=prog.cu [ARGS=...], emu-corpus [PROBE=1]
# (CUDA programs built by their own Makefile or CMake with grader/emu/bin/emu-nvcc, the emu's
# drop-in for nvcc), emu-test, emu-probe-cost (what the probes of the race detector and
# counters cost; grader/emu/README.md, "Cost").
include grader/emu/emu.mk

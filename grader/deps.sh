#!/usr/bin/env bash
# Makes sure what a task needs is installed; installs what is missing from Debian/Ubuntu
# packages when it can (root or sudo), and otherwise prints the exact command to run.
#
#   grader/deps.sh grade    CUnit (and a C compiler, make, python3)
#   grader/deps.sh check    grade's, plus Doxygen and doxygen-awesome-css, plus slides', plus
#                           Slurm and munge (a one-node cluster for the class-grading check),
#                           headless Chromium (the docs rendered in a real browser) and
#                           poppler-utils (the slides' text checked in the built PDFs)
#   grader/deps.sh docs     Doxygen and doxygen-awesome-css
#   grader/deps.sh slides   pdflatex with beamer, rsvg-convert
#
# Where no package registry is reachable but .deps/ holds CUnit's .deb files (a GPU machine),
# they are unpacked into .deps/root, where the build looks first.
set -u
task=${1:-grade}
missing=()

have_cunit() {
  [ -f /usr/include/CUnit/CUnit.h ] || [ -f .deps/root/usr/include/CUnit/CUnit.h ]
}

need() { # need PACKAGE TEST-COMMAND...
  local pkg=$1; shift
  "$@" >/dev/null 2>&1 || missing+=("$pkg")
}

for tool in make python3; do
  command -v "$tool" >/dev/null || missing+=("$tool")
done
command -v cc >/dev/null || missing+=(gcc)
command -v g++ >/dev/null || missing+=(g++)

case $task in
  grade) ;;
  check|docs|slides) ;;
  *) echo "deps.sh: unknown task '$task' (grade, check, docs, slides)" >&2; exit 2 ;;
esac

if ! have_cunit; then
  if ls .deps/*.deb >/dev/null 2>&1 && command -v dpkg >/dev/null; then
    mkdir -p .deps/root
    for f in .deps/*.deb; do dpkg -x "$f" .deps/root; done
    echo "deps: unpacked CUnit from .deps/ into .deps/root"
  else
    missing+=(libcunit1-dev)
  fi
fi
if [ "$task" = check ] || [ "$task" = docs ]; then
  need doxygen command -v doxygen
  need doxygen-awesome-css test -f /usr/share/doxygen-awesome-css/doxygen-awesome.css
fi
if [ "$task" = check ]; then
  # The class-grading check starts a one-node Slurm cluster.
  need slurm-wlm command -v slurmctld
  need munge command -v munged
  # The docs check renders every handout in a real browser; the slides check reads the PDFs.
  need chromium command -v chromium
  need poppler-utils command -v pdftotext
fi
if [ "$task" = check ] || [ "$task" = slides ]; then
  need texlive-latex-recommended kpsewhich beamer.cls
  need texlive-fonts-recommended kpsewhich lmodern.sty
  need lmodern kpsewhich lmodern.sty
  need texlive-pictures kpsewhich pgfmath.sty
  need librsvg2-bin command -v rsvg-convert
fi

[ ${#missing[@]} -eq 0 ] && exit 0

# One package may be listed twice (two checks); keep each once.
mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
cmd="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then sudo=""
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo="sudo"
else
  echo "Missing packages: ${missing[*]}" >&2
  echo "Install them with:  sudo apt-get update && sudo $cmd" >&2
  exit 1
fi
if ! command -v apt-get >/dev/null; then
  echo "Missing: ${missing[*]}; this is not a Debian/Ubuntu machine: install them by hand." >&2
  exit 1
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >/dev/null && $sudo $cmd -qq >/dev/null || {
  echo "deps: the install failed. Run it by hand: sudo apt-get update && sudo $cmd" >&2
  exit 1
}

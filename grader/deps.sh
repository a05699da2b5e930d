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
#   grader/deps.sh similarity   Node.js and npm, then the similarity engine (Dolos's library,
#                           from npm, pinned by grader/course/dolos/package-lock.json) into
#                           $SCANLAB_TOOLS (default ~/.cache/scanlab), once per machine and user;
#                           `check` installs it too (the similarity check)
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
  check|docs|slides|similarity) ;;
  *) echo "deps.sh: unknown task '$task' (grade, check, docs, slides, similarity)" >&2; exit 2 ;;
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
if [ "$task" = check ] || [ "$task" = similarity ]; then
  need nodejs command -v node
  need npm command -v npm
fi
if [ "$task" = check ] || [ "$task" = slides ]; then
  need texlive-latex-recommended kpsewhich beamer.cls
  need texlive-fonts-recommended kpsewhich lmodern.sty
  need lmodern kpsewhich lmodern.sty
  need texlive-pictures kpsewhich pgfmath.sty
  need librsvg2-bin command -v rsvg-convert
fi

# The similarity engine: Dolos's library and its tree-sitter parsers, in a folder named after the
# lock file's hash, so a new lock installs anew. Done after the Debian packages (it needs node and
# npm). Dolos's parsers package builds all of its 19 grammars from source when installed (three
# minutes on two cores); the kit compares C and C++ alone, so the packages install without their
# scripts, tree-sitter's own bindings are built, and the parsers package is built with its C and
# C++ grammars only (its index.js, which loads every grammar, written anew to load those two and
# convert them as it does). compare.mjs --check then parses C and C++ through Dolos.
# tree-sitter's Node bindings are C++ glue over node-addon-api's headers: at node-gyp's -O3 they
# took 30 s of CPU, at -O0 20 s (tree-sitter's own C library, which does the parsing, keeps -O3).
dolos_npm() {
  local p=node_modules/@dodona/dolos-parsers q="--no-audit --no-fund --loglevel=error"
  JOBS=max npm ci --ignore-scripts $q &&
    CXXFLAGS="${CXXFLAGS:+$CXXFLAGS }-O0" JOBS=max npm rebuild tree-sitter tree-sitter-compat $q &&
    printf '{ "includes": [ "c/binding.gyp", "cpp/binding.gyp" ] }\n' > "$p/binding.gyp" &&
    printf '%s\n' "const parsers = {};" \
      "parsers.c = require('./build/Release/tree_sitter_c_binding');" \
      "parsers.c.nodeTypeInfo = require('./c/src/node-types.json');" \
      "parsers.cpp = require('./build/Release/tree_sitter_cpp_binding');" \
      "parsers.cpp.nodeTypeInfo = require('./cpp/src/node-types.json');" \
      "const convert = require('tree-sitter-compat').convertLanguage;" \
      "for (const [key, value] of Object.entries(parsers)) module.exports[key] = convert(value);" > "$p/index.js" &&
    JOBS=max npm rebuild @dodona/dolos-parsers $q
}

install_dolos() {
  [ "$task" = check ] || [ "$task" = similarity ] || return 0
  local lock=grader/course/dolos/package-lock.json tools dir
  tools=${SCANLAB_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/scanlab}
  dir=${SCANLAB_DOLOS:-$tools/dolos-$(sha256sum "$lock" | cut -c1-12)}
  [ -f "$dir/.installed" ] && return 0
  echo "deps: installing the similarity engine (Dolos, npm) into $dir"
  rm -rf "$dir.tmp" && mkdir -p "$dir.tmp" && cp grader/course/dolos/package.json "$lock" "$dir.tmp/" || return 1
  if ! (cd "$dir.tmp" && dolos_npm) > "$dir.tmp/install.log" 2>&1 ||
     ! node grader/course/dolos/compare.mjs --dolos "$dir.tmp" --check >> "$dir.tmp/install.log" 2>&1; then
    tail -20 "$dir.tmp/install.log" >&2
    echo "deps: the similarity engine did not install (log: $dir.tmp/install.log). Try by hand:" >&2
    echo "      cd $dir.tmp && npm ci" >&2
    return 1
  fi
  rm -rf "$dir" && mv "$dir.tmp" "$dir" && touch "$dir/.installed"
}

[ ${#missing[@]} -eq 0 ] && { install_dolos; exit $?; }

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
# apt-get, waiting for another package manager to finish (a machine's own updates often run
# at boot, just when CI starts): dpkg's lock through DPkg::Lock::Timeout, the package lists'
# lock (which apt-get update does not wait for) by trying again, up to 10 minutes in all.
# Any other failure is shown at once.
apt_get() {
  local err i
  for i in $(seq 120); do
    err=$($sudo apt-get -o DPkg::Lock::Timeout=600 "$@" 2>&1 >/dev/null) && return 0
    case $err in
      *"Could not get lock"* | *"Unable to lock"* | *"Unable to acquire"*) ;;
      *) echo "$err" >&2; return 1 ;;
    esac
    [ "$i" -eq 1 ] && echo "deps: another package manager holds apt's lock; waiting for it" >&2
    sleep 5
  done
  echo "$err" >&2
  return 1
}
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt_get update -qq && apt_get install -y --no-install-recommends -qq "${missing[@]}" || {
  echo "deps: the install failed. Run it by hand: sudo apt-get update && sudo $cmd" >&2
  exit 1
}
install_dolos

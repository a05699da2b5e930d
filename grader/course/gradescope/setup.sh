#!/usr/bin/env bash
# Gradescope runs this once when it builds the autograder image (Ubuntu, root, no GPU).
# Kernels run on the kit's CPU emulation of CUDA, which needs only the host compiler.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends build-essential make python3 libcunit1-dev

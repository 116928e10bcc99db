#!/usr/bin/env bash
# Installs the Debian 12 packages sgdnet needs to build and test; idempotent (skips what is
# installed, runs apt-get update only when something is missing), as root or through sudo.
#
#   scripts/install-deps.sh               build and test dependencies
#   scripts/install-deps.sh --validation  also PyTorch, to profile workloads (examples/profiling,
#                                         examples/validation), and tcpdump for its wire check
set -euo pipefail

PACKAGES=(
    build-essential cmake ninja-build pkg-config
    antlr4 libantlr4-runtime-dev default-jre-headless
    libeigen3-dev libtbb-dev libboost-dev
    doctest-dev libcli11-dev nlohmann-json3-dev libbenchmark-dev
    libxml2-dev libxml2-utils
    graphviz gnuplot-nox
    universal-ctags
    pybind11-dev python3-pybind11 python3-dev python3-pytest python3-pandas python3-matplotlib
    pyflakes3
    libopenmpi-dev openmpi-bin
    clang libclang-rt-14-dev
)
if [ "${1:-}" = "--validation" ]; then
    PACKAGES+=(python3-torch python3-torchvision tcpdump)
fi

missing=()
for pkg in "${PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$pkg")
    fi
done

if [ ${#missing[@]} -eq 0 ]; then
    echo "install-deps: all ${#PACKAGES[@]} packages are installed"
    exit 0
fi

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
    if ! command -v sudo >/dev/null; then
        echo "install-deps: missing packages (${missing[*]}) and not root; install sudo or run as root" >&2
        exit 1
    fi
    SUDO=(sudo)
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update -q
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -q --no-install-recommends "${missing[@]}"

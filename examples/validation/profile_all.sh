#!/usr/bin/env bash
# Profiles the four workloads of this folder on one node (layer times, DDP buckets, communication probes) into profiles/.
#
#   examples/validation/profile_all.sh [PYTHON] [FOLDER] [PROFILER OPTION…]
#
# FOLDER (default profiles) is relative to this folder: profiles/session3 holds the profiles
# taken in the sitting of runs/session3.jsonl. Options after it go to every profile_model.py
# run, e.g. --comm-shape (profiles/comm_shape).
# Run it on an otherwise idle machine, with Debian's python3-torch and python3-torchvision
# (`./sgdnet.sh validation-deps` installs them). One intra-op thread, as each measured rank had.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PY="${1:-/usr/bin/python3}"
PROFILER="$HERE/../profiling/profile_model.py"
export WORKLOAD_PATH="$HERE/workloads"
OUT="${2:-profiles}"
EXTRA=("${@:3}")
mkdir -p "$HERE/$OUT"
cd "$HERE/$OUT"
"$PY" "$PROFILER" --model mlp --batch 32 --threads 1 --name mlp "${EXTRA[@]}"
"$PY" "$PROFILER" --model resnet18 --batch 16 --threads 1 --name resnet18 "${EXTRA[@]}"
"$PY" "$PROFILER" --model mobilenet_v2 --batch 16 --threads 1 --name mobilenet_v2 "${EXTRA[@]}"
"$PY" "$PROFILER" --model tiny_transformer:build --batch 4 --threads 1 --name tiny_transformer "${EXTRA[@]}"

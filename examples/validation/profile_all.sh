#!/usr/bin/env bash
# Profiles the workloads of this folder on one node (layer times, DDP buckets, communication probes) into profiles/.
#
#   examples/validation/profile_all.sh [PYTHON] [FOLDER] [PROFILER OPTION…]
#
# FOLDER (default profiles) is relative to this folder: profiles/session3 holds the profiles
# taken in the sitting of runs/session3.jsonl. Options after it go to every profile_model.py
# run, e.g. --comm-shape (profiles/comm_shape). ONLY="NAME …" (environment) profiles those
# workloads alone, e.g. ONLY="gru_lm shufflenet mlp tiny_transformer" for profiles/session7.
# The ones of sessions 1-7 predate dlrm_small, those of 1-10 vit_tiny; the others are what each session's configs name.
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
profile() {  # NAME MODEL [PROFILER ARGS…]
  local name="$1" model="$2"
  shift 2
  [[ -z "${ONLY:-}" || " $ONLY " == *" $name "* ]] || return 0
  "$PY" "$PROFILER" --model "$model" "$@" --threads 1 --name "$name" "${EXTRA[@]}"
}
profile mlp mlp --batch 32
profile resnet18 resnet18 --batch 16
profile mobilenet_v2 mobilenet_v2 --batch 16
profile tiny_transformer tiny_transformer:build --batch 4
profile gru_lm gru_lm:build --batch 8
profile shufflenet shufflenet:build --batch 16
profile dlrm_small dlrm_small:build --batch 128
profile vit_tiny vit_tiny:build --batch 16

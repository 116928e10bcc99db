#!/usr/bin/env bash
# One measured sitting of a session, each workload profiled right before its own runs and again
# right after them, so that the record shows whether the machine changed speed in between.
#
#   TESTBED=DIR examples/validation/sitting.sh SESSION [PYTHON]
#
# SESSION names SESSION.configs of this folder (the testbed's format: RATE MODE WORKLOAD WORLD
# [ARGS]). DIR holds the testbed's run_configs.sh, launch.sh and netns.sh. In order:
#   1. the guard: the pinned check, then one run of ShuffleNet's PS async at world 4, 1 Gbit/s,
#      appended to runs/sitting_guard.jsonl ("guard": "before", "session": SESSION);
#   2. for each workload, in the order the configurations first name it:
#      a. the pinned check; its profile into profiles/SESSION/ (profile_all.sh --comm-shape,
#         the bucket caps 25 and 1 MiB and those its DDP configurations name);
#      b. the pinned check; its configurations (run_configs.sh, REPS repeats, 3 by default),
#         appended to runs/SESSION.jsonl, link checks included; for each PS sync configuration
#         two fan-out checks (fan_out.py) appended to runs/fan_out.jsonl;
#      c. the pinned check; its profile again into profiles/SESSION_after/;
#   3. the pinned check and the guard again ("guard": "after").
# The models predict from profiles/SESSION/, taken minutes before the runs of the same
# workload; profiles/SESSION_after/ brackets the runs from the other side. The pinned check
# (one `sgdnet run` of examples/repairman.sgdnet on each core alone, wall seconds) is a
# record of the machine's speed, appended to runs/SESSION_speed.jsonl with the step it
# precedes. RESUME=1 continues a sitting that stopped: no guard before, and the workloads
# that runs/SESSION.jsonl already holds are left out. Needs root, a built build/cli/sgdnet
# and Debian's python3-torch; run it on an otherwise idle machine.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
[[ $# -ge 1 && -n "${TESTBED:-}" ]] || { sed -n 2,25p "$0" >&2; exit 2; }
SESSION="$1"; PY="${2:-/usr/bin/python3}"
CONFIGS="$HERE/$SESSION.configs"; TESTBED="$(readlink -f "$TESTBED")"
SGDNET="$ROOT/build/cli/sgdnet"
RUNS="$HERE/runs/$SESSION.jsonl"; SPEED="$HERE/runs/${SESSION}_speed.jsonl"
[[ -f "$CONFIGS" && -x "$SGDNET" && -x "$TESTBED/run_configs.sh" ]] ||
  { echo "sitting.sh: need $CONFIGS, $SGDNET and $TESTBED/run_configs.sh" >&2; exit 2; }
[[ -n "${RESUME:-}" || ! -e "$RUNS" ]] ||
  { echo "sitting.sh: $RUNS exists; a sitting writes it anew (RESUME=1 continues it)" >&2; exit 2; }
export WORKLOAD_PATH="$HERE/workloads"
WORK="$(mktemp -d)"; trap 'rm -rf "$WORK"' EXIT
say() { echo "[$(date +%H:%M:%S)] $*"; }

pinned() {  # STEP: the pinned check on each core, one JSON line
  local line="{\"session\": \"$SESSION\", \"before\": \"$1\", \"time\": \"$(date +%FT%T)\""
  local c t0 t1
  for c in 0 1; do
    t0=$(date +%s.%N)
    taskset -c "$c" "$SGDNET" run "$ROOT/examples/repairman.sgdnet" --seed 1 --threads 1 \
      --precision 0.0007 > /dev/null
    t1=$(date +%s.%N)
    line+=", \"core$c\": $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')"
  done
  echo "$line}" >> "$SPEED"
  say "pinned check before $1: $(tail -1 "$SPEED")"
}

guard() {  # before|after: one run of the guard's configuration
  "$TESTBED/netns.sh" up 4 1gbit > /dev/null
  "$TESTBED/launch.sh" ps-async shufflenet:build 4 1gbit "$WORK/guard_$1" --rep 0 --batch 16 \
    > "$WORK/guard.json" < /dev/null
  "$TESTBED/netns.sh" down 4 > /dev/null
  "$PY" -c 'import json, sys
r = json.load(open(sys.argv[1])); r.update(guard=sys.argv[2], session=sys.argv[3])
print(json.dumps(r))' "$WORK/guard.json" "$1" "$SESSION" >> "$HERE/runs/sitting_guard.jsonl"
  say "guard $1: $(grep -o '"steps_per_s": [0-9.]*' "$WORK/guard.json")"
}

fan_out() {  # RATE WORLD WORKLOAD: two fan-out checks of the PS sync server's message
  local bytes
  bytes=$("$PY" -c 'import json, sys
print(json.load(open(sys.argv[1]))["total_param_bytes"])' "$HERE/profiles/$SESSION/$3_layers.json")
  "$TESTBED/netns.sh" up "$2" "$1" > /dev/null
  for _ in 1 2; do
    "$PY" "$HERE/fan_out.py" --world "$2" --bytes "$bytes" --rounds 10 --rate "$1" \
      >> "$HERE/runs/fan_out.jsonl" < /dev/null
  done
  "$TESTBED/netns.sh" down "$2" > /dev/null
}

if [[ -z "${RESUME:-}" ]]; then
  pinned guard
  guard before
fi
for spec in $(awk '!/^#/ && NF >= 4 { print $3 }' "$CONFIGS" | awk '!seen[$0]++'); do
  name="${spec%%:*}"
  if [[ -e "$RUNS" ]] && grep -q "\"workload\": \"$spec\"" "$RUNS"; then
    say "$name: measured already"
    continue
  fi
  caps=$( { echo 25; echo 1; awk -v w="$spec" '!/^#/ && $2 == "ddp" && $3 == w {
      for (i = 5; i < NF; i++) if ($i == "--bucket-mb") print $(i + 1) }' "$CONFIGS"; } |
    sort -gu | paste -sd, -)
  pinned "profile $name"
  ONLY="$name" "$HERE/profile_all.sh" "$PY" "profiles/$SESSION" --comm-shape --bucket-caps "$caps"
  awk -v w="$spec" '!/^#/ && $3 == w' "$CONFIGS" > "$WORK/$name.configs"
  pinned "runs $name"
  (cd "$TESTBED" && REPS="${REPS:-3}" ./run_configs.sh "$WORK/$name.configs" "$WORK/$name")
  cat "$WORK/$name/results.jsonl" >> "$RUNS"
  while read -r rate mode _ world _; do
    [[ "$mode" == ps-sync ]] && fan_out "$rate" "$world" "$name"
  done < "$WORK/$name.configs"
  pinned "profile after $name"
  ONLY="$name" "$HERE/profile_all.sh" "$PY" "profiles/${SESSION}_after" --comm-shape \
    --bucket-caps "$caps"
done
pinned "guard after"
guard after
say "done: $RUNS"

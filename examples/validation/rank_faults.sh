#!/usr/bin/env bash
# The minor page faults of a testbed run's ranks, per step: for each configuration read from
# standard input (the testbed's format: RATE MODE WORKLOAD WORLD [ARGS]), one run of
# launch.sh with rank_cpu.py beside it (a window of WINDOW seconds from AFTER seconds after
# the start, 6 and 6 by default), one JSON line appended to OUT: the run's result and the
# ranks' sampling, with each rank's faults per step: its faults per second over its own steps
# per second (the run's steps_per_s; in PS async, where that counts the server's updates, a
# worker's is that over the WORLD - 1 workers, rank 0 being the server). page_faults.py
# measures the same step alone, in fresh processes.
#
#   TESTBED=DIR examples/validation/rank_faults.sh OUT.jsonl < CONFIGS
#
# Needs root and Debian's python3-torch; run it on an otherwise idle machine.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
[[ $# -eq 1 && -n "${TESTBED:-}" ]] || { sed -n 2,12p "$0" >&2; exit 2; }
OUT="$(readlink -f "$1")"; TESTBED="$(readlink -f "$TESTBED")"
AFTER="${AFTER:-6}"; WINDOW="${WINDOW:-6}"
export WORKLOAD_PATH="$HERE/workloads"
WORK="$(mktemp -d)"; trap 'rm -rf "$WORK"' EXIT
while read -r rate mode workload world args; do
  [[ -z "$rate" || "$rate" == \#* ]] && continue
  "$TESTBED/netns.sh" up "$world" "$rate" > /dev/null
  /usr/bin/python3 "$HERE/rank_cpu.py" --after "$AFTER" --window "$WINDOW" \
    --label "$rate $mode $workload $world $args" > "$WORK/ranks.json" &
  sampler=$!
  # shellcheck disable=SC2086  # ARGS are words for the bench
  "$TESTBED/launch.sh" "$mode" "$workload" "$world" "$rate" "$WORK/logs" $args \
    > "$WORK/run.json" < /dev/null
  wait "$sampler"
  "$TESTBED/netns.sh" down "$world" > /dev/null
  /usr/bin/python3 -c 'import json, sys
run, ranks = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
for rank, r in ranks["ranks"].items():
    own = run["steps_per_s"]
    if run["mode"] == "ps-async" and rank != "0":
        own /= run["world"] - 1
    r["minor_faults_per_step"] = r["minor_faults_per_s"] / own
print(json.dumps({"run": run, "ranks": ranks}))
print(ranks["label"], "%.3f steps/s, faults per step by rank:" % run["steps_per_s"],
      {k: round(v["minor_faults_per_step"]) for k, v in ranks["ranks"].items()}, file=sys.stderr)
' "$WORK/run.json" "$WORK/ranks.json" >> "$OUT"
done

#!/usr/bin/env bash
# Runs the whole fault matrix (Tests/AutoCancelNetworkingTests/Faults): every fault the loopback
# server plays × every form of request × ephemeral, cached and shared sessions × every ending
# trigger, 1,188 cells per seed, then the control that shows plain Foundation trapping when a
# delegate session's tasks are cancelled during redirects. `swift test` runs a sample of the
# matrix (99 cells) and two control seeds; this is the soak.
#
#   scripts/reliability/faults.sh                  # 3 seeds of the matrix, 5 control runs
#   AUTOCANCEL_FAULT_SEEDS=10 AUTOCANCEL_CONTROL_RUNS=10 scripts/reliability/faults.sh
#   AUTOCANCEL_SEED=<seed> scripts/reliability/faults.sh      # replay one seed
#   AUTOCANCEL_FAULT_TIMEOUT=2 scripts/reliability/faults.sh  # requests' timeout, whole seconds
#   AUTOCANCEL_FAULT_CELLS=close/asyncUpload/shared/cancelAll AUTOCANCEL_FAULT_REPEAT=300 \
#     AUTOCANCEL_FAULT_SEEDS=1 scripts/reliability/faults.sh   # chase one cell
#
# Each cell prints one line, "fault-matrix seed … #n fault × form × session × trigger →
# outcomes — ok" or "— FAIL: …", and each seed's run its own failures ("run — FAIL: …": a
# session's connections left open, descriptors grown); the summary counts the cells that
# failed, by fault, form and trigger. Cells that cancel a stream on a redirecting route run in
# child processes of their own, so that a crash there fails the cell, not the run. About 40 s
# per seed on 2 cores, and 2 s per control run.
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
work="${AUTOCANCEL_FAULT_DIR:-${TMPDIR:-/tmp}/autocancel-faults}"
mkdir -p "$work"

export AUTOCANCEL_FAULT_MATRIX=full
export AUTOCANCEL_FAULT_SEEDS="${AUTOCANCEL_FAULT_SEEDS:-3}"
control_runs="${AUTOCANCEL_CONTROL_RUNS:-5}"

swift build --build-tests >/dev/null
start=$(date +%s)
status=0
swift test --skip-build --filter 'FaultMatrixTests/fullMatrix' >"$work/matrix.log" 2>&1 || status=$?
grep -E '^fault-matrix' "$work/matrix.log" | grep -E 'FAIL|cells ok|descriptors' || true
echo
echo "failed cells by fault, form and trigger:"
grep -E '^fault-matrix .* #[0-9]+ .* — FAIL' "$work/matrix.log" \
  | sed -E 's/.* #[0-9]+ ([^ ]+) × ([^ ]+) × ([^ ]+) × ([^ ]+) →.*/\1 × \2 × \4/' \
  | sort | uniq -c | sort -rn || true

# The control: two seeds per run of its test (10 by default), each a child process that must
# trap.
control_status=0
for run in $(seq 1 "$control_runs"); do
  swift test --skip-build --filter RedirectCancelControlTests >>"$work/control.log" 2>&1 \
    || control_status=$?
done
trapped=$(grep -c '^redirect control: seed' "$work/control.log" || true)
failed=$(grep -c 'plain Foundation survived\|the control ended otherwise' "$work/control.log" || true)
echo
echo "control: $trapped seeds, $failed did not end at HTTPURLProtocol.swift:705"
end=$(date +%s)
echo "faults: matrix exit $status, control exit $control_status, $((end - start)) s," \
  "logs: $work/matrix.log, $work/control.log"
if [[ $status -ne 0 || $control_status -ne 0 ]]; then exit 1; fi

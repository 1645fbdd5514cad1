#!/usr/bin/env bash
# Soak run of the raw-task cancel races: owners of raw data tasks released at seeded moments,
# racing the tasks' completion (answers from the server and from the URL cache), on
# URLSession.shared, a .default and an .ephemeral session. A crash of FoundationNetworking
# ends the process and fails the run; a hang trips the test's watchdog.
#
#   scripts/reliability/cancel-races.sh            # 1,000 races per session kind, 5 seeds
#   RACES=200 SEEDS=2 scripts/reliability/cancel-races.sh
#   AUTOCANCEL_SEED=<seed> scripts/reliability/cancel-races.sh   # replay one run
#
# CI runs the same test with 120 races per kind and one fresh seed (`swift test`).
set -euo pipefail
cd "$(dirname "$0")/../.."

races="${RACES:-1000}"
seeds="${SEEDS:-5}"
swift build --build-tests >/dev/null
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
for run in $(seq 1 "$seeds"); do
  echo "=== run $run of $seeds: $races races per session kind"
  status=0
  AUTOCANCEL_CANCEL_RACES="$races" swift test --skip-build \
    --filter 'CancellationLoadTests/rawTasksRaceTheirCompletion' >"$log" 2>&1 || status=$?
  grep -E 'cancel races|Fatal error|✘' "$log" || true
  if [[ $status -ne 0 ]]; then
    tail -20 "$log"
    echo "run $run failed (exit $status)"
    exit "$status"
  fi
done
echo "all $seeds runs passed"

#!/usr/bin/env bash
# Runs the tests N times each while the CPUs are kept busy, on one fresh clone of this
# repository at HEAD: the README's `swift test`, and `.ci/run`'s ThreadSanitizer and
# AddressSanitizer steps, called through `.ci/run --only` exactly as the full CI runs them.
#
#   scripts/reliability/under-load.sh                 # 10 runs of each of the three
#   scripts/reliability/under-load.sh -n 1            # one run of each
#   scripts/reliability/under-load.sh -n 5 -k tsan    # five ThreadSanitizer runs
#   scripts/reliability/under-load.sh -k test,asan    # two of the three
#
# Options:
#   -n N      runs of each kind (default 10)
#   -k KINDS  which kinds, comma-separated: test, tsan, asan (default all three)
#   -j JOBS   busy loops during each run (default: one per CPU, `nproc`)
#   -d DIR    where the clone and the logs go (default: a new directory under ${TMPDIR:-/tmp});
#             kept afterwards, so that a failed run's log can be read
#
# The clone is built once per kind before any timed run (`.ci/run --only STEP --build-only`,
# or `swift build --build-tests` for the README's command), without load. Each run then starts
# JOBS busy loops at normal priority, each bounded by the run's time limit and killed as the
# run ends (and by a trap if the script is interrupted), so that the tests share the CPUs with
# as much work as they have cores. Uncommitted changes are not in the clone: commit first.
#
# Every run prints one line: pass or fail, its wall time, the load average as it ended, and
# for a failure the tests that failed (Swift Testing's ✘ lines, XCTest's failed cases, a time
# limit, a crash). Each kind ends with a summary line:
#
#   test: 10 of 10 passed; wall time min 38 s, median 41 s, max 47 s; slowest wait 2.1 s
#
# The slowest wait is the longest that any test's bounded wait took to see its outcome
# (AUTOCANCEL_WAIT_LOG, see Tests/AutoCancelTestSupport/Wait.swift): it must stay well under
# the wait's bound. Logs: DIR/logs/KIND-RUN.log.
set -euo pipefail

runs=10
kinds="test,tsan,asan"
jobs="$(nproc)"
dir=""
while getopts "n:k:j:d:h" option; do
  case "$option" in
    n) runs="$OPTARG" ;;
    k) kinds="$OPTARG" ;;
    j) jobs="$OPTARG" ;;
    d) dir="$OPTARG" ;;
    *) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2 ;;
  esac
done
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "-n takes a whole number from 1" >&2; exit 2; }
[[ $jobs =~ ^[0-9]+$ ]] || { echo "-j takes a whole number" >&2; exit 2; }
IFS=, read -r -a chosen <<<"$kinds"
for kind in "${chosen[@]}"; do
  case "$kind" in
    test | tsan | asan) ;;
    *) echo "unknown kind \"$kind\": test, tsan or asan" >&2; exit 2 ;;
  esac
done

root="$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
commit="$(git -C "$root" rev-parse HEAD)"
dir="${dir:-$(mktemp -d "${TMPDIR:-/tmp}/autocancel-under-load.XXXXXX")}"
clone="$dir/clone"
logs="$dir/logs"
mkdir -p "$logs"

# Each run's busy loops; every one is also bounded by `timeout`, so none outlives a run even
# if this script is killed without its trap.
loaders=()
stop_load() {
  local pid
  for pid in "${loaders[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${loaders[@]}"; do wait "$pid" 2>/dev/null || true; done
  loaders=()
}
trap stop_load EXIT
trap 'stop_load; exit 130' INT TERM
start_load() {
  local seconds="$1" index
  for ((index = 0; index < jobs; index++)); do
    timeout "$seconds" sh -c 'while :; do :; done' &
    loaders+=("$!")
  done
}

load_average() { cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime | sed 's/.*load average: //'; }

echo "under load: commit $commit, $runs run(s) of ${chosen[*]}, $jobs busy loop(s) per run," \
  "$(nproc) CPUs, load average $(load_average)"
echo "clone and logs: $dir"
rm -rf "$clone"
git clone --quiet --no-checkout "$root" "$clone"
git -C "$clone" checkout --quiet --detach "$commit"
cd "$clone"

# The command of each kind, and the time limit of one run (the CI step's own limit, where the
# step has one, plus the grace `.ci/run` gives it).
command_of() {
  case "$1" in
    test) echo "swift test" ;;
    tsan) echo ".ci/run --only tsan" ;;
    asan) echo ".ci/run --only asan" ;;
  esac
}
limit_of() {
  case "$1" in
    test) echo 2400 ;;
    tsan) echo 3030 ;;
    asan) echo 2430 ;;
  esac
}

for kind in "${chosen[@]}"; do
  echo "--- build ($kind, without load)"
  build_start=$(date +%s)
  case "$kind" in
    test) swift build --build-tests >"$logs/$kind-build.log" 2>&1 ;;
    *) .ci/run --only "$kind" --build-only >"$logs/$kind-build.log" 2>&1 ;;
  esac || { echo "build failed: $logs/$kind-build.log" >&2; tail -20 "$logs/$kind-build.log" >&2; exit 1; }
  echo "built in $(($(date +%s) - build_start)) s"
done

# The tests that a log names as failed: Swift Testing's failed tests and issues, XCTest's
# failed cases, a time limit, a crash, LeakSanitizer's or a sanitizer's report.
failures_in() {
  grep -E '✘ Test .*(recorded an issue|failed after)|Test Case .* failed|exceeded its time limit|Fatal error|fatal error|error: Exited with|SUMMARY: (Thread|Address|Leak)Sanitizer|timed out \(' \
    "$1" | sed -E 's/^[^✘]*✘ //' | sort -u | head -8 || true
}

# The longest wait that AUTOCANCEL_WAIT_LOG reported in a log, in seconds.
slowest_wait_in() {
  grep -oE 'wait took [0-9]+\.[0-9]+ s' "$1" | awk '{ if ($3 > max) max = $3 } END { print max + 0 }'
}

summaries=()
status=0
for kind in "${chosen[@]}"; do
  read -r -a command <<<"$(command_of "$kind")"
  limit="$(limit_of "$kind")"
  passed=0
  times=()
  slowest=0
  failed_runs=""
  for ((run = 1; run <= runs; run++)); do
    log="$logs/$kind-$run.log"
    start_load $((limit + 60))
    start=$(date +%s)
    code=0
    # Waits of a second or more are logged; the tests' outcome does not depend on it.
    AUTOCANCEL_WAIT_LOG=1 timeout --kill-after=30 "$limit" "${command[@]}" >"$log" 2>&1 || code=$?
    wall=$(($(date +%s) - start))
    stop_load
    times+=("$wall")
    wait_seconds="$(slowest_wait_in "$log")"
    slowest="$(awk -v a="$slowest" -v b="$wait_seconds" 'BEGIN { print (b > a ? b : a) }')"
    if [[ $code -eq 0 ]]; then
      passed=$((passed + 1))
      echo "$kind run $run/$runs: pass in $wall s (load average $(load_average); slowest wait $wait_seconds s)"
    else
      status=1
      failed_runs+=" $run"
      echo "$kind run $run/$runs: FAIL ($code) in $wall s (load average $(load_average)); log: $log"
      failures_in "$log" | sed 's/^/    /'
    fi
  done
  sorted="$(printf '%s\n' "${times[@]}" | sort -n)"
  min="$(head -1 <<<"$sorted")"
  max="$(tail -1 <<<"$sorted")"
  median="$(sed -n "$(((${#times[@]} + 1) / 2))p" <<<"$sorted")"
  summary="$kind: $passed of $runs passed; wall time min $min s, median $median s, max $max s;"
  summary+=" slowest wait $slowest s"
  [[ -n $failed_runs ]] && summary+="; failed runs:$failed_runs"
  summaries+=("$summary")
done

echo
echo "=== Summary (commit $commit, $jobs busy loop(s) per run on $(nproc) CPUs)"
printf '%s\n' "${summaries[@]}"
exit "$status"

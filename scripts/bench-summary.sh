#!/usr/bin/env bash
# Summarizes several full runs of autocancel-bench (their --json output) as the
# "min / median / max" cells of BENCHMARKS.md: for every scenario and implementation, the
# min, median and max over the runs of each run's median, and of each run's paired ratios;
# then every target's verdict in each run.
#
# Usage: scripts/bench-summary.sh bench-run-1.json bench-run-2.json bench-run-3.json
set -euo pipefail

if [[ $# -lt 1 ]]; then
  echo "usage: scripts/bench-summary.sh RUN.json..." >&2
  exit 2
fi
if ! command -v jq >/dev/null; then
  echo "bench-summary.sh: jq is not installed" >&2
  exit 2
fi

jq -r -s '
  def spread: map(select(. != null)) | sort
    | if length == 0 then "—"
      else "\(.[0]) / \(.[(length - 1) / 2 | floor]) / \(.[length - 1])" end;
  . as $runs
  | "| scenario | implementation | median (min / median / max over \($runs | length) runs) | ratios |",
    "|---|---|---|---|",
    ($runs[0].results[] as $first
      | [$runs[].results[]
          | select(.scenario == $first.scenario and .implementation == $first.implementation)]
      as $same
      | "| \($first.scenario) | \($first.implementation) | \([$same[].median] | spread) \($first.unit) | "
        + ([($first.ratios // {}) | keys_unsorted[] as $ref
             | "× \($ref): \([$same[].ratios[$ref]] | spread)"] | join("; "))
        + " |"),
    "",
    "| target | " + ([range($runs | length)] | map("run \(. + 1)") | join(" | ")) + " |",
    "|---|" + ([range($runs | length)] | map("---|") | join("")),
    ($runs[0].targets[] as $first
      | "| \($first.scenario) | "
        + ([$runs[] | (.targets[] | select(.scenario == $first.scenario))
             | "\(if .pass then "PASS" else "FAIL" end) \(.detail)"] | join(" | "))
        + " |")
' "$@"

#!/usr/bin/env bash
# Counts the instructions one operation of autocancel-bench costs, with valgrind's callgrind,
# and prints a Markdown table: the figures that hold on a shared machine, since callgrind
# counts instructions, not time.
#
# Usage: scripts/bench-instructions.sh [--quick]
#   BENCH=path/to/autocancel-bench  use this binary instead of building one (for example a
#                                   build of an older commit, to compare)
#
# Method: `autocancel-bench --count-allocations OP --implementations NAME --operations N`
# runs one operation N times and nothing else. Under callgrind the process's total of
# instructions is (start-up, warm-up and everything else) + N x (instructions per
# operation); running it at N and 2N and dividing the difference by N leaves one operation's
# instructions, the median of three such measurements. Task launches run with one cooperative thread
# (LIBDISPATCH_COOPERATIVE_POOL_STRICT=1), so that every run schedules them the same way.
# A "bag-of-10" count is per bag; the table divides it by 10 for a per-item figure.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

count=20000
if [[ "${1:-}" == "--quick" ]]; then
  count=2000
elif [[ -n "${1:-}" ]]; then
  echo "usage: scripts/bench-instructions.sh [--quick]" >&2
  exit 2
fi

if ! command -v valgrind >/dev/null; then
  echo "bench-instructions.sh: valgrind is not installed" >&2
  exit 2
fi

bench="${BENCH:-}"
if [[ -z "$bench" ]]; then
  # DWARF 4 for the C target: valgrind 3.19 cannot read the DWARF 5 that clang emits by
  # default, and gives up on the whole binary.
  swift build -c release --package-path Demo --product autocancel-bench -Xcc -gdwarf-4 >&2
  bench="$(swift build -c release --package-path Demo --show-bin-path)/autocancel-bench"
fi

# Prints the instructions of one run of OP for IMPL at count N.
total() {
  local op="$1" impl="$2" n="$3"
  LIBDISPATCH_COOPERATIVE_POOL_STRICT=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null \
    "$bench" --count-allocations "$op" --implementations "$impl" --operations "$n" 2>&1 |
    sed -nE 's/.*Collected : ([0-9]+).*/\1/p'
}

# Prints the instructions per operation of OP for IMPL, divided by DIVISOR: the median of three
# measurements, since the reaper's visits (twice a second) and task scheduling move a run's
# count by a few percent.
per_operation() {
  local op="$1" impl="$2" divisor="$3" one two run figures=()
  for run in 1 2 3; do
    one="$(total "$op" "$impl" "$count")"
    two="$(total "$op" "$impl" "$((2 * count))")"
    figures+=("$(awk -v one="$one" -v two="$two" -v n="$count" -v d="$divisor" \
      'BEGIN { printf "%.0f", (two - one) / n / d }')")
  done
  printf '%s\n' "${figures[@]}" | sort -n | sed -n 2p
}

echo "Instructions per operation, callgrind at N = $count and $((2 * count)):"
echo
echo "| implementation | empty bag | bag with one item | per item, bag of 10 | add+finish | one-liner bind+complete | task launched and awaited |"
echo "|---|---|---|---|---|---|---|"
for impl in AutoCancel plain floor Task; do
  row="| $impl"
  if [[ $impl == Task ]]; then
    row+=" | — | — | — | — | —"
  else
    row+=" | $(per_operation empty-bag "$impl" 1)"
    row+=" | $(per_operation bag-with-one "$impl" 1)"
    row+=" | $(per_operation bag-of-10 "$impl" 10)"
    row+=" | $(per_operation add-finish "$impl" 1)"
    if [[ $impl == AutoCancel ]]; then
      row+=" | $(per_operation oneliner "$impl" 1)"
    else
      row+=" | —"
    fi
  fi
  if [[ $impl == AutoCancel || $impl == Task ]]; then
    row+=" | $(per_operation task-launch "$impl" 1)"
  else
    row+=" | —"
  fi
  echo "$row |"
done

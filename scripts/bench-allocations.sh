#!/usr/bin/env bash
# Counts heap allocations per operation for every bag design of autocancel-bench, with
# valgrind's DHAT, and prints a Markdown table.
#
# Usage: scripts/bench-allocations.sh [--quick]
#   BENCH=path/to/autocancel-bench  use this binary instead of building one
#
# Method: `autocancel-bench --count-allocations OP --implementations NAME --operations N`
# runs one operation N times and nothing else. Under DHAT, the process's total allocated
# blocks is (start-up, warm-up and everything else) + N x (blocks per operation). Running
# it at N and 2N and dividing the difference by N leaves the blocks (and bytes) one
# operation allocates, exactly: DHAT sees every malloc, calloc, realloc and operator new.
# A "bag-of-10" count is per bag; the table divides it by 10 for a per-item figure.
#
# Takes about 5 s per valgrind run on a quiet 2-core machine; 2 runs per cell, 24 cells.
# --quick only lowers N (the start-up of each run dominates, so it saves little).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

count=1000
if [[ "${1:-}" == "--quick" ]]; then
  count=100
elif [[ -n "${1:-}" ]]; then
  echo "usage: scripts/bench-allocations.sh [--quick]" >&2
  exit 2
fi

if ! command -v valgrind >/dev/null; then
  echo "bench-allocations.sh: valgrind is not installed" >&2
  exit 2
fi

bench="${BENCH:-}"
if [[ -z "$bench" ]]; then
  # DWARF 4 for the C target: valgrind 3.19 cannot read the DWARF 5 that clang emits by
  # default, and gives up on the whole binary.
  swift build -c release --package-path Demo --product autocancel-bench -Xcc -gdwarf-4 >&2
  bench="$(swift build -c release --package-path Demo --show-bin-path)/autocancel-bench"
fi

# Prints "blocks bytes" allocated by one run of OP for IMPL at count N.
totals() {
  local op="$1" impl="$2" n="$3" line
  # One cooperative thread: task launches then allocate the same way in every run (with
  # more, dispatch's own bookkeeping varies a little with scheduling).
  line="$(LIBDISPATCH_COOPERATIVE_POOL_STRICT=1 valgrind --tool=dhat --dhat-out-file=/dev/null \
    "$bench" --count-allocations "$op" --implementations "$impl" --operations "$n" 2>&1 |
    grep -E '== Total:')"
  # "==123== Total:     214,392 bytes in 2,407 blocks"
  echo "$line" | sed -E 's/.*Total: *([0-9,]+) bytes in ([0-9,]+) blocks.*/\2 \1/' | tr -d ','
}

# Prints "blocks (bytes B)" per operation of OP for IMPL, divided by DIVISOR.
per_operation() {
  local op="$1" impl="$2" divisor="$3" one two
  one="$(totals "$op" "$impl" "$count")"
  two="$(totals "$op" "$impl" "$((2 * count))")"
  awk -v one="$one" -v two="$two" -v n="$count" -v d="$divisor" 'BEGIN {
    split(one, a, " "); split(two, b, " ")
    blocks = (b[1] - a[1]) / n / d; bytes = (b[2] - a[2]) / n / d
    printf "%.2f (%.0f B)", blocks, bytes
  }'
}

implementations=(AutoCancel naive plain floor origin-port)
echo "Allocations per operation (blocks, and bytes allocated), DHAT at N = $count and $((2 * count)):"
echo
echo "| implementation | empty bag | bag with one item | per item, bag of 10 | add+finish | one-liner bind+complete |"
echo "|---|---|---|---|---|---|"
for impl in "${implementations[@]}"; do
  row="| $impl"
  row+=" | $(per_operation empty-bag "$impl" 1)"
  row+=" | $(per_operation bag-with-one "$impl" 1)"
  row+=" | $(per_operation bag-of-10 "$impl" 10)"
  row+=" | $(per_operation add-finish "$impl" 1)"
  if [[ "$impl" == AutoCancel || "$impl" == origin-port ]]; then
    row+=" | $(per_operation oneliner "$impl" 1)"
  else
    row+=" | —"
  fi
  echo "$row |"
done
echo
echo "Every figure includes the work item itself where the operation creates one (floor's"
echo "row: the work item alone); an empty floor bag allocates nothing."
echo
echo "| S6: a task launched and awaited | allocations |"
echo "|---|---|"
echo "| AutoCancel (\`bag.task { }\`) | $(per_operation task-launch AutoCancel 1) |"
echo "| Task (a bare \`Task { }\`) | $(per_operation task-launch Task 1) |"

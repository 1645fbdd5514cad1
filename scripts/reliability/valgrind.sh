#!/usr/bin/env bash
# Runs the reliability stress (the model-based runs and owner churn) under valgrind memcheck
# and fails on any definite leak or memory error.
#
#   scripts/reliability/valgrind.sh                 # 100,000 operations (default)
#   AUTOCANCEL_RELIABILITY_OPS=20000 scripts/reliability/valgrind.sh
#   AUTOCANCEL_SEED=<seed> scripts/reliability/valgrind.sh   # replay one run
#   AUTOCANCEL_VALGRIND_SELFTEST=1 scripts/reliability/valgrind.sh   # must fail: leaks on purpose
#
# Why an executable and not the test binary: the test runner's async main calls dispatch_main,
# which exits the main thread, and valgrind 3.19 crashes on that ("the 'impossible'
# happened", SIGSEGV in _dispatch_sig_thread). The executable compiles the test suite's own
# reliability support code against the debug-built AutoCancel module.
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
work="${AUTOCANCEL_VALGRIND_DIR:-${TMPDIR:-/tmp}/autocancel-valgrind}"
mkdir -p "$work"

# DWARF 4 for the C target: valgrind 3.19 cannot read the DWARF 5 that clang emits by default.
swift build --target AutoCancel -Xcc -gdwarf-4 >/dev/null
swift build --target AutoCancelTestSupport -Xcc -gdwarf-4 >/dev/null
swift build --target AutoCancelDiagnostics -Xcc -gdwarf-4 >/dev/null
bin="$(swift build --show-bin-path)"
# The test kit's declarations have `package` access: compile as a member of the same package.
package_name="$(grep -m1 -A1 -- '"-package-name"' "$bin/description.json" | tail -1 | tr -d ' ",')"
swiftc -swift-version 6 -g -Onone -enable-testing \
  -module-name ReliabilityStress -package-name "$package_name" -I "$bin/Modules" \
  -Xcc -fmodule-map-file="$bin"/CAutoCancelAtomics.build/module.modulemap \
  scripts/reliability/stress/main.swift \
  Tests/AutoCancelTests/Reliability/Support/*.swift \
  "$bin"/AutoCancel.build/*.swift.o \
  "$bin"/CAutoCancelAtomics.build/*.o \
  "$bin"/AutoCancelDiagnostics.build/*.swift.o \
  "$bin"/AutoCancelTestSupport.build/*.swift.o \
  "$bin"/SeededRandom.build/*.swift.o \
  "$bin"/LoopbackHTTPServer.build/*.swift.o \
  -lTesting \
  -o "$work/reliability-stress"

export AUTOCANCEL_VALGRIND=1
export AUTOCANCEL_RELIABILITY_OPS="${AUTOCANCEL_RELIABILITY_OPS:-100000}"
start=$(date +%s)
status=0
valgrind --tool=memcheck --leak-check=full --show-leak-kinds=definite,possible \
  --errors-for-leak-kinds=definite --error-exitcode=99 --num-callers=40 \
  --suppressions="$root/scripts/reliability/valgrind.supp" \
  "$work/reliability-stress" >"$work/stdout.log" 2>"$work/valgrind.log" || status=$?
end=$(date +%s)
cat "$work/stdout.log"
grep -E "ERROR SUMMARY|definitely lost|indirectly lost|possibly lost|still reachable|suppressed:" \
  "$work/valgrind.log" || true
echo "valgrind: exit $status, $((end - start)) s, full log: $work/valgrind.log"
exit "$status"

#!/usr/bin/env bash
# Builds the DocC documentation of one module with the toolchain's own `docc`, warnings as
# errors. Usage: scripts/docs.sh [Module]   (default: AutoCancel)
#
# Why not `swift package generate-documentation`: that needs the swift-docc-plugin package,
# and the project has no outside dependencies. Instead:
#   1. `swift build --target <Module>` (debug, default flags, so it reuses the build of
#      `swift test`), then `swift-symbolgraph-extract` for that module's public symbols;
#   2. `docc convert` builds the module's catalog (Sources/<Module>/<Module>.docc) against the
#      module's own symbol graphs (<Module>.symbols.json and the extension graphs
#      <Module>@<Other>.symbols.json), with --warnings-as-errors: a broken ``link`` in a doc
#      comment or an article fails the build.
# Output: .build/docs/<Module>.doccarchive. Diagnostics go to stderr; exit status non-zero
# on any warning.
set -euo pipefail

module="${1:-AutoCancel}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

if [[ ! -d "Sources/$module" ]]; then
  echo "docs.sh: no module Sources/$module" >&2
  exit 2
fi

catalog=""
for candidate in "Sources/$module"/*.docc; do
  [[ -d "$candidate" ]] && catalog="$candidate" && break
done

log="$(mktemp)"
graphs="$(mktemp -d)"
trap 'rm -rf "$log" "$graphs"' EXIT

# Step 1: symbol graphs. Build the module with the default flags (so that it reuses the build of
# `swift test`), then extract its public symbol graph, as `swift package dump-symbol-graph`
# does, but for this module only (that command fails when test modules are not built).
if ! swift build --target "$module" >"$log" 2>&1; then
  cat "$log" >&2
  echo "docs.sh: swift build --target $module failed" >&2
  exit 1
fi
bin="$(swift build --show-bin-path)"
# (No `| head` here: under pipefail an early exit of the reader would fail the script.)
triple="$(swift -print-target-info | sed -n 's/^ *"triple": "\(.*\)",$/\1/p')"
triple="${triple%%$'\n'*}"
# The C targets' modules (the core's atomics) are found through their generated module maps.
c_modules=()
for map in "$bin"/*.build/module.modulemap; do
  [[ -e $map ]] && c_modules+=(-Xcc "-fmodule-map-file=$map")
done
swift-symbolgraph-extract \
  -module-name "$module" \
  -target "$triple" \
  -I "$bin/Modules" \
  "${c_modules[@]}" \
  -module-cache-path "$bin/ModuleCache" \
  -minimum-access-level public \
  -emit-extension-block-symbols \
  -output-dir "$graphs"

# Step 2: the catalog (or, for a module without one, its doc comments alone).
output=".build/docs/$module.doccarchive"
rm -rf "$output"
mkdir -p .build/docs
args=(
  --additional-symbol-graph-dir "$graphs"
  --output-path "$output"
  --fallback-display-name "$module"
  --fallback-bundle-identifier "org.autocancel.$module"
  --warnings-as-errors
)
if [[ -n "$catalog" ]]; then
  docc convert "$catalog" "${args[@]}"
else
  echo "docs.sh: $module has no .docc catalog; checking its doc comments only" >&2
  docc convert "${args[@]}"
fi
echo "docs.sh: $module documentation built at $output"

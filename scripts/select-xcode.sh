#!/usr/bin/env bash
# Selects the Xcode that the rest of a GitHub Actions job builds with, and fails loudly when it
# is not installed: a job never falls back to the runner image's default Xcode.
#
# Usage: scripts/select-xcode.sh VERSION               (such as 16.0: /Applications/Xcode_16.0.app)
#        scripts/select-xcode.sh newest [--swift X.Y]  (the highest release Xcode installed, never
#                                                       a beta; with --swift, the highest whose
#                                                       compiler is Swift X.Y)
#
# `--swift` is how a job asks for the compiler of Linux CI rather than whatever the image's
# newest Xcode brings: each Xcode's own `swift --version` is read, so an image that adds an
# Xcode with a newer Swift does not silently move the job off the compiler it is meant to test.
#
# Prints `xcodebuild -version` (which must report the version asked for) and the Swift
# compiler's version. Sets DEVELOPER_DIR for the job's later steps (through $GITHUB_ENV), and
# points xcode-select at the same Xcode for commands run with sudo, which drops DEVELOPER_DIR.
set -euo pipefail

usage="usage: scripts/select-xcode.sh VERSION | newest [--swift X.Y]"
wanted="${1:?$usage}"
swift=""
if [[ ${2:-} == --swift ]]; then
  swift="${3:?$usage}"
  [[ $wanted == newest ]] || { echo "$usage" >&2; exit 2; }
elif [[ $# -gt 1 ]]; then
  echo "$usage" >&2
  exit 2
fi

# The Swift version (such as 6.3.1) of the compiler inside an Xcode.
swift_of() {
  "$1/Contents/Developer/Toolchains/XcodeDefault.xctoolchain/usr/bin/swift" --version 2>/dev/null \
    | sed -nE 's/.*Swift version ([0-9]+(\.[0-9]+)*).*/\1/p' | head -n 1
}

app=""
if [[ $wanted == newest ]]; then
  while read -r candidate; do
    [[ -n $candidate ]] || continue
    if [[ -z $swift ]]; then app="$candidate"; break; fi
    found="$(swift_of "$candidate")"
    echo "$candidate: Swift ${found:-unknown}"
    if [[ $found == "$swift" || $found == "$swift."* ]]; then app="$candidate"; break; fi
  done < <(find /Applications -maxdepth 1 -name 'Xcode_*.app' \
    | grep -E '/Xcode_[0-9]+(\.[0-9]+)*\.app$' | sort -rV || true)
else
  app="/Applications/Xcode_${wanted}.app"
fi
if [[ -z $app || ! -d $app/Contents/Developer ]]; then
  echo "::error::Xcode ${wanted}${swift:+ with Swift $swift} is not installed on this runner (${app:-no such release Xcode found})"
  echo "Installed:"
  find /Applications -maxdepth 1 -name 'Xcode*.app' | sort
  exit 1
fi

developer_dir="$app/Contents/Developer"
export DEVELOPER_DIR="$developer_dir"
version="$(xcodebuild -version)"
echo "$app"
echo "$version"
first_line="$(head -n 1 <<<"$version")"
if [[ $wanted != newest && $first_line != "Xcode $wanted" && $first_line != "Xcode $wanted."* ]]; then
  echo "::error::$app is $first_line, not Xcode $wanted"
  exit 1
fi
xcrun swift --version

sudo xcode-select --switch "$developer_dir"
if [[ -n ${GITHUB_ENV:-} ]]; then
  echo "DEVELOPER_DIR=$developer_dir" >>"$GITHUB_ENV"
fi

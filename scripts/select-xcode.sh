#!/usr/bin/env bash
# Selects the Xcode that the rest of a GitHub Actions job builds with, and fails loudly when it
# is not installed: a job never falls back to the runner image's default Xcode.
#
# Usage: scripts/select-xcode.sh VERSION    (such as 16.0: /Applications/Xcode_16.0.app)
#        scripts/select-xcode.sh newest     (the highest release Xcode installed, never a beta)
#
# Prints `xcodebuild -version` (which must report the version asked for) and the Swift
# compiler's version. Sets DEVELOPER_DIR for the job's later steps (through $GITHUB_ENV), and
# points xcode-select at the same Xcode for commands run with sudo, which drops DEVELOPER_DIR.
set -euo pipefail

wanted="${1:?usage: scripts/select-xcode.sh VERSION|newest}"
if [[ $wanted == newest ]]; then
  app="$(find /Applications -maxdepth 1 -name 'Xcode_*.app' \
    | grep -E '/Xcode_[0-9]+(\.[0-9]+)*\.app$' | sort -V | tail -n 1 || true)"
else
  app="/Applications/Xcode_${wanted}.app"
fi
if [[ -z $app || ! -d $app/Contents/Developer ]]; then
  echo "::error::Xcode ${wanted} is not installed on this runner (${app:-no release Xcode found})"
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

#!/usr/bin/env bash
# Prints the UDID of an iPhone simulator that runs the iOS version of the selected Xcode's iOS
# Simulator SDK: the tests run on the iOS they were compiled against, never on whatever other
# runtime the machine has.
#
# Usage: udid="$(scripts/ios-simulator.sh)"    (after scripts/select-xcode.sh)
#
# When that runtime is not installed (the GitHub macOS images install runtimes for their
# newest Xcodes only: Xcode 16.0 on macos-15 has no iOS 18.0), it is downloaded with
# `xcodebuild -downloadPlatform iOS`, several GB, tried five times 30 s apart, as the download
# is known to fail at random. If the runtime still cannot be had, the script fails, naming
# what is installed. A device is created on the runtime if it has no iPhone yet.
set -euo pipefail

sdk="$(xcrun --sdk iphonesimulator --show-sdk-version)"

# The identifier of an installed iOS runtime whose version is the SDK's (18.0, or 18.0.x).
matching_runtime() {
  xcrun simctl list runtimes available --json | jq -r --arg sdk "$sdk" '
    [.runtimes[]
      | select(.identifier | startswith("com.apple.CoreSimulator.SimRuntime.iOS-"))
      | select(.version == $sdk or (.version | startswith($sdk + ".")))
      | .identifier]
    | first // empty'
}

runtime="$(matching_runtime)"
if [[ -z $runtime ]]; then
  echo "::warning::No iOS $sdk simulator runtime is installed; downloading it." >&2
  # Starts CoreSimulator first: a download without it fails with "Unable to connect to
  # simulator" (exit 70).
  xcrun simctl list >/dev/null
  sudo xcodebuild -runFirstLaunch >&2
  for attempt in 1 2 3 4 5; do
    if sudo xcodebuild -downloadPlatform iOS >&2; then break; fi
    echo "Download attempt $attempt of 5 failed." >&2
    if [[ $attempt -lt 5 ]]; then sleep 30; fi
  done
  runtime="$(matching_runtime)"
fi
if [[ -z $runtime ]]; then
  echo "::error::No iOS $sdk simulator runtime for $(xcodebuild -version | head -n 1), and it could not be downloaded." >&2
  xcrun simctl list runtimes >&2
  exit 1
fi

udid="$(xcrun simctl list devices available --json | jq -r --arg runtime "$runtime" '
  (.devices[$runtime] // []) | map(select(.name | startswith("iPhone"))) | first | .udid // empty')"
if [[ -z $udid ]]; then
  device_type="$(xcrun simctl list runtimes --json | jq -r --arg runtime "$runtime" '
    [.runtimes[] | select(.identifier == $runtime)
      | .supportedDeviceTypes[] | select(.productFamily == "iPhone") | .identifier]
    | first // empty')"
  if [[ -z $device_type ]]; then
    echo "::error::The runtime $runtime offers no iPhone." >&2
    exit 1
  fi
  udid="$(xcrun simctl create "CI iPhone" "$device_type" "$runtime")"
fi
echo "iOS Simulator: runtime $runtime, device $udid" >&2
echo "$udid"

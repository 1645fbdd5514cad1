#!/usr/bin/env bash
# Prints the UDID of a simulator that runs the OS version of the selected Xcode's simulator SDK
# for PLATFORM: the tests run on the OS they were compiled against, never on whatever other
# runtime the machine has.
#
# Usage: udid="$(scripts/simulator.sh [iOS|tvOS|watchOS])"    (after scripts/select-xcode.sh;
#                                                            iOS by default)
#
# When that runtime is not installed (the GitHub macOS images install runtimes for their
# newest Xcodes only: Xcode 16.0 on macos-15 has no iOS 18.0), it is downloaded, pinned to
# the SDK's version (`xcodebuild -downloadPlatform PLATFORM -buildVersion VERSION`: without
# `-buildVersion` it fetches the newest runtime, which need not match the SDK), after printing
# the free disk, which these images are short of. Several GB, tried five times 30 s apart, as
# the download is known to fail at random. If the runtime still cannot be had, the script
# fails, naming what is installed. A device is created on the runtime if it has none yet.
set -euo pipefail

platform="${1:-iOS}"
case "$platform" in
  iOS) sdk_name=iphonesimulator family="iPhone" ;;
  tvOS) sdk_name=appletvsimulator family="Apple TV" ;;
  watchOS) sdk_name=watchsimulator family="Apple Watch" ;;
  *) echo "usage: scripts/simulator.sh [iOS|tvOS|watchOS]" >&2; exit 2 ;;
esac
sdk="$(xcrun --sdk "$sdk_name" --show-sdk-version)"
echo "Free disk before the $platform $sdk simulator runtime is looked for:" >&2
df -h / >&2

# The identifier of an installed runtime whose version is the SDK's (18.0, or 18.0.x).
matching_runtime() {
  xcrun simctl list runtimes available --json | jq -r --arg sdk "$sdk" --arg platform "$platform" '
    [.runtimes[]
      | select(.identifier | startswith("com.apple.CoreSimulator.SimRuntime." + $platform + "-"))
      | select(.version == $sdk or (.version | startswith($sdk + ".")))
      | .identifier]
    | first // empty'
}

runtime="$(matching_runtime)"
if [[ -z $runtime ]]; then
  echo "::warning::No $platform $sdk simulator runtime is installed; downloading it." >&2
  # Starts CoreSimulator first: a download without it fails with "Unable to connect to
  # simulator" (exit 70). The download runs without sudo (with sudo it is known to fail on
  # these images), and its exit status is not trusted: an attempt succeeded when the runtime
  # is listed afterwards.
  xcrun simctl list >/dev/null
  for attempt in 1 2 3 4 5; do
    xcodebuild -downloadPlatform "$platform" -buildVersion "$sdk" >&2 || true
    runtime="$(matching_runtime)"
    if [[ -n $runtime ]]; then break; fi
    echo "Download attempt $attempt of 5 did not install the $platform $sdk runtime." >&2
    if [[ $attempt -lt 5 ]]; then sleep 30; fi
  done
  echo "Free disk after the download:" >&2
  df -h / >&2
fi
if [[ -z $runtime ]]; then
  echo "::error::No $platform $sdk simulator runtime for $(xcodebuild -version | head -n 1), and it could not be downloaded." >&2
  xcrun simctl list runtimes >&2
  exit 1
fi

udid="$(xcrun simctl list devices available --json | jq -r --arg runtime "$runtime" --arg family "$family" '
  (.devices[$runtime] // []) | map(select(.name | startswith($family))) | first | .udid // empty')"
if [[ -z $udid ]]; then
  device_type="$(xcrun simctl list runtimes --json | jq -r --arg runtime "$runtime" --arg family "$family" '
    [.runtimes[] | select(.identifier == $runtime)
      | .supportedDeviceTypes[] | select(.productFamily == $family) | .identifier]
    | first // empty')"
  if [[ -z $device_type ]]; then
    echo "::error::The runtime $runtime offers no $family." >&2
    exit 1
  fi
  udid="$(xcrun simctl create "CI $family" "$device_type" "$runtime")"
fi
echo "$platform Simulator: runtime $runtime, device $udid" >&2
echo "$udid"

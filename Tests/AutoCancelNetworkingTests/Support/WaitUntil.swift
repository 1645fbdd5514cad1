import Dispatch

/// Checks `condition` on the main actor until it holds, yielding between checks; false if
/// it still does not hold after `seconds` (a bound against hangs, not a measurement) or the
/// task is cancelled.
@MainActor
func waitUntil(seconds: Double = 30, _ condition: @MainActor () -> Bool) async -> Bool {
  let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
  while !condition() {
    if Task.isCancelled || DispatchTime.now().uptimeNanoseconds > deadline { return false }
    try? await Task.sleep(nanoseconds: 1_000_000)
  }
  return true
}

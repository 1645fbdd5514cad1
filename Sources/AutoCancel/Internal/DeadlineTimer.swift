/// A one-shot timer of a deadline: a detached task that sleeps until `duration` has passed on
/// `clock`, then acts, unless it is cancelled first.
///
/// Returned as the work a bag stores, so that the bag stops it (cancels the sleep) when the
/// deadline's bag or item ends first.
@available(macOS 13.0, iOS 16.0, tvOS 16.0, watchOS 9.0, *)
func startDeadlineTimer<C: Clock>(
  after duration: C.Duration, tolerance: C.Duration?, clock: C,
  action: @escaping @Sendable () -> Void
) -> StoredWork {
  let deadline = clock.now.advanced(by: duration)
  return BoxedWork(
    Task.detached {
      do {
        try await clock.sleep(until: deadline, tolerance: tolerance)
      } catch {
        return  // stopped: the work or the bag ended first
      }
      action()
    })
}

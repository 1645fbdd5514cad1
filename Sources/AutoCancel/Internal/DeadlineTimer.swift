/// A one-shot timer: a detached task that sleeps until a deadline, then acts, unless it is
/// cancelled first.
@available(macOS 13.0, iOS 16.0, tvOS 16.0, watchOS 9.0, *)
enum Timer {
  static func start<C: Clock>(
    at deadline: C.Instant, tolerance: C.Duration?, clock: C,
    action: @escaping @Sendable () -> Void
  ) -> StoredWork {
    BoxedWork(
      Task.detached {
        do {
          try await clock.sleep(until: deadline, tolerance: tolerance)
        } catch {
          return  // stopped: the work or the bag ended first
        }
        action()
      })
  }
}

import AutoCancelTestSupport
import AutoCancel
import Foundation

/// An untyped request that responds to `cancel`, and says when it is deallocated.
final class RespondingRequest: CancelResponder, Sendable {
  private let cancels = Protected(0)
  private let onDeinit: (@Sendable () -> Void)?

  init(onDeinit: (@Sendable () -> Void)? = nil) {
    self.onDeinit = onDeinit
  }

  deinit { onDeinit?() }

  func cancel() { cancels.withLock { $0 += 1 } }

  var cancelCount: Int { cancels.current }
}

/// An untyped request with no `cancel` method: binding it must not crash, only do nothing.
final class MuteRequest: Sendable {}

/// A counter shared by many requests, from any thread.
final class Tally: Sendable {
  private let value = Protected(0)
  func increment() { value.withLock { $0 += 1 } }
  var count: Int { value.current }
}

import AutoCancelTestSupport
import AutoCancel
import Foundation

/// Typed work that counts its cancels and records their reasons.
final class Probe: ReasonAwareCancellable, Sendable {
  private let reasonsSeen = Protected<[CancellationReason]>([])

  func cancel() { cancel(reason: .explicit) }

  func cancel(reason: CancellationReason) {
    reasonsSeen.withLock { $0.append(reason) }
  }

  var reasons: [CancellationReason] { reasonsSeen.current }
  var cancelCount: Int { reasons.count }
}

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

/// Typed work that says when it is done, as `Operation` does, and counts its cancels.
final class FinishingRequest: FinishReporting, Sendable {
  private let state = Protected((finished: false, cancels: 0))

  func complete() { state.withLock { $0.finished = true } }
  var isFinished: Bool { state.current.finished }
  func cancel() { state.withLock { $0.cancels += 1 } }
  var cancelCount: Int { state.current.cancels }
}

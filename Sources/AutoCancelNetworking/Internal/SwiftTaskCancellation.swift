import AutoCancel
import Foundation

/// Connects the awaiting Swift task's cancellation to a ``BoundRequest``.
///
/// `onCancel` may run before the request exists (the task was already cancelled) or while
/// it is being set up: the cancel is kept and applied by ``attach(_:)``.
final class SwiftTaskCancellation<Value: Sendable>: @unchecked Sendable {
  // Safety: `request` and `cancelled` are only touched under `lock`.
  private let lock = NSLock()
  private var request: BoundRequest<Value>?
  private var cancelled = false

  /// Marks the failure delivered when the Swift task, not a bag, cancelled the request; the
  /// awaiting function turns it into a `CancelledError` with the task's reason.
  struct Marker: Error {}

  /// Returns false when the Swift task was cancelled first (the request is then cancelled).
  func attach(_ request: BoundRequest<Value>) -> Bool {
    let cancelNow = lock.withLock {
      self.request = request
      return cancelled
    }
    if cancelNow { request.cancelBySwiftTask() }
    return !cancelNow
  }

  func cancel() {
    let request: BoundRequest<Value>? = lock.withLock {
      cancelled = true
      return self.request
    }
    request?.cancelBySwiftTask()
  }
}

extension BoundRequest {
  /// Cancels for the Swift task: the continuation receives a marker, mapped to a
  /// `CancelledError` in the task's own context (where `CancellationReason.current` is
  /// readable).
  func cancelBySwiftTask() {
    cancel(reason: .explicit, reporting: SwiftTaskCancellation<Value>.Marker())
  }
}

/// Carries a bag into the request's setup and lets go of it there, so the awaiting call does
/// not keep the bag (and its owner's cancellation) alive.
final class BagHandOff: @unchecked Sendable {
  // Safety: `bag` is only touched under `lock`.
  private let lock = NSLock()
  private var bag: CancelBag?

  init(_ bag: consuming CancelBag) { self.bag = bag }

  /// The bag, once; later calls trap (the setup runs once).
  func take() -> CancelBag {
    lock.withLock {
      defer { bag = nil }
      return bag!
    }
  }
}

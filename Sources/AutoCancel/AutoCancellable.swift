/// Work that can be cancelled: the only thing AutoCancel needs to know about it.
///
/// Conforming types write one method, ``cancel()``. Work that wants to know why it was
/// cancelled conforms to ``ReasonAwareCancellable`` instead.
///
/// `Task` conforms already, and `AutoCancelNetworking` adds `Operation` (a raw
/// `URLSessionTask` joins through its own `add(_:)` overload). A `DispatchWorkItem` (not `Sendable` in every Dispatch) goes in through
/// ``CancelBag/add(_:key:label:)-(DispatchWorkItem,_,_)``, a closure through
/// ``CancelBag/add(key:label:onCancel:)``. Your own request types conform in one line:
///
/// ```swift
/// final class ImageRequest: AutoCancellable {
///   func cancel() { connection.close() }
/// }
/// cancelBag.add(request)
/// ```
///
/// Work the compiler cannot prove `Sendable` (most Objective-C request classes, non-final
/// classes) joins through ``CancelBag/add(unchecked:key:label:cancel:)``, which names the
/// risk; a cancel method that returns a value (Alamofire's `Request.cancel() -> Self`) through
/// the closure form, `cancelBag.add { _ in request.cancel() }`.
///
/// ## Contract for implementers
///
/// - `cancel()` may be called from any thread, including the thread that releases the
///   owner, which is why conformers are `Sendable`.
/// - A bag calls it at most once per registration, never while holding a lock of its own,
///   so it may call back into the bag (add, cancel, finish, count).
/// - It should be idempotent and return promptly: the caller is often tearing down a screen.
///   Hand slow clean-up to another queue.
public protocol AutoCancellable: Sendable {
  /// Stops the work. Called at most once per registration, from any thread.
  func cancel()

  /// The bag's way in: cancels, handing `reason` to work that takes one.
  ///
  /// Implemented for every conformer (``cancel()`` here, ``ReasonAwareCancellable/cancel(reason:)``
  /// for reason-aware work); do not implement it. A requirement rather than a cast, so that
  /// the choice is made once, when the type conforms, instead of on every cancel.
  func _cancel(for reason: CancellationReason)

  /// The bag's way to ask whether the work is done, so that it can leave by itself.
  ///
  /// Implemented for every conformer (false here, ``FinishReporting/isFinished`` for work
  /// that reports it); do not implement it. A requirement rather than a cast, so that the
  /// choice is made once, when the type conforms, instead of for every item a sweep asks.
  func _isFinished() -> Bool
}

extension AutoCancellable {
  /// Cancels with ``cancel()``: this work does not take a reason.
  public func _cancel(for reason: CancellationReason) {
    cancel()
  }

  /// False, unless the work conforms to ``FinishReporting`` in another module than its
  /// `AutoCancellable` conformance: that conformance was fixed without knowing of the other,
  /// so only a cast finds ``FinishReporting/isFinished``. The bag asks only work it added as
  /// `FinishReporting`, so other work never pays for the cast.
  public func _isFinished() -> Bool {
    (self as? any FinishReporting)?.isFinished ?? false
  }
}

/// A `Task` is cancelled through `Task.cancel()`; prefer
/// ``CancelBag/task(key:label:priority:operation:)->Task<Success,Error>``, which also removes
/// the task from the bag when it finishes.
extension Task: AutoCancellable {}

/// Work that can be cancelled: the only thing AutoCancel needs to know about it.
///
/// Conforming types write one method, ``cancel()``. Work that wants to know why it was
/// cancelled also implements ``cancel(reason:)``, whose default calls ``cancel()``.
///
/// `Task` conforms already, and `AutoCancelNetworking` adds `URLSessionTask` and
/// `Operation`. A `DispatchWorkItem` (not `Sendable` in every Dispatch) goes in through
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

  /// Stops the work, saying why. The default implementation calls ``cancel()``.
  ///
  /// Implement it when the work reports the reason on (as an error to its caller, in a log).
  func cancel(reason: CancellationReason)
}

extension AutoCancellable {
  /// Calls ``AutoCancellable/cancel()``, dropping the reason.
  public func cancel(reason: CancellationReason) {
    cancel()
  }
}

/// A `Task` is cancelled through `Task.cancel()`; prefer
/// ``CancelBag/task(key:label:priority:operation:)->Task<Success,Error>``, which also removes
/// the task from the bag when it finishes.
extension Task: AutoCancellable {}

/// Cancellable work that wants to know why it was cancelled.
///
/// A bag calls ``cancel(reason:)`` instead of ``AutoCancellable/cancel()`` on work that
/// conforms, with the ``CancellationReason``: the owner went away, a newer request took the
/// key, a deadline passed. Implement it when the work reports the reason on, as an error to
/// its caller or in a log; ``AutoCancellable/cancel()`` then defaults to the reason
/// ``CancellationReason/explicit``.
///
/// ```swift
/// final class Upload: ReasonAwareCancellable {
///   func cancel(reason: CancellationReason) {
///     connection.close()
///     log("upload stopped: \(reason)")
///   }
/// }
/// cancelBag.add(upload)
/// ```
///
/// Types that cannot carry a reason (`Task`, `URLSessionTask`) conform to
/// ``AutoCancellable`` alone, so that they do not gain a `cancel(reason:)` that would drop it.
/// The contract is that of ``AutoCancellable``: called at most once per registration, from
/// any thread, never under a lock of the bag's.
public protocol ReasonAwareCancellable: AutoCancellable {
  /// Stops the work, saying why. Called at most once per registration, from any thread.
  func cancel(reason: CancellationReason)
}

extension ReasonAwareCancellable {
  /// Cancels with reason ``CancellationReason/explicit``.
  public func cancel() {
    cancel(reason: .explicit)
  }

  /// Cancels with ``cancel(reason:)``, so that the work hears why.
  public func _cancel(for cancellation: _BagCancellation) {
    cancel(reason: cancellation.reason)
  }
}

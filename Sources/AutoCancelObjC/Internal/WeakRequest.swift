/// A weak reference to an untyped request, as the original category kept one.
///
/// A request that nothing else keeps alive is gone: its network layer released it when it
/// finished, so there is nothing left to cancel.
final class WeakRequest: @unchecked Sendable {
  // Safety: `request` is written once, in `init`, before the box is shared; Swift's weak
  // references may then be read from any thread.
  private weak var request: AnyObject?

  init(_ request: AnyObject) {
    self.request = request
  }

  /// Whether the request has been deallocated.
  var isGone: Bool { request == nil }

  /// Cancels the request, if it is still alive and can be cancelled.
  func cancel(using canceller: some UntypedCanceller) {
    guard let request else { return }
    canceller.cancelIfPossible(request)
  }
}

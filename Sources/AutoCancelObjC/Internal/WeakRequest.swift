import AutoCancel

/// A weak reference to an untyped request, as the original category kept one, with the rule
/// that cancels it.
///
/// A request that nothing else keeps alive is gone: its network layer released it when it
/// finished, so there is nothing left to cancel. Being gone is its finish: the bag drops the
/// box soon after, as it drops any finished work.
final class WeakRequest<Canceller: UntypedCanceller>: FinishReporting, @unchecked Sendable {
  // Safety: `request` is written once, in `init`, before the box is shared; Swift's weak
  // references may then be read from any thread. `canceller` is `Sendable`.
  private weak var request: AnyObject?
  private let canceller: Canceller

  init(_ request: AnyObject, canceller: Canceller) {
    self.request = request
    self.canceller = canceller
  }

  /// Whether the request has been deallocated.
  var isFinished: Bool { request == nil }

  /// Cancels the request, if it is still alive and can be cancelled.
  func cancel() {
    guard let request else { return }
    canceller.cancelIfPossible(request)
  }
}

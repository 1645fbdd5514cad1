import AutoCancel

/// The hidden object attached to an owner: it holds the owner's work, and cancels what is in
/// flight when it is released with the owner.
///
/// Typed work (``AutoCancellable``) goes to its bag through the one-liner every owner has;
/// untyped requests are held weakly, as the original category held them. It never refers to the
/// object it is attached to.
final class DeallocHolder: AutoCancelOwner, Sendable {
  let cancelBag = CancelBag()
  let untypedRequests = WeaklyHeldRequests()

  /// Binds an untyped request weakly; `canceller` decides at cancel time whether it can be
  /// cancelled.
  func autoCancelUntyped(_ request: AnyObject, canceller: some UntypedCanceller) {
    untypedRequests.add(request, to: cancelBag, canceller: canceller)
  }
}

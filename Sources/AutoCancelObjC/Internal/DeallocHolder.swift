import AutoCancel

/// The hidden object attached to an owner: it holds the owner's work in its bag, and cancels
/// what is in flight when it is released with the owner.
///
/// It never refers to the object it is attached to.
final class DeallocHolder: AutoCancelOwner, Sendable {
  let cancelBag = CancelBag()
}

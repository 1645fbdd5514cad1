import AutoCancel

/// Something that stores a bag, like a screen; releasing it ends the bag (`ownerGone`).
final class Owner: AutoCancelOwner, Sendable {
  let cancelBag = CancelBag()
}

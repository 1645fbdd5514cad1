import AutoCancel

/// An owner as an app writes one: a class whose bag is a stored `let`.
final class Owner: AutoCancelOwner, Sendable {
  let cancelBag = CancelBag(label: "owner")
}

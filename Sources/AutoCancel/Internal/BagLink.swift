/// The registration of a child or linked bag inside its parent or link source.
///
/// When the source ends, the linked bag ends too, with `.parentEnded` for a child and
/// `.linkEnded` for a link. A child also follows its parent's `cancelAll`. A `BagLink` holds
/// the linked bag's core, not its front, so a parent never keeps a child's owner alive.
final class BagLink: ReasonAwareCancellable {
  enum Kind {
    /// Follows the parent's `cancelAll` and ends with it.
    case child
    /// Ends when the source ends; ignores its `cancelAll`.
    case link
  }

  let target: BagCore
  let kind: Kind

  init(target: BagCore, kind: Kind) {
    self.target = target
    self.kind = kind
  }

  func cancel() { cancel(reason: .explicit) }

  func cancel(reason: CancellationReason) {
    target.end(reason: kind == .child ? .parentEnded : .linkEnded, trigger: .end)
  }

  func sourceCancelledAll(reason: CancellationReason) {
    if kind == .child { target.cancelAll(reason: reason) }
  }

  /// Makes `target` follow `source`.
  static func attach(_ target: BagCore, to source: BagCore, kind: Kind) {
    let membership = source.add(BagLink(target: target, kind: kind), flags: .link)
    target.addMembership(membership)
  }
}

/// A bag's cancel of one item, with its reason: what a bag hands to
/// ``AutoCancellable/_cancel(for:)``. The library's; not for apps.
///
/// Only a bag makes one, so that ``AutoCancellable/_cancel(for:)`` cannot be called to cancel
/// work without the reason its ``ReasonAwareCancellable`` conformance asks for: cancel your
/// work with ``AutoCancellable/cancel()`` or ``ReasonAwareCancellable/cancel(reason:)``.
public struct _BagCancellation: Sendable {
  /// Why the bag cancels.
  package let reason: CancellationReason

  package init(_ reason: CancellationReason) {
    self.reason = reason
  }
}

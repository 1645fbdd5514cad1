import AutoCancel
import AutoCancelTestSupport
import Testing

/// What cancels all of a bag's work at once: `cancelAll()`, `end()`, or the bag's deinit when
/// its last reference goes.
enum BagEnding: String, CaseIterable, CustomTestStringConvertible, Sendable {
  case cancelAll, end, release
  var testDescription: String { rawValue }

  /// Does it to `bag`; `release` drops the reference, which must be the last.
  func apply(to bag: inout CancelBag?) {
    switch self {
    case .cancelAll: bag!.cancelAll()
    case .end: bag!.end()
    case .release: bag = nil
    }
  }

  /// Does it to the bag in `box`; `release` takes the bag out of the box, whose reference must
  /// be the last, and drops it.
  func apply(to box: Protected<CancelBag?>) {
    var bag =
      self == .release
      ? box.withLock { bag in
        defer { bag = nil }
        return bag
      } : box.current
    apply(to: &bag)
  }
}

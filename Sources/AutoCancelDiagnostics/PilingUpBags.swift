/// More bags of one label alive than their limit allows: owners of one kind piling up.
///
/// Handed to ``AutoCancel/CancelBag/pilingUpHandler`` when making a bag takes its label over the limit
/// set with ``AutoCancel/CancelBag/setLiveCountLimit(_:label:)``. Every owner stores one bag, so bags
/// that pile up are owners that pile up: a screen's model kept alive by a strong capture in a
/// closure, a task or a timer, whose work is never cancelled.
///
/// ```swift
/// CancelBag.setLiveCountLimit(1, label: "FeedViewModel")
/// CancelBag.pilingUpHandler = { pileUp in
///   logger.warning("\(pileUp)")
///   // "AutoCancel: 2 bags labelled FeedViewModel are alive, over their limit of 1: are
///   //  their owners kept alive by a strong capture?"
/// }
/// ```
///
/// See <doc:AutoCancelDiagnostics>.
public struct PilingUpBags: Sendable, Hashable, CustomStringConvertible {
  /// The label of the bags.
  public let label: String

  /// How many bags with ``label`` were alive when the limit was passed: the limit plus one
  /// when it is passed by one bag at a time.
  public let liveCount: Int

  /// The limit that was passed.
  public let limit: Int

  /// A report of `liveCount` bags labelled `label` alive, over `limit`.
  init(label: String, liveCount: Int, limit: Int) {
    self.label = label
    self.liveCount = liveCount
    self.limit = limit
  }

  /// `AutoCancel: 2 bags labelled FeedViewModel are alive, over their limit of 1: are their
  /// owners kept alive by a strong capture?`
  public var description: String {
    "AutoCancel: \(liveCount) bags labelled \(label) are alive, over their limit of \(limit): "
      + "are their owners kept alive by a strong capture?"
  }
}

import AutoCancel

/// How many labelled bags are alive, by label (``CancelBag/liveCount(label:)``), and the
/// limits above which owners of a kind are reported piling up
/// (``AutoCancel/CancelBag/setLiveCountLimit(_:label:)``).
///
/// Counted when a labelled bag made after ``AutoCancelDiagnostics/enable()`` is made and when it
/// is deinitialized, as the diagnostics' instrument hears of them; unlabelled bags, and adding,
/// finishing and cancelling work, never touch it. The counts are split over a few
/// locks by the label's hash, so that bags of different screens made on different threads
/// seldom wait for each other. A label leaves its table when its count falls to zero and it
/// has no limit.
enum LiveBags {
  /// One label's bags.
  struct Entry: Sendable {
    var count = 0
    var limit: Int?
    /// Whether going over the limit is reported: false from a report until the count is back
    /// at or under the limit, so that one pile-up is reported once.
    var isArmed = true

    var isEmpty: Bool { count == 0 && limit == nil }
  }

  /// Process-wide: a count of the bags of a kind is over every module that makes them.
  private static let shards = Shards<[String: Entry]>([:])

  /// What ``AutoCancel/CancelBag/pilingUpHandler`` holds: process-wide, as the counts it watches.
  static let handler = Locked<(@Sendable (PilingUpBags) -> Void)?>(nil)

  /// A bag labelled `label` was made. Tells the handler, outside every lock, if that took
  /// the label over its limit.
  static func made(_ label: String) {
    let pileUp = shards.shard(of: label).withLock { entries -> PilingUpBags? in
      var entry = entries[label, default: Entry()]
      entry.count += 1
      defer { entries[label] = entry }
      guard let limit = entry.limit, entry.count > limit, entry.isArmed else { return nil }
      entry.isArmed = false
      return PilingUpBags(label: label, liveCount: entry.count, limit: limit)
    }
    guard let pileUp, let handler = handler.withLock({ $0 }) else { return }
    handler(pileUp)
  }

  /// A bag labelled `label` was deinitialized.
  static func released(_ label: String) {
    shards.shard(of: label).withLock { entries in
      guard var entry = entries[label] else { return }
      entry.count = max(0, entry.count - 1)
      if let limit = entry.limit, entry.count <= limit { entry.isArmed = true }
      entries[label] = entry.isEmpty ? nil : entry
    }
  }

  static func count(of label: String) -> Int {
    shards.shard(of: label).withLock { $0[label]?.count ?? 0 }
  }

  static func limit(of label: String) -> Int? {
    shards.shard(of: label).withLock { $0[label]?.limit }
  }

  /// Sets or removes `label`'s limit. A label already over its new limit is reported by the
  /// next bag made with it.
  static func setLimit(_ limit: Int?, of label: String) {
    shards.shard(of: label).withLock { entries in
      var entry = entries[label, default: Entry()]
      entry.limit = limit.map { max(0, $0) }
      entry.isArmed = true
      entries[label] = entry.isEmpty ? nil : entry
    }
  }

  static var all: [String: Int] {
    var merged: [String: Int] = [:]
    for shard in shards.all {
      // One shard at a time: the sum of moments, not one moment.
      let entries = shard.withLock { $0 }
      for (label, entry) in entries where entry.count > 0 {
        merged[label, default: 0] += entry.count
      }
    }
    return merged
  }
}

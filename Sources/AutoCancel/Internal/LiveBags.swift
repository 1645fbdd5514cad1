/// How many labelled bags are alive, by label (``CancelBag/liveCount(label:)``).
///
/// Counted when a labelled bag is made and when it is deinitialized; unlabelled bags, and
/// adding, finishing and cancelling work, never touch it. The counts are split over a few
/// locks by the label's hash, so that bags of different screens made on different threads
/// seldom wait for each other. A label leaves its table when its count falls to zero.
enum LiveBags {
  private static let shards: [Locked<[String: Int]>] = (0..<8).map { _ in Locked([:]) }

  private static func shard(of label: String) -> Locked<[String: Int]> {
    shards[Int(UInt(bitPattern: label.hashValue) % UInt(shards.count))]
  }

  /// A bag labelled `label` was made.
  static func made(_ label: String) {
    shard(of: label).withLock { $0[label, default: 0] += 1 }
  }

  /// A bag labelled `label` was deinitialized.
  static func released(_ label: String) {
    shard(of: label).withLock { counts in
      let remaining = (counts[label] ?? 1) - 1
      counts[label] = remaining > 0 ? remaining : nil
    }
  }

  static func count(of label: String) -> Int {
    shard(of: label).withLock { $0[label] ?? 0 }
  }

  static var all: [String: Int] {
    var merged: [String: Int] = [:]
    for shard in shards {
      // One shard at a time: the sum of moments, not one moment.
      let counts = shard.withLock { $0 }
      merged.merge(counts) { $0 + $1 }
    }
    return merged
  }
}

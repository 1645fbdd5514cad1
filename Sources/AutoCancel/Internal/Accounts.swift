/// The process-wide account of the work of bags that ended (``CancelBagStatistics``).
///
/// A bag adds its counts once, when it ends, under one of a few locks: chosen by the hash of
/// its label, as ``LiveBags`` does, or, for a bag without a label, by its address, so that
/// neither screens of different labels nor unlabelled bags ending on different threads wait
/// for one lock. Adding and finishing work never touch it.
///
/// A bag adds its counts under its own lock: these locks come last, and nothing is done
/// under them but adding numbers, so they never wait for a bag.
enum Accounts {
  /// One lock's part of the account.
  struct Shard: Sendable {
    var unlabelled = CancelBagStatistics()
    var byLabel: [String: CancelBagStatistics] = [:]
  }

  private static let shardCount = 8
  private static let shards: [Locked<Shard>] = (0..<shardCount).map { _ in Locked(Shard()) }

  private static func shard(of label: String) -> Locked<Shard> {
    shards[index(of: label)]
  }

  private static func index(of label: String) -> Int {
    Int(UInt(bitPattern: label.hashValue) % UInt(shards.count))
  }

  /// The shard of an unlabelled bag: by its address, past the bits that allocation alignment
  /// keeps zero. Unlabelled bags are read back only as a sum over every shard.
  private static func index(of bag: ObjectIdentifier) -> Int {
    Int((UInt(bitPattern: bag) >> 5) % UInt(shardCount))
  }

  /// Adds the counts of a bag that ended.
  static func add(_ counts: CancelBagStatistics, label: String?, bag: ObjectIdentifier) {
    if let label {
      shard(of: label).withLock { $0.byLabel[label, default: CancelBagStatistics()].add(counts) }
    } else {
      shards[index(of: bag)].withLock { $0.unlabelled.add(counts) }
    }
  }

  /// Adds the counts of a bag that ended having counted nothing but its sequence numbers
  /// (see ``CancelBagStatistics/countEnded(registered:cancelled:reason:trigger:)``), without
  /// a whole account to copy.
  static func addEnded(
    registered: Int, cancelled: Int, reason: CancelBagStatistics.Reason,
    trigger: CancelBagStatistics.Trigger, label: String?, bag: ObjectIdentifier
  ) {
    if let label {
      shard(of: label).withLock {
        $0.byLabel[label, default: CancelBagStatistics()].countEnded(
          registered: registered, cancelled: cancelled, reason: reason, trigger: trigger)
      }
    } else {
      // Read in place from the array: a copy of the shard would be retained and released.
      shards[index(of: bag)].withLock {
        $0.unlabelled.countEnded(
          registered: registered, cancelled: cancelled, reason: reason, trigger: trigger)
      }
    }
  }

  static func account(of label: String?) -> CancelBagStatistics {
    guard let label else {
      var sum = CancelBagStatistics()
      for shard in shards { sum.add(shard.withLock { $0.unlabelled }) }
      return sum
    }
    return shard(of: label).withLock { $0.byLabel[label] } ?? CancelBagStatistics()
  }

  static var total: CancelBagStatistics {
    var sum = CancelBagStatistics()
    for shard in shards {
      // One shard at a time: the sum of moments, not one moment.
      let part = shard.withLock { $0 }
      sum.add(part.unlabelled)
      for counts in part.byLabel.values { sum.add(counts) }
    }
    return sum
  }

  static var byLabel: [String?: CancelBagStatistics] {
    var merged: [String?: CancelBagStatistics] = [:]
    var unlabelled = CancelBagStatistics()
    for shard in shards {
      let part = shard.withLock { $0 }
      unlabelled.add(part.unlabelled)
      for (label, counts) in part.byLabel { merged[label] = counts }
    }
    if unlabelled != CancelBagStatistics() { merged[nil] = unlabelled }
    return merged
  }
}

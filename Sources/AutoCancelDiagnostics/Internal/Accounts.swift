import AutoCancel

/// The process-wide account of the work of bags that ended (``CancelBagStatistics``), as the
/// diagnostics' instrument hears of it.
///
/// A bag adds its counts once, when it ends, under one of a few locks: chosen by the hash of
/// its label, as ``LiveBags`` does, or, for a bag without a label, by its address, so that
/// neither screens of different labels nor unlabelled bags ending on different threads wait
/// for one lock. Adding and finishing work never touch it. Nothing is done under these locks
/// but adding numbers, and no bag's lock is held while they are taken.
enum Accounts {
  /// One lock's part of the account.
  struct Shard: Sendable {
    var unlabelled = CancelBagStatistics()
    var byLabel: [String: CancelBagStatistics] = [:]
  }

  /// Process-wide, as the instrument that fills it: an account of the bags of a kind is over
  /// every module that makes them.
  private static let shards = Shards(Shard())

  /// Adds what became of the work of `bag`.
  static func add(_ tally: WorkTally, of bag: InstrumentedBag) {
    if let label = bag.label {
      shards.shard(of: label).withLock {
        $0.byLabel[label, default: CancelBagStatistics()].add(tally)
      }
    } else {
      shards.shard(of: bag.identity).withLock { $0.unlabelled.add(tally) }
    }
  }

  static func account(of label: String?) -> CancelBagStatistics {
    guard let label else {
      var sum = CancelBagStatistics()
      for shard in shards.all { sum.add(shard.withLock { $0.unlabelled.counts }) }
      return sum
    }
    return shards.shard(of: label).withLock { $0.byLabel[label] } ?? CancelBagStatistics()
  }

  static var total: CancelBagStatistics {
    var sum = CancelBagStatistics()
    for account in byLabel.values { sum.add(account.counts) }
    return sum
  }

  static var byLabel: [String?: CancelBagStatistics] {
    var merged: [String?: CancelBagStatistics] = [:]
    var unlabelled = CancelBagStatistics()
    for shard in shards.all {
      // One shard at a time: the sum of moments, not one moment.
      let part = shard.withLock { $0 }
      unlabelled.add(part.unlabelled.counts)
      for (label, account) in part.byLabel { merged[label] = account }
    }
    if unlabelled != CancelBagStatistics() { merged[nil] = unlabelled }
    return merged
  }
}

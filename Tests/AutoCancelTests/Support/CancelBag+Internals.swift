@testable import AutoCancel

extension CancelBag {
  /// Links to children and linked bags held in this bag's table (white-box, for tests).
  var linkCount: Int { core.withLock { $0.linkCount } }
  /// Slots in the table, free or not (white-box, for tests).
  var slotCount: Int { core.withLock { $0.table.capacity } }
  /// Label, key and timer records, and keys, held for work in flight (white-box, for tests).
  var sideRecordCount: Int { core.withLock { $0.details.count + $0.keys.count } }

  /// Launches waiting for their turn under `key` (white-box, for tests).
  func waitingLaunchCount(key: some Hashable & Sendable) -> Int {
    core.withLock { $0.keys[BagKey(key)]?.queue.count ?? 0 }
  }

  /// Keys the bag keeps an entry for (white-box, for tests).
  var keyEntryCount: Int { core.withLock { $0.keys.count } }

  /// Keeps the library's reaper away from this bag, so that only the sweeps on add drop its
  /// finished work: for tests that count or stage those sweeps (white-box).
  func keepFromReaper() { core.withLock { $0.isReaped = true } }
}

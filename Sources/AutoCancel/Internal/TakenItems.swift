/// A registration taken out of the table under the lock, to be acted on after it.
struct RemovedItem {
  var work: StoredWork
  var sequence: UInt64
  var flags: ItemFlags
  var details: ItemDetails?
}

/// Items taken out of the table together (by `cancelAll` or `end`), to cancel after the lock.
struct TakenItems {
  /// Slots as they were: free ones hold no work.
  var slots: TakenSlots
  /// Details of the items that have them, by sequence.
  var details = [UInt64: ItemDetails]()
  /// Links to children and linked bags, by sequence; empty when they were kept.
  var links = [UInt64: StoredWork]()

  /// Takes the work out, oldest first, and hands it to `body`: for items taken with no
  /// details and no links, when there is no one to tell.
  mutating func forEachWorkOldestFirst(_ body: (StoredWork) -> Void) {
    slots.withSlots { count, slot in
      TakenItems.forEachOccupiedOldestFirst(count, slot) { index in
        guard let work = slot(index).pointee.work.take() else { return }
        body(work)
      }
    }
  }

  /// Hands `body` the index of each occupied slot, oldest work first.
  ///
  /// Slots are reused, so slot order is add order only until something finishes; a table
  /// that was never reordered (the common case) needs no sort.
  private static func forEachOccupiedOldestFirst(
    _ count: Int, _ slot: (Int) -> UnsafeMutablePointer<Slot>, _ body: (Int) -> Void
  ) {
    // Only tags are read to find the order: copying a slot would retain its work.
    func tag(_ index: Int) -> UInt64 { slot(index).pointee.tag }
    func isOccupied(_ index: Int) -> Bool { tag(index) & Slot.freeBit == 0 }
    var previous: UInt64 = 0
    var ordered = true
    for index in 0..<count where isOccupied(index) {
      let tag = tag(index)
      if tag < previous {
        ordered = false
        break
      }
      previous = tag
    }
    if ordered {
      for index in 0..<count where isOccupied(index) { body(index) }
    } else {
      let order = (0..<count).filter(isOccupied).sorted { tag($0) < tag($1) }
      for index in order { body(index) }
    }
  }

  /// Takes each item out, oldest first, and hands it to `body`.
  mutating func forEachOldestFirst(_ body: (RemovedItem) -> Void) {
    let details = self.details
    slots.withSlots { count, slot in
      func take(_ index: Int) {
        guard let work = slot(index).pointee.work.take() else { return }
        let tag = slot(index).pointee.tag
        let sequence = tag >> ItemFlags.bitCount
        let flags = ItemFlags(rawValue: tag & ((1 << ItemFlags.bitCount) - 1))
        body(
          RemovedItem(
            work: work, sequence: sequence, flags: flags,
            details: flags.contains(.detailed) ? details[sequence] : nil))
      }
      // Links are merged in by sequence, so that children end in the order they were made,
      // among the work.
      let links = self.links.isEmpty ? [] : self.links.sorted { $0.key < $1.key }
      var nextLink = links.startIndex
      func takeLinks(before tag: UInt64) {
        while nextLink < links.endIndex, links[nextLink].key << ItemFlags.bitCount < tag {
          body(
            RemovedItem(
              work: links[nextLink].value, sequence: links[nextLink].key, flags: .link,
              details: nil))
          nextLink += 1
        }
      }
      TakenItems.forEachOccupiedOldestFirst(count, slot) { index in
        takeLinks(before: slot(index).pointee.tag)
        take(index)
      }
      takeLinks(before: .max)
    }
  }
}

/// One entry of a ``SlotTable``: 24 bytes.
///
/// An occupied slot holds its work and `sequence << ItemFlags.bitCount | flags` (sequence
/// numbers stay below 2^59, far beyond what a bag can reach, so the free bit stays clear); a
/// free slot holds no work and `freeBit | index of the next free slot` (or `freeBit | freeEnd`).
struct Slot {
  var work: StoredWork?
  var tag: UInt64

  static let freeBit: UInt64 = 1 << 63
  static let freeEnd: UInt64 = (1 << 32) - 1

  var isOccupied: Bool { tag & Slot.freeBit == 0 }
  var sequence: UInt64 { isOccupied ? tag >> ItemFlags.bitCount : 0 }
  var flags: ItemFlags { ItemFlags(rawValue: tag & ((1 << ItemFlags.bitCount) - 1)) }
}

/// A table of generational slots: the bag's storage for work in flight.
///
/// Inserting and removing are O(1): a removed slot joins a free list threaded through the free
/// slots themselves, and the next insert reuses it. Each occupant is tagged with a sequence
/// number that is never reused, so an index with its sequence (a ``Ticket``) names one
/// occupant for good: once it is removed, the same index holding newer work no longer matches.
/// The table grows to the most work held at once, and is given back when it drains.
///
/// Its hot methods are always inlined into the bag's: a call each cost the add+finish pair
/// about 40 instructions (callgrind, release).
struct SlotTable {
  private(set) var slots: [Slot] = []
  private var freeHead = Slot.freeEnd
  /// Occupied slots.
  private(set) var count = 0

  /// The slots allocated by the first insert.
  static let initialCapacity = 8

  /// Slots allocated, free or not.
  var capacity: Int { slots.count }

  /// Puts `work` in a free slot (or a new one), tagged with `sequence` and `flags`, and
  /// returns the slot's index.
  @inline(__always)
  mutating func insert(_ work: StoredWork, sequence: UInt64, flags: ItemFlags) -> UInt32 {
    let tag = sequence << ItemFlags.bitCount | flags.rawValue
    let index: Int
    if freeHead != Slot.freeEnd {
      index = Int(freeHead)
      freeHead = slots[index].tag & ~Slot.freeBit
      slots[index].tag = tag
      slots[index].work = work
    } else {
      index = slots.count
      precondition(index < Int(Slot.freeEnd), "A CancelBag holds at most 2^32 - 1 items at once.")
      // Room for a screen's handful of requests at once, instead of growing 1, 2, 4, 8.
      if index == 0 { slots.reserveCapacity(SlotTable.initialCapacity) }
      slots.append(Slot(work: work, tag: tag))
    }
    count += 1
    return UInt32(truncatingIfNeeded: index)
  }

  /// Whether the slot at `index` holds the occupant tagged `sequence`.
  @inline(__always)
  func contains(index: UInt32, sequence: UInt64) -> Bool {
    let index = Int(index)
    return index < slots.count && sequence != 0 && slots[index].sequence == sequence
  }

  /// The occupant of `index`, which must be occupied.
  func work(at index: UInt32) -> StoredWork {
    slots[Int(index)].work!
  }

  /// Adds `flags` to the occupant of `index`, which must be occupied.
  mutating func insertFlags(_ flags: ItemFlags, at index: UInt32) {
    slots[Int(index)].tag |= flags.rawValue
  }

  /// Takes the occupant out of `index`, which must be occupied, and frees the slot.
  @inline(__always)
  mutating func remove(at index: UInt32) -> (work: StoredWork, flags: ItemFlags) {
    let index = Int(index)
    // Move the work out (no copy, so no extra retain and release).
    let work = slots[index].work.take()!
    let flags = slots[index].flags
    slots[index].tag = Slot.freeBit | freeHead
    freeHead = UInt64(index)
    count -= 1
    return (work, flags)
  }

  /// Gives the memory of a large table back once it holds nothing, so that a burst does not
  /// stay forever. Returns whether it did.
  @inline(__always)
  mutating func shrinkIfDrained() -> Bool {
    guard count == 0 && slots.count > 64 else { return false }
    self = SlotTable()
    return true
  }

  /// Takes every slot out at once, in O(1), leaving the table empty.
  mutating func removeAll() -> [Slot] {
    defer { self = SlotTable() }
    return slots
  }
}

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
/// Slot 0 lives inline, in the table itself; slots 1 and up in an array (slot `i` is
/// `rest[i - 1]`). A bag that never holds more than one item at once, the common case of a
/// screen with one request in flight, or of a long-lived owner binding work one piece at a
/// time, allocates no array: a bag with one item costs one allocation fewer (and its end one
/// free fewer), and add+finish touches no array buffer.
///
/// Its hot methods are always inlined into the bag's: a call each cost the add+finish pair
/// about 40 instructions (callgrind, release).
struct SlotTable {
  /// Slot 0.
  private(set) var first = Slot(work: nil, tag: Slot.freeBit | Slot.freeEnd)
  /// Slots 1 and up.
  private(set) var rest: [Slot] = []
  private var freeHead = Slot.freeEnd
  /// Slots in use, free or not: `first` once it is, and `rest`.
  private(set) var capacity = 0
  /// Occupied slots.
  private(set) var count = 0

  /// The slots the array makes room for when it is first needed: with slot 0, room for a
  /// screen's handful of requests at once, instead of growing 1, 2, 4, 8. A power of two, as
  /// the array doubles from it: from 7, a million items would sit in room for 1.8 million
  /// (44 bytes per item instead of 25).
  static let initialCapacity = 8

  /// Puts `work` in a free slot (or a new one), tagged with `sequence` and `flags`, and
  /// returns the slot's index.
  @inline(__always)
  mutating func insert(_ work: StoredWork, sequence: UInt64, flags: ItemFlags) -> UInt32 {
    let tag = sequence << ItemFlags.bitCount | flags.rawValue
    let index: Int
    if freeHead != Slot.freeEnd {
      index = Int(freeHead)
      if index == 0 {
        freeHead = first.tag & ~Slot.freeBit
        first.tag = tag
        first.work = work
      } else {
        freeHead = rest[index - 1].tag & ~Slot.freeBit
        rest[index - 1].tag = tag
        rest[index - 1].work = work
      }
    } else {
      index = capacity
      precondition(index < Int(Slot.freeEnd), "A CancelBag holds at most 2^32 - 1 items at once.")
      if index == 0 {
        first = Slot(work: work, tag: tag)
      } else {
        if index == 1 { rest.reserveCapacity(SlotTable.initialCapacity) }
        rest.append(Slot(work: work, tag: tag))
      }
      capacity += 1
    }
    count += 1
    return UInt32(truncatingIfNeeded: index)
  }

  /// The tag of the slot at `index`, which must be in use.
  @inline(__always)
  private func tag(at index: Int) -> UInt64 {
    index == 0 ? first.tag : rest[index - 1].tag
  }

  /// Whether the slot at `index` holds the occupant tagged `sequence`.
  @inline(__always)
  func contains(index: UInt32, sequence: UInt64) -> Bool {
    let index = Int(index)
    guard index < capacity, sequence != 0 else { return false }
    let tag = tag(at: index)
    return tag & Slot.freeBit == 0 && tag >> ItemFlags.bitCount == sequence
  }

  /// The occupant of `index`, which must be occupied.
  func work(at index: UInt32) -> StoredWork {
    index == 0 ? first.work! : rest[Int(index) - 1].work!
  }

  /// The flags of the occupant of `index`, which must be occupied.
  func flags(at index: UInt32) -> ItemFlags {
    ItemFlags(rawValue: tag(at: Int(index)) & ((1 << ItemFlags.bitCount) - 1))
  }

  /// Adds `flags` to the occupant of `index`, which must be occupied.
  mutating func insertFlags(_ flags: ItemFlags, at index: UInt32) {
    if index == 0 {
      first.tag |= flags.rawValue
    } else {
      rest[Int(index) - 1].tag |= flags.rawValue
    }
  }

  /// Takes the occupant out of `index`, which must be occupied, and frees the slot.
  @inline(__always)
  mutating func remove(at index: UInt32) -> (work: StoredWork, flags: ItemFlags) {
    let index = Int(index)
    let freed = Slot.freeBit | freeHead
    freeHead = UInt64(index)
    count -= 1
    // Move the work out (no copy, so no extra retain and release).
    if index == 0 {
      let work = first.work.take()!
      let flags = first.flags
      first.tag = freed
      return (work, flags)
    }
    let work = rest[index - 1].work.take()!
    let flags = rest[index - 1].flags
    rest[index - 1].tag = freed
    return (work, flags)
  }

  /// Gives the memory of a large table back once it holds nothing, so that a burst does not
  /// stay forever. Returns whether it did.
  @inline(__always)
  mutating func shrinkIfDrained() -> Bool {
    guard count == 0 && capacity > 64 else { return false }
    self = SlotTable()
    return true
  }

  /// Hands `body` each occupant and its tag, by index.
  func forEachOccupied(_ body: (StoredWork, Slot) -> Void) {
    if capacity > 0, let work = first.work { body(work, first) }
    for slot in rest { if let work = slot.work { body(work, slot) } }
  }

  /// Takes every slot out at once, in O(1), leaving the table empty.
  mutating func removeAll() -> TakenSlots {
    var taken = SlotTable()
    swap(&self, &taken)
    return TakenSlots(first: taken.first, rest: taken.rest)
  }
}

/// The slots of a table taken out whole: free ones hold no work.
struct TakenSlots {
  /// Slot 0 (free if the table never used it).
  var first: Slot
  /// Slots 1 and up.
  var rest: [Slot]

  /// How many slots, slot 0 included.
  var count: Int { rest.count + 1 }

  /// Hands `body` the number of slots and a way to reach each one by index, in place.
  mutating func withSlots<Result>(
    _ body: (_ count: Int, _ slot: (Int) -> UnsafeMutablePointer<Slot>) -> Result
  ) -> Result {
    let count = self.count
    guard count > 1 else {
      // Slot 0 alone: the empty array is left as it is (reaching into it for a buffer
      // pointer would first make a unique copy of it).
      return withUnsafeMutablePointer(to: &first) { first in body(1) { _ in first } }
    }
    return withUnsafeMutablePointer(to: &first) { first in
      rest.withUnsafeMutableBufferPointer { rest in
        let base = rest.baseAddress
        return body(count) { $0 == 0 ? first : base! + ($0 - 1) }
      }
    }
  }
}

import Dispatch

/// Work as a bag stores it: one reference and one witness table (16 bytes).
///
/// Classes are stored as they are; value types and closures are boxed once, at `add`.
@usableFromInline
typealias StoredWork = any AutoCancellable & AnyObject

/// Where a registration lives in its bag: a slot, and the sequence number it was given.
///
/// Sequence numbers are never reused, so a stale ticket (finished twice, or kept after its
/// slot was reused) never matches a later registration.
@usableFromInline
struct Ticket: Hashable, Sendable {
  @usableFromInline var index: UInt32
  @usableFromInline var sequence: UInt64

  /// The ticket of work that was never registered (added to a bag that had ended).
  static let inactive = Ticket(index: 0, sequence: 0)
}

/// What a slot remembers about its work beyond the work itself.
@usableFromInline
struct ItemFlags: OptionSet, Sendable {
  @usableFromInline var rawValue: UInt64

  @usableFromInline
  init(rawValue: UInt64) { self.rawValue = rawValue }

  /// Registered under a key: its removal must clear the key, if the key still names it.
  static let keyed = ItemFlags(rawValue: 1 << 0)
  /// Has an entry in `details` (a label, a key, the time it was added).
  static let detailed = ItemFlags(rawValue: 1 << 1)
  /// A link to a child or linked bag: not work in flight, survives `cancelAll`.
  static let link = ItemFlags(rawValue: 1 << 2)
  static let bitCount: UInt64 = 3
}

/// One entry of the bag's table: 24 bytes.
///
/// An occupied slot holds its work and `sequence << 4 | flags`; a free slot holds no work and
/// `freeBit | index of the next free slot` (or `freeBit | freeEnd`).
struct Slot {
  var work: StoredWork?
  var tag: UInt64

  static let freeBit: UInt64 = 1 << 63
  static let freeEnd: UInt64 = (1 << 32) - 1

  var sequence: UInt64 { tag & Slot.freeBit == 0 ? tag >> ItemFlags.bitCount : 0 }
  var flags: ItemFlags { ItemFlags(rawValue: tag & ((1 << ItemFlags.bitCount) - 1)) }
}

/// A key given by a user: a `Hashable & Sendable` value, hashed through `AnyHashable`.
struct BagKey: Hashable, @unchecked Sendable {
  // Safety: made only from `Hashable & Sendable` values; `AnyHashable` is a box around it.
  let base: AnyHashable

  init(_ value: some Hashable & Sendable) {
    base = AnyHashable(value)
  }

  /// The user's value, as given.
  var value: any Hashable & Sendable {
    // The box holds exactly the value given to `init`, which was `Hashable & Sendable`.
    base.base as! any Hashable & Sendable
  }
}

/// Label, key, age and timeout of an item that asked for them.
///
/// A class, so that the hot path (work without any of these) carries one nil pointer.
@usableFromInline
final class ItemDetails: @unchecked Sendable {
  // Safety: `timer` changes only under the bag's lock while the item is in the table; once
  // the item is taken out, only the thread that took it reads it.
  let label: String?
  let key: BagKey?
  let addedAt: UInt64
  /// The timer of the item's timeout, stopped when the item ends.
  var timer: StoredWork?

  init(label: String?, key: BagKey?, addedAt: UInt64) {
    self.label = label
    self.key = key
    self.addedAt = addedAt
  }

  /// Details for work added with a label or a key; nil (and no clock read) for the rest.
  @inlinable
  static func make(label: String?, key: (any Hashable & Sendable)?) -> ItemDetails? {
    // Inlined, so that a call without label or key costs a constant nil.
    guard label != nil || key != nil else { return nil }
    return makeDetailed(label: label, key: key)
  }

  @usableFromInline
  static func makeDetailed(label: String?, key: (any Hashable & Sendable)?) -> ItemDetails {
    ItemDetails(
      label: label, key: key.map { BagKey($0) }, addedAt: DispatchTime.now().uptimeNanoseconds)
  }
}

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
  var slots: [Slot]
  var details: [UInt64: ItemDetails]

  /// Takes each item out, oldest first, and hands it to `body`.
  mutating func forEachOldestFirst(_ body: (RemovedItem) -> Void) {
    let details = self.details
    slots.withUnsafeMutableBufferPointer { buffer in
      // Only tags are read to find the order: copying a slot would retain its work.
      func isOccupied(_ index: Int) -> Bool { buffer[index].tag & Slot.freeBit == 0 }
      func take(_ index: Int) {
        guard isOccupied(index), let work = buffer[index].work.take() else { return }
        let sequence = buffer[index].tag >> ItemFlags.bitCount
        let flags = ItemFlags(rawValue: buffer[index].tag & ((1 << ItemFlags.bitCount) - 1))
        body(
          RemovedItem(
            work: work, sequence: sequence, flags: flags,
            details: flags.contains(.detailed) ? details[sequence] : nil))
      }
      // Slots are reused, so slot order is add order only until something finishes; a table
      // that was never reordered (the common case) needs no sort.
      var previous: UInt64 = 0
      var ordered = true
      for index in buffer.indices where isOccupied(index) {
        let tag = buffer[index].tag
        if tag < previous {
          ordered = false
          break
        }
        previous = tag
      }
      if ordered {
        for index in buffer.indices { take(index) }
      } else {
        let order = buffer.indices.filter(isOccupied).sorted { buffer[$0].tag < buffer[$1].tag }
        for index in order { take(index) }
      }
    }
  }
}

/// An observer of a bag's events.
struct Observer: Sendable {
  var id: Int
  var handler: @Sendable (CancelBagEvent) -> Void
}

/// Everything a bag knows, guarded by its lock. Methods only decide and return what to do;
/// they never call work, observers or continuations.
@usableFromInline
struct BagState: Sendable {
  var slots: [Slot] = []
  var freeHead: UInt64 = Slot.freeEnd
  var nextSequence: UInt64 = 1
  /// Work in flight (links excluded).
  var count = 0
  var linkCount = 0
  /// Set once, when the bag ends.
  var endReason: CancellationReason?
  var keys: [BagKey: Ticket] = [:]
  var details: [UInt64: ItemDetails] = [:]
  var observers: [Observer] = []

  /// The observers to tell of an event, or nil (no array to retain) when there are none.
  var observersToNotify: [Observer]? { observers.isEmpty ? nil : observers }
  var nextObserverID = 0
  /// This bag's own registrations in its parents and link sources, finished when it ends.
  var memberships: [CancelRegistration] = []
  /// The timer of the bag's deadline, if it has one.
  var deadlineTimer: StoredWork?
  let label: String?

  init(label: String?) {
    self.label = label
  }

  // MARK: Adding

  /// Puts `work` in a free slot (or a new one) and returns its ticket.
  mutating func place(_ work: StoredWork, flags: ItemFlags) -> Ticket {
    let sequence = nextSequence
    nextSequence &+= 1
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
      slots.append(Slot(work: work, tag: tag))
    }
    if flags.contains(.link) { linkCount += 1 } else { count += 1 }
    return Ticket(index: UInt32(truncatingIfNeeded: index), sequence: sequence)
  }

  /// Places `work` with its details, and takes out the work it replaces under its key.
  mutating func insert(
    _ work: StoredWork, flags: ItemFlags, details: ItemDetails?
  ) -> (ticket: Ticket, replaced: RemovedItem?) {
    guard let details else { return (place(work, flags: flags), nil) }
    var flags = flags
    flags.insert(.detailed)
    if details.key != nil { flags.insert(.keyed) }
    let ticket = place(work, flags: flags)
    self.details[ticket.sequence] = details
    var replaced: RemovedItem?
    if let key = details.key, let previous = keys.updateValue(ticket, forKey: key) {
      replaced = remove(previous)
    }
    return (ticket, replaced)
  }

  // MARK: Removing

  /// Whether `ticket` names work still in this table.
  func contains(_ ticket: Ticket) -> Bool {
    let index = Int(ticket.index)
    return index < slots.count && slots[index].sequence == ticket.sequence && ticket.sequence != 0
  }

  /// Takes the work of `ticket` out of the table, or returns nil if it is not there any more.
  mutating func remove(_ ticket: Ticket) -> RemovedItem? {
    guard contains(ticket) else { return nil }
    let index = Int(ticket.index)
    // Move the work out (no copy, so no extra retain and release), and free the slot.
    let work = slots[index].work.take()!
    let flags = slots[index].flags
    slots[index].tag = Slot.freeBit | freeHead
    freeHead = UInt64(index)
    if flags.contains(.link) { linkCount -= 1 } else { count -= 1 }
    var removedDetails: ItemDetails?
    if flags.contains(.detailed) {
      removedDetails = details.removeValue(forKey: ticket.sequence)
      if flags.contains(.keyed), let key = removedDetails?.key, keys[key] == ticket {
        keys[key] = nil
      }
    }
    if count == 0 && linkCount == 0 && slots.count > 64 {
      // Drained: give the table's memory back, so that a burst does not stay forever.
      slots = []
      freeHead = Slot.freeEnd
    }
    return RemovedItem(
      work: work, sequence: ticket.sequence, flags: flags, details: removedDetails)
  }

  /// Gives the item of `ticket` a timer to stop when it ends; returns the timer it replaces,
  /// or, if the item already ended, the new timer itself (to cancel at once).
  mutating func setTimer(_ timer: StoredWork, for ticket: Ticket, now: UInt64) -> StoredWork? {
    guard contains(ticket) else { return timer }
    let index = Int(ticket.index)
    slots[index].tag |= ItemFlags.detailed.rawValue
    let itemDetails: ItemDetails
    if let existing = details[ticket.sequence] {
      itemDetails = existing
    } else {
      itemDetails = ItemDetails(label: nil, key: nil, addedAt: now)
      details[ticket.sequence] = itemDetails
    }
    let previous = itemDetails.timer
    itemDetails.timer = timer
    return previous
  }

  /// Takes every item out, or every item but the links, to cancel after the lock.
  ///
  /// Without links to keep, the whole table is taken in O(1); with links, the links stay in
  /// their slots (so their tickets stay valid) and the rest is copied out.
  mutating func removeAll(keepingLinks: Bool) -> TakenItems {
    let keptLinks = keepingLinks && linkCount > 0
    let taken: TakenItems
    if keptLinks {
      var removed: [Slot] = []
      removed.reserveCapacity(count)
      freeHead = Slot.freeEnd
      var index = slots.count
      // Rebuild the free list from every slot but the links: those just emptied and those
      // already free (skipping these would lose them for good).
      while index > 0 {
        index -= 1
        if slots[index].tag & Slot.freeBit == 0 {
          guard !slots[index].flags.contains(.link) else { continue }
          removed.append(Slot(work: slots[index].work.take(), tag: slots[index].tag))
        }
        slots[index].tag = Slot.freeBit | freeHead
        freeHead = UInt64(index)
      }
      removed.reverse()
      var removedDetails: [UInt64: ItemDetails] = [:]
      for slot in removed where slot.flags.contains(.detailed) {
        removedDetails[slot.sequence] = details.removeValue(forKey: slot.sequence)
      }
      taken = TakenItems(slots: removed, details: removedDetails)
    } else {
      taken = TakenItems(slots: slots, details: details)
      slots = []
      freeHead = Slot.freeEnd
      details = [:]
      linkCount = 0
    }
    keys = [:]
    count = 0
    return taken
  }

}

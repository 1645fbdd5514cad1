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

  /// The index of every link's ticket: links live beside the slot table, not in it, so that
  /// a drained table can be given back while links stay.
  static let linkIndex = UInt32.max
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
  /// Work that reports `isFinished`: the bag asks it from time to time, and drops it once done.
  static let reportsFinish = ItemFlags(rawValue: 1 << 3)
  static let bitCount: UInt64 = 4
}

/// One entry of the bag's table: 24 bytes.
///
/// An occupied slot holds its work and `sequence << ItemFlags.bitCount | flags` (sequence
/// numbers stay below 2^59, far beyond what a bag can reach, so the free bit stays clear); a free slot holds no work and
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
  /// Links to children and linked bags, by sequence; empty when they were kept.
  var links: [UInt64: StoredWork] = [:]

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
      // Links are merged in by sequence, so that children end in the order they were made,
      // among the work.
      let links = self.links.sorted { $0.key < $1.key }
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
      if ordered {
        for index in buffer.indices where isOccupied(index) {
          takeLinks(before: buffer[index].tag)
          take(index)
        }
      } else {
        let order = buffer.indices.filter(isOccupied).sorted { buffer[$0].tag < buffer[$1].tag }
        for index in order {
          takeLinks(before: buffer[index].tag)
          take(index)
        }
      }
      takeLinks(before: .max)
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
  /// Links to children and linked bags, by sequence.
  var links: [UInt64: StoredWork] = [:]
  var linkCount: Int { links.count }
  /// Tickets of work that reports `isFinished`, in the table or already gone: the next sweep
  /// asks those still there.
  var finishReporters: [Ticket] = []
  /// How long `finishReporters` may grow before the next sweep.
  var sweepThreshold = BagState.minimumSweepThreshold
  /// The smallest sweep threshold: small enough that finished work leaves soon, large enough
  /// that a sweep is worth its two lock trips.
  static let minimumSweepThreshold = 32
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
    if flags.contains(.link) {
      links[sequence] = work
      return Ticket(index: Ticket.linkIndex, sequence: sequence)
    }
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
    count += 1
    let ticket = Ticket(index: UInt32(truncatingIfNeeded: index), sequence: sequence)
    if flags.contains(.reportsFinish) { finishReporters.append(ticket) }
    return ticket
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
    if ticket.index == Ticket.linkIndex { return links[ticket.sequence] != nil }
    let index = Int(ticket.index)
    return index < slots.count && slots[index].sequence == ticket.sequence && ticket.sequence != 0
  }

  /// Takes the work of `ticket` out of the table, or returns nil if it is not there any more.
  mutating func remove(_ ticket: Ticket) -> RemovedItem? {
    if ticket.index == Ticket.linkIndex {
      guard let link = links.removeValue(forKey: ticket.sequence) else { return nil }
      return RemovedItem(work: link, sequence: ticket.sequence, flags: .link, details: nil)
    }
    guard contains(ticket) else { return nil }
    let index = Int(ticket.index)
    // Move the work out (no copy, so no extra retain and release), and free the slot.
    let work = slots[index].work.take()!
    let flags = slots[index].flags
    slots[index].tag = Slot.freeBit | freeHead
    freeHead = UInt64(index)
    count -= 1
    var removedDetails: ItemDetails?
    if flags.contains(.detailed) {
      removedDetails = details.removeValue(forKey: ticket.sequence)
      if flags.contains(.keyed), let key = removedDetails?.key, keys[key] == ticket {
        keys[key] = nil
      }
    }
    if count == 0 && slots.count > 64 {
      // Drained: give the table's memory back, so that a burst does not stay forever. Links
      // live apart, so a bag with children drains as well.
      slots = []
      freeHead = Slot.freeEnd
      finishReporters = []
      sweepThreshold = BagState.minimumSweepThreshold
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

  /// Takes every item out, or every item but the links, to cancel after the lock. O(1):
  /// the table is handed over whole, and links live apart.
  mutating func removeAll(keepingLinks: Bool) -> TakenItems {
    var taken = TakenItems(slots: slots, details: details)
    slots = []
    freeHead = Slot.freeEnd
    details = [:]
    if !keepingLinks {
      taken.links = links
      links = [:]
    }
    keys = [:]
    count = 0
    finishReporters = []
    sweepThreshold = BagState.minimumSweepThreshold
    return taken
  }

  // MARK: Sweeping finished work

  /// The work that reports `isFinished`, to ask outside the lock, once enough of it was
  /// added since the last sweep; nil until then.
  mutating func takeFinishReportersIfDue() -> [(Ticket, StoredWork)]? {
    guard finishReporters.count >= sweepThreshold else { return nil }
    let tickets = finishReporters
    finishReporters = []
    var candidates: [(Ticket, StoredWork)] = []
    candidates.reserveCapacity(tickets.count)
    for ticket in tickets where contains(ticket) {
      candidates.append((ticket, slots[Int(ticket.index)].work!))
    }
    return candidates
  }

  /// Puts back the work that said it is still running, and sets the next threshold: twice
  /// the survivors, so that the cost of a sweep is paid for by the adds before the next one.
  mutating func keepFinishReporters(_ survivors: [Ticket]) {
    var kept = 0
    for ticket in survivors where contains(ticket) {
      finishReporters.append(ticket)
      kept += 1
    }
    sweepThreshold = max(BagState.minimumSweepThreshold, 2 * kept)
  }
}

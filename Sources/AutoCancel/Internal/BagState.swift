/// Work that reports `isFinished`, taken under the lock to be asked after it, with its ticket.
///
/// A struct rather than a tuple: an array of tuples is destroyed through the runtime's
/// generic tuple witnesses, a cost every sweep paid per item.
struct SweepCandidate {
  var ticket: Ticket
  var work: any FinishReporting & AnyObject
}

/// A ticket of work that reports `isFinished`, with that work as `FinishReporting`, so that a
/// sweep asks it without a protocol cast.
struct FinishReporter {
  var ticket: Ticket
  // Safety: read only under the bag's lock, and only after `contains(ticket)` said that the
  // table still holds this work (sequence numbers are never reused): the table's strong
  // reference keeps it alive. Unowned, so that finished or cancelled work is freed with its
  // slot, not at the next sweep.
  unowned(unsafe) var work: any FinishReporting & AnyObject
}

/// An observer of a bag's events.
struct Observer: Sendable {
  var id: Int
  var handler: @Sendable (ItemEvent) -> Void
}

/// Everything a bag knows, guarded by its lock. Methods only decide and return what to do;
/// they never call work, observers or continuations.
///
/// What every bag uses is stored here; the rest waits in `BagExtras` until first needed.
@usableFromInline
struct BagState: Sendable {
  /// Work in flight, links excluded.
  var table = SlotTable()
  var nextSequence: UInt64 = 1
  var count: Int { table.count }
  /// Set once, when the bag ends.
  var endReason: CancellationReason?
  /// Work that reports `isFinished`, in the table or already gone: the next sweep asks what is
  /// still there.
  var finishReporters: [FinishReporter] = []
  /// Whether the reaper visits this bag: from its first finish-reporting work until a sweep
  /// finds none left.
  var isReaped = false
  /// How long `finishReporters` may grow before the next sweep.
  var sweepThreshold = BagState.minimumSweepThreshold
  /// The smallest sweep threshold: small enough that finished work leaves soon, large enough
  /// that a sweep is worth its extra lock trip. At 16 rather than 32, fewer finished items wait
  /// and their memory is reused sooner: in the bench's S8 (bind and complete through the
  /// one-liner), 1.73–1.95× an add+finish of the same run instead of 1.85–2.06×, and 592–976
  /// bytes held instead of 1,904–2,128, for about 45 more instructions per add.
  static let minimumSweepThreshold = 16
  /// Links, keys, details, observers, memberships, deadline: nil until one is needed, and
  /// again once the bag ended.
  var extras: BagExtras?
  /// What an instrumented bag counted beyond its sequence numbers (failures, single
  /// cancellations, links): nil until the first such event, and always for a bag without an
  /// instrument. One optional reference, so that a bag that counts nothing pays one field.
  var tally: BagTally?

  /// The extras, made on first use.
  mutating func makeExtras() -> BagExtras {
    if let extras { return extras }
    let made = BagExtras()
    extras = made
    return made
  }

  var linkCount: Int { extras?.links.count ?? 0 }
  var details: [UInt64: ItemDetails] { extras?.details ?? [:] }
  var keys: [BagKey: KeyEntry] { extras?.keys ?? [:] }
  /// Whether anyone observes the bag's events.
  var isObserved: Bool { extras.map { !$0.observers.isEmpty } ?? false }
  /// The observers to tell of an event, or nil (no array to retain) when there are none.
  var observersToNotify: [Observer]? { extras?.observersToNotify }

  // MARK: Adding

  /// Puts `work` in a free slot (or a new one) and returns its ticket. Work that reports
  /// `isFinished` comes with itself as `FinishReporting` in `reporter`.
  mutating func place(
    _ work: StoredWork, flags: ItemFlags, reporter: (any FinishReporting & AnyObject)? = nil
  ) -> Ticket {
    let sequence = nextSequence
    nextSequence &+= 1
    if flags.contains(.link) {
      heardTally()?.links += 1
      makeExtras().links[sequence] = work
      return Ticket(index: Ticket.linkIndex, sequence: sequence)
    }
    let index = table.insert(work, sequence: sequence, flags: flags)
    let ticket = Ticket(index: index, sequence: sequence)
    if let reporter { finishReporters.append(FinishReporter(ticket: ticket, work: reporter)) }
    return ticket
  }

  /// Where work given to `insert` went.
  enum Insertion {
    /// In the table; for keyed work, with what its key leaves to do after the lock.
    case placed(Ticket, keyed: KeyedInsertion?)
    /// Not registered: its key runs, and its policy is ``KeyPolicy/ignoreNew``.
    case refused
  }

  /// What placing keyed work leaves to do after the lock: cancel the work it replaced (oldest
  /// first), and what its key decided. Nil for work without a key, so that plain adds carry
  /// no arrays.
  struct KeyedInsertion {
    var replaced: [RemovedItem]
    var effects: KeyEffects
  }

  /// Places `work` with its details, by the policy of its key if it has one: takes out what it
  /// replaces, or queues it (a launch), or refuses it.
  mutating func insert(
    _ work: StoredWork, flags: ItemFlags, reporter: (any FinishReporting & AnyObject)?,
    details: ItemDetails?
  ) -> Insertion {
    guard let details else {
      return .placed(place(work, flags: flags, reporter: reporter), keyed: nil)
    }
    var flags = flags
    flags.insert(.detailed)
    guard let key = details.key else {
      let ticket = place(work, flags: flags, reporter: reporter)
      makeExtras().details[ticket.sequence] = details
      return .placed(ticket, keyed: nil)
    }
    let extras = makeExtras()
    let admission = extras.keys[key]?.admission(for: details.policy) ?? .start
    if case .refuse = admission { return .refused }
    flags.insert(.keyed)
    let ticket = place(work, flags: flags, reporter: reporter)
    extras.details[ticket.sequence] = details
    var effects = KeyEffects()
    let previous = withKey(key, &effects) { entry, _ -> [Ticket] in
      let previous = admission == .startReplacing ? entry.members : []
      entry.members.append(ticket)
      switch details.hold {
      case .work:
        entry.workHolders += 1
      case .task(let turn) where admission == .wait:
        entry.queue.append(turn)
      case .task(let turn):
        entry.taskHolders += 1
        // Not suspended yet: the launch learns it was let through when it asks.
        _ = turn.admit()
      }
      return previous
    }
    // The new work holds the key already, so taking the old out never lets a waiting launch
    // through, and the key never looks idle in between. Newest first, so that removing a
    // holder never lets through a waiting launch about to be cancelled too.
    var replaced: [RemovedItem] = []
    for old in previous.reversed() {
      if let item = remove(old) { replaced.append(item) }
    }
    return .placed(ticket, keyed: KeyedInsertion(replaced: replaced.reversed(), effects: effects))
  }

  // MARK: Removing

  /// Whether `ticket` names work still in this table.
  func contains(_ ticket: Ticket) -> Bool {
    if ticket.index == Ticket.linkIndex { return extras?.links[ticket.sequence] != nil }
    return table.contains(index: ticket.index, sequence: ticket.sequence)
  }

  /// Takes the work of `ticket` out of the table, or returns nil if it is not there any more.
  mutating func remove(_ ticket: Ticket) -> RemovedItem? {
    if ticket.index == Ticket.linkIndex { return removeLink(sequence: ticket.sequence) }
    guard table.contains(index: ticket.index, sequence: ticket.sequence) else { return nil }
    let (work, flags) = table.remove(at: ticket.index)
    var removedDetails: ItemDetails?
    if flags.contains(.detailed), let extras {
      removedDetails = extras.details.removeValue(forKey: ticket.sequence)
      if flags.contains(.keyed), let details = removedDetails, let key = details.key {
        leaveKey(key, ticket, details)
      }
    }
    if table.shrinkIfDrained() {
      // Links live apart, so a bag with children gives its table back as well.
      finishReporters = []
      sweepThreshold = BagState.minimumSweepThreshold
    }
    return RemovedItem(
      work: work, sequence: ticket.sequence, flags: flags, details: removedDetails)
  }

  /// Takes the link of `sequence` out, or returns nil if it is not there any more. Apart from
  /// `remove`, so that the finish of plain work does not carry the links' dictionary code.
  private mutating func removeLink(sequence: UInt64) -> RemovedItem? {
    guard let link = extras?.links.removeValue(forKey: sequence) else { return nil }
    return RemovedItem(work: link, sequence: sequence, flags: .link, details: nil)
  }

  /// Gives the item of `ticket` a timer to stop when it ends; returns the timer it replaces,
  /// or, if the item already ended, the new timer itself (to cancel at once).
  mutating func setTimer(_ timer: StoredWork, for ticket: Ticket, now: UInt64) -> StoredWork? {
    guard contains(ticket) else { return timer }
    table.insertFlags(.detailed, at: ticket.index)
    let extras = makeExtras()
    let itemDetails: ItemDetails
    if let existing = extras.details[ticket.sequence] {
      itemDetails = existing
    } else {
      itemDetails = ItemDetails(label: nil, key: nil, addedAt: now)
      extras.details[ticket.sequence] = itemDetails
    }
    let previous = itemDetails.timer
    itemDetails.timer = timer
    return previous
  }

  /// Takes every item but the links out, with their details, to cancel after the lock. O(1):
  /// the table is handed over whole, and links live apart. Keys are left to
  /// `removeAllKeyMembers`.
  mutating func removeAllButLinks() -> TakenItems {
    var taken = TakenItems(slots: removeAllSlots())
    if let extras {
      taken.details = extras.details
      extras.details = [:]
    }
    return taken
  }

  /// Takes every slot out, to cancel after the lock, and leaves the details and links of what
  /// it took in the extras: for the end, which takes the extras whole (`takeExtrasAtEnd`).
  mutating func removeAllSlots() -> TakenSlots {
    finishReporters = []
    sweepThreshold = BagState.minimumSweepThreshold
    return table.removeAll()
  }

  // MARK: Keys

  /// Takes out everything registered under `key`, to cancel after the lock, oldest first.
  ///
  /// Waiting launches go first: a holder taken out while one of them still waited would let
  /// it through, only for it to be cancelled before it could start.
  mutating func removeMembers(of key: BagKey) -> [RemovedItem] {
    guard let members = extras?.keys[key]?.members, let details = extras?.details else {
      return []
    }
    func waits(_ ticket: Ticket) -> Bool {
      guard case .task(let turn)? = details[ticket.sequence]?.hold else { return false }
      return turn.isWaiting
    }
    let waiting = members.filter(waits)
    let others = members.filter { !waits($0) }
    let removed = (waiting + others).compactMap { remove($0) }
    return removed.sorted { $0.sequence < $1.sequence }
  }

  /// Everything registered was taken out at once (`removeAll`): every key forgets its members
  /// (see `KeyEntry.removeAllMembers`). Returns what that decided, or nil for a bag without
  /// keys.
  mutating func removeAllKeyMembers() -> KeyEffects? {
    guard let keys = extras?.keys, !keys.isEmpty else { return nil }
    var effects = KeyEffects()
    for key in keys.keys {
      withKey(key, &effects) { entry, effects in entry.removeAllMembers(into: &effects) }
    }
    return effects
  }

  /// Changes the entry of `key` (made on first use) with `body`, and adds to `effects` the
  /// change of its running state to tell; drops the entry once it is unused.
  ///
  /// Once the bag ended, a key that stops running tells its observers that nothing will
  /// follow, and lets them go.
  @discardableResult
  mutating func withKey<Result>(
    _ key: BagKey, _ effects: inout KeyEffects,
    _ body: (inout KeyEntry, inout KeyEffects) -> Result
  ) -> Result {
    let extras = makeExtras()
    let hasEnded = endReason != nil
    func change(_ entry: inout KeyEntry) -> (result: Result, isUnused: Bool) {
      let wasRunning = entry.isRunning
      let result = body(&entry, &effects)
      let ends = hasEnded && !entry.isRunning
      if entry.isRunning != wasRunning || (ends && !entry.observers.isEmpty) {
        entry.version &+= 1
        effects.tell(
          entry.observers, isRunning: entry.isRunning, version: entry.version, ends: ends)
      }
      if ends { entry.observers = [] }
      return (result, entry.isUnused)
    }
    // One lookup, changed in place through its index, and removed through it if unused.
    if let index = extras.keys.index(forKey: key) {
      let (result, isUnused) = change(&extras.keys.values[index])
      if isUnused { extras.keys.remove(at: index) }
      return result
    }
    var entry = KeyEntry()
    let (result, isUnused) = change(&entry)
    if !isUnused { extras.keys[key] = entry }
    return result
  }

  /// Keyed work is taken out of the table: it leaves its key's members, and gives the key back
  /// if it held it as added work, or leaves the queue if it was a launch waiting for its turn.
  /// What that decides is kept in the work's details, for whoever took it out.
  private mutating func leaveKey(_ key: BagKey, _ ticket: Ticket, _ details: ItemDetails) {
    var effects = KeyEffects()
    defer { details.keyEffects = effects.isEmpty ? nil : effects }
    withKey(key, &effects) { entry, effects in
      entry.removeMember(ticket)
      switch details.hold {
      case .work:
        entry.workHolders -= 1
        entry.admitNext(into: &effects)
      case .task(let turn):
        switch turn.state {
        case .waiting, .parked:
          entry.cancelWaiting(turn, into: &effects)
        case .givingBack:
          // Its task returned (`taskReturned`): the key is given back in this same visit.
          entry.releaseTask(turn, into: &effects)
        case .admitted, .cancelled, .returned:
          break
        }
      }
    }
  }

  /// A launched task returned (or learned that it never runs): takes its registration out if
  /// it is still in flight, and, if it held its key, gives it back, letting the next waiting
  /// launch through; in one visit to the key when both happen.
  mutating func taskReturned(
    _ ticket: Ticket, turn: KeyTurn
  ) -> (removed: RemovedItem?, effects: KeyEffects?) {
    guard turn.startGivingBack() else { return (remove(ticket), nil) }
    if let removed = remove(ticket) { return (removed, nil) }
    var effects = KeyEffects()
    withKey(turn.key, &effects) { entry, effects in entry.releaseTask(turn, into: &effects) }
    return (nil, effects)
  }

  /// Whether anything runs or waits under `key`.
  func isRunning(_ key: BagKey) -> Bool {
    extras?.keys[key]?.isRunning ?? false
  }

  /// Takes the extras out of a bag that ends, with what the end of its keys decided
  /// (`keyEffectsOfEnd`, to do after the lock), and keeps only the keys whose tasks have not
  /// returned yet: they still give their keys back, and their observers hear when the keys
  /// stop running; and the instrument, which hears the bag's release. Call after `removeAll`.
  @inline(__always)
  mutating func takeExtrasAtEnd() -> BagExtras? {
    guard extras != nil else { return nil }
    return takeKeyedExtrasAtEnd()
  }

  @inline(never)
  private mutating func takeKeyedExtrasAtEnd() -> BagExtras? {
    let taken = extras
    taken?.keyEffectsOfEnd = removeAllKeyMembers()
    let keys = extras?.keys ?? [:]
    if !keys.isEmpty || taken?.instrument != nil {
      let kept = BagExtras()
      kept.keys = keys
      kept.instrument = taken?.instrument
      extras = kept
    } else {
      extras = nil
    }
    return taken
  }

  // MARK: Counting for the instrument

  /// The tally, made on first use; nil for a bag without an instrument, which counts nothing.
  mutating func heardTally() -> BagTally? {
    if let tally { return tally }
    guard extras?.instrument != nil else { return nil }
    let made = BagTally()
    tally = made
    return made
  }

  /// Counts `count` items cancelled before the bag ended (links are not counted).
  mutating func countCancelled(_ count: Int, reason: CancellationReason, trigger: CancelTrigger) {
    guard count > 0 else { return }
    heardTally()?.counts.countCancelled(count, reason: reason, trigger: trigger)
  }

  /// Counts an item that failed.
  mutating func countFailed() {
    heardTally()?.counts.failed += 1
  }

  /// Counts added work refused as a duplicate by its key's policy: registered without a
  /// number, and cancelled at once. (A refused launch is not counted: it never started.)
  mutating func countRefused() {
    guard let tally = heardTally() else { return }
    tally.counts.registered += 1
    tally.counts.countCancelled(1, reason: .duplicate, trigger: .keyPolicy)
  }

  /// The bag ends, cancelling what is in flight for `reason` by `trigger`: what became of its
  /// work, for its instrument; nil if it registered none. Call for an instrumented bag only,
  /// before `removeAll`, once.
  ///
  /// Every numbered item but the links was registered, and what did not fail and was not
  /// cancelled (before the end, or by it) finished.
  @inline(never)
  mutating func closeTally(reason: CancellationReason, trigger: CancelTrigger) -> WorkTally? {
    var counts = tally?.counts ?? WorkTally()
    counts.registered += Int((nextSequence &- 1) - (tally?.links ?? 0))
    // Counted once: what the bag cancels after its end is counted as it happens.
    tally = nil
    guard counts.registered != 0 else { return nil }
    counts.countCancelled(table.count, reason: reason, trigger: trigger)
    counts.finished = counts.registered - counts.failed - counts.cancelled
    return counts
  }

  // MARK: Sweeping finished work

  /// The work that reports `isFinished`, to ask outside the lock, once enough of it was
  /// added since the last sweep; nil until then.
  mutating func takeFinishReportersIfDue() -> [SweepCandidate]? {
    guard finishReporters.count >= sweepThreshold else { return nil }
    return takeFinishReporters()
  }

  /// All the work that reports `isFinished` and is still in the table, to ask outside the
  /// lock.
  mutating func takeFinishReporters() -> [SweepCandidate] {
    var candidates: [SweepCandidate] = []
    candidates.reserveCapacity(finishReporters.count)
    for reporter in finishReporters where contains(reporter.ticket) {
      candidates.append(SweepCandidate(ticket: reporter.ticket, work: reporter.work))
    }
    // Kept, so that the list does not grow again from nothing before every sweep.
    finishReporters.removeAll(keepingCapacity: true)
    return candidates
  }

  /// Puts back the work that said it is still running, and sets the next threshold: twice
  /// the survivors, so that the cost of a sweep is paid for by the adds before the next one.
  mutating func keepFinishReporters(_ survivors: [SweepCandidate]) {
    var kept = 0
    for survivor in survivors where contains(survivor.ticket) {
      finishReporters.append(FinishReporter(ticket: survivor.ticket, work: survivor.work))
      kept += 1
    }
    sweepThreshold = max(BagState.minimumSweepThreshold, 2 * kept)
    if finishReporters.isEmpty && finishReporters.capacity > BagState.minimumSweepThreshold {
      // A burst that has left gives its memory back.
      finishReporters = []
    }
  }

  /// Whether the reaper should keep visiting: false (and the bag leaves the reaper) once no
  /// work that reports `isFinished` is left.
  mutating func staysReaped() -> Bool {
    isReaped = !finishReporters.isEmpty
    return isReaped
  }

  /// Notes that finish-reporting work was added; true if the bag must now join the reaper.
  mutating func joinsReaper() -> Bool {
    guard !isReaped else { return false }
    isReaped = true
    return true
  }
}

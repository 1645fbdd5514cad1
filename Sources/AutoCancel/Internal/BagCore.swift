import Dispatch

/// The shared heart of a bag: its state and lock, in one allocation.
///
/// A value whose copies share that allocation, so that a registration or a launched task
/// holds the state without an object in between.
///
/// The public ``CancelBag`` is a thin front whose `deinit` ends the core; registrations and
/// launched tasks hold the core, never the front, so they cannot keep an owner's bag alive.
/// Every method decides under the lock and acts (cancels work, calls observers) after it.
///
/// Usable from inline code, with `addTicket(_:flags:details:)` and `finish(_:)`, for the
/// inlinable `CancelBag.add(_:key:label:)` and `CancelRegistration.finish()`: inlined into
/// the caller, the pair drops the retain and release of a discarded registration.
@usableFromInline
struct BagCore: Sendable {
  private let locked: Locked<BagState>

  init() {
    locked = Locked(BagState())
  }

  @inline(__always)
  func withLock<Result>(_ body: (inout BagState) throws -> Result) rethrows -> Result {
    try locked.withLock(body)
  }

  /// Equal for every copy of one bag's core.
  var identity: ObjectIdentifier { locked.identity }

  // MARK: Adding

  /// Registers `work`; cancels it at once (before returning) if the bag has ended.
  func add(
    _ work: StoredWork, flags: ItemFlags = [], details: ItemDetails? = nil
  ) -> CancelRegistration {
    CancelRegistration(core: self, ticket: addTicket(work, flags: flags, details: details))
  }

  /// Registers `work` and returns its ticket (``Ticket/inactive`` if the bag had ended and
  /// the work was cancelled).
  ///
  /// Returns a plain value, so that inlinable callers build the registration themselves and
  /// the optimizer can drop the registration's retain of the core when it is discarded.
  ///
  /// Usable from inline code for the inlinable `CancelBag.add(_:key:label:)`, which calls it
  /// directly: a non-inlinable wrapper without `flags` cost the add+finish pair 10
  /// instructions more (callgrind, release).
  @usableFromInline
  func addTicket(
    _ work: StoredWork, flags: ItemFlags = [], details: ItemDetails? = nil
  ) -> Ticket {
    if details == nil {
      // The common case, kept short: plain work, an open bag, nobody observing.
      let ticket: Ticket? = withLock { state in
        guard state.endReason == nil, !state.isObserved else { return nil }
        return state.place(work, flags: flags)
      }
      if let ticket { return ticket }
    }
    return addTicket(work, flags: flags, reporter: nil, details: details)
  }

  /// Registers work that reports `isFinished`: the bag asks it from time to time (every few
  /// dozen such adds, and from the reaper while it holds any), and drops it once it finished.
  ///
  /// Usable from inline code for `_BagInsertion.addReportingFinish(_:)`, which the inlinable
  /// `_add` of `FinishReporting` classes calls.
  @usableFromInline
  func addReportingFinish(
    _ work: any FinishReporting & AnyObject, details: ItemDetails?
  ) -> CancelRegistration {
    if details == nil {
      // The common case, kept short, as for plain work.
      let added: (Ticket, SweepWork)? = withLock { state in
        guard state.endReason == nil, !state.isObserved else { return nil }
        let ticket = state.place(work, flags: [], reporter: work)
        return (
          ticket, SweepWork(state.takeFinishReportersIfDue(), joinsReaper: state.joinsReaper())
        )
      }
      if let (ticket, sweepWork) = added {
        carryOut(sweepWork)
        return CancelRegistration(core: self, ticket: ticket)
      }
    }
    return CancelRegistration(
      core: self, ticket: addTicket(work, flags: [], reporter: work, details: details))
  }

  /// What an add of finish-reporting work leaves to do after the lock: a sweep that came due,
  /// and joining the reaper.
  private struct SweepWork {
    var candidates: [SweepCandidate]?
    var joinsReaper: Bool

    init(_ candidates: [SweepCandidate]?, joinsReaper: Bool) {
      self.candidates = candidates
      self.joinsReaper = joinsReaper
    }
  }

  private func carryOut(_ sweepWork: SweepWork) {
    // Held strongly: a weak reference would give the storage a side table, and every retain
    // of it by a registration would take the runtime's slow path. The reaper lets go at its
    // first visit after the bag has no such work left, ended or not.
    if sweepWork.joinsReaper { Reaper.shared.visit { [self] in reap() } }
    if let candidates = sweepWork.candidates { sweep(candidates) }
  }

  /// The full add: details and keys, observers, an ended bag, finish-reporting work.
  private func addTicket(
    _ work: StoredWork, flags: ItemFlags, reporter: (any FinishReporting & AnyObject)?,
    details: ItemDetails?
  ) -> Ticket {
    let outcome: AddOutcome = withLock { state in
      if let reason = state.endReason { return .rejected(reason) }
      let (ticket, replaced) = state.insert(
        work, flags: flags, reporter: reporter, details: details)
      let sweepWork =
        reporter == nil
        ? SweepWork(nil, joinsReaper: false)
        : SweepWork(state.takeFinishReportersIfDue(), joinsReaper: state.joinsReaper())
      return .added(
        ticket, replaced: replaced, observers: state.observersToNotify, sweepWork: sweepWork)
    }
    switch outcome {
    case .rejected(let reason):
      work._cancel(for: reason)
      return .inactive
    case .added(let ticket, let replaced, let observers, let sweepWork):
      if let replaced { finishCancelling(replaced, reason: .replaced, observers: observers) }
      if let observers, !flags.contains(.link) {
        let item = CancelBagItem(
          work: work, sequence: ticket.sequence, details: details, now: details?.addedAt)
        notify(observers, CancelBagEvent(kind: .registered, item: item))
      }
      carryOut(sweepWork)
      return ticket
    }
  }

  /// Asks every piece of finish-reporting work whether it is done, and drops what is: the
  /// reaper's visit. Returns whether the reaper should come back (some is left).
  func reap() -> Bool {
    sweep(withLock { $0.takeFinishReporters() })
    return withLock { $0.staysReaped() }
  }

  /// Asks the work taken for a sweep whether it is done, outside the lock (it is the user's
  /// code), and finishes the registrations of what says yes.
  ///
  /// Amortized O(1) per add: a sweep on add asks at most the work added since the last sweep
  /// plus that sweep's survivors, and the next one waits for twice as many survivors.
  /// Finishing goes by ticket, so a slot reused meanwhile by newer work is never touched.
  private func sweep(_ candidates: [SweepCandidate]) {
    var finished: [Ticket] = []
    finished.reserveCapacity(candidates.count)
    var survivors: [SweepCandidate] = []
    for candidate in candidates {
      if candidate.work.isFinished {
        finished.append(candidate.ticket)
      } else {
        survivors.append(candidate)
      }
    }
    let (toTell, observers) = withLock { state -> ([RemovedItem], [Observer]?) in
      state.keepFinishReporters(survivors)
      let observers = state.observersToNotify
      var toTell: [RemovedItem] = []
      for ticket in finished {
        // Plain, unobserved work is just dropped: `candidates` still holds it, so its last
        // release comes after the lock, with them.
        guard let item = state.remove(ticket), item.details != nil || observers != nil
        else { continue }
        toTell.append(item)
      }
      return (toTell, observers)
    }
    for item in toTell {
      item.details?.timer?.cancel()
      notify(observers, .finished, item)
    }
  }

  private enum AddOutcome {
    case rejected(CancellationReason)
    case added(Ticket, replaced: RemovedItem?, observers: [Observer]?, sweepWork: SweepWork)
  }

  // MARK: Ending one item

  /// The work of `ticket` is done: forget it without cancelling. No-op if it already ended.
  ///
  /// Usable from inline code for the inlinable `CancelRegistration.finish()`.
  @usableFromInline
  func finish(_ ticket: Ticket) {
    guard let (removed, observers) = remove(ticket) else { return }
    // Plain work, unobserved (the common finish): nothing to stop or tell.
    guard removed.details != nil || observers != nil else { return }
    removed.details?.timer?.cancel()
    notify(observers, .finished, removed)
  }

  /// Cancels the work of `ticket` alone. No-op if it already ended.
  func cancel(_ ticket: Ticket, reason: CancellationReason) {
    guard let (removed, observers) = remove(ticket) else { return }
    finishCancelling(removed, reason: reason, observers: observers)
  }

  func isActive(_ ticket: Ticket) -> Bool {
    withLock { $0.contains(ticket) }
  }

  private func remove(_ ticket: Ticket) -> (RemovedItem, [Observer]?)? {
    withLock { state in
      guard let removed = state.remove(ticket) else { return nil }
      return (removed, state.observersToNotify)
    }
  }

  // MARK: Ending everything

  /// Cancels what is in flight; the bag stays usable. Children cancel their work too.
  func cancelAll(reason: CancellationReason) {
    var (removed, observers, links): (TakenItems, [Observer]?, [StoredWork]) = withLock {
      state in
      let removed = state.removeAll(keepingLinks: true)
      let links = state.extras.map { Array($0.links.values) } ?? []
      return (removed, state.observersToNotify, links)
    }
    removed.forEachOldestFirst { finishCancelling($0, reason: reason, observers: observers) }
    for link in links { (link as? BagLink)?.sourceCancelledAll(reason: reason) }
  }

  /// Ends the bag for good: cancels everything, detaches from parents and sources, and
  /// cancels whatever is added later. Returns false if it had already ended.
  @discardableResult
  func end(reason: CancellationReason) -> Bool {
    let decision: EndDecision = withLock { state in
      guard state.endReason == nil else { return .alreadyEnded }
      state.endReason = reason
      guard state.count > 0 || state.extras != nil else {
        // Nothing to cancel or tell: the common end of a screen whose work all finished.
        return .nothingHeld
      }
      let removed = state.removeAll(keepingLinks: false)
      // Nothing that came from users outlives the end: observers, memberships, timer.
      defer { state.extras = nil }
      return .cancel(removed, extras: state.extras)
    }
    // Consumed, so that the slots taken are held once and cancelled in place: matched from a
    // live value, they would be copied, an allocation and a retain per item.
    switch consume decision {
    case .alreadyEnded:
      return false
    case .nothingHeld:
      return true
    case .cancel(var removed, nil):
      // Plain work and nobody to tell (no details, links, observers, memberships or timer):
      // only the cancels, without an item to describe each one.
      removed.forEachWorkOldestFirst { $0._cancel(for: reason) }
      return true
    case .cancel(var removed, let extras):
      extras?.deadlineTimer?._cancel(for: reason)
      for membership in extras?.memberships ?? [] { membership.finish() }
      let observers = extras?.observersToNotify
      removed.forEachOldestFirst {
        finishCancelling($0, reason: reason, observers: observers)
      }
      return true
    }
  }

  private enum EndDecision {
    case alreadyEnded
    /// The bag held no work and had no one to tell.
    case nothingHeld
    /// Work to cancel, and the extras taken out of the state (observers to tell, memberships
    /// to finish, the deadline's timer to stop).
    case cancel(TakenItems, extras: BagExtras?)
  }

  /// Cancels work already taken out of the table, and tells observers. Never under the lock.
  private func finishCancelling(
    _ removed: RemovedItem, reason: CancellationReason, observers: [Observer]?
  ) {
    removed.details?.timer?.cancel()
    removed.work._cancel(for: reason)
    notify(observers, .cancelled(reason), removed)
  }

  // MARK: Links between bags

  /// Records this bag's own registration in a parent or link source, to finish when it ends.
  func addMembership(_ membership: CancelRegistration) {
    let accepted = withLock { state in
      guard state.endReason == nil else { return false }
      state.makeExtras().memberships.append(membership)
      return true
    }
    if !accepted { membership.finish() }
  }

  /// Gives one item a timer to stop when the item ends, replacing an earlier one.
  func setTimer(_ timer: StoredWork, for ticket: Ticket) {
    let now = DispatchTime.now().uptimeNanoseconds
    let stale = withLock { $0.setTimer(timer, for: ticket, now: now) }
    stale?.cancel()
  }

  /// Installs the timer of the bag's deadline, replacing (and cancelling) an earlier one.
  func setDeadlineTimer(_ timer: StoredWork) {
    let previous: StoredWork? = withLock { state in
      guard state.endReason == nil else { return timer }
      let extras = state.makeExtras()
      defer { extras.deadlineTimer = timer }
      return extras.deadlineTimer
    }
    previous?.cancel()
  }

  // MARK: Observing

  func addObserver(_ handler: @escaping @Sendable (CancelBagEvent) -> Void) -> Int? {
    withLock { state in
      guard state.endReason == nil else { return nil }
      let extras = state.makeExtras()
      let id = extras.nextObserverID
      extras.nextObserverID += 1
      extras.observers.append(Observer(id: id, handler: handler))
      return id
    }
  }

  func removeObserver(id: Int) {
    // The removed closure is released after the lock, with the returned array.
    _ = withLock { state -> [Observer] in
      guard let extras = state.extras else { return [] }
      let old = extras.observers
      extras.observers.removeAll { $0.id == id }
      return old
    }
  }

  private func notify(
    _ observers: [Observer]?, _ kind: CancelBagEvent.Kind, _ removed: RemovedItem
  ) {
    // Links between bags are plumbing, not work: observers do not hear of them.
    guard let observers, !removed.flags.contains(.link) else { return }
    let now = DispatchTime.now().uptimeNanoseconds
    let item = CancelBagItem(
      work: removed.work, sequence: removed.sequence, details: removed.details, now: now)
    notify(observers, CancelBagEvent(kind: kind, item: item))
  }

  private func notify(_ observers: [Observer], _ event: CancelBagEvent) {
    for observer in observers { observer.handler(event) }
  }

  // MARK: Reading

  var count: Int { withLock { $0.count } }
  var endReason: CancellationReason? { withLock { $0.endReason } }

  /// The items in flight, oldest first.
  func snapshot() -> [CancelBagItem] {
    let now = DispatchTime.now().uptimeNanoseconds
    let items: [(StoredWork, UInt64, ItemDetails?)] = withLock { state in
      let details = state.details
      return state.table.slots.compactMap { slot in
        guard let work = slot.work else { return nil }
        let sequence = slot.sequence
        return (work, sequence, slot.flags.contains(.detailed) ? details[sequence] : nil)
      }
    }
    return
      items
      .map { CancelBagItem(work: $0.0, sequence: $0.1, details: $0.2, now: now) }
      .sorted { $0.id < $1.id }
  }
}

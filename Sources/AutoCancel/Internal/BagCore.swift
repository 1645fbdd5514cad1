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
  @usableFromInline let locked: Locked<BagState>

  init() {
    locked = Locked(BagState())
  }

  /// Runs `body` with the core whose storage `word` names, from ``retainedWord()``, without a
  /// reference of its own: for a holder of the word that outlives the call (how a bag keeps
  /// its core in one atomic word). A copy that `body` keeps takes its own reference.
  @inlinable
  static func withUnretainedWord<Result>(
    _ word: UInt, _ body: (BagCore) throws -> Result
  ) rethrows -> Result {
    try Locked.withUnretainedWord(word) { try body(BagCore(locked: $0)) }
  }

  @inlinable
  init(locked: Locked<BagState>) {
    self.locked = locked
  }

  /// The storage as a word, with a reference to it of its own; give it back with
  /// ``release(word:)``.
  func retainedWord() -> UInt { locked.retainedWord() }

  /// Gives back the reference that ``retainedWord()`` took.
  static func release(word: UInt) { Locked<BagState>.release(word: word) }

  @inline(__always)
  func withLock<Result>(_ body: (inout BagState) throws -> Result) rethrows -> Result {
    try locked.withLock(body)
  }

  /// Attaches `instrument` to a new bag and tells it of the bag: it hears the bag's end and
  /// release and, if it hears work, observes the bag's events.
  ///
  /// Apart, and not inlined, so that making a bag without an instrument carries none of it.
  @inline(never)
  func attach(_ instrument: any BagInstrument, label: String?) {
    let bag = InstrumentedBag(identity: identity, label: label)
    withLock { state in
      let extras = state.makeExtras()
      extras.instrument = AttachedInstrument(instrument: instrument, bag: bag)
      guard instrument.hearsWork else { return }
      let id = extras.nextObserverID
      extras.nextObserverID += 1
      extras.observers.append(
        Observer(id: id) { event in instrument.workEvent(event, in: bag) })
    }
    instrument.bagMade(bag)
  }

  /// The bag was released: tells its instrument, after its end.
  @inline(never)
  func released() {
    guard let attached = withLock({ $0.extras?.instrument }) else { return }
    attached.instrument.bagReleased(attached.bag)
  }

  /// The work of `ticket`, still in flight, moved these bytes so far: tells the bag's
  /// instrument, if it has one.
  func noteTransfer(_ ticket: Ticket, sent: Int64, received: Int64) {
    let attached = withLock { state -> AttachedInstrument? in
      guard let attached = state.extras?.instrument, state.contains(ticket) else { return nil }
      return attached
    }
    guard let attached else { return }
    attached.instrument.transferred(
      item: ticket.sequence, in: attached.bag, sent: sent, received: received)
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
    placeInShort(work, flags: flags, details: details)
      ?? addTicket(work, flags: flags, reporter: nil, details: details)
  }

  /// The common add, kept short: plain work without details, an open bag, nobody observing.
  /// Nil, placing nothing, for any other.
  @inline(__always)
  private func placeInShort(
    _ work: StoredWork, flags: ItemFlags, details: ItemDetails?
  ) -> Ticket? {
    guard details == nil else { return nil }
    return withLock { state in
      guard state.endReason == nil, !state.isObserved else { return nil }
      return state.place(work, flags: flags)
    }
  }

  /// Registers class work that came through the plain witness of `_add` and returns its
  /// ticket: as it is, or, if its type reports its finish after all (its ``FinishReporting``
  /// conformance was declared apart from the `AutoCancellable` one: on a subclass,
  /// conditionally on a generic wrapper, in another module), as finish-reporting work.
  ///
  /// The runtime is asked once per type in the process (`WorkTypes`), and the answer read
  /// here rather than in the caller: one call on the inlined path, as for any add, so that the
  /// caller holds no extra reference to the bag across it.
  ///
  /// Usable from inline code for the inlinable `_add` of plain classes.
  @usableFromInline
  func addPlainTicket(_ work: StoredWork, details: ItemDetails?) -> Ticket {
    // The instance's type: a subclass that reports its finish may be added as its superclass.
    guard WorkTypes.reportsFinish(type(of: work)) else {
      return placeInShort(work, flags: [], details: details)
        ?? addTicket(work, flags: [], reporter: nil, details: details)
    }
    // Only a `FinishReporting` type gets this far.
    return addReportingFinish(work as! any FinishReporting & AnyObject, details: details)
  }

  /// Registers work that reports `isFinished`: the bag asks it from time to time (every few
  /// dozen such adds, and from the reaper while it holds any), and drops it once it finished.
  ///
  /// Returns a plain ticket, as ``addTicket(_:flags:details:)`` does, so that the inlinable
  /// `_add` of `FinishReporting` classes builds the registration itself and the optimizer can
  /// drop its retain of the core when it is discarded (the one-liner's case).
  @usableFromInline
  func addReportingFinish(
    _ work: any FinishReporting & AnyObject, details: ItemDetails?
  ) -> Ticket {
    if details == nil {
      // The common case, kept short, as for plain work.
      let added: (Ticket, SweepWork)? = withLock { state in
        guard state.endReason == nil, !state.isObserved else { return nil }
        let ticket = state.place(work, flags: .watched, reporter: work)
        return (
          ticket, SweepWork(state.takeFinishReportersIfDue(), joinsReaper: state.joinsReaper())
        )
      }
      if let (ticket, sweepWork) = added {
        carryOut(sweepWork)
        return ticket
      }
    }
    return addTicket(work, flags: .watched, reporter: work, details: details)
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
    switch place(work, flags: flags, reporter: reporter, details: details) {
    case .added(let ticket):
      return ticket
    case .refused:
      // Work that already runs cannot be left unstarted: it is cancelled, as on an ended bag.
      work._cancel(for: _BagCancellation(.duplicate))
      return .inactive
    case .rejected:
      return .inactive
    }
  }

  /// Where work given to the bag went.
  private enum Placement {
    /// Registered, with this ticket.
    case added(Ticket)
    /// Not registered: its key runs, and its policy ignores newcomers. Nothing was cancelled.
    case refused
    /// Not registered: the bag had ended, and the work was cancelled with its end reason.
    case rejected
  }

  /// Registers `work` by its details (key and policy), cancels what it replaces, tells
  /// observers, and sweeps finish-reporting work when due.
  private func place(
    _ work: StoredWork, flags: ItemFlags, reporter: (any FinishReporting & AnyObject)?,
    details: ItemDetails?
  ) -> Placement {
    let outcome: AddOutcome = withLock { state in
      if let reason = state.endReason {
        // A launch on an ended bag never holds its key.
        if case .task(let turn)? = details?.hold { _ = turn.cancel() }
        return .rejected(reason, instrument: state.extras?.instrument)
      }
      switch state.insert(work, flags: flags, reporter: reporter, details: details) {
      case .refused:
        // Added work already runs, so it is cancelled as a duplicate and counted so; a refused
        // launch never started, and registers nothing.
        if case .work? = details?.hold { state.countRefused() }
        return .refused
      case .placed(let ticket, let keyed):
        if let replaced = keyed?.replaced {
          state.countCancelled(replaced.count, reason: .replaced, trigger: .keyPolicy)
        }
        let sweepWork =
          reporter == nil
          ? SweepWork(nil, joinsReaper: false)
          : SweepWork(state.takeFinishReportersIfDue(), joinsReaper: state.joinsReaper())
        return .added(
          ticket, keyed: keyed, observers: state.observersToNotify,
          watcher: keyed?.replaced == nil ? nil : state.extras?.instrument, sweepWork: sweepWork)
      }
    }
    switch outcome {
    case .rejected(let reason, let attached):
      if let attached, !flags.contains(.link) {
        // The bag was counted when it ended: what it cancels now is counted on its own.
        var counts = WorkTally()
        counts.registered = 1
        counts.countCancelled(1, reason: reason, trigger: .addedAfterEnd)
        attached.instrument.workCounted(counts, in: attached.bag)
      }
      work._cancel(for: _BagCancellation(reason))
      // Never registered: no number of its own, so it is watched as #0.
      var watch = CancelledWork.Batch(attached)
      watch.add(work, flags: flags, sequence: 0, details: details, reason: reason)
      watch.start()
      return .rejected
    case .refused:
      return .refused
    case .added(let ticket, let keyed, let observers, let watcher, let sweepWork):
      if let replaced = keyed?.replaced, !replaced.isEmpty {
        var watch = CancelledWork.Batch(watcher)
        for item in replaced {
          finishCancelling(item, reason: .replaced, observers: observers, watch: &watch)
        }
        watch.start()
      }
      if let observers, !flags.contains(.link) {
        let item = ItemSnapshot(
          work: work, sequence: ticket.sequence, details: details, now: details?.addedAt)
        notify(observers, ItemEvent(kind: .registered, item: item))
      }
      keyed?.effects.perform()
      carryOut(sweepWork)
      return .added(ticket)
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
      item.details?.itemEnded()
      notify(observers, .finished, item)
    }
  }

  private enum AddOutcome {
    case rejected(CancellationReason, instrument: AttachedInstrument?)
    case refused
    /// `watcher` is the bag's instrument, for the work that `keyed` replaced.
    case added(
      Ticket, keyed: BagState.KeyedInsertion?, observers: [Observer]?,
      watcher: AttachedInstrument?, sweepWork: SweepWork)
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
    removed.details?.itemEnded()
    notify(observers, .finished, removed)
  }

  /// The work of `ticket` ended by throwing `error`, not a cancellation: forget it without
  /// cancelling, and tell observers it failed. No-op if it already ended.
  func fail(_ ticket: Ticket, error: any Error) {
    guard let (removed, observers) = remove(ticket, counting: { state in state.countFailed() })
    else { return }
    removed.details?.itemEnded()
    notify(observers, .failed(error), removed)
  }

  /// Cancels the work of `ticket` alone, counted as cancelled by `trigger`. No-op if it
  /// already ended.
  func cancel(
    _ ticket: Ticket, reason: CancellationReason, trigger: CancelTrigger
  ) {
    var watcher: AttachedInstrument?
    let counted = remove(ticket) { state in
      state.countCancelled(1, reason: reason, trigger: trigger)
      watcher = state.extras?.instrument
    }
    guard let (removed, observers) = counted else { return }
    var watch = CancelledWork.Batch(watcher)
    finishCancelling(removed, reason: reason, observers: observers, watch: &watch)
    watch.start()
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

  /// `remove(_:)`, counting how the item ended with `count`, under the lock, unless it is a
  /// link. Apart, so that the plain finish carries no counting.
  private func remove(
    _ ticket: Ticket, counting count: (inout BagState) -> Void
  ) -> (RemovedItem, [Observer]?)? {
    withLock { state in
      guard let removed = state.remove(ticket) else { return nil }
      if !removed.flags.contains(.link) { count(&state) }
      return (removed, state.observersToNotify)
    }
  }

  // MARK: Ending everything

  /// Cancels what is in flight; the bag stays usable. Children cancel their work too.
  func cancelAll(reason: CancellationReason) {
    var (removed, keyEffects, observers, links, watcher):
      (TakenItems, KeyEffects?, [Observer]?, [StoredWork], AttachedInstrument?) = withLock {
        state in
        state.countCancelled(state.count, reason: reason, trigger: .cancelAll)
        let removed = state.removeAllButLinks()
        let links = state.extras.map { Array($0.links.values) } ?? []
        return (
          removed, state.removeAllKeyMembers(), state.observersToNotify, links,
          state.extras?.instrument
        )
      }
    var watch = CancelledWork.Batch(watcher)
    removed.forEachOldestFirst {
      finishCancelling($0, reason: reason, observers: observers, watch: &watch)
    }
    watch.start()
    keyEffects?.perform()
    for link in links { (link as? BagLink)?.sourceCancelledAll(reason: reason) }
  }

  /// Ends the bag for good: cancels everything, detaches from parents and sources, and
  /// cancels whatever is added later. Returns false if it had already ended.
  ///
  /// An instrumented bag hands its instrument what became of its work, once, counting what is
  /// in flight as cancelled by `trigger`.
  @discardableResult
  func end(reason: CancellationReason, trigger: CancelTrigger) -> Bool {
    let decision: EndDecision = withLock { state in
      guard state.endReason == nil else { return .alreadyEnded }
      state.endReason = reason
      guard state.count > 0 || state.extras != nil else {
        // Nothing to cancel or tell: the common end of a screen whose work all finished.
        return .nothingHeld
      }
      // An instrumented bag has extras from its start.
      let tally =
        state.extras?.instrument == nil ? nil : state.closeTally(reason: reason, trigger: trigger)
      let slots = state.removeAllSlots()
      // Nothing that came from users outlives the end (observers, memberships, timer), but the
      // keys of tasks that have not returned yet. The extras taken keep the details and links
      // of what was taken, so that the decision stays small: a larger one was copied out of
      // the lock with `memmove`, about 4% of the time of a bag with one item.
      let extras = state.takeExtrasAtEnd()
      extras?.tallyOfEnd = tally
      return .cancel(slots, extras: extras)
    }
    // Consumed, so that the slots taken are held once and cancelled in place: matched from a
    // live value, they would be copied, an allocation and a retain per item.
    switch consume decision {
    case .alreadyEnded:
      return false
    case .nothingHeld:
      return true
    case .cancel(let slots, nil):
      // Plain work and nobody to tell (no details, links, observers, memberships, timer, keys
      // or instrument): only the cancels, without an item to describe each one.
      var removed = TakenItems(slots: consume slots)
      removed.forEachWorkOldestFirst { $0._cancel(for: _BagCancellation(reason)) }
      return true
    case .cancel(let slots, let extras?):
      var removed = TakenItems(
        slots: consume slots, details: extras.details, links: extras.links)
      extras.deadlineTimer?._cancel(for: _BagCancellation(reason))
      for membership in extras.memberships { membership.finish() }
      let observers = extras.observersToNotify
      var watch = CancelledWork.Batch(extras.instrument)
      var cancelled = 0
      removed.forEachOldestFirst {
        if !$0.flags.contains(.link) { cancelled += 1 }
        finishCancelling($0, reason: reason, observers: observers, watch: &watch)
      }
      watch.start()
      extras.keyEffectsOfEnd?.perform()
      if let attached = extras.instrument {
        attached.instrument.bagEnded(attached.bag, reason: reason, cancelled: cancelled)
        if let tally = extras.tallyOfEnd {
          attached.instrument.workCounted(tally, in: attached.bag)
        }
      }
      return true
    }
  }

  private enum EndDecision {
    case alreadyEnded
    /// The bag held no work and had no one to tell.
    case nothingHeld
    /// The slots taken out, and the extras taken out of the state (the details and links of
    /// what was taken, observers to tell, memberships to finish, the deadline's timer to stop,
    /// what its keys' end decided).
    case cancel(TakenSlots, extras: BagExtras?)
  }

  /// Cancels work already taken out of the table, tells observers, and has the work watched
  /// for stopping (links excepted). Never under the lock.
  private func finishCancelling(
    _ removed: RemovedItem, reason: CancellationReason, observers: [Observer]?,
    watch: inout CancelledWork.Batch
  ) {
    removed.details?.timer?.cancel()
    removed.work._cancel(for: _BagCancellation(reason))
    watch.add(
      removed.work, flags: removed.flags, sequence: removed.sequence, details: removed.details,
      reason: reason)
    notify(observers, .cancelled(reason), removed)
    removed.details?.keyEffects?.perform()
  }

  // MARK: Keys

  /// Registers the cancellation of a task about to be launched under `key`, by `policy`: let
  /// through at once, or waiting for its turn; nil when the policy refuses it (nothing is
  /// registered). On a bag that has ended, the cancellation is cancelled with the end reason
  /// and the task never holds its key.
  ///
  /// Returns the task's name too, made from its label and key. `key` must not be nil (it is
  /// unwrapped here, so that inline callers do not copy it).
  @usableFromInline
  func launch(
    _ cancellation: TaskCancellation, key: (any Hashable & Sendable)?, label: String?,
    policy: KeyPolicy, callSite: ItemCallSite?
  ) -> (launch: BagTask, name: String?)? {
    guard let key else { preconditionFailure("A keyed launch without a key") }
    let turn = KeyTurn(key: BagKey(key), state: .waiting)
    let details = ItemDetails(
      label: label, key: turn.key, addedAt: DispatchTime.now().uptimeNanoseconds,
      callSite: callSite, policy: policy, hold: .task(turn))
    let ticket: Ticket
    switch place(cancellation, flags: .watched, reporter: nil, details: details) {
    case .added(let added): ticket = added
    case .rejected: ticket = .inactive
    case .refused: return nil
    }
    let launch = BagTask(
      cancellation: cancellation, registration: CancelRegistration(core: self, ticket: ticket),
      turn: turn)
    return (launch, BagTask.name(label: label, key: key))
  }

  /// Whether the launch of `turn` was let through (true), never will be (false), or waits
  /// (nil).
  @usableFromInline
  func admission(of turn: KeyTurn) -> Bool? {
    withLock { _ in
      switch turn.state {
      case .admitted: true
      case .cancelled: false
      case .waiting, .parked, .givingBack, .returned: nil
      }
    }
  }

  /// Suspends until the launch of `turn` is let through (true) or cancelled before its turn
  /// (false).
  ///
  /// Cancelling the waiting task, through its handle, cancels its registration: it leaves the
  /// queue, and never runs. The continuation is unsafe (a frozen type, so that the bag's key
  /// state has a fixed layout) and resumed exactly once: `KeyTurn` hands it out once, to
  /// whichever of the bag and this method decides first.
  @usableFromInline
  func awaitTurn(_ turn: KeyTurn, ticket: Ticket) async -> Bool {
    await withTaskCancellationHandler {
      await withUnsafeContinuation { continuation in
        let decided = withLock { _ in turn.park(continuation) }
        if let decided { continuation.resume(returning: decided) }
      }
    } onCancel: {
      cancel(ticket, reason: .explicit, trigger: .registration)
    }
  }

  /// A task the bag launched returned, threw `failure` (an error that is not a cancellation)
  /// or learned that it never runs: under one lock, withdraws the bag's reason from it
  /// (`cancellation`), ends its registration if it is still in flight (as failed if it threw),
  /// and, launched under a key (`turn`), gives its key back, letting the next waiting launch
  /// through.
  @usableFromInline
  func taskEnded(
    _ ticket: Ticket, cancellation: TaskCancellation, turn: KeyTurn?, failure: (any Error)?
  ) {
    let (removed, effects, observers) = withLock {
      state -> (RemovedItem?, KeyEffects?, [Observer]?) in
      cancellation.endUnderLock()
      let (removed, effects) =
        turn.map { state.taskReturned(ticket, turn: $0) } ?? (state.remove(ticket), nil)
      guard removed != nil else { return (nil, effects, nil) }
      if failure != nil { state.countFailed() }
      return (removed, effects, state.observersToNotify)
    }
    if let removed, removed.details != nil || observers != nil {
      removed.details?.itemEnded()
      notify(observers, failure.map { .failed($0) } ?? .finished, removed)
    }
    effects?.perform()
  }

  /// Cancels everything registered under `key`, oldest first.
  func cancel(key: BagKey, reason: CancellationReason) {
    let (removed, observers, watcher) = withLock { state in
      let removed = state.removeMembers(of: key)
      state.countCancelled(removed.count, reason: reason, trigger: .key)
      return (removed, state.observersToNotify, state.extras?.instrument)
    }
    var watch = CancelledWork.Batch(watcher)
    for item in removed {
      finishCancelling(item, reason: reason, observers: observers, watch: &watch)
    }
    watch.start()
  }

  /// Whether anything runs or waits under `key`.
  func isRunning(_ key: BagKey) -> Bool {
    withLock { $0.isRunning(key) }
  }

  /// The first thing a new observer of `key` hears: the key's state and the number of its last
  /// change, and whether nothing will follow.
  struct KeyObservationStart {
    var observer: KeyObserver
    var isRunning: Bool
    var version: UInt64
    var ends: Bool
  }

  /// Adds an observer of whether `key` runs. Offer it `start` after the lock. On a bag that has
  /// ended, with nothing running under the key, the observer is not kept: it hands `false`,
  /// then the end.
  func observe(key: BagKey) -> KeyObservationStart {
    withLock { state in
      guard state.endReason == nil || state.isRunning(key) else {
        let observer = KeyObserver(id: -1)
        return KeyObservationStart(observer: observer, isRunning: false, version: 0, ends: true)
      }
      let extras = state.makeExtras()
      let observer = KeyObserver(id: extras.nextObserverID)
      extras.nextObserverID += 1
      var unchanged = KeyEffects()
      let version = state.withKey(key, &unchanged) { entry, _ in
        entry.observers.append(observer)
        return entry.version
      }
      return KeyObservationStart(
        observer: observer, isRunning: state.isRunning(key), version: version, ends: false)
    }
  }

  /// Stops and lets go of the observer `id` of `key`.
  func removeObserver(key: BagKey, id: Int) {
    // The observer is released after the lock, with the returned array.
    _ = withLock { state -> [KeyObserver] in
      guard state.extras?.keys[key] != nil else { return [] }
      var unchanged = KeyEffects()
      return state.withKey(key, &unchanged) { entry, _ in
        let old = entry.observers
        entry.observers.removeAll { $0.id == id }
        return old
      }
    }
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

  func addObserver(_ handler: @escaping @Sendable (ItemEvent) -> Void) -> Int? {
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
    _ observers: [Observer]?, _ kind: ItemEvent.Kind, _ removed: RemovedItem
  ) {
    // Links between bags are plumbing, not work: observers do not hear of them.
    guard let observers, !removed.flags.contains(.link) else { return }
    let now = DispatchTime.now().uptimeNanoseconds
    let item = ItemSnapshot(
      work: removed.work, sequence: removed.sequence, details: removed.details, now: now)
    notify(observers, ItemEvent(kind: kind, item: item))
  }

  private func notify(_ observers: [Observer], _ event: ItemEvent) {
    for observer in observers { observer.handler(event) }
  }

  // MARK: Reading

  var count: Int { withLock { $0.count } }
  var endReason: CancellationReason? { withLock { $0.endReason } }

  /// The items in flight, oldest first.
  func snapshot() -> [ItemSnapshot] {
    let now = DispatchTime.now().uptimeNanoseconds
    let items: [(StoredWork, UInt64, ItemDetails?)] = withLock { state in
      let details = state.details
      var items: [(StoredWork, UInt64, ItemDetails?)] = []
      items.reserveCapacity(state.count)
      state.table.forEachOccupied { work, slot in
        let sequence = slot.sequence
        items.append((work, sequence, slot.flags.contains(.detailed) ? details[sequence] : nil))
      }
      return items
    }
    return
      items
      .map { ItemSnapshot(work: $0.0, sequence: $0.1, details: $0.2, now: now) }
      .sorted { $0.id < $1.id }
  }
}

/// Copies of one bag's core are equal: a core is its storage.
extension BagCore: Hashable {
  @usableFromInline
  static func == (lhs: BagCore, rhs: BagCore) -> Bool {
    lhs.identity == rhs.identity
  }

  @usableFromInline
  func hash(into hasher: inout Hasher) {
    hasher.combine(identity)
  }
}

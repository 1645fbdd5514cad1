import AutoCancel

/// What one bag must hold, by its contract, written as plainly as possible: a list of what is
/// in flight (oldest first), what runs and waits under each key, and the reason it ended.
///
/// The list also holds the bag's links to child and linked bags (negative ids), in the order
/// they were made: they are not work (`count` leaves them out), `cancelAll` keeps them, and
/// `end` reaches them in their place among the items. The run that owns the models expands
/// them into the other bag's cancellations.
///
/// Keys, by the policy of each newcomer (``KeyPolicy``): a key *runs* while added work under it
/// is registered, a launch under it was let through and its operation has not returned, or a
/// launch waits for its turn. A replacing newcomer cancels everything registered under the
/// key; one that ignores newcomers is refused while the key runs (added work is cancelled at
/// once, with `duplicate`; a launch never starts); one that waits starts once nothing holds the
/// key and every launch before it started, in launch order; one beside starts at once. A
/// launch on an ended bag never starts.
struct ReferenceModel {
  typealias Cancellation = (id: Int, reason: CancellationReason)

  /// Everything under one key.
  struct KeyModel {
    /// Registered work and launches under the key, oldest first.
    var members: [Int] = []
    /// Added work under the key that is registered.
    var workHolders: Set<Int> = []
    /// Launches let through whose operation has not returned, registered or not.
    var runningLaunches: Set<Int> = []
    /// Launches waiting for their turn, in launch order.
    var queue: [Int] = []

    var isHeld: Bool { !workHolders.isEmpty || !runningLaunches.isEmpty }
    var isRunning: Bool { isHeld || !queue.isEmpty }
    var isUnused: Bool { !isRunning && members.isEmpty }
  }

  /// What a launch did.
  enum Launch: Equatable {
    /// Refused by its policy: nothing registered, no task.
    case refused
    /// On an ended bag: a task that never runs its operation.
    case rejected
    /// Registered, and let through: its operation starts.
    case started
    /// Registered, waiting for its turn.
    case queued
  }

  private(set) var live: [Int] = []
  private(set) var itemCount = 0
  private(set) var endReason: CancellationReason?
  private(set) var keys: [AnyHashable: KeyModel] = [:]
  private var keyOf: [Int: AnyHashable] = [:]
  /// Launches whose operation the bag starts (or started), in the order it starts them.
  private(set) var started: [Int] = []
  /// Launches let through, taken by `takeStarts()`.
  private var newlyStarted: [Int] = []

  /// The items in flight, oldest first (links left out).
  var items: [Int] { live.filter { $0 >= 0 } }

  /// Whether anything runs or waits under `key`.
  func isRunning(_ key: AnyHashable) -> Bool { keys[key]?.isRunning ?? false }

  /// Whether the launch `id` is registered and waits for its turn.
  func isQueued(_ id: Int) -> Bool {
    keyOf[id].flatMap { keys[$0]?.queue.contains(id) } ?? false
  }

  /// The launches let through since the last call, in the order they were let through.
  mutating func takeStarts() -> [Int] {
    defer { newlyStarted = [] }
    return newlyStarted
  }

  /// Adds work `id`: rejected (cancelled at once) if the bag ended, refused (cancelled at once,
  /// `duplicate`) if its key runs and its policy ignores newcomers, else in flight, replacing
  /// everything under its key (`replace`) or beside it.
  mutating func add(
    _ id: Int, key: AnyHashable?, policy: AddPolicy = .replace
  ) -> [Cancellation] {
    if let endReason { return [(id, endReason)] }
    guard let key else {
      live.append(id)
      itemCount += 1
      return []
    }
    if policy == .ignoreNew && isRunning(key) { return [(id, .duplicate)] }
    let replaced = policy == .replace ? keys[key]?.members ?? [] : []
    register(id, key: key)
    keys[key]!.workHolders.insert(id)
    return replaced.map { old in
      remove(old)
      return (old, .replaced)
    }
  }

  /// Launches task `id` under `key` by `policy`, with what it cancels (a replacing launch).
  mutating func launch(
    _ id: Int, key: AnyHashable, policy: KeyPolicy
  ) -> (launch: Launch, cancellations: [Cancellation]) {
    if endReason != nil { return (.rejected, []) }
    let running = isRunning(key)
    if policy == .ignoreNew && running { return (.refused, []) }
    let replaced = policy == .replace ? keys[key]?.members ?? [] : []
    register(id, key: key)
    let waits = policy == .enqueue && running
    if waits {
      keys[key]!.queue.append(id)
    } else {
      keys[key]!.runningLaunches.insert(id)
      started.append(id)
      newlyStarted.append(id)
    }
    let cancellations = replaced.map { old in
      remove(old)
      return (old, CancellationReason.replaced)
    }
    return (waits ? .queued : .started, cancellations)
  }

  /// The operation of launch `id` returns: its registration finishes if it is still in
  /// flight (true), and it gives its key back.
  mutating func returned(_ id: Int) -> Bool {
    let key = keyOf[id]!
    let wasRegistered = live.contains(id)
    if wasRegistered { remove(id) }
    keys[key]!.runningLaunches.remove(id)
    admitNext(key)
    return wasRegistered
  }

  /// The registration was added to an ended bag, or refused (not in flight).
  func isRejected(_ cancellations: [Cancellation], _ id: Int) -> Bool {
    cancellations.contains { $0.id == id }
  }

  /// Links another bag (negative `id`); false if this bag has ended.
  mutating func addLink(_ id: Int) -> Bool {
    guard endReason == nil else { return false }
    live.append(id)
    return true
  }

  /// The linked bag ended by itself: its link leaves the list.
  mutating func removeLink(_ id: Int) {
    live.removeAll { $0 == id }
  }

  /// Finishes item `id`; true if it was in flight.
  mutating func finish(_ id: Int) -> Bool {
    guard live.contains(id) else { return false }
    remove(id)
    return true
  }

  /// Cancels item `id` alone.
  mutating func cancel(_ id: Int, reason: CancellationReason) -> [Cancellation] {
    guard live.contains(id) else { return [] }
    remove(id)
    return [(id, reason)]
  }

  /// Cancels everything registered under `key`, oldest first. Waiting launches leave first,
  /// so that none is let through by a holder leaving before it.
  mutating func cancel(key: AnyHashable, reason: CancellationReason) -> [Cancellation] {
    let members = keys[key]?.members ?? []
    let waiting = keys[key]?.queue ?? []
    for id in waiting { remove(id) }
    for id in members where !waiting.contains(id) { remove(id) }
    return members.map { ($0, reason) }
  }

  /// Cancels every item in flight, oldest first, and returns the links it keeps (the run
  /// passes the sweep on to child bags); the bag stays open.
  mutating func cancelAll(
    reason: CancellationReason
  ) -> (
    cancellations: [Cancellation], links: [Int]
  ) {
    let cancellations = items.map { ($0, reason) }
    live.removeAll { $0 >= 0 }
    itemCount = 0
    forgetMembers()
    return (cancellations, live)
  }

  /// Ends the bag: the first call takes everything out, items and links, oldest first (nil
  /// if it had ended already).
  mutating func end(reason: CancellationReason) -> [Int]? {
    guard endReason == nil else { return nil }
    endReason = reason
    defer {
      live = []
      itemCount = 0
      forgetMembers()
    }
    return live
  }

  // MARK: Keys

  private mutating func register(_ id: Int, key: AnyHashable) {
    live.append(id)
    itemCount += 1
    keyOf[id] = key
    keys[key, default: KeyModel()].members.append(id)
  }

  /// Everything registered left at once: keys keep only the launches still returning.
  private mutating func forgetMembers() {
    for key in Array(keys.keys) {
      keys[key]!.members = []
      keys[key]!.workHolders = []
      keys[key]!.queue = []
      if keys[key]!.isUnused { keys[key] = nil }
    }
  }

  /// Takes `id` out of the list and of its key: a queued launch leaves the queue (it never
  /// starts), added work gives its key back.
  private mutating func remove(_ id: Int) {
    guard let index = live.firstIndex(of: id) else { return }
    live.remove(at: index)
    itemCount -= 1
    guard let key = keyOf[id] else { return }
    keys[key]!.members.removeAll { $0 == id }
    keys[key]!.queue.removeAll { $0 == id }
    if keys[key]!.workHolders.remove(id) != nil { admitNext(key) }
  }

  /// Lets the oldest waiting launch under `key` through, if nothing holds the key.
  private mutating func admitNext(_ key: AnyHashable) {
    guard var entry = keys[key] else { return }
    if !entry.isHeld, !entry.queue.isEmpty {
      let next = entry.queue.removeFirst()
      entry.runningLaunches.insert(next)
      started.append(next)
      newlyStarted.append(next)
    }
    keys[key] = entry.isUnused ? nil : entry
  }
}

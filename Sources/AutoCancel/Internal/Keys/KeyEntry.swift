/// Everything under one key of a bag: the work registered under it, what holds it, the
/// launches waiting for their turn, and the observers of whether it runs.
///
/// A plain value inside the bag's state, changed only under the bag's lock. The key *runs*
/// while anything holds it or waits for it:
///
/// - added work holds its key while it is registered (the bag cannot know when it returns);
/// - a launched task holds its key from the moment it is let through until its operation
///   returns, cancelled or not;
/// - a launch that waits for its turn (``KeyPolicy/enqueue``) does not hold it yet.
///
/// The entry is dropped once nothing runs, nothing is registered and nobody observes.
struct KeyEntry {
  /// What a new launch or add does under the key.
  enum Admission {
    /// Start now.
    case start
    /// Start now, and cancel everything registered under the key.
    case startReplacing
    /// Wait for the turn.
    case wait
    /// Do not start at all.
    case refuse
  }

  /// Registered work under the key, oldest first: running, waiting, or added.
  var members: [Ticket] = []
  /// Added work under the key that is registered.
  var workHolders = 0
  /// Launched tasks let through and not returned yet.
  var taskHolders = 0
  /// Launches waiting for their turn, in launch order.
  var queue: [KeyTurn] = []
  /// Who follows whether the key runs, and the number of the last change they were told of.
  var observers: [KeyObserver] = []
  var version: UInt64 = 0

  /// Whether something holds the key: a newcomer that waits must go on waiting.
  var isHeld: Bool { workHolders > 0 || taskHolders > 0 }

  /// Whether anything runs or waits under the key.
  var isRunning: Bool { isHeld || !queue.isEmpty }

  /// Whether the entry can go: it would be made again, as it is, on first use.
  var isUnused: Bool { !isRunning && members.isEmpty && observers.isEmpty }

  /// What a newcomer under `policy` does now.
  func admission(for policy: KeyPolicy) -> Admission {
    switch policy {
    case .replace: members.isEmpty ? .start : .startReplacing
    case .runConcurrently: .start
    case .ignoreNew: isRunning ? .refuse : .start
    case .enqueue: isRunning ? .wait : .start
    }
  }

  /// Lets the oldest waiting launch through if nothing holds the key; returns the continuation
  /// to resume, if it is parked on one.
  mutating func admitNext(into effects: inout KeyEffects) {
    guard !isHeld, !queue.isEmpty else { return }
    let turn = queue.removeFirst()
    taskHolders += 1
    effects.resume(turn.admit(), admitted: true)
  }

  /// The task of `turn` returned: it gives the key back, and the next waiting launch may come
  /// through.
  mutating func releaseTask(_ turn: KeyTurn, into effects: inout KeyEffects) {
    precondition(taskHolders > 0, "Invalid state: a key given back that nobody held")
    turn.finishGivingBack()
    taskHolders -= 1
    admitNext(into: &effects)
  }

  /// Takes `ticket` out of the members.
  mutating func removeMember(_ ticket: Ticket) {
    if let index = members.firstIndex(of: ticket) { members.remove(at: index) }
  }

  /// Takes `turn` out of the queue and cancels it: its launch will never run.
  mutating func cancelWaiting(_ turn: KeyTurn, into effects: inout KeyEffects) {
    if let index = queue.firstIndex(where: { $0 === turn }) { queue.remove(at: index) }
    effects.resume(turn.cancel(), admitted: false)
  }

  /// Everything registered under the key was taken out at once (`cancelAll`, `end`): added
  /// work no longer holds it, waiting launches will never run; tasks let through hold it until
  /// they return.
  mutating func removeAllMembers(into effects: inout KeyEffects) {
    members = []
    workHolders = 0
    for turn in queue { effects.resume(turn.cancel(), admitted: false) }
    queue = []
  }
}

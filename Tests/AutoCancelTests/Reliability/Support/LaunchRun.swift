import AutoCancel
import AutoCancelDiagnostics
import AutoCancelTestSupport
import Foundation
import SeededRandom
import Testing

/// What the operations of a launch run did, from the cooperative pool: when each started and
/// returned, and every start that broke a policy's promise.
final class LaunchLog: Sendable {
  private struct State {
    var started: [Int] = []
    var returned: Set<Int> = []
    /// Operations running now, by bag and key.
    var running: [String: Int] = [:]
    /// Bags that have ended.
    var endedBags: Set<Int> = []
    var violations: [String] = []
  }

  private let state = Protected(State())
  /// Lets each operation return when the driver says, whatever cancels it.
  private let releases = OperationLog()
  /// Signalled at every start, for a driver blocked in `waitUntilStarted`.
  private let starts = NSCondition()

  /// The operation of launch `id` in bag `bag` under `key`: logs its start (checking that an
  /// `ignoreNew` or `enqueue` launch starts alone under its key, and nothing starts in a bag
  /// that ended), waits until `release(id)`, whatever cancels it, and logs its return.
  func operation(
    _ id: Int, bag: Int, key: Int, policy: KeyPolicy
  ) -> @Sendable () async -> CancellationReason? {
    { [self] in
      let slot = "\(bag)/\(key)"
      state.withLock { state in
        state.started.append(id)
        let others = state.running[slot, default: 0]
        if others > 0 && (policy == .ignoreNew || policy == .enqueue) {
          state.violations.append("#\(id) (\(policy)) started beside \(others) under key \(key)")
        }
        if state.endedBags.contains(bag) {
          state.violations.append("#\(id) started after its bag ended")
        }
        state.running[slot] = others + 1
      }
      starts.withLock { starts.broadcast() }
      let reason = await releases.operation("\(id)")()
      state.withLock { state in
        state.running[slot]! -= 1
        state.returned.insert(id)
      }
      return reason
    }
  }

  func release(_ id: Int) { releases.release("\(id)") }

  func bagEnded(_ bag: Int) { state.withLock { _ = $0.endedBags.insert(bag) } }

  func hasStarted(_ id: Int) -> Bool { state.withLock { $0.started.contains(id) } }

  /// Blocks the calling thread (never one of the cooperative pool) until launch `id` started;
  /// false after ``waitBound`` seconds.
  func waitUntilStarted(_ id: Int) -> Bool {
    let deadline = Date(timeIntervalSinceNow: waitBound)
    return starts.withLock {
      while !hasStarted(id) {
        if !starts.wait(until: deadline) { return hasStarted(id) }
      }
      return true
    }
  }
  func hasReturned(_ id: Int) -> Bool { state.withLock { $0.returned.contains(id) } }
  var started: [Int] { state.current.started }
  var violations: [String] { state.current.violations }
}

/// Blocks the calling thread (never one of the cooperative pool) until `task` has ended, and
/// returns its result.
private func result<Success: Sendable>(
  of task: Task<Success, any Error>
) -> Result<Success, any Error> {
  let ended = Gate()
  let result = Protected<Result<Success, any Error>?>(nil)
  Task.detached {
    let value = await task.result
    result.withLock { $0 = value }
    ended.open()
  }
  ended.wait()
  return result.current ?? .failure(CancellationError())
}

/// One seeded run of tasks launched and work added under keys, one bag at a time, each step
/// awaited and compared with the reference model: which launches are refused, start, wait or
/// never start, what each cancels, what `count` and `isRunning(key:)` say. The operations' own
/// log checks, apart from the model, that `ignoreNew` and `enqueue` launches start alone under
/// their key and that nothing starts in a bag that ended; the bag's events, that every
/// registration ends exactly once; the start order, that waiting launches start in launch
/// order.
///
/// Synchronous: it blocks its thread while the bag's tasks run, so call it from a thread of
/// its own (`onNewThread`), never from the cooperative pool, which the tasks need.
struct LaunchRun {
  let seed: UInt64
  let operations: Int

  private enum Kind {
    case launch(Task<CancellationReason?, any Error>?)
    case work(CancelRegistration, RecordingWork)
  }

  private struct Item {
    var kind: Kind
    var bag: Int
    var key: Int
    /// The bag's reason, if the model says the bag cancelled it.
    var cancelled: CancellationReason?
    /// Its task was cancelled through its handle before the bag cancelled it: the bag's
    /// reason is not why it stopped, and its operation reads none.
    var reasonWithheld = false
    /// A launch that waited for its turn when it was made.
    var queuedAtLaunch = false
  }

  /// What the run went through, for the report.
  struct Outcome {
    var launches = 0
    var refused = 0
    var queued = 0
    var neverStarted = 0
  }

  private var random: SeededGenerator
  private let log = LaunchLog()
  private var bag = CancelBag(label: "launches")
  private var bagIndex = 0
  private var model = ReferenceModel()
  private var items: [Item] = []
  private let events = Protected<[String: [CancelBagEvent.Kind]]>([:])
  private var step = 0
  private var operation = "start"
  private(set) var outcome = Outcome()

  init(seed: UInt64, operations: Int) {
    self.seed = seed
    self.operations = operations
    random = SeededGenerator(seed: seed)
    observeBag()
  }

  /// Records the events of the bag in use, by item label.
  private func observeBag() {
    let events = events
    bag.observe { event in
      guard let label = event.item.label else { return }
      events.withLock { $0[label, default: []].append(event.kind) }
    }
  }

  /// Runs every step, then ends the bag and lets every operation return; throws at the first
  /// divergence.
  mutating func run() throws {
    while step < operations {
      step += 1
      try perform()
    }
    try replaceBag()
    try checkEveryItem()
  }

  private mutating func perform() throws {
    // An ended bag refuses everything: most of the time, go on with a new one.
    if model.endReason != nil && random.chance(60) { return try replaceBag() }
    switch random.below(100) {
    case 0..<40: try launch()
    case 40..<50: try addWork()
    case 50..<75: try returnOne()
    case 75..<80: try finishWork()
    case 80..<88: try cancelOne()
    case 88..<92:
      let key = random.below(3)
      operation = "cancel(key: \(key))"
      bag.cancel(key: key)
      try settle(model.cancel(key: AnyHashable(key), reason: .explicit))
    case 92..<95:
      operation = "cancelAll"
      bag.cancelAll()
      try settle(model.cancelAll(reason: .explicit).cancellations)
    case 95..<97:
      operation = "end"
      bag.end()
      log.bagEnded(bagIndex)
      try settle((model.end(reason: .explicit) ?? []).map { ($0, .explicit) })
    case 97..<98:
      try replaceBag()
    default:
      operation = "read"
      try settle([])
    }
  }

  // MARK: Steps

  private mutating func launch() throws {
    let id = items.count
    let key = random.below(3)
    let policy = [KeyPolicy.replace, .ignoreNew, .enqueue, .runConcurrently][random.below(4)]
    operation = "launch #\(id) under key \(key), \(policy)"
    let task = bag.task(
      key: key, policy: policy, label: "#\(id)",
      operation: log.operation(id, bag: bagIndex, key: key, policy: policy))
    let (launched, cancellations) = model.launch(id, key: AnyHashable(key), policy: policy)
    items.append(Item(kind: .launch(task), bag: bagIndex, key: key))
    outcome.launches += 1
    switch launched {
    case .refused:
      outcome.refused += 1
      if task != nil { throw failure("launched, the model refuses it") }
    case .queued:
      outcome.queued += 1
      items[id].queuedAtLaunch = true
      fallthrough
    case .rejected, .started:
      if task == nil { throw failure("refused, the model says \(launched)") }
    }
    try settle(cancellations)
  }

  private mutating func addWork() throws {
    let id = items.count
    let key = random.below(3)
    let policy = [AddPolicy.replace, .ignoreNew, .runConcurrently][random.below(3)]
    operation = "add #\(id) under key \(key), \(policy)"
    let work = RecordingWork("#\(id)")
    let registration = bag.add(work, key: key, policy: policy, label: "#\(id)")
    items.append(Item(kind: .work(registration, work), bag: bagIndex, key: key))
    let cancellations = model.add(id, key: AnyHashable(key), policy: policy)
    if model.isRejected(cancellations, id) == registration.isActive {
      throw failure("registration active: \(registration.isActive), model: \(cancellations)")
    }
    try settle(cancellations)
  }

  /// Lets a started operation of this bag return, and waits for its task.
  private mutating func returnOne() throws {
    let running = model.started.filter { !log.hasReturned($0) }
    guard !running.isEmpty else { return try launch() }
    let id = running[random.below(running.count)]
    operation = "return #\(id)"
    try letReturn(id)
    try settle([])
  }

  private mutating func finishWork() throws {
    let works = model.items.filter {
      if case .work = items[$0].kind { return true }
      return false
    }
    guard !works.isEmpty else { return try addWork() }
    let id = works[random.below(works.count)]
    operation = "finish #\(id)"
    guard case .work(let registration, _) = items[id].kind else { return }
    registration.finish()
    _ = model.finish(id)
    try settle([])
  }

  /// Cancels one registered item of this bag alone: added work through its registration, a
  /// launch through its task, which takes it out of the bag only while it waits for its turn.
  private mutating func cancelOne() throws {
    let registered = model.items
    guard !registered.isEmpty else { return try launch() }
    let id = registered[random.below(registered.count)]
    operation = "cancel #\(id)"
    switch items[id].kind {
    case .work(let registration, _):
      registration.cancel()
      try settle(model.cancel(id, reason: .explicit))
    case .launch(let task?):
      let waits = model.isQueued(id)
      if items[id].cancelled == nil { items[id].reasonWithheld = true }
      task.cancel()
      guard waits else { return try settle([]) }
      // Its wait ends, and it leaves the bag without running: its result proves both.
      guard case .failure(let error) = result(of: task), error is CancellationError else {
        throw failure("#\(id), cancelled while it waited, did not throw CancellationError")
      }
      try settle(model.cancel(id, reason: .explicit))
    case .launch(nil):
      throw failure("#\(id) registered without a task")
    }
  }

  /// Drops the bag in use (its deinit ends it, `ownerGone`), lets every operation it started
  /// return, and goes on with a new bag.
  private mutating func replaceBag() throws {
    operation = "drop bag \(bagIndex)"
    let ended = model.end(reason: .ownerGone) ?? []
    bag = CancelBag(label: "launches")
    log.bagEnded(bagIndex)
    try settle(ended.map { ($0, .ownerGone) }, checkingBag: false)
    operation = "let every operation of dropped bag \(bagIndex) return"
    for id in model.started where !log.hasReturned(id) {
      try letReturn(id)
    }
    if !model.takeStarts().isEmpty { throw failure("a launch let through after its bag ended") }
    for (id, item) in items.enumerated() where item.bag == bagIndex {
      guard case .launch(let task?) = item.kind, !model.started.contains(id) else { continue }
      guard case .failure(let error) = result(of: task), error is CancellationError else {
        throw failure("#\(id) never started, yet its task did not throw CancellationError")
      }
      if log.hasStarted(id) { throw failure("#\(id) started, the model says never") }
      outcome.neverStarted += 1
    }
    if let violation = log.violations.first { throw failure(violation) }
    bagIndex += 1
    model = ReferenceModel()
    observeBag()
  }

  /// Releases the operation of launch `id`, waits for its task, and checks the reason it read.
  private mutating func letReturn(_ id: Int) throws {
    log.release(id)
    guard case .launch(let task?) = items[id].kind else { throw failure("#\(id) is no task") }
    let reason = try result(of: task).get()
    let expected = items[id].reasonWithheld ? nil : items[id].cancelled
    if reason != expected {
      throw failure(
        "#\(id) read the reason \(String(describing: reason)), expected "
          + String(describing: expected))
    }
    _ = model.returned(id)
  }

  // MARK: Checks

  /// Records what the step cancelled, waits for the launches it let through, and compares the
  /// bag with the model.
  private mutating func settle(
    _ cancellations: [ReferenceModel.Cancellation], checkingBag: Bool = true
  ) throws {
    for (id, reason) in cancellations where items[id].cancelled == nil {
      items[id].cancelled = reason
    }
    for id in model.takeStarts() {
      if !log.waitUntilStarted(id) { throw failure("#\(id) never started") }
    }
    let unexpected = log.started.filter { items[$0].bag == bagIndex && !model.started.contains($0) }
    if !unexpected.isEmpty { throw failure("started, the model says not: \(unexpected)") }
    if let violation = log.violations.first { throw failure(violation) }
    guard checkingBag else { return }
    if bag.count != model.itemCount {
      throw failure("count \(bag.count), model \(model.itemCount)")
    }
    for key in 0..<3 where bag.isRunning(key: key) != model.isRunning(AnyHashable(key)) {
      throw failure("isRunning(key: \(key)) is \(bag.isRunning(key: key)), the model says not")
    }
  }

  /// After the run: every registration ended exactly once, and launches that waited started in
  /// launch order under their key.
  private func checkEveryItem() throws {
    let events = events.current
    for (id, item) in items.enumerated() {
      let kinds = events["#\(id)"] ?? []
      let registrations = kinds.filter { $0 == .registered }.count
      if registrations > 1 || kinds.count != 2 * registrations {
        throw failure("#\(id) events \(kinds)")
      }
      if case .work(_, let work) = item.kind, work.reasons.count > 1 {
        throw failure("#\(id) cancelled \(work.reasons)")
      }
    }
    var lastStarted: [String: Int] = [:]
    for id in log.started where items[id].queuedAtLaunch {
      let slot = "bag \(items[id].bag), key \(items[id].key)"
      if let last = lastStarted[slot], last > id {
        throw failure("#\(id) started after #\(last), launched later, under \(slot)")
      }
      lastStarted[slot] = id
    }
  }

  private func failure(_ message: String) -> ReliabilityFailure {
    ReliabilityFailure(
      description:
        "launch run, \(TestSeed.describe(seed)), step \(step) of \(operations), "
        + "\(operation): \(message)")
  }
}

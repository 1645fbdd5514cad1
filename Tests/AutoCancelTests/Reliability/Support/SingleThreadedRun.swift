import AutoCancel

/// A divergence between the real bag and what the contract allows, with what it takes to
/// replay it.
struct ReliabilityFailure: Error, CustomStringConvertible {
  var description: String

  init(description: String) { self.description = description }

  /// Any error, as a failure (the runs throw nothing else).
  init(_ error: any Error) {
    description = (error as? ReliabilityFailure)?.description ?? "\(error)"
  }
}

/// An owner as an app writes one: the bag is a stored `let`.
final class ModelOwner: AutoCancelOwner, Sendable {
  let cancelBag = CancelBag(label: "model owner")
}

/// One seeded single-threaded run: random operations on a bag and on the reference model,
/// with the two compared after every operation.
///
/// When a bag ends (explicitly, or by dropping its owner), the run goes on with a new bag,
/// keeping the old registrations to check that they stay inert.
struct SingleThreadedRun {
  struct Item {
    var registration: CancelRegistration
    var work: AddedWork
    var kind: WorkKind
    var label: String?
    var key: AnyHashable?
    var fate: Fate
  }

  enum Fate: Equatable {
    case live, finished, cancelled(CancellationReason)
  }

  let seed: UInt64
  let operations: Int

  private var random: SeededGenerator
  private var log = CancelLog()
  private var model = ReferenceModel()
  private var owner: ModelOwner? = ModelOwner()
  private var items: [Item] = []
  /// Items of the current bag, and of the bags before it.
  private var current: [Int] = []
  private var previous: [Int] = []
  private var recentlyEnded: [Int] = []
  private var step = 0
  private var operation = Operation.none
  private(set) var bags = 1
  private(set) var cancellations = 0

  /// The operation being checked, described only when a check fails.
  enum Operation: CustomStringConvertible {
    case none, add(Int, WorkKind, AnyHashable?), finish(Int), cancel(Int, CancellationReason)
    case cancelAll(CancellationReason), stale(Int), snapshot, end(CancellationReason)
    case drop, dropEnded, dropLast, readAll

    var description: String {
      switch self {
      case .none: "start"
      case .add(let id, let kind, let key):
        "add #\(id) (\(kind), key \(key.map { "\($0)" } ?? "none"))"
      case .finish(let id): "finish #\(id)"
      case .cancel(let id, let reason): "cancel #\(id) (\(reason))"
      case .cancelAll(let reason): "cancelAll(reason: \(reason))"
      case .stale(let id): "finish or cancel #\(id) of an earlier bag"
      case .snapshot: "snapshot"
      case .end(let reason): "end(reason: \(reason))"
      case .drop: "drop the owner"
      case .dropEnded: "drop an ended bag"
      case .dropLast: "drop the last bag"
      case .readAll: "read isActive of every registration of this bag"
      }
    }
  }

  init(seed: UInt64, operations: Int) {
    self.seed = seed
    self.operations = operations
    random = SeededGenerator(seed: seed)
  }

  private var bag: CancelBag? { owner?.cancelBag }

  /// Runs every operation; throws at the first divergence.
  mutating func run() throws {
    while step < operations {
      try perform()
    }
    operation = .dropLast
    try dropOwner()
    try checkAllItems()
  }

  private mutating func perform() throws {
    if model.endReason != nil && owner != nil && random.chance(15) {
      // An ended bag that is still owned: let its owner go, then start over.
      operation = .dropEnded
      try dropOwner()
      return
    }
    if owner == nil {
      owner = ModelOwner()
      model = ReferenceModel()
      previous += current
      current = []
      bags += 1
    }
    let roll = random.below(1000)
    switch roll {
    case 0..<420:
      try addOne()
      step += 1
    case 420..<425:
      let burst = random.within(65...150)
      for _ in 0..<burst where step < operations {
        try addOne()
        step += 1
      }
    case 425..<655:
      step += 1
      guard let id = pickItem() else { return }
      operation = .finish(id)
      items[id].registration.finish()
      if model.finish(id) {
        items[id].fate = .finished
        recentlyEnded.append(id)
      }
      try check(expecting: [])
    case 655..<805:
      step += 1
      guard let id = pickItem() else { return }
      let reason: CancellationReason = random.chance(50) ? .explicit : .custom("one")
      operation = .cancel(id, reason)
      if reason == .explicit {
        items[id].registration.cancel()
      } else {
        items[id].registration.cancel(reason: reason)
      }
      try check(expecting: model.cancel(id, reason: reason))
    case 805..<830:
      step += 1
      guard let bag else { return }
      if random.chance(50) {
        operation = .cancelAll(.explicit)
        bag.cancelAll()
        try check(expecting: model.cancelAll(reason: .explicit))
      } else {
        operation = .cancelAll(.custom("all"))
        bag.cancelAll(reason: .custom("all"))
        try check(expecting: model.cancelAll(reason: .custom("all")))
      }
    case 830..<870:
      step += 1
      guard !previous.isEmpty else { return }
      let id = previous[random.below(previous.count)]
      operation = .stale(id)
      if random.chance(50) {
        items[id].registration.finish()
      } else {
        items[id].registration.cancel()
      }
      try check(expecting: [])
    case 870..<900:
      step += 1
      operation = .snapshot
      try checkSnapshot()
    case 900..<910:
      step += 1
      guard let bag else { return }
      let reason: CancellationReason =
        [.explicit, .timedOut, .custom("end")][random.below(3)]
      operation = .end(reason)
      if reason == .explicit { bag.end() } else { bag.end(reason: reason) }
      try check(expecting: model.end(reason: reason))
    case 910..<918:
      step += 1
      operation = .drop
      try dropOwner()
    default:
      step += 1
      operation = .readAll
      for id in current {
        let isActive = items[id].registration.isActive
        if isActive != (items[id].fate == .live) {
          throw failure("#\(id) isActive \(isActive), model fate \(items[id].fate)")
        }
      }
    }
  }

  private mutating func addOne() throws {
    guard let owner else { return }
    let id = items.count
    let kind = WorkKind.allCases[random.below(WorkKind.allCases.count)]
    var key: AnyHashable?
    var sendableKey: (any Hashable & Sendable)?
    if random.chance(35) {
      if random.chance(70) {
        let value = random.below(5)
        (key, sendableKey) = (value, value)
      } else {
        let value = "s\(random.below(3))"
        (key, sendableKey) = (value, value)
      }
    }
    let label = random.chance(25) ? "i\(id)" : nil
    operation = .add(id, kind, key)
    let record = ItemRecord(id: id, log: log)
    let registration: CancelRegistration
    let work: AddedWork
    if random.chance(20) && kind == .reasonedClass {
      registration = owner.autoCancel(RecordedWork(record), key: sendableKey, label: label)
      work = AddedWork(record: record)
    } else if random.chance(20) && kind == .value {
      registration = owner.autoCancel(
        RecordedValueWork(record: record), key: sendableKey, label: label)
      work = AddedWork(record: record)
    } else {
      (registration, work) = owner.cancelBag.add(
        kind, record: record, key: sendableKey, label: label)
    }
    items.append(
      Item(registration: registration, work: work, kind: kind, label: label, key: key, fate: .live))
    current.append(id)
    let expected = model.add(id, key: key)
    if model.isRejected(expected, id) {
      items[id].fate = .cancelled(expected[0].reason)
      if registration.isActive { throw failure("added to an ended bag, yet active") }
    }
    try check(expecting: expected)
  }

  /// A registration of the current bag: a live one mostly, any one sometimes.
  private mutating func pickItem() -> Int? {
    if !model.live.isEmpty && random.chance(75) {
      return model.live[random.below(model.live.count)]
    }
    guard !current.isEmpty else { return nil }
    return current[random.below(current.count)]
  }

  private mutating func dropOwner() throws {
    weak let droppedBag = owner?.cancelBag
    let expected = owner == nil ? [] : model.end(reason: .ownerGone)
    owner = nil
    if droppedBag != nil { throw failure("the bag outlived its owner") }
    try check(expecting: expected)
    for id in current where items[id].fate == .live {
      throw failure("#\(id) still live after its bag was dropped")
    }
    for id in current {
      let item = items[id]
      if item.registration.isActive { throw failure("#\(id) active after its bag ended") }
      if item.work.wasCancelled != (item.fate != .finished) {
        throw failure("#\(id) fate \(item.fate), cancelled: \(item.work.wasCancelled)")
      }
    }
  }

  /// Compares the bag with the model after an operation that must cause `expected`.
  private mutating func check(expecting expected: [ReferenceModel.Cancellation]) throws {
    for (id, reason) in expected {
      if items[id].fate != .live && items[id].fate != .cancelled(reason) {
        throw failure("model cancels #\(id) twice")
      }
      items[id].fate = .cancelled(reason)
      recentlyEnded.append(id)
    }
    let observed = log.drain()
    let recordable = expected.filter { items[$0.id].kind != .dispatchWorkItem }
    cancellations += expected.count
    var matches = observed.count == recordable.count
    var index = 0
    while matches && index < observed.count {
      let (seen, wanted) = (observed[index], recordable[index])
      matches =
        seen.id == wanted.id
        && (items[seen.id].kind.receivesReason ? seen.reason == wanted.reason : seen.reason == nil)
      index += 1
    }
    if !matches {
      throw failure(
        "cancelled \(observed.map { "#\($0.id) \($0.reason.map { "\($0)" } ?? "-")" }), "
          + "model: \(recordable.map { "#\($0.id) \($0.reason)" })")
    }
    for (id, _) in expected where items[id].kind == .dispatchWorkItem {
      if items[id].work.dispatchItem?.isCancelled != true {
        throw failure("DispatchWorkItem #\(id) not cancelled")
      }
    }
    if let bag {
      if bag.count != model.live.count {
        throw failure("count \(bag.count), model \(model.live.count)")
      }
      // The end state changes only with end and drop; reading it is cheap to skip otherwise.
      if case .end = operation, bag.endReason != model.endReason || !bag.isEnded {
        throw failure(
          "endReason \(String(describing: bag.endReason)), model \(String(describing: model.endReason))"
        )
      }
      if case .add = operation, (bag.endReason != nil) != (model.endReason != nil) {
        throw failure("isEnded \(bag.isEnded), model \(model.endReason != nil)")
      }
    }
    // Every registration the operation touched, the latest one added and two at random; the
    // "read isActive" operation reads them all.
    if let last = current.last { try checkActive(last) }
    if !model.live.isEmpty { try checkActive(model.live[random.below(model.live.count)]) }
    if recentlyEnded.count > 2 { recentlyEnded.removeFirst(recentlyEnded.count - 2) }
    for id in recentlyEnded { try checkActive(id) }
    recentlyEnded.removeAll(keepingCapacity: true)
  }

  private func checkActive(_ id: Int) throws {
    if items[id].registration.isActive != (items[id].fate == .live) {
      throw failure("#\(id) isActive \(!(items[id].fate == .live)), model: \(items[id].fate)")
    }
  }

  private func checkSnapshot() throws {
    guard let bag else { return }
    let snapshot = bag.snapshot()
    let labels = snapshot.map(\.label)
    let modelLabels = model.live.map { items[$0].label }
    if labels != modelLabels {
      throw failure("snapshot labels \(labels), model \(modelLabels)")
    }
    let keys = snapshot.map { $0.key.map { AnyHashable($0) } }
    let modelKeys = model.live.map { items[$0].key }
    if keys != modelKeys { throw failure("snapshot keys \(keys), model \(modelKeys)") }
    if zip(snapshot, snapshot.dropFirst()).contains(where: { $0.id >= $1.id }) {
      throw failure("snapshot not oldest first: \(snapshot.map(\.id))")
    }
  }

  /// After the run: every item ended exactly once, as the model says, and nothing changed
  /// since.
  private func checkAllItems() throws {
    for (id, item) in items.enumerated() {
      if item.fate == .live { throw failure("#\(id) still live at the end") }
      if item.registration.isActive { throw failure("#\(id) active at the end") }
      let cancels = item.work.record.cancelCount
      let wanted = item.fate == .finished || item.kind == .dispatchWorkItem ? 0 : 1
      if cancels != wanted {
        throw failure("#\(id) (\(item.fate)) cancelled \(cancels) times")
      }
      if item.kind == .dispatchWorkItem && item.work.wasCancelled != (item.fate != .finished) {
        throw failure("DispatchWorkItem #\(id) (\(item.fate)) cancelled: \(item.work.wasCancelled)")
      }
    }
  }

  private func failure(_ message: String) -> ReliabilityFailure {
    ReliabilityFailure(
      description:
        "single-threaded run, seed \(seed) (replay: AUTOCANCEL_SEED=\(seed)), "
        + "operation \(step) of \(operations), \(operation): \(message)")
  }
}

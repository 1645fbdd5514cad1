import AutoCancelTestSupport
import AutoCancel
import AutoCancelDiagnostics
import SeededRandom

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

/// One seeded single-threaded run: random operations on a family of bags and on their
/// reference models, with the two compared after every operation.
///
/// The family: a main bag (held by an owner), and, made by random operations, a child of it
/// (`CancelBag(parent:)`), an independent bag (held by another owner), and a bag linked to
/// both (`CancelBag(linkedTo:)`). When the main bag ends (explicitly, or by dropping its
/// owner), the family goes and the run goes on with a new one, keeping the old registrations
/// to check that they stay inert.
struct SingleThreadedRun {
  /// The bags of a family.
  enum Member: Int, CaseIterable, CustomStringConvertible {
    case main, child, other, linked

    var description: String {
      switch self {
      case .main: "main bag"
      case .child: "child bag"
      case .other: "other bag"
      case .linked: "linked bag"
      }
    }
  }

  /// The ids of links in the models' lists.
  static let childLink = -1
  static let linkedLink = -2

  struct Item {
    var registration: CancelRegistration
    var work: AddedWork
    var kind: WorkKind
    var member: Member
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
  private var models = Array(repeating: ReferenceModel(), count: Member.allCases.count)
  private var owner: ModelOwner? = ModelOwner()
  private var otherOwner: ModelOwner? = ModelOwner()
  private var child: CancelBag?
  private var linked: CancelBag?
  private var madeChild = false
  private var madeLinked = false
  private var items: [Item] = []
  /// Items of the current family, and of the families before it.
  private var current: [Int] = []
  private var previous: [Int] = []
  private var recentlyEnded: [Int] = []
  private var step = 0
  private var operation = Operation.none
  private(set) var bags = 2
  private(set) var cancellations = 0

  /// The operation being checked, described only when a check fails.
  enum Operation: CustomStringConvertible {
    case none, add(Int, WorkKind, AnyHashable?, AddPolicy?, Member), finish(Int)
    case cancelKey(AnyHashable, Member, CancellationReason)
    case cancel(Int, CancellationReason), cancelAll(Member, CancellationReason), stale(Int)
    case snapshot(Member), end(Member, CancellationReason), drop(Member), make(Member)
    case newFamily, readAll

    var description: String {
      switch self {
      case .none: "start"
      case .add(let id, let kind, let key, let policy, let member):
        "add #\(id) (\(kind), key \(key.map { "\($0)" } ?? "none"), "
          + "\(policy.map { "\($0)" } ?? "no policy")) to the \(member)"
      case .cancelKey(let key, let member, let reason):
        "\(member).cancel(key: \(key), reason: \(reason))"
      case .finish(let id): "finish #\(id)"
      case .cancel(let id, let reason): "cancel #\(id) (\(reason))"
      case .cancelAll(let member, let reason): "\(member).cancelAll(reason: \(reason))"
      case .stale(let id): "finish or cancel #\(id) of an earlier family"
      case .snapshot(let member): "snapshot of the \(member)"
      case .end(let member, let reason): "\(member).end(reason: \(reason))"
      case .drop(let member): "drop the \(member)"
      case .make(let member): "make the \(member)"
      case .newFamily: "drop the family"
      case .readAll: "read isActive of every registration of this family"
      }
    }
  }

  init(seed: UInt64, operations: Int) {
    self.seed = seed
    self.operations = operations
    random = SeededGenerator(seed: seed)
  }

  private func front(_ member: Member) -> CancelBag? {
    switch member {
    case .main: owner?.cancelBag
    case .child: child
    case .other: otherOwner?.cancelBag
    case .linked: linked
    }
  }

  /// Runs every operation; throws at the first divergence.
  mutating func run() throws {
    while step < operations {
      try perform()
    }
    operation = .newFamily
    try dropFamily()
    try checkAllItems()
  }

  private mutating func perform() throws {
    if owner == nil || (models[Member.main.rawValue].endReason != nil && random.chance(15)) {
      // The main bag is gone, or has ended: let the family go, and start a new one.
      operation = .newFamily
      try dropFamily()
      owner = ModelOwner()
      otherOwner = ModelOwner()
      (child, linked, madeChild, madeLinked) = (nil, nil, false, false)
      models = Array(repeating: ReferenceModel(), count: Member.allCases.count)
      previous += current
      current = []
      bags += 2
    }
    let roll = random.below(1000)
    switch roll {
    case 0..<420:
      try addOne()
      step += 1
    case 420..<425:
      let burst = random.within(65...150)
      let member = pickMember()
      for _ in 0..<burst where step < operations {
        try addOne(to: member)
        step += 1
      }
    case 425..<655:
      step += 1
      guard let id = pickItem() else { return }
      operation = .finish(id)
      items[id].registration.finish()
      if models[items[id].member.rawValue].finish(id) {
        items[id].fate = .finished
        recentlyEnded.append(id)
      }
      try check(expecting: [], members: [items[id].member])
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
      let expected = models[items[id].member.rawValue].cancel(id, reason: reason)
      try check(expecting: expected, members: [items[id].member])
    case 805..<830:
      step += 1
      let member = pickMember()
      guard let bag = front(member) else { return }
      let reason: CancellationReason = random.chance(50) ? .explicit : .custom("all")
      operation = .cancelAll(member, reason)
      if reason == .explicit { bag.cancelAll() } else { bag.cancelAll(reason: reason) }
      try check(expecting: expectCancelAll(member, reason), members: Member.allCases)
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
      try check(expecting: [], members: [])
    case 870..<890:
      step += 1
      let member = pickMember()
      operation = .snapshot(member)
      try checkSnapshot(member)
    case 890..<905:
      step += 1
      let member = pickMember()
      guard let bag = front(member) else { return }
      let reason: CancellationReason =
        [.explicit, .timedOut, .custom("end")][random.below(3)]
      operation = .end(member, reason)
      if reason == .explicit { bag.end() } else { bag.end(reason: reason) }
      try check(expecting: expectEnd(member, reason), members: Member.allCases)
      if bag.endReason != models[member.rawValue].endReason || !bag.hasEnded {
        throw failure("endReason \(String(describing: bag.endReason))")
      }
    case 905..<915:
      step += 1
      let member = pickMember()
      guard front(member) != nil else { return }
      try drop(member)
    case 915..<925:
      step += 1
      try make(random.chance(50) ? .child : .linked)
    case 925..<945:
      step += 1
      let member = pickMember()
      guard let bag = front(member) else { return }
      let (key, sendableKey) = pickKey()
      let reason: CancellationReason = random.chance(50) ? .explicit : .custom("key")
      operation = .cancelKey(key, member, reason)
      if reason == .explicit {
        bag.cancel(key: sendableKey)
      } else {
        bag.cancel(key: sendableKey, reason: reason)
      }
      try check(
        expecting: models[member.rawValue].cancel(key: key, reason: reason), members: [member])
    default:
      step += 1
      operation = .readAll
      for member in Member.allCases {
        guard let bag = front(member) else { continue }
        for (key, sendableKey) in Self.keySpace
        where bag.isRunning(key: sendableKey) != models[member.rawValue].isRunning(key) {
          let model = models[member.rawValue].isRunning(key)
          throw failure("\(member) isRunning(key: \(key)) is \(!model), model: \(model)")
        }
      }
      for id in current {
        let isActive = items[id].registration.isActive
        if isActive != (items[id].fate == .live) {
          throw failure("#\(id) isActive \(isActive), model fate \(items[id].fate)")
        }
      }
    }
  }

  // MARK: Operations

  private mutating func addOne(to chosen: Member? = nil) throws {
    let member = chosen ?? pickMember()
    guard let bag = front(member) else { return }
    let id = items.count
    let kind = WorkKind.allCases[random.below(WorkKind.allCases.count)]
    var key: AnyHashable?
    var sendableKey: (any Hashable & Sendable)?
    if random.chance(35) { (key, sendableKey) = pickKey() }
    // Keyed work of the kinds that take one gets a policy a third of the time: the model
    // decides what it replaces, joins or is refused by.
    var policy: AddPolicy?
    if key != nil && kind.takesPolicy && random.chance(35) {
      policy = [AddPolicy.replace, .runConcurrently, .ignoreNew][random.below(3)]
    }
    let label = random.chance(25) ? "i\(id)" : nil
    operation = .add(id, kind, key, policy, member)
    let record = ItemRecord(id: id, log: log)
    let registration: CancelRegistration
    let work: AddedWork
    if policy != nil {
      (registration, work) = bag.add(
        kind, record: record, key: sendableKey, label: label, policy: policy)
    } else if member == .main && kind == .reasonedClass && random.chance(20), let owner {
      registration = owner.autoCancel(RecordedWork(record), key: sendableKey, label: label)
      work = AddedWork(record: record)
    } else if member == .main && kind == .value && random.chance(20), let owner {
      registration = owner.autoCancel(
        RecordedValueWork(record: record), key: sendableKey, label: label)
      work = AddedWork(record: record)
    } else {
      (registration, work) = bag.add(kind, record: record, key: sendableKey, label: label)
    }
    items.append(
      Item(
        registration: registration, work: work, kind: kind, member: member, label: label,
        key: key, fate: .live))
    current.append(id)
    let expected = models[member.rawValue].add(id, key: key, policy: policy ?? .replace)
    if models[member.rawValue].isRejected(expected, id) {
      let reason = expected.first { $0.id == id }!.reason
      items[id].fate = .cancelled(reason)
      if registration.isActive { throw failure("refused, yet active") }
      if !bag.hasEnded && reason != .duplicate {
        throw failure("rejected by a bag that has not ended")
      }
    }
    try check(expecting: expected, members: [member])
  }

  /// Makes the child bag or the linked bag of this family, once.
  private mutating func make(_ member: Member) throws {
    guard let main = owner?.cancelBag else { return }
    operation = .make(member)
    if member == .child {
      guard !madeChild else { return }
      madeChild = true
      child = CancelBag(parent: main, label: "child")
      if !models[Member.main.rawValue].addLink(Self.childLink) {
        _ = models[Member.child.rawValue].end(reason: .parentEnded)
      }
    } else {
      guard !madeLinked, let other = otherOwner?.cancelBag else { return }
      madeLinked = true
      linked = CancelBag(linkedTo: [main, other], label: "linked")
      // Linked to the main bag first, then to the other: a source that has ended ends it.
      if !models[Member.main.rawValue].addLink(Self.linkedLink)
        || !models[Member.other.rawValue].addLink(Self.linkedLink)
      {
        _ = expectEnd(.linked, .linkEnded)
      }
    }
    bags += 1
    try check(expecting: [], members: Member.allCases)
    let ended = front(member)!.endReason
    if ended != models[member.rawValue].endReason {
      throw failure("made \(member) ended: \(String(describing: ended))")
    }
  }

  /// Releases the last reference to a bag: its deinit ends it with `.ownerGone`.
  private mutating func drop(_ member: Member) throws {
    operation = .drop(member)
    weak var dropped: CancelBag?
    dropped = front(member)
    switch member {
    case .main: owner = nil
    case .child: child = nil
    case .other: otherOwner = nil
    case .linked: linked = nil
    }
    if dropped != nil { throw failure("the \(member) outlived its only reference") }
    try check(expecting: expectEnd(member, .ownerGone), members: Member.allCases)
  }

  /// Drops every bag of the family still held, then checks that all its items ended.
  private mutating func dropFamily() throws {
    for member in [Member.child, .linked, .other, .main] where front(member) != nil {
      try drop(member)
    }
    operation = .newFamily
    for id in current {
      let item = items[id]
      if item.fate == .live { throw failure("#\(id) still live after its family was dropped") }
      if item.registration.isActive { throw failure("#\(id) active after its bag ended") }
      if item.work.wasCancelled != (item.fate != .finished) {
        throw failure("#\(id) fate \(item.fate), cancelled: \(item.work.wasCancelled)")
      }
    }
  }

  // MARK: The models of a family

  /// What `member.cancelAll(reason)` cancels: its items, then its child's, oldest first.
  private mutating func expectCancelAll(
    _ member: Member, _ reason: CancellationReason
  ) -> [ReferenceModel.Cancellation] {
    var (expected, links) = models[member.rawValue].cancelAll(reason: reason)
    if member == .main && links.contains(Self.childLink) {
      expected += expectCancelAll(.child, reason)
    }
    return expected
  }

  /// What ending `member` cancels: it leaves its sources first, then cancels what it holds,
  /// oldest first, ending the bags it links to in their place.
  private mutating func expectEnd(
    _ member: Member, _ reason: CancellationReason
  ) -> [ReferenceModel.Cancellation] {
    guard let entries = models[member.rawValue].end(reason: reason) else { return [] }
    switch member {
    case .child: models[Member.main.rawValue].removeLink(Self.childLink)
    case .linked:
      models[Member.main.rawValue].removeLink(Self.linkedLink)
      models[Member.other.rawValue].removeLink(Self.linkedLink)
    case .main, .other: break
    }
    var expected: [ReferenceModel.Cancellation] = []
    for entry in entries {
      switch entry {
      case Self.childLink: expected += expectEnd(.child, .parentEnded)
      case Self.linkedLink: expected += expectEnd(.linked, .linkEnded)
      default: expected.append((entry, reason))
      }
    }
    return expected
  }

  // MARK: Picking

  /// Every key the run uses: five numbers and three strings.
  static var keySpace: [(AnyHashable, any Hashable & Sendable)] {
    (0..<5).map { (AnyHashable($0), $0) } + (0..<3).map { (AnyHashable("s\($0)"), "s\($0)") }
  }

  /// A key of the run: a number mostly, a string sometimes.
  private mutating func pickKey() -> (AnyHashable, any Hashable & Sendable) {
    random.chance(70) ? Self.keySpace[random.below(5)] : Self.keySpace[5 + random.below(3)]
  }

  /// A bag of the family that is still held: the main bag mostly.
  private mutating func pickMember() -> Member {
    let roll = random.below(100)
    let member: Member =
      roll < 55 ? .main : roll < 70 ? .child : roll < 85 ? .linked : .other
    return front(member) != nil ? member : .main
  }

  /// A registration of the current family: a live one mostly, any one sometimes.
  private mutating func pickItem() -> Int? {
    let model = models[Member.main.rawValue]
    if model.itemCount > 0 && random.chance(60) {
      let items = model.items
      return items[random.below(items.count)]
    }
    guard !current.isEmpty else { return nil }
    return current[random.below(current.count)]
  }

  // MARK: Checks

  /// Compares the bags with the models after an operation that must cause `expected`.
  private mutating func check(
    expecting expected: [ReferenceModel.Cancellation], members: [Member]
  ) throws {
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
    for member in members {
      guard let bag = front(member) else { continue }
      let model = models[member.rawValue]
      if bag.count != model.itemCount {
        throw failure("\(member) count \(bag.count), model \(model.itemCount)")
      }
    }
    if let last = current.last { try checkActive(last) }
    if recentlyEnded.count > 2 { recentlyEnded.removeFirst(recentlyEnded.count - 2) }
    for id in recentlyEnded { try checkActive(id) }
    recentlyEnded.removeAll(keepingCapacity: true)
  }

  private func checkActive(_ id: Int) throws {
    if items[id].registration.isActive != (items[id].fate == .live) {
      throw failure("#\(id) isActive \(!(items[id].fate == .live)), model: \(items[id].fate)")
    }
  }

  private func checkSnapshot(_ member: Member) throws {
    guard let bag = front(member) else { return }
    let model = models[member.rawValue]
    let snapshot = bag.snapshot()
    let labels = snapshot.map(\.label)
    let modelLabels = model.items.map { items[$0].label }
    if labels != modelLabels {
      throw failure("snapshot labels \(labels), model \(modelLabels)")
    }
    let keys = snapshot.map { $0.key.map { AnyHashable($0) } }
    let modelKeys = model.items.map { items[$0].key }
    if keys != modelKeys { throw failure("snapshot keys \(keys), model \(modelKeys)") }
    for (earlier, later) in zip(snapshot, snapshot.dropFirst()) where earlier.id >= later.id {
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
        throw failure(
          "DispatchWorkItem #\(id) (\(item.fate)) cancelled: \(item.work.wasCancelled)")
      }
    }
  }

  private func failure(_ message: String) -> ReliabilityFailure {
    ReliabilityFailure(
      description:
        "single-threaded run, \(TestSeed.describe(seed)), "
        + "operation \(step) of \(operations), \(operation): \(message)")
  }
}

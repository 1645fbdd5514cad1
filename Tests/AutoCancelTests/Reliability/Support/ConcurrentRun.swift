import AutoCancelTestSupport
@testable import AutoCancel
import AutoCancelDiagnostics
import Dispatch
import SeededRandom

/// One seeded multi-threaded run: several threads, each with its own seeded stream of random
/// operations, on one bag; then the final invariant is checked against what the operations
/// allow.
///
/// The interleaving is up to the machine, so the check is not a state-by-state comparison but
/// the contract's: every item ends exactly once (one terminal event, and the work cancelled
/// exactly when that event says so), with a reason that some operation of the run justifies,
/// and the bag's count matches the items still in flight at quiescence.
struct ConcurrentRun {
  let seed: UInt64
  let threads: Int
  let operationsPerThread: Int

  /// What the final check found, for the report.
  struct Outcome {
    var items = 0
    var finished = 0
    var cancelled = 0
    var rejected = 0
  }

  /// One item as its thread saw it.
  struct ThreadItem: Sendable {
    var record: ItemRecord
    var kind: WorkKind
    var registration: CancelRegistration
    var sequence: UInt64
    var key: Int?
    /// The policy of a keyed add; nil for `add(_:key:label:)`, which replaces.
    var policy: AddPolicy?
    var addStart: UInt64
    var addEnd: UInt64
    var finishCalled = false
    var cancelReasons: [CancellationReason] = []
  }

  /// A call that cancels many items, and when it ran.
  struct Sweep: Sendable {
    var reason: CancellationReason
    var start: UInt64
    var end: UInt64
  }

  struct ThreadLog: Sendable {
    var items: [ThreadItem] = []
    var sweeps: [Sweep] = []
    var ends: [Sweep] = []
    /// `cancel(key:)` calls, with their key.
    var keySweeps: [(key: Int, sweep: Sweep)] = []
  }

  /// Runs on the calling thread, which it blocks while the run's threads work: call it from a
  /// thread of its own (`onNewThread`), never from the cooperative pool.
  func run() throws -> Outcome {
    var random = SeededGenerator(seed: seed)
    let endsMidway = random.chance(30)
    let endingThread = random.below(threads)
    let endingStep = random.below(operationsPerThread)
    let dropsAtTheEnd = random.chance(50)
    let keySpace = random.within(1...8)

    let events = EventLog()
    let holder = Protected<CancelBag?>(CancelBag(label: "concurrent"))
    weak var weakBag: CancelBag?
    weakBag = holder.current
    holder.current!.observe { events.record($0) }
    let logs = Protected<[ThreadLog]>(Array(repeating: ThreadLog(), count: threads))

    let seed = seed
    let operationsPerThread = operationsPerThread
    onThreadsBlocking(threads) { index in
      let bag = holder.current!
      var random = SeededGenerator(seed: SeededGenerator.derive(seed, index + 1))
      var log = ThreadLog()
      for step in 0..<operationsPerThread {
        if endsMidway && index == endingThread && step == endingStep {
          let start = now()
          bag.end(reason: .custom("end midway"))
          log.ends.append(Sweep(reason: .custom("end midway"), start: start, end: now()))
          continue
        }
        let roll = random.below(1000)
        switch roll {
        case 0..<450:
          let kinds: [WorkKind] = [.reasonedClass, .plainClass, .value, .closure]
          let kind = kinds[random.below(kinds.count)]
          let key = random.chance(30) ? random.below(keySpace) : nil
          var policy: AddPolicy?
          if key != nil && kind.takesPolicy && random.chance(40) {
            policy = [AddPolicy.replace, .runConcurrently, .ignoreNew][random.below(3)]
          }
          let label = random.chance(20) ? "t\(index)" : nil
          let record = ItemRecord(id: log.items.count)
          let start = now()
          let (registration, _) = bag.add(
            kind, record: record, key: key, label: label, policy: policy)
          let end = now()
          log.items.append(
            ThreadItem(
              record: record, kind: kind, registration: registration,
              sequence: registration.ticket.sequence, key: key, policy: policy, addStart: start,
              addEnd: end))
        case 450..<700:
          guard let item = recent(log.items.count, &random) else { continue }
          log.items[item].finishCalled = true
          log.items[item].registration.finish()
        case 700..<850:
          guard let item = recent(log.items.count, &random) else { continue }
          if random.chance(50) {
            log.items[item].cancelReasons.append(.explicit)
            log.items[item].registration.cancel()
          } else {
            log.items[item].cancelReasons.append(.custom("one"))
            log.items[item].registration.cancel(reason: .custom("one"))
          }
        case 850..<870:
          let reason: CancellationReason =
            random.chance(50) ? .explicit : .custom("all \(index).\(step)")
          let start = now()
          if reason == .explicit { bag.cancelAll() } else { bag.cancelAll(reason: reason) }
          log.sweeps.append(Sweep(reason: reason, start: start, end: now()))
        case 870..<875:
          _ = bag.snapshot()
        case 875..<880:
          let key = random.below(keySpace)
          let start = now()
          bag.cancel(key: key, reason: .custom("key \(key)"))
          let sweep = Sweep(reason: .custom("key \(key)"), start: start, end: now())
          log.keySweeps.append((key, sweep))
        default:
          if let item = recent(log.items.count, &random) {
            _ = log.items[item].registration.isActive
          }
          _ = bag.count
          _ = bag.hasEnded
        }
      }
      logs.withLock { $0[index] = log }
    }

    // Quiescence: every thread has returned.
    let threadLogs = logs.current
    let all = threadLogs.flatMap(\.items)
    let sweeps = threadLogs.flatMap(\.sweeps)
    let midwayEnds = threadLogs.flatMap(\.ends)
    let keySweeps = threadLogs.flatMap(\.keySweeps)
    var inFlight = Set<UInt64>()
    for item in all where item.sequence != 0 {
      let ended = events.terminals(item.sequence).count > 0
      if item.registration.isActive == ended {
        throw failure(
          "item \(item.sequence) isActive \(!ended), yet \(events.terminals(item.sequence))")
      }
      if !ended { inFlight.insert(item.sequence) }
    }
    let count = holder.current!.count
    if count != inFlight.count {
      throw failure("count \(count) at quiescence, items in flight \(inFlight.count)")
    }

    // The end: explicit, or by dropping the bag's only reference.
    let finalReason: CancellationReason
    if dropsAtTheEnd {
      finalReason = .ownerGone
      holder.withLock { $0 = nil }
      if weakBag != nil { throw failure("the bag outlived its only reference") }
    } else {
      finalReason = .custom("end")
      holder.current!.end(reason: finalReason)
      if holder.current!.count != 0 { throw failure("count \(holder.current!.count) after end") }
    }

    // Every item ended exactly once, for a reason the run allows.
    var outcome = Outcome(items: all.count)
    // The adds that replace what runs under their key.
    var keyedAdds: [Int: [(sequence: UInt64, end: UInt64)]] = [:]
    for item in all where item.policy == nil || item.policy == .replace {
      if let key = item.key { keyedAdds[key, default: []].append((item.sequence, item.addEnd)) }
    }
    for item in all {
      let reasons = item.record.reasons
      if item.sequence == 0 && item.policy == .ignoreNew && reasons.count == 1
        && (!item.kind.receivesReason || reasons[0] == .duplicate)
        && (reasons[0] == .duplicate || midwayEnds.first.map { $0.start > item.addEnd } ?? true)
      {
        // Refused: its key ran. Cancelled before `add` returned, as a duplicate.
        outcome.rejected += 1
        continue
      }
      if item.sequence == 0 {
        // Added to the ended bag: cancelled before `add` returned, with the end's reason.
        outcome.rejected += 1
        guard let end = midwayEnds.first, end.start <= item.addEnd else {
          throw failure("an add was rejected, yet the bag had not ended")
        }
        if reasons.count != 1 || (item.kind.receivesReason && reasons[0] != end.reason) {
          throw failure("rejected item cancelled \(reasons)")
        }
        continue
      }
      let terminals = events.terminals(item.sequence)
      if events.registrations(item.sequence) != 1 || terminals.count != 1 {
        throw failure(
          "item \(item.sequence): \(events.registrations(item.sequence)) registered events, "
            + "terminal events \(terminals)")
      }
      switch terminals[0] {
      case .finished:
        outcome.finished += 1
        if !reasons.isEmpty { throw failure("item \(item.sequence) finished and cancelled") }
        if !item.finishCalled { throw failure("item \(item.sequence) finished by nobody") }
      case .cancelled(let reason):
        outcome.cancelled += 1
        if reasons.count != 1 || (item.kind.receivesReason && reasons[0] != reason) {
          throw failure("item \(item.sequence) cancelled for \(reason), work heard \(reasons)")
        }
        let wasInFlight = inFlight.contains(item.sequence)
        let allowed: Bool
        switch reason {
        case finalReason:
          allowed = wasInFlight
        case .replaced:
          allowed =
            !wasInFlight && item.key != nil
            && keyedAdds[item.key!]!.contains { other in
              other.sequence != item.sequence && other.sequence != 0 && other.end >= item.addStart
            }
        case .custom("one"):
          allowed = !wasInFlight && item.cancelReasons.contains(reason)
        case _ where reason.description.hasPrefix("key "):
          // `cancel(key:)`: only items under that key, added before it returned.
          allowed =
            !wasInFlight && item.key.map { CancellationReason.custom("key \($0)") } == reason
            && keySweeps.contains { $0.sweep.reason == reason && $0.sweep.end >= item.addStart }
        default:
          allowed =
            !wasInFlight
            && ((reason == .explicit && item.cancelReasons.contains(.explicit))
              || (sweeps + midwayEnds).contains { $0.reason == reason && $0.end >= item.addStart })
        }
        if !allowed {
          throw failure(
            "item \(item.sequence) (key \(String(describing: item.key))) cancelled for \(reason), "
              + "which no operation justifies")
        }
      case .failed(let error):
        throw failure("item \(item.sequence) failed, yet no work of the run throws: \(error)")
      case .registered:
        throw failure("a registered event counted as terminal")
      }
    }
    return outcome
  }

  private func failure(_ message: String) -> ReliabilityFailure {
    ReliabilityFailure(
      description:
        "concurrent run, \(TestSeed.describe(seed)), \(threads) threads × "
        + "\(operationsPerThread) operations: \(message)")
  }
}

/// The events of a bag, by item, from any thread.
final class EventLog: Sendable {
  private let lock = Protected<[UInt64: [CancelBagEvent.Kind]]>([:])

  func record(_ event: CancelBagEvent) {
    lock.withLock { $0[event.item.id, default: []].append(event.kind) }
  }

  func terminals(_ sequence: UInt64) -> [CancelBagEvent.Kind] {
    lock.withLock { ($0[sequence] ?? []).filter { $0 != .registered } }
  }

  func registrations(_ sequence: UInt64) -> Int {
    lock.withLock { ($0[sequence] ?? []).filter { $0 == .registered }.count }
  }
}

/// A recent item of a thread: finishing and cancelling hit work that is likely in flight.
private func recent(_ count: Int, _ random: inout SeededGenerator) -> Int? {
  guard count > 0 else { return nil }
  return max(0, count - 1 - random.below(16))
}

private func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

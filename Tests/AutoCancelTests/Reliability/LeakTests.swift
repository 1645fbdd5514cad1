import AutoCancelTestSupport
@testable import AutoCancel
import Dispatch
import Testing

/// Nothing outlives its use: the owner, the bag, and every work item are freed once the bag
/// ended, whatever registrations the app kept.
@Suite("A bag frees its owner, itself and its work once it has ended", timeLimit(minutes: 1))
struct LeakTests {
  /// Something work holds on to, to see when the work itself is freed.
  final class Payload: Sendable {}

  /// Class work holding a payload.
  final class HeavyWork: AutoCancellable {
    let payload: Payload
    init(_ payload: Payload) { self.payload = payload }
    func cancel() {}
  }

  /// Value work holding a payload.
  struct HeavyValue: AutoCancellable {
    let payload: Payload
    func cancel() {}
  }

  /// Adds one item of each form, each holding its own payload; returns weak references to the
  /// payloads and the registrations.
  static func fill(
    _ bag: CancelBag, key: String? = nil
  ) -> (
    payloads: [WeakBox<Payload>], registrations: [CancelRegistration]
  ) {
    var payloads: [WeakBox<Payload>] = []
    var registrations: [CancelRegistration] = []
    do {
      let payload = Payload()
      payloads.append(WeakBox(payload))
      registrations.append(bag.add(HeavyWork(payload), key: key.map { $0 + "class" }))
    }
    do {
      let payload = Payload()
      payloads.append(WeakBox(payload))
      registrations.append(bag.add(HeavyValue(payload: payload), key: key.map { $0 + "value" }))
    }
    do {
      let payload = Payload()
      payloads.append(WeakBox(payload))
      registrations.append(
        bag.add(key: key.map { $0 + "closure" }, label: "closure") { _ in _ = payload })
    }
    do {
      let payload = Payload()
      payloads.append(WeakBox(payload))
      registrations.append(
        bag.add(DispatchWorkItem { _ = payload }, key: key.map { $0 + "dispatch" }))
    }
    return (payloads, registrations)
  }

  @Test("the owner, its bag and every work item are freed when the owner goes away")
  func ownerBagAndWorkAreFreedWithTheOwner() {
    var owner: ModelOwner? = ModelOwner()
    weak var weakOwner: ModelOwner?
    weakOwner = owner
    weak var weakBag: CancelBag?
    weakBag = owner?.cancelBag
    let (payloads, registrations) = Self.fill(owner!.cancelBag, key: "k")
    #expect(payloads.allSatisfy { $0.object != nil })
    owner = nil
    _ = owner
    #expect(weakOwner == nil)
    #expect(weakBag == nil)
    // The registrations are still held here; they keep neither the bag nor the work.
    #expect(registrations.allSatisfy { !$0.isActive })
    #expect(payloads.allSatisfy { $0.object == nil })
  }

  @Test("ending a bag frees its work while the owner and the registrations stay")
  func endFreesTheWork() {
    let owner = ModelOwner()
    let (payloads, registrations) = Self.fill(owner.cancelBag)
    owner.cancelBag.end()
    #expect(payloads.allSatisfy { $0.object == nil })
    #expect(registrations.allSatisfy { !$0.isActive })
  }

  @Test("cancelAll frees the work it cancelled, and the bag stays usable")
  func cancelAllFreesTheWork() {
    let bag = CancelBag()
    let (payloads, _) = Self.fill(bag)
    bag.cancelAll()
    #expect(payloads.allSatisfy { $0.object == nil })
    let (later, _) = Self.fill(bag)
    #expect(later.allSatisfy { $0.object != nil })
  }

  @Test("finished work is freed at once, with the bag still open")
  func finishedWorkIsFreedAtOnce() {
    let bag = CancelBag()
    let (payloads, registrations) = Self.fill(bag)
    for registration in registrations { registration.finish() }
    #expect(payloads.allSatisfy { $0.object == nil })
    #expect(bag.count == 0)
  }

  @Test("work replaced under its key is freed at once")
  func replacedWorkIsFreedAtOnce() {
    let bag = CancelBag()
    let (payloads, _) = Self.fill(bag, key: "k")
    let (newer, _) = Self.fill(bag, key: "k")
    #expect(payloads.allSatisfy { $0.object == nil })
    #expect(newer.allSatisfy { $0.object != nil })
  }

  @Test("work added to an ended bag is cancelled and not kept")
  func workAddedToAnEndedBagIsNotKept() {
    let bag = CancelBag()
    bag.end()
    let (payloads, registrations) = Self.fill(bag)
    #expect(payloads.allSatisfy { $0.object == nil })
    #expect(registrations.allSatisfy { !$0.isActive })
  }

  @Test("a task launched by the bag frees what it captured once the bag ends and it returns")
  func bagTaskFreesItsCaptures() async {
    var owner: ModelOwner? = ModelOwner()
    weak var weakOwner: ModelOwner?
    weakOwner = owner
    let payload = Payload()
    weak var weakPayload: Payload?
    weakPayload = payload
    let started = Gate()
    let task = owner!.cancelBag.task { [payload] in
      started.open()
      // Runs until cancelled: the bag's end must stop it.
      try? await Task.sleep(nanoseconds: 3_600_000_000_000)
      _ = payload
    }
    _ = consume payload
    await started.wait()
    owner = nil
    _ = owner
    await task.value
    #expect(weakOwner == nil)
    #expect(weakPayload == nil)
  }

  @Test("a drained burst gives the bag's table memory back")
  func drainedBurstReleasesStorage() {
    let bag = CancelBag()
    let registrations = (0..<10_000).map { _ in bag.add(HeavyWork(Payload()), key: nil) }
    for registration in registrations { registration.finish() }
    let (slots, details, keys) = bag.core.withLock {
      ($0.table.capacity, $0.details.count, $0.keys.count)
    }
    #expect(bag.count == 0)
    #expect(slots == 0)
    #expect(details == 0 && keys == 0)
  }

  @Test("a long-lived bag stays as small as its work in flight")
  func longLivedBagStaysSmall() {
    let bag = CancelBag()
    var peak = 0
    for round in 0..<1_000 {
      let registrations = (0..<8).map { index in
        bag.add(HeavyWork(Payload()), key: index % 2 == 0 ? "k\(index)" : nil, label: "r\(round)")
      }
      for registration in registrations { registration.finish() }
      peak = max(peak, bag.core.withLock { $0.table.capacity })
    }
    let (details, keys) = bag.core.withLock { ($0.details.count, $0.keys.count) }
    #expect(peak <= 8)
    #expect(details == 0 && keys == 0)
  }
}

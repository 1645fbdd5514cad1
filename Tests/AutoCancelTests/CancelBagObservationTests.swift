import AutoCancelTestSupport
@testable import AutoCancel
import Testing

@Suite("A bag's observation")
struct CancelBagObservationTests {
  final class Events: Sendable {
    private let state = Protected<[CancelBagEvent]>([])
    func append(_ event: CancelBagEvent) { state.withLock { $0.append(event) } }
    var all: [CancelBagEvent] { state.withLock { $0 } }
    var kinds: [CancelBagEvent.Kind] { all.map(\.kind) }
  }

  @Test("reports registered, finished and cancelled work, with labels and reasons")
  func reportsEvents() {
    let bag = CancelBag()
    let events = Events()
    bag.observe(events.append)
    bag.add(RecordingWork(), label: "feed").finish()
    bag.add(RecordingWork(), label: "avatar")
    bag.cancelAll(reason: .custom("left"))
    #expect(
      events.kinds == [.registered, .finished, .registered, .cancelled(.custom("left"))])
    #expect(events.all.map(\.item.label) == ["feed", "feed", "avatar", "avatar"])
    #expect(events.all.allSatisfy { $0.item.workType == "RecordingWork" })
  }

  @Test("stops when the observation is cancelled")
  func stopsWhenCancelled() {
    let bag = CancelBag()
    let events = Events()
    let observation = bag.observe(events.append)
    bag.add(RecordingWork())
    observation.cancel()
    observation.cancel()
    bag.add(RecordingWork())
    #expect(events.kinds == [.registered])
  }

  @Test("hears of the work cancelled when the bag ends, then is released")
  func releasedAtEnd() {
    let events = Events()
    weak var weakToken: Events?
    do {
      let bag = CancelBag()
      let token = Events()
      weakToken = token
      bag.observe { event in
        withExtendedLifetime(token) { events.append(event) }
      }
      bag.add(RecordingWork())
    }
    #expect(events.kinds == [.registered, .cancelled(.ownerGone)])
    #expect(weakToken == nil)
  }

  @Test("never calls a handler installed on a bag that has ended")
  func endedBag() {
    let bag = CancelBag()
    bag.end()
    let events = Events()
    bag.observe(events.append)
    bag.add(RecordingWork())
    #expect(events.all.isEmpty)
  }

  @Test("lets a handler use the bag without deadlock")
  func reentrantHandler() {
    let bag = CancelBag()
    let counts = Protected<[Int]>([])
    bag.observe { _ in
      let count = bag.count
      counts.withLock { $0.append(count) }
      _ = bag.snapshot()
    }
    bag.add(RecordingWork()).finish()
    bag.add(RecordingWork())
    bag.cancelAll()
    #expect(counts.withLock { $0 } == [1, 0, 1, 0])
    bag.end()  // releases the handler, and with it the bag it captured
  }
}

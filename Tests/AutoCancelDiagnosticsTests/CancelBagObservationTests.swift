@testable import AutoCancel
import AutoCancelDiagnostics
import AutoCancelTestSupport
import Foundation
import Testing

@Suite("A bag's observation", timeLimit(minutes: 1))
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

  @Test("delivers each event on the thread that caused it, before that call returns")
  func eventsArriveOnTheCausingThread() async {
    let bag = CancelBag()
    let heard = Protected<[(kind: CancelBagEvent.Kind, thread: ObjectIdentifier)]>([])
    bag.observe { event in
      heard.withLock { $0.append((event.kind, ObjectIdentifier(Thread.current))) }
    }
    // Each step runs on a thread of its own and takes, on that thread, what was heard: the
    // thread is alive throughout, so no other thread can share its identity.
    func step(
      _ name: String, expecting kinds: [CancelBagEvent.Kind],
      _ body: @escaping @Sendable () -> Void
    ) async {
      let (thread, events) = await onNewThread {
        body()
        return (
          ObjectIdentifier(Thread.current),
          heard.withLock { heard in
            defer { heard = [] }
            return heard
          }
        )
      }
      #expect(events.map(\.kind) == kinds, "\(name)")
      #expect(events.allSatisfy { $0.thread == thread }, "\(name): heard on another thread")
    }
    let first = Protected<CancelRegistration?>(nil)
    let keyed = Protected<CancelRegistration?>(nil)
    await step("add", expecting: [.registered]) {
      let registration = bag.add(RecordingWork())
      first.withLock { $0 = registration }
    }
    await step("finish", expecting: [.finished]) { first.withLock { $0 }!.finish() }
    await step("add under a key", expecting: [.registered]) {
      bag.add(RecordingWork(), key: "k")
    }
    await step("replace under the key", expecting: [.cancelled(.replaced), .registered]) {
      let registration = bag.add(RecordingWork(), key: "k")
      keyed.withLock { $0 = registration }
    }
    await step("cancel a registration", expecting: [.cancelled(.explicit)]) {
      keyed.withLock { $0 }!.cancel()
    }
    await step("add", expecting: [.registered]) { bag.add(RecordingWork()) }
    await step("cancel all", expecting: [.cancelled(.custom("left"))]) {
      bag.cancelAll(reason: .custom("left"))
    }
    await step("add", expecting: [.registered]) { bag.add(RecordingWork()) }
    await step("end", expecting: [.cancelled(.custom("signed out"))]) {
      bag.end(reason: .custom("signed out"))
    }
    let dropped = CancelBag()
    dropped.observe { event in
      heard.withLock { $0.append((event.kind, ObjectIdentifier(Thread.current))) }
    }
    dropped.add(RecordingWork())
    heard.withLock { $0 = [] }
    let owned = Protected<CancelBag?>(consume dropped)
    await step("drop the last reference", expecting: [.cancelled(.ownerGone)]) {
      let last = owned.withLock { bag in
        defer { bag = nil }
        return bag
      }
      withExtendedLifetime(last) {}
    }
  }
}

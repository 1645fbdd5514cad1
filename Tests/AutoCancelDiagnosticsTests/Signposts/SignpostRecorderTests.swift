import AutoCancel
@testable import AutoCancelDiagnostics
import AutoCancelTestSupport
import Testing

@Suite("Signposts of a bag's work", timeLimit(minutes: 1))
struct SignpostRecorderTests {
  /// What a sink was asked to signpost, in order.
  final class RecordingSink: SignpostSink {
    enum Signpost: Equatable {
      case begin(String, id: UInt64, String)
      case end(String, id: UInt64, String)
      case event(String, String)
    }

    private let state = Protected<[Signpost]>([])
    let isRecording: Bool

    init(isRecording: Bool = true) {
      self.isRecording = isRecording
    }

    var all: [Signpost] { state.withLock { $0 } }

    /// The messages of the intervals' ends, in order.
    var endMessages: [String] {
      all.compactMap { signpost in
        guard case .end(_, _, let message) = signpost else { return nil }
        return message
      }
    }

    func beginInterval(_ name: StaticString, id: UInt64, _ message: String) {
      state.withLock { $0.append(.begin("\(name)", id: id, message)) }
    }

    func endInterval(_ name: StaticString, id: UInt64, _ message: String) {
      state.withLock { $0.append(.end("\(name)", id: id, message)) }
    }

    func emitEvent(_ name: StaticString, _ message: String) {
      state.withLock { $0.append(.event("\(name)", message)) }
    }
  }

  /// A bag whose signposts go to `sink`, whatever the process's switches are.
  func bag(label: String? = "Feed", sink: RecordingSink) -> CancelBag {
    CancelBag(label: label, switches: DiagnosticSwitches(instrument: SignpostRecorder(sink: sink)))
  }

  @Test("makes each registration an interval from its add to its finish")
  func intervalFromAddToFinish() {
    let sink = RecordingSink()
    let bag = bag(sink: sink)
    bag.add(RecordingWork(), label: "feed").finish()
    guard case .begin("Work", let id, let message)? = sink.all.first else {
      Issue.record("no interval began: \(sink.all)")
      return
    }
    #expect(message == "#1 feed (RecordingWork) in CancelBag(Feed)")
    #expect(sink.all.dropFirst() == [.end("Work", id: id, "finished")])
  }

  @Test("ends the interval of cancelled work with its reason")
  func cancelledWithReason() {
    let sink = RecordingSink()
    let bag = bag(sink: sink)
    bag.add(RecordingWork(), key: "search")
    bag.add(RecordingWork(), key: "search").cancel(reason: .custom("left"))
    #expect(sink.endMessages == ["cancelled: replaced", "cancelled: left"])
  }

  @Test("ends the interval of a failed task with its error")
  func failedWithError() async {
    struct Offline: Error {}
    let sink = RecordingSink()
    let bag = bag(sink: sink)
    _ = await bag.task(label: "sync") { throw Offline() }.result
    #expect(await waitUntil("the task's interval ends") { sink.all.count == 2 })
    #expect(sink.endMessages == ["failed: Offline()"])
  }

  @Test("gives the two ends of one interval the same ID, and other intervals other IDs")
  func intervalIDs() {
    let sink = RecordingSink()
    let bag = bag(sink: sink)
    let first = bag.add(RecordingWork())
    let second = bag.add(RecordingWork())
    first.finish()
    second.finish()
    let ids = sink.all.map { signpost -> UInt64 in
      switch signpost {
      case .begin(_, let id, _), .end(_, let id, _): id
      case .event: 0
      }
    }
    #expect(ids[0] == ids[2])
    #expect(ids[1] == ids[3])
    #expect(ids[0] != ids[1])
    #expect(!ids.contains(0))
  }

  @Test("marks the end of a bag that cancelled work, with how many items")
  func bagEndEvent() {
    let sink = RecordingSink()
    let bag = bag(sink: sink)
    bag.add(RecordingWork())
    bag.add(RecordingWork())
    bag.add(RecordingWork()).finish()
    bag.end(reason: .custom("closed"))
    #expect(
      sink.all.last == .event("Bag ended", "CancelBag(Feed) ended (closed): cancelled 2 items"))
  }

  @Test("names where the work was added, when the bag keeps call sites")
  func callSiteInTheBegin() {
    let sink = RecordingSink()
    let bag = CancelBag(
      label: "Feed",
      switches: DiagnosticSwitches(instrument: SignpostRecorder(sink: sink), keepsCallSites: true)
    )
    let line = #line + 1
    bag.add(RecordingWork(), label: "feed")
    guard case .begin(_, _, let message)? = sink.all.first else {
      Issue.record("no interval began: \(sink.all)")
      return
    }
    #expect(
      message
        == "#1 feed (RecordingWork) added at SignpostRecorderTests.swift:\(line) in CancelBag(Feed)"
    )
  }

  @Test("marks no end of a bag that cancelled nothing")
  func noEventWithoutCancels() {
    let sink = RecordingSink()
    var bag: CancelBag? = bag(label: nil, sink: sink)
    bag?.add(RecordingWork()).finish()
    bag = nil
    #expect(sink.all.count == 2)
  }

  @Test("adds the bytes an item moved to the end of its interval")
  func bytesAtTheEnd() {
    let sink = RecordingSink()
    let bag = bag(sink: sink)
    let registration = bag.add(RecordingWork())
    registration.noteTransfer(sent: 12, received: 3456)
    registration.finish()
    #expect(sink.endMessages == ["finished, 3456 bytes received, 12 sent"])
  }

  @Test("makes no message while nothing records")
  func nothingWhileNotRecording() {
    let sink = RecordingSink(isRecording: false)
    let bag = bag(sink: sink)
    bag.add(RecordingWork()).finish()
    bag.add(RecordingWork())
    bag.end()
    #expect(sink.all.isEmpty)
  }

  @Test("leaves a bag made without the instrument unobserved")
  func offMeansNothing() {
    let sink = RecordingSink()
    let bag = CancelBag(label: nil, switches: DiagnosticSwitches())
    bag.add(RecordingWork()).finish()
    #expect(sink.all.isEmpty)
  }
}

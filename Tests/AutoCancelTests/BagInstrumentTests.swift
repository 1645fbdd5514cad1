@testable import AutoCancel
import AutoCancelTestSupport
import Testing

@Suite("What an instrument hears of a bag's work", timeLimit(minutes: 1))
struct BagInstrumentTests {
  /// Keeps every tally it hears.
  final class TallyRecorder: BagInstrument {
    private let tallies = Protected<[WorkTally]>([])

    var heard: [WorkTally] { tallies.withLock { $0 } }

    func workCounted(_ tally: WorkTally, in bag: InstrumentedBag) {
      tallies.withLock { $0.append(tally) }
    }
  }

  private func bag(heardBy recorder: TallyRecorder) -> CancelBag {
    CancelBag(label: "tally", switches: DiagnosticSwitches(instrument: recorder))
  }

  @Test("hears what became of the work once, when the bag ends, and nothing before")
  func tallyAtTheEnd() {
    let recorder = TallyRecorder()
    let bag = bag(heardBy: recorder)
    bag.add(RecordingWork()).finish()
    bag.add(RecordingWork()).cancel()
    bag.add(RecordingWork())
    let child = CancelBag(parent: bag)
    #expect(recorder.heard.isEmpty)
    bag.end(reason: .timedOut)
    bag.end()
    withExtendedLifetime(child) {}
    #expect(recorder.heard.count == 1, "a second end counts nothing again")
    let tally = recorder.heard.first
    #expect(tally?.registered == 3, "links are not work")
    #expect(tally?.finished == 1)
    #expect(tally?.failed == 0)
    #expect(tally?.cancelled == 2)
    #expect(tally?.cancelledByKind[CancellationReason.explicit.kindIndex] == 1)
    #expect(tally?.cancelledByKind[CancellationReason.timedOut.kindIndex] == 1)
    #expect(tally?.cancelledByTrigger[CancelTrigger.registration.rawValue] == 1)
    #expect(tally?.cancelledByTrigger[CancelTrigger.end.rawValue] == 1)
  }

  @Test("hears each item added after the end on its own, as registered and cancelled")
  func tallyOfLateWork() {
    let recorder = TallyRecorder()
    let bag = bag(heardBy: recorder)
    bag.end()
    #expect(recorder.heard.isEmpty, "a bag that registered nothing hands no tally")
    bag.add(RecordingWork())
    #expect(recorder.heard.count == 1)
    #expect(recorder.heard.first?.registered == 1)
    #expect(recorder.heard.first?.cancelledByTrigger[CancelTrigger.addedAfterEnd.rawValue] == 1)
  }
}

@testable import AutoCancel
import AutoCancelTestSupport
import Testing

@Suite("The process's diagnostic switches", timeLimit(minutes: 1))
struct ProcessSwitchesTests {
  final class SilentInstrument: BagInstrument {
    func workEvent(_ event: CancelBagEvent, in bag: InstrumentedBag) {}
    func bagEnded(_ bag: InstrumentedBag, reason: CancellationReason, cancelled: Int) {}
    func transferred(
      item sequence: UInt64, in bag: InstrumentedBag, sent: Int64, received: Int64
    ) {}
  }

  @Test("refuse an instrument installed after a bag was made, which no later bag hears")
  func installAfterTheFirstBagIsRefused() {
    let first = CancelBag()
    #expect(ProcessSwitches.install(SilentInstrument()) == .tooLate)
    #expect(ProcessSwitches.installedInstrument == nil)
    let later = CancelBag()
    later.add(RecordingWork())
    #expect(later.core.withLock { !$0.isObserved && $0.extras?.instrument == nil })
    _ = first
  }

  @Test("attach a bag's own instrument as an observer that hears its end")
  func ownInstrumentIsAttached() {
    let bag = CancelBag(label: nil, switches: DiagnosticSwitches(instrument: SilentInstrument()))
    #expect(bag.core.withLock { $0.extras?.instrument != nil && $0.isObserved })
  }
}

@testable import AutoCancel
import AutoCancelTestSupport
import Testing

@Suite("The process's diagnostic switches", timeLimit(minutes: 1))
struct ProcessSwitchesTests {
  /// Hears only what is made and released, under the labels of this suite.
  final class LifeRecorder: BagInstrument {
    private let events = Protected<[String]>([])
    let prefix: String

    init(prefix: String) { self.prefix = prefix }

    var heard: [String] { events.withLock { $0 } }

    func bagMade(_ bag: InstrumentedBag) { record("made", bag) }
    func bagReleased(_ bag: InstrumentedBag) { record("released", bag) }

    private func record(_ what: String, _ bag: InstrumentedBag) {
      guard let label = bag.label, label.hasPrefix(prefix) else { return }
      events.withLock { $0.append("\(what) \(label)") }
    }
  }

  final class WorkHearer: BagInstrument {
    var hearsWork: Bool { true }
  }

  @Test("serve the bags made after a late install, and say how many were made before it")
  func lateInstallServesLaterBags() {
    let prefix = "late-install-\(UInt64.random(in: 0...UInt64.max))"
    var before: CancelBag? = CancelBag(label: "\(prefix)-before")
    let recorder = LifeRecorder(prefix: prefix)
    #expect(ProcessSwitches.install(recorder) >= 1)
    var after: CancelBag? = CancelBag(label: "\(prefix)-after")
    #expect(recorder.heard == ["made \(prefix)-after"])
    before = nil
    after = nil
    #expect(recorder.heard == ["made \(prefix)-after", "released \(prefix)-after"])
    _ = (before, after)
  }

  @Test("install an instrument installed already only once, answering as its first install")
  func secondInstallOfOneInstrumentIsNoOp() {
    let recorder = LifeRecorder(prefix: "twice-\(UInt64.random(in: 0...UInt64.max))")
    let first = ProcessSwitches.install(recorder)
    _ = CancelBag(label: "\(recorder.prefix)-between")
    #expect(ProcessSwitches.install(recorder) == first)
    #expect(ProcessSwitches.installedInstruments.count { $0 === recorder } == 1)
    _ = CancelBag(label: "\(recorder.prefix)-bag")
    #expect(
      recorder.heard == [
        "made \(recorder.prefix)-between", "released \(recorder.prefix)-between",
        "made \(recorder.prefix)-bag", "released \(recorder.prefix)-bag",
      ])
  }

  @Test("observe a bag's work only for an instrument that hears work")
  func onlyWorkHearersObserve() {
    let hearing = CancelBag(label: nil, switches: DiagnosticSwitches(instrument: WorkHearer()))
    #expect(hearing.core.withLock { $0.extras?.instrument != nil && $0.isObserved })
    let summary = CancelBag(
      label: nil, switches: DiagnosticSwitches(instrument: LifeRecorder(prefix: "")))
    #expect(summary.core.withLock { $0.extras?.instrument != nil && !$0.isObserved })
  }
}

import AutoCancel
import AutoCancelTestSupport
import Testing

@Suite("The Seeing What AutoCancel Saves article's reports")
@MainActor
struct StatisticsSamplesTests {
  init() { startDiagnostics() }

  /// A bag labelled `label` that finishes one piece of work and is released with another.
  private func runScreen(_ label: String) {
    let bag = CancelBag(label: label)
    bag.add(RecordingWork()).finish()
    bag.add(RecordingWork())
  }

  @Test("CancelBagMetrics counts each label's new work once, by reason")
  func metricsCountNewWorkOnce() {
    let label = "samples-metrics"
    let metrics = CancelBagMetrics()
    metrics.report()
    let bag = ("bag", label)
    let finishedBefore = Counter.total("autocancel_finished", [bag])
    runScreen(label)
    metrics.report()
    metrics.report()  // nothing new: nothing counted twice
    #expect(Counter.total("autocancel_finished", [bag]) == finishedBefore + 1)
    #expect(Counter.total("autocancel_cancelled", [bag, ("reason", "owner gone")]) == 1)
    #expect(Counter.total("autocancel_failed", [bag]) == 0)
  }

  @Test("SessionReport sends one event with the session's work")
  func sessionReportSendsOneEvent() {
    let report = SessionReport()
    let eventsBefore = analytics.events.withLock { $0.count }
    runScreen("samples-session")
    report.sessionEnded()
    let events = analytics.events.withLock { Array($0.dropFirst(eventsBefore)) }
    #expect(events.map(\.name) == ["autocancel_session"])
    // Other tests' bags end meanwhile: at least this one's work is in the session.
    #expect(events.first?.properties["registered", default: 0] ?? 0 >= 2)
    #expect(events.first?.properties["cancelled_owner_gone", default: 0] ?? 0 >= 1)
    // The network's account comes with it, whatever other tests' requests added to it.
    #expect(events.first?.properties["requests_cancelled"] != nil)
    #expect(events.first?.properties["bytes_avoided"] != nil)
  }
}

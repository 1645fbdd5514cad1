import AutoCancel
@testable import AutoCancelDiagnostics
import AutoCancelTestSupport
import Testing

extension ReportHandlerSuites {
  @Suite("Turning the diagnostics on", .serialized, timeLimit(minutes: 1))
  struct AutoCancelDiagnosticsTests {
    @Test("with one line hands both kinds of report to one handler")
    func oneLineReportsBothKinds() async {
      let prefix = "one-line-reporting"
      let reports = Protected<[DiagnosticReport]>([])
      let (oldOverdue, oldPilingUp) = (CancelBag.overdueWorkHandler, CancelBag.pilingUpHandler)
      let oldThreshold = CancelBag.overdueWorkThreshold
      defer {
        CancelBag.overdueWorkHandler = oldOverdue
        CancelBag.pilingUpHandler = oldPilingUp
        CancelBag.overdueWorkThreshold = oldThreshold
        CancelBag.setLiveCountLimit(nil, label: prefix)
      }
      AutoCancelDiagnostics.enable(reporting: { report in
        switch report {
        case .overdueWork(let overdue) where overdue.item.label == prefix: break
        case .pilingUp(let pileUp) where pileUp.label == prefix: break
        default: return  // another suite's work
        }
        reports.withLock { $0.append(report) }
      })
      #expect(CancelBag.overdueWorkHandler != nil && CancelBag.pilingUpHandler != nil)

      CancelBag.setLiveCountLimit(1, label: prefix)
      let first = CancelBag(label: prefix)
      let second = CancelBag(label: prefix)
      CancelBag.overdueWorkThreshold = 0
      let release = Gate()
      let task = first.task(label: prefix) {
        // Ignores its cancel: a detached task is not cancelled with the one awaiting it.
        await Task.detached { await release.wait() }.value
      }
      first.cancelAll()
      await waitUntil("the overdue task is reported") {
        reports.current.contains { if case .overdueWork = $0 { true } else { false } }
      }
      release.open()
      await task.value

      let kinds = reports.current.map { report in
        switch report {
        case .overdueWork: "overdue"
        case .pilingUp: "piling up"
        }
      }
      #expect(kinds.sorted() == ["overdue", "piling up"])
      #expect(reports.current.allSatisfy { $0.description.hasPrefix("AutoCancel: ") })
      withExtendedLifetime((first, second)) {}
    }
  }
}

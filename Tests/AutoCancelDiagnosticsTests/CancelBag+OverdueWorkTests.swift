import AutoCancel
@testable import AutoCancelDiagnostics
import AutoCancelTestSupport
import Testing

/// Runs `body` with the watch of overdue work reporting to a recorder, after `threshold`
/// seconds, then restores the settings. The settings are process-wide: only the reports of
/// work labelled with `prefix` count, since other suites cancel work meanwhile.
private func withOverdueReports(
  threshold: Double, prefix: String, _ body: (Protected<[OverdueWork]>) async throws -> Void
) async rethrows {
  let reports = Protected<[OverdueWork]>([])
  let (oldThreshold, oldHandler) = (CancelBag.overdueWorkThreshold, CancelBag.overdueWorkHandler)
  CancelBag.overdueWorkThreshold = threshold
  CancelBag.overdueWorkHandler = { report in
    guard report.item.label?.hasPrefix(prefix) == true else { return }
    reports.withLock { $0.append(report) }
  }
  defer {
    CancelBag.overdueWorkThreshold = oldThreshold
    CancelBag.overdueWorkHandler = oldHandler
  }
  try await body(reports)
}

/// A task that ignores its cancel until the test lets it return: what a task that never
/// checks for cancellation does. (It waits in a detached task, which is not cancelled with it.)
private struct IgnoringTask {
  private let release: Gate
  private let task: Task<Void, Never>

  /// Launched by `bag` under `label`.
  static func launched(by bag: CancelBag, label: String) -> IgnoringTask {
    IgnoringTask { operation in bag.task(label: label, operation: operation) }
  }

  /// A plain `Task` bound to `bag` with `add`, under `label`.
  static func added(to bag: CancelBag, label: String) -> IgnoringTask {
    IgnoringTask { operation in
      let task = Task(operation: operation)
      bag.add(task, label: label)
      return task
    }
  }

  private init(start: (@escaping @Sendable () async -> Void) -> Task<Void, Never>) {
    let release = Gate()
    self.release = release
    task = start { await Task.detached { await release.wait() }.value }
  }

  /// Lets the task return, and waits until it has.
  func finish() async {
    release.open()
    await task.value
  }
}

extension ReportHandlerSuites {
  @Suite("Work that outlives its cancel", .serialized, timeLimit(minutes: 1))
  struct CancelBagOverdueWorkTests {
    @Test("is reported once, with its label and its bag's reason, when it ignores the cancel")
    func ignoringTaskIsReportedOnce() async {
      await withOverdueReports(threshold: 0.2, prefix: "overdue-ignoring") { reports in
        let bag = CancelBag()
        let task = IgnoringTask.launched(by: bag, label: "overdue-ignoring")
        bag.cancelAll(reason: .custom("screen left"))
        await waitUntil("the task is reported") { !reports.current.isEmpty }
        // Later visits, by the reaper or by hand, do not report it again.
        _ = OverdueWatch.visit()
        _ = OverdueWatch.visit()
        let all = reports.current
        for report in all { print(report) }
        #expect(all.count == 1)
        #expect(all.first?.item.label == "overdue-ignoring")
        #expect(all.first?.item.workType.hasPrefix("Task") == true)
        #expect(all.first?.reason == .custom("screen left"))
        #expect((all.first?.secondsSinceCancel ?? 0) >= 0.2)
        #expect(all.first?.description.contains("after it was cancelled (screen left)") == true)
        await task.finish()
      }
    }

    @Test("is not reported when it honours the cancel")
    func honouringTaskIsNotReported() async {
      // A long threshold while the task stops, so that no visit reports it meanwhile.
      await withOverdueReports(threshold: 60, prefix: "overdue-honouring") { reports in
        let bag = CancelBag()
        let started = Gate()
        let task = bag.task(label: "overdue-honouring") {
          started.open()
          await suspendUntilCancelled()
        }
        await started.wait()
        bag.cancelAll()
        await task.value
        // With a threshold of zero, anything still watched and running would be reported now.
        CancelBag.overdueWorkThreshold = 0
        _ = OverdueWatch.visit()
        #expect(reports.current.isEmpty)
      }
    }

    @Test("is not reported again when it stops after the report")
    func stoppingAfterTheReportIsNotReportedAgain() async {
      await withOverdueReports(threshold: 0, prefix: "overdue-late") { reports in
        let bag = CancelBag()
        let task = IgnoringTask.launched(by: bag, label: "overdue-late")
        bag.cancelAll()
        await waitUntil("the task is reported") { !reports.current.isEmpty }
        await task.finish()
        _ = OverdueWatch.visit()
        #expect(reports.current.count == 1)
      }
    }

    @Test("covers a Task bound with add and finish-reporting work, not work that finished")
    func addedTaskAndFinishReportingWork() async {
      await withOverdueReports(threshold: 0, prefix: "overdue-kind") { reports in
        let bag = CancelBag()
        let task = IgnoringTask.added(to: bag, label: "overdue-kind task")
        let running = RecordingFinishingWork()
        bag.add(running, label: "overdue-kind running")
        let finished = RecordingFinishingWork()
        bag.add(finished, label: "overdue-kind finished")
        // Finished before the cancel, so that no visit can find it running.
        finished.complete()
        bag.add(RecordingWork(), label: "overdue-kind silent")  // cannot tell: not watched
        bag.end(reason: .custom("closed"))
        await waitUntil("both are reported") { reports.current.count >= 2 }
        _ = OverdueWatch.visit()
        let reported = reports.current.map { $0.item.label ?? "" }.sorted()
        #expect(reported == ["overdue-kind running", "overdue-kind task"])
        #expect(reports.current.allSatisfy { $0.reason == .custom("closed") })
        await task.finish()
      }
    }

    @Test("is reported when launched on a bag that had ended, with the end's reason")
    func launchOnEndedBagIsReported() async {
      await withOverdueReports(threshold: 0, prefix: "overdue-ended") { reports in
        let bag = CancelBag()
        bag.end(reason: .custom("gone"))
        let task = IgnoringTask.launched(by: bag, label: "overdue-ended")
        await waitUntil("the task is reported") { !reports.current.isEmpty }
        #expect(reports.current.map(\.reason) == [.custom("gone")])
        #expect(reports.current.first?.item.id == 0)
        await task.finish()
      }
    }

    @Test("calls the handler outside any lock, so that it may use bags and the settings")
    func handlerRunsOutsideLocks() async {
      await withOverdueReports(threshold: 0, prefix: "overdue-lock") { reports in
        let bag = CancelBag()
        let task = IgnoringTask.launched(by: bag, label: "overdue-lock")
        let recorder = CancelBag.overdueWorkHandler
        CancelBag.overdueWorkHandler = { report in
          // Every lock the watch could hold is taken again here: the settings', a bag's.
          _ = CancelBag.overdueWorkThreshold
          bag.add(RecordingWork()).finish()
          recorder?(report)
        }
        bag.cancelAll()
        await waitUntil("the task is reported") { !reports.current.isEmpty }
        await task.finish()
      }
    }

    @Test("watches nothing while the handler is nil")
    func nilHandlerWatchesNothing() async {
      await withOverdueReports(threshold: 0, prefix: "overdue-off") { reports in
        let recorder = CancelBag.overdueWorkHandler
        CancelBag.overdueWorkHandler = nil
        let bag = CancelBag()
        let task = IgnoringTask.launched(by: bag, label: "overdue-off")
        bag.cancelAll()
        CancelBag.overdueWorkHandler = recorder
        _ = OverdueWatch.visit()
        #expect(reports.current.isEmpty)
        await task.finish()
      }
    }

    @Test("watches nothing in a bag made without the diagnostics, the handler set")
    func bagWithoutDiagnosticsWatchesNothing() async {
      await withOverdueReports(threshold: 0, prefix: "overdue-uninstrumented") { reports in
        let bag = CancelBag(label: nil, switches: DiagnosticSwitches())
        let task = IgnoringTask.launched(by: bag, label: "overdue-uninstrumented")
        bag.cancelAll()
        _ = OverdueWatch.visit()
        #expect(reports.current.isEmpty)
        await task.finish()
      }
    }

    @Test("shows where the work was added, in a bag that keeps call sites")
    func reportShowsTheCallSite() {
      let bag = CancelBag(label: nil, switches: DiagnosticSwitches(keepsCallSites: true))
      let line = #line + 1
      bag.add(RecordingWork(), label: "sync")
      let report = OverdueWork(
        item: bag.snapshot()[0], reason: .ownerGone, secondsSinceCancel: 10.2)
      let site = "CancelBag+OverdueWorkTests.swift:\(line)"
      #expect(
        report.description.hasPrefix("AutoCancel: #1 sync (RecordingWork) added at \(site), "))
    }
  }
}

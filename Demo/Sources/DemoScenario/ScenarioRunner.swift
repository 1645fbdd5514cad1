import AutoCancel
import AutoCancelNetworking
import Dispatch
import Foundation
import LoopbackHTTPServer

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Runs a ``ScenarioPlan`` against a fresh loopback server, once per ``BindingMode``.
///
/// Each run gets its own server and URLSession, so runs do not see each other's requests or
/// connections. A run is over when every request has ended at the app and every connection
/// to the server has closed: then the server's records are final.
///
/// ```swift
/// let runner = ScenarioRunner(plan: .random(screens: 8, requestsPerScreen: 4, seed: 1))
/// let result = try await runner.run(.withAutoCancel)
/// print(RunMeasurement(result).wastedBytes)
/// ```
package struct ScenarioRunner: Sendable {
  /// The plan every run follows.
  package var plan: ScenarioPlan

  package init(plan: ScenarioPlan) {
    self.plan = plan
  }

  /// Runs the plan once in `mode` and returns what happened; `progress` is called about ten
  /// times a second from one task, and a last time with `isFinished` set.
  ///
  /// - Throws: `LoopbackHTTPServerError` if the server cannot start.
  package func run(
    _ mode: BindingMode, progress: (@Sendable (RunProgress) -> Void)? = nil
  ) async throws -> RunResult {
    let server = LoopbackHTTPServer()
    try server.start()
    defer { server.stop() }
    let session = Self.makeSession()
    defer { session.invalidateAndCancel() }
    let state = RunState()
    let exits = Locked<[ScreenExit]>([])
    // The library's account counts the requests started after it was turned on: before the
    // first request of the run.
    URLSessionSavings.enable()
    let savingsBefore = URLSessionSavings.current
    let start = DispatchTime.now()
    let snapshot: @Sendable (Bool) -> RunProgress = { [plan] finished in
      let counts = state.counts
      return RunProgress(
        mode: mode, elapsedSeconds: Self.seconds(since: start),
        screensLeft: counts.screensLeft, screens: plan.screens.count,
        requestsEnded: counts.ended, requests: plan.requestCount,
        bytesSent: server.records.reduce(0) { $0 + $1.bytesSent }, isFinished: finished)
    }
    let ticker = progress.map { report in
      Task {
        while !Task.isCancelled {
          report(snapshot(false))
          try? await Task.sleep(nanoseconds: 100_000_000)
        }
      }
    }

    await withTaskGroup(of: Void.self) { group in
      for person in 0..<plan.people {
        group.addTask { [plan] in
          try? await Task.sleep(
            nanoseconds: UInt64(person * plan.personStaggerMilliseconds) * 1_000_000)
          for screen in plan.screens(of: person) {
            let exit = await Self.visit(
              screen, mode: mode, session: session, server: server, state: state)
            exits.withLock { $0.append(exit) }
            state.screenLeft()
          }
        }
      }
    }
    // Settle: every completion handler has run, then every connection has closed (the server
    // closes each after its response), so no request can still reach the server or change.
    await state.waitUntilEnded(Set(plan.requests.map(\.id)))
    _ = await server.waitForConnections(timeout: 60) { $0.open == 0 }
    let durationSeconds = Self.seconds(since: start)
    let library =
      mode == .withAutoCancel
      ? await Self.librarySavings(since: savingsBefore, cancelsAtApp: state.counts.endedWithError)
      : nil

    ticker?.cancel()
    await ticker?.value
    progress?(snapshot(true))
    let counts = state.counts
    return RunResult(
      mode: mode, plan: plan, startedRequestIDs: state.startedIDs,
      exits: exits.withLock { $0 }, records: server.records,
      responsesAfterScreenLeft: counts.deliveredAfterScreenLeft,
      requestsFailed: counts.endedWithError,
      durationSeconds: durationSeconds, library: library)
  }

  /// The library's account of the run. A request is counted when URLSession reports its
  /// end, which may come after the app heard of its cancel: waits, up to a few seconds, until it
  /// has counted as many as the app saw end with an error (every one of them, in this run, a
  /// cancel; one whose transfer had completed before the cancel reached it saved nothing, and
  /// is never counted: hence the bound).
  private static func librarySavings(
    since before: URLSessionSavings, cancelsAtApp: Int
  ) async -> URLSessionSavings {
    let deadline = DispatchTime.now() + .seconds(3)
    while URLSessionSavings.current.since(before).cancelled < cancelsAtApp,
      DispatchTime.now() < deadline
    {
      try? await Task.sleep(nanoseconds: 10_000_000)
    }
    return URLSessionSavings.current.since(before)
  }

  /// One person on one screen: opens it, stays (for a while or until loaded), leaves.
  private static func visit(
    _ plan: ScreenPlan, mode: BindingMode, session: URLSession, server: LoopbackHTTPServer,
    state: RunState
  ) async -> ScreenExit {
    let openedAt = DispatchTime.now()
    let screen = Screen(plan: plan)
    state.screenOpened()
    screen.open(mode, session: session, server: server, state: state)
    switch plan.departure {
    case .leaveAfter(let milliseconds):
      let leaveAt = openedAt + DispatchTimeInterval.milliseconds(milliseconds)
      let now = DispatchTime.now()
      if now < leaveAt {
        try? await Task.sleep(nanoseconds: leaveAt.uptimeNanoseconds - now.uptimeNanoseconds)
      }
    case .stayUntilLoaded:
      await state.waitUntilEnded(Set(plan.requests.map(\.id)))
    }
    // Leaving: note what the app and the server have done so far, then drop the last
    // reference to the screen. With AutoCancel its bag ends right here and cancels what is
    // still in flight. A response the app already has was sent before the exit, even if the
    // server has not finished its bookkeeping yet.
    var bytesSentAtExit: [String: Int] = [:]
    var finishedAtExit = state.ended(among: plan.requests.map(\.id))
    for request in plan.requests {
      guard let record = server.record(id: request.id) else { continue }
      bytesSentAtExit[request.id] = record.bytesSent
      if record.isFinished { finishedAtExit.insert(request.id) }
    }
    let exitAt = DispatchTime.now()
    withExtendedLifetime(screen) {}
    return ScreenExit(
      screenID: plan.id, requestIDs: plan.requests.map(\.id), exitAt: exitAt,
      bytesSentAtExit: bytesSentAtExit, finishedAtExit: finishedAtExit)
  }

  /// No URL cache: nothing here is worth caching, and both runs should hit the server for
  /// every request. (AutoCancelNetworking would keep cancelling safe with a cache too; a raw
  /// `URLSessionTask.cancel()` on Linux would not, see `CancelSafeURLCache`.)
  ///
  /// A connection per request: the server closes each after its response (`close=1`, see
  /// ``RequestPlan/pathAndQuery``), so when every request has ended every connection closes,
  /// which tells the run the server's records are final (URLSession on Linux keeps idle
  /// keep-alive connections open, even after invalidation). The session sets no `Connection`
  /// header: URLSession manages that header itself.
  private static func makeSession() -> URLSession {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.urlCache = nil
    configuration.httpMaximumConnectionsPerHost = 1024
    configuration.timeoutIntervalForRequest = 60
    return URLSession(configuration: configuration)
  }

  /// Seconds from `start` to now, on the monotonic clock that `ScreenExit` uses too.
  private static func seconds(since start: DispatchTime) -> Double {
    Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
  }
}

import AutoCancel
import AutoCancelNetworking
import AutoCancelTestSupport
import Foundation
import LoopbackHTTPServer
import SeededRandom
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// How one cell went: what each caller received, and what was wrong.
struct CellReport: Sendable {
  var cell: FaultCell
  var number: Int
  /// What each caller received, callers apart by commas, repeated answers joined by `+`.
  var received: String
  var problems: [String]

  init(cell: FaultCell, number: Int, outcomes: [[CellOutcome]], problems: [String]) {
    let received = outcomes.map { $0.map(\.description).joined(separator: "+") }
    self.init(
      cell: cell, number: number, received: received.joined(separator: ", "), problems: problems)
  }

  init(cell: FaultCell, number: Int, received: String, problems: [String]) {
    self.cell = cell
    self.number = number
    self.received = received
    self.problems = problems
  }

  var summary: String {
    let verdict = problems.isEmpty ? "ok" : "FAIL: " + problems.joined(separator: "; ")
    return "#\(number) \(cell) → \(received) — \(verdict)"
  }
}

/// One run of the fault matrix with one seed: a loopback server per kind of session (so that
/// each server's open connections are those of one session and its twins), the sessions, and
/// the one runner of every cell, which checks every outcome in one place.
final class FaultRun: Sendable {
  let seed: UInt64
  /// Each request's timeout, whole seconds: FoundationNetworking truncates it to seconds.
  let requestTimeout: TimeInterval
  private let servers: [SessionKind: LoopbackHTTPServer]
  /// The run's own sessions; emptied when the run finishes, so that they can go.
  private let ownSessions: Protected<[SessionKind: URLSession]>
  private let sharedRequests = SharedURLRequests()
  private let descriptorsAtStart: Int
  /// Every caller's outcomes so far, to check at the end that no handler ran again later.
  private let everyOutcome = Protected<[(String, CellOutcomes)]>([])

  init(seed: UInt64, requestTimeout: TimeInterval) throws {
    self.seed = seed
    self.requestTimeout = requestTimeout
    descriptorsAtStart = try openFileDescriptorCount()
    FreshURLCache.prepare()
    var servers: [SessionKind: LoopbackHTTPServer] = [:]
    for kind in SessionKind.allCases {
      let server = LoopbackHTTPServer()
      try server.start()
      servers[kind] = server
    }
    self.servers = servers
    ownSessions = Protected([
      .ephemeral: URLSession(configuration: .ephemeral),
      .cached: URLSession(configuration: .default),
    ])
  }

  private func session(_ kind: SessionKind) -> URLSession {
    ownSessions.current[kind] ?? .shared
  }

  /// Runs `cells`, `parallel` at a time, each after its own seeded delay; returns their reports
  /// in order.
  func run(_ cells: [FaultCell], parallel: Int) async -> [CellReport] {
    var generator = SeededGenerator(seed: seed)
    let delays = cells.map { _ in UInt64(generator.within(0...10_000)) * 1000 }
    return await withTaskGroup(of: CellReport.self) { group in
      var next = 0
      var reports: [CellReport] = []
      func startNext() {
        guard next < cells.count else { return }
        let (number, cell, delay) = (next, cells[next], delays[next])
        next += 1
        group.addTask { await self.runIsolated(cell, number: number, delay: delay) }
      }
      for _ in 0..<parallel { startNext() }
      for await report in group {
        print("fault-matrix \(TestSeed.describe(seed)) \(report.summary)")
        reports.append(report)
        startNext()
      }
      return reports.sorted { $0.number < $1.number }
    }
  }

  /// Runs `cell` here, or in a child process if it asks for one (see
  /// ``FaultCell/runsInChildProcess``).
  private func runIsolated(_ cell: FaultCell, number: Int, delay: UInt64) async -> CellReport {
    guard cell.runsInChildProcess else { return await run(cell, number: number, delay: delay) }
    // The cell reaches the child through the exit test's capture list (Swift Testing 6.3);
    // older compilers, like the platforms without child processes, run it here.
    #if compiler(>=6.3) && (os(Linux) || os(macOS) || os(Windows))
      let log = FileManager.default.temporaryDirectory
        .appendingPathComponent("AutoCancel-fault-cell-\(UUID().uuidString).log").path
      defer { try? FileManager.default.removeItem(atPath: log) }
      let result = await offThePool {
        await #expect(
          processExitsWith: .success, "\(cell), \(TestSeed.describe(seed)), in a child process"
        ) {
          [
            cell = cell as FaultCell, number = number as Int, delay = delay as UInt64,
            seed = seed as UInt64, timeout = requestTimeout as Double, log = log as String
          ] in
          closeInheritedSockets()
          try await FaultRun.runInChildProcess(
            cell, number: number, delay: delay, seed: seed, requestTimeout: timeout, log: log)
        }
      }
      let words = String(
        decoding: FileManager.default.contents(atPath: log) ?? Data(), as: UTF8.self)
      let lines = words.split(separator: "\n")
      let received = lines.last { $0.hasPrefix(Self.receivedMark) }?
        .dropFirst(Self.receivedMark.count)
      var problems: [String] = []
      if result == nil {
        let telling = lines.filter {
          $0.contains("Fatal error") || $0.contains("FAIL") || $0.contains("error:")
        }
        problems.append(
          "the child process failed: "
            + (telling.isEmpty ? String(words.suffix(400)) : telling.joined(separator: " | ")))
      }
      return CellReport(
        cell: cell, number: number, received: received.map(String.init) ?? "(in the child)",
        problems: problems)
    #else
      return await run(cell, number: number, delay: delay)
    #endif
  }

  /// The body of a child process that runs one cell: its standard error goes to `log`, which
  /// the parent reads, a crash's message included; it fails if the cell had a problem.
  static func runInChildProcess(
    _ cell: FaultCell, number: Int, delay: UInt64, seed: UInt64, requestTimeout: Double,
    log: String
  ) async throws {
    redirectStandardError(toFile: log)
    let run = try FaultRun(seed: seed, requestTimeout: requestTimeout)
    let report = await run.run(cell, number: number, delay: delay)
    let lines =
      "fault-matrix \(TestSeed.describe(seed)) \(report.summary)\n"
      + receivedMark + report.received + "\n"
    FileHandle.standardError.write(Data(lines.utf8))
    if !report.problems.isEmpty { throw CellFailed() }
  }

  /// How a child process names what its cell's callers received, for the parent to read.
  private static let receivedMark = "fault-cell-received: "

  struct CellFailed: Error {}

  /// Runs one cell and checks it: the runner of every cell.
  func run(_ cell: FaultCell, number: Int, delay: UInt64) async -> CellReport {
    let name = "\(cell) (#\(number), \(TestSeed.describe(seed)))"
    var problems: [String] = []
    let id = "fault-\(number)"
    let home = servers[cell.session]!
    // A killed server is one of its own.
    let killable = cell.fault == .serverKilled ? LoopbackHTTPServer() : nil
    do {
      try killable?.start()
    } catch {
      return CellReport(cell: cell, number: number, outcomes: [], problems: ["\(error)"])
    }
    let server = killable ?? home
    let session = session(cell.session)
    let request = FaultRequests.request(
      cell.fault, form: cell.form, server: server, id: id, timeout: requestTimeout)
    let owners = Slot((0..<cell.form.owners).map { _ in Owner() })
    let watched = owners.peek { $0!.map(WeakOwner.init) }
    let outcomes = CellOutcomes(callers: cell.form.owners)
    everyOutcome.withLock { $0.append((name, outcomes)) }
    let startedAt = DispatchTime.now()
    let sharedRequests = sharedRequests
    // Made on a thread of their own: URLSession's calls wait on Linux.
    let started = await onNewThread {
      owners.peek {
        FaultForms.start(
          cell.form, request, on: session, owners: $0!, alone: cell.trigger == .cancelled,
          sharedRequests: sharedRequests, outcomes: outcomes)
      }
    }

    // The moment: while the server holds the request in its fault, or a few seeded
    // milliseconds after the start, racing the fault.
    var heldSince: DispatchTime?
    if cell.fault.holdsTheRequest, cell.trigger != .fault || cell.fault == .serverKilled {
      let began = await server.waitForRecord(id: id, timeout: waitBound) {
        $0.faultStartedAt != nil
      }
      if began == nil { problems.append("the server never began the fault") }
      heldSince = began?.faultStartedAt
    }
    if cell.trigger != .fault { try? await Task.sleep(nanoseconds: delay) }
    // Late enough that the client's own timeout could have won: counted from the fault's start
    // or, when a loaded machine was slow to reach it, from the request's.
    let late = UInt64(requestTimeout / 2 * 1e9)
    let now = DispatchTime.now().uptimeNanoseconds
    let endsByHand = cell.trigger != .fault || cell.fault == .serverKilled
    let cancelCameLate =
      heldSince.map { now - $0.uptimeNanoseconds >= late } ?? false
      || (endsByHand && now - startedAt.uptimeNanoseconds >= late)
    let expectation = cell.expectation(cancelCameLate: cancelCameLate)
    switch cell.trigger {
    case .fault: if cell.fault == .serverKilled { await server.stop() }
    case .ownerReleased: _ = owners.take()
    case .cancelAll: owners.peek { $0?.forEach { $0.cancelBag.cancelAll() } }
    case .cancelled: started.cancel()
    }

    // Every call returns or throws, once, as the table says.
    let answered = await waitUntil(
      "\(name): every call returns or throws", timeout: requestTimeout + waitBound
    ) { outcomes.everyCallerAnswered }
    if !answered { problems.append("hang: a call neither returned nor threw") }
    for (caller, received) in outcomes.all.enumerated() {
      if received.count > 1 {
        problems.append("caller \(caller) was answered \(received.count) times")
      }
      if let first = received.first, !expectation.allows(first) {
        problems.append("caller \(caller) got \(first), expected \(expectation)")
      }
    }
    if expectation.serverSeesTheClientLeave {
      let left = await server.expectRecord(id: id) { $0.clientWentAway }
      if left == nil {
        let record = server.record(id: id).map { String(describing: $0) } ?? "no record"
        problems.append("the server never saw the client leave: \(record)")
      }
    }

    // Nothing is left behind: bags empty (finished raw tasks leave within a second), owners
    // freed.
    if cell.trigger != .ownerReleased {
      let emptied = await waitUntil("\(name): the bags empty themselves") {
        started.ownBags.allSatisfy { $0.count == 0 }
          && owners.peek { $0?.allSatisfy { $0.cancelBag.count == 0 } ?? true }
      }
      if !emptied { problems.append("work stayed in a bag") }
    }
    _ = owners.take()
    let freed = await waitUntil("\(name): the owners are freed") {
      watched.allSatisfy { $0.owner == nil }
    }
    if !freed { problems.append("an owner was not freed") }
    await killable?.stop()

    // The session still works.
    let (healthy, body) = FaultRequests.healthy(form: cell.form, server: home, id: "\(id)-after")
    let helper = Owner()
    let healthOutcomes = CellOutcomes(callers: 1)
    let healthRequest = await onNewThread {
      FaultForms.start(
        cell.form, healthy, on: session, owners: [helper], sharedRequests: sharedRequests,
        outcomes: healthOutcomes)
    }
    await waitUntil("\(name): a normal request after the fault ends") {
      healthOutcomes.everyCallerAnswered
    }
    if let after = healthOutcomes.all[0].first, after != body {
      problems.append("a normal request afterwards got \(after), expected \(body)")
    } else if healthOutcomes.all[0].isEmpty {
      problems.append("a normal request afterwards never ended")
    }
    withExtendedLifetime((helper, healthRequest, started)) {}
    return CellReport(cell: cell, number: number, outcomes: outcomes.all, problems: problems)
  }

  /// Ends the run: no handler ran again since its cell was checked; the run's sessions,
  /// invalidated and released, leave no connection open (their twins included); the process
  /// holds about as many descriptors as before the run. Returns what was wrong.
  func finish() async -> [String] {
    var problems: [String] = []
    for (name, outcomes) in everyOutcome.current {
      for (caller, received) in outcomes.all.enumerated() where received.count > 1 {
        problems.append("\(name): caller \(caller) was answered \(received.count) times")
      }
    }
    let released = invalidateOwnSessions()
    for kind in released {
      let server = servers[kind]!
      let closed = await server.waitForConnections(timeout: waitBound) { $0.open == 0 }
      if closed == nil {
        problems.append(
          "the \(kind.rawValue) session, invalidated and released, still has"
            + " \(server.connections.open) connections open to its server after \(waitBound) s")
      }
    }
    for server in servers.values { await server.stop() }
    let slack = 32
    let start = descriptorsAtStart
    var now = (try? openFileDescriptorCount()) ?? Int.max
    // Other suites open and close descriptors meanwhile: give them time to settle.
    let bounded = await waitUntil("descriptors back to at most \(start) + \(slack)") {
      now = (try? openFileDescriptorCount()) ?? Int.max
      return now <= start + slack
    }
    print("fault-matrix \(TestSeed.describe(seed)) descriptors: \(start) before, \(now) after")
    if !bounded { problems.append("descriptors grew from \(start) to \(now)") }
    return problems
  }
}

extension FaultRun {
  /// Invalidates the run's own sessions and lets go of them; returns their kinds.
  fileprivate func invalidateOwnSessions() -> [SessionKind] {
    let sessions = ownSessions.withLock { sessions in
      defer { sessions = [:] }
      return sessions
    }
    for session in sessions.values { session.finishTasksAndInvalidate() }
    return sessions.keys.sorted { $0.rawValue < $1.rawValue }
  }
}

/// Watches an owner without keeping it.
final class WeakOwner: @unchecked Sendable {
  // Safety: written once in `init`; the weak reference itself is read atomically by the
  // runtime.
  weak var owner: Owner?
  init(_ owner: Owner) { self.owner = owner }
}

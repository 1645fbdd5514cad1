import AutoCancelNetworking
import DemoScenario
import LoopbackHTTPServer
import AutoCancelTestSupport
import Testing

/// Serialized: the library's account is process-wide, and a test that reads it must not see
/// another run's cancels; no other suite here runs a scenario.
@Suite(
  "The demo's scenario, run small", .serialized,
  timeLimit(minutes: 3))
struct ScenarioRunnerTests {
  /// Two people: one leaves a screen 200 ms in, while its 64 MB download (about 40 s at the
  /// server's pace) and a feed whose server thinks for 40 s are in flight; the other stays
  /// on a small screen until it has loaded. The leave is timed, so the margins are wide: a
  /// leave held up by a loaded machine under ThreadSanitizer (seen: the whole cooperative
  /// pool starved for 10 s) still finds both requests in flight. Only the run without
  /// binding waits the 40 s; with AutoCancel the leave cuts both requests short.
  static let plan = ScenarioPlan(
    screens: [
      ScreenPlan(
        id: "left", person: 0,
        requests: [
          RequestPlan(id: "left-feed", kind: .feed, bodyBytes: 10_000, delayMilliseconds: 40_000),
          RequestPlan(id: "left-download", kind: .download, bodyBytes: 64_000_000),
        ],
        departure: .leaveAfter(milliseconds: 200)),
      ScreenPlan(
        id: "stayed", person: 1,
        requests: [
          RequestPlan(id: "stayed-feed", kind: .feed, bodyBytes: 4_000, delayMilliseconds: 20),
          RequestPlan(id: "stayed-image", kind: .image, bodyBytes: 64_000),
        ],
        departure: .stayUntilLoaded),
    ],
    people: 2)

  @Test("starts the same requests in both runs, and with AutoCancel wastes far less")
  func bothRunsStartTheSameRequestsAndBindingWastesFarLess() async throws {
    let runner = ScenarioRunner(plan: Self.plan)
    let withoutResult = try await runner.run(.withoutBinding)
    let withResult = try await runner.run(.withAutoCancel)
    let planned = Self.plan.requests.map(\.id)
    #expect(withoutResult.startedRequestIDs.sorted() == planned.sorted())
    #expect(withResult.startedRequestIDs.sorted() == planned.sorted())

    let without = RunMeasurement(withoutResult)
    let with = RunMeasurement(withResult)
    // Without binding the server sends everything; what it sent for the screen that left,
    // after it left, is all wasted.
    #expect(without.requestsCompleted == planned.count)
    #expect(without.requestsCancelled == 0)
    #expect(without.bytesSent == Self.plan.plannedBytes)
    let left = try #require(withoutResult.exits.first { $0.screenID == "left" })
    #expect(left.finishedAtExit.isEmpty)
    let leftRequests = Self.plan.screens[0].requests
    #expect(
      without.wastedBytes
        == leftRequests.reduce(0) { $0 + $1.bodyBytes - (left.bytesSentAtExit[$1.id] ?? 0) })
    #expect(without.responsesAfterScreenLeft == 2)
    // With AutoCancel, the screen that stayed loads the same; the other's requests are cut.
    #expect(with.wastedBytes * 4 < without.wastedBytes)
    #expect(with.bytesSent < without.bytesSent)
    #expect(with.responsesAfterScreenLeft == 0)
    for id in ["stayed-feed", "stayed-image"] {
      #expect(withResult.records.first { $0.id == id }?.completed == true)
    }
    for id in ["left-feed", "left-download"] {
      // Cancelled on the wire, or cancelled before it was even sent.
      let record = withResult.records.first { $0.id == id }
      #expect(
        record == nil || record?.clientWentAway == true, "\(id): \(String(describing: record))")
    }
  }

  @Test("accounts for every record the server kept")
  func theRunAccountsForEveryRecordTheServerKept() async throws {
    let result = try await ScenarioRunner(plan: Self.plan).run(.withAutoCancel)
    let measurement = RunMeasurement(result)
    #expect(result.records.allSatisfy { $0.isFinished })
    #expect(measurement.bytesSent == result.records.reduce(0) { $0 + $1.bytesSent })
    #expect(
      measurement.requestsSeenByServer + measurement.requestsNeverSent
        == measurement.requestsStarted)
    #expect(
      measurement.requestsCompleted + measurement.requestsCancelled
        == measurement.requestsSeenByServer)
    #expect(result.exits.map(\.screenID).sorted() == ["left", "stayed"])
  }

  @Test("has the library's account agree with the server's on the requests it cancelled")
  func libraryAgreesWithTheServer() async throws {
    let plan = ScenarioPlan.random(screens: 8, requestsPerScreen: 4, seed: 42)
    let result = try await ScenarioRunner(plan: plan).run(.withAutoCancel)
    let measurement = RunMeasurement(result)
    let library = try #require(measurement.library)
    // The suite is serialized: the account read around the run is this run's alone.
    let reachedServer = library.cancelled - library.cancelledBeforeSent
    #expect(abs(reachedServer - measurement.requestsCancelled) <= 2)
    // What the server sent and the client had not received yet sits in the socket buffers of
    // both ends (and, on Apple platforms, in CFNetwork's own).
    let sent = Int64(measurement.bytesSentOnCancelled)
    #if canImport(FoundationNetworking)
      // The library counts its requests' bytes as they arrive; the server paces its bodies, so
      // a client that reads each chunk as it comes leaves at most one socket buffer, 64 KiB,
      // in flight on each cancelled request. A sanitizer stalls the client for up to seconds
      // while the server goes on writing, into buffers Linux lets grow to a few MiB.
      let inFlight: Int64 = Sanitizers.thread || Sanitizers.address ? 10 << 20 : 64 << 10
      // Every body cut short had its response head: its length is known.
      #expect(library.cancelledWithUnknownRemainder == 0)
    #else
      // XNU grows each socket buffer up to a few MiB (`net.inet.tcp.autorcvbufmax`,
      // `autosndbufmax`); 8 MiB per cancelled request bounds both, with CFNetwork's buffering
      // unmeasured.
      let inFlight: Int64 = 8 << 20
    #endif
    #expect(library.bytesReceivedBeforeCancel <= sent)
    #expect(library.bytesReceivedBeforeCancel >= sent - inFlight * Int64(library.cancelled))
  }
}

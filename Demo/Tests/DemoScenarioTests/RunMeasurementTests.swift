import DemoScenario
import Dispatch
import LoopbackHTTPServer
import Testing

@Suite("A run's measurement")
struct RunMeasurementTests {
  static let exitAt = DispatchTime(uptimeNanoseconds: 10_000_000_000)

  static func at(_ milliseconds: Int) -> DispatchTime {
    DispatchTime(uptimeNanoseconds: UInt64(10_000_000_000 + milliseconds * 1_000_000))
  }

  static func record(
    _ id: String, sent: Int, finishedAt: DispatchTime, wentAway: Bool = false
  ) -> RequestRecord {
    RequestRecord(
      id: id, connection: 1, method: "GET", path: "/slow", query: [:], startedAt: at(-500),
      status: 200, bytesPlanned: 1_000, bytesSent: sent, completed: !wentAway,
      clientWentAwayAt: wentAway ? finishedAt : nil, finishedAt: finishedAt)
  }

  /// Screen `a` left at `exitAt` with: a1 done before, a2 cut 4 ms later, a3 streaming on
  /// for 200 ms, a4 arriving only after the exit, a5 never sent.
  static let result: RunResult = {
    let ids = ["a1", "a2", "a3", "a4", "a5"]
    let plan = ScenarioPlan(
      screens: [
        ScreenPlan(
          id: "a", person: 0,
          requests: ids.map { RequestPlan(id: $0, kind: .image, bodyBytes: 1_000) },
          departure: .leaveAfter(milliseconds: 100))
      ], people: 1)
    let exit = ScreenExit(
      screenID: "a", requestIDs: ids, exitAt: exitAt,
      bytesSentAtExit: ["a1": 1_000, "a2": 300, "a3": 100], finishedAtExit: ["a1"])
    return RunResult(
      mode: .withAutoCancel, plan: plan, startedRequestIDs: ids, exits: [exit],
      records: [
        record("a1", sent: 1_000, finishedAt: at(-10)),
        record("a2", sent: 350, finishedAt: at(4), wentAway: true),
        record("a3", sent: 1_000, finishedAt: at(200)),
        record("a4", sent: 20, finishedAt: at(2), wentAway: true),
      ],
      responsesAfterScreenLeft: 1, requestsFailed: 3, durationSeconds: 1.5)
  }()

  @Test("counts as wasted the bytes sent after the screen left")
  func wastedBytesAreThoseSentAfterTheExit() {
    let measurement = RunMeasurement(Self.result)
    #expect(measurement.bytesSent == 2_370)
    #expect(measurement.wastedBytes == 50 + 900 + 20)
  }

  @Test("counts requests as the server saw them")
  func requestsAreCountedAsTheServerSawThem() {
    let measurement = RunMeasurement(Self.result)
    #expect(measurement.requestsStarted == 5)
    #expect(measurement.requestsSeenByServer == 4)
    #expect(measurement.requestsCompleted == 2)
    #expect(measurement.requestsCancelled == 2)
    #expect(measurement.requestsNeverSent == 1)
  }

  @Test("times latency and busy time from the exit to the server ending each request")
  func latencyAndBusyTimeRunFromTheExitToTheServerEndingEachRequest() {
    let measurement = RunMeasurement(Self.result)
    #expect(measurement.exitToServerEnd.count == 3)
    #expect(measurement.exitToServerEnd.p50 == 4)
    #expect(measurement.exitToServerEnd.p99 == 200)
    #expect(abs(measurement.connectionSecondsAfterExit - 0.206) < 1e-9)
  }

  @Test("takes percentiles by nearest rank")
  func percentilesUseTheNearestRank() {
    let summary = LatencySummary(milliseconds: (1...100).map(Double.init))
    #expect(summary.p50 == 50)
    #expect(summary.p99 == 99)
    #expect(summary.max == 100)
    #expect(LatencySummary(milliseconds: []).count == 0)
  }
}

import AutoCancel
import AutoCancelNetworking
import Dispatch
import Foundation
import LoopbackHTTPServer

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// S7, disconnect: how long after an owner goes away the server sees its request's client
/// leave.
///
/// Each request streams a large body slowly from the loopback server; once the server has
/// sent its first bytes, the owner holding the request's bag is released, and the latency is
/// the server's `clientWentAwayAt` minus the moment of the release. Requests run one at a
/// time, on a session with the default URL cache (the case that crashes raw cancels on
/// Linux), so each figure is the library's path alone: bag deinit → cancel → socket closed.
struct DisconnectScenario: Scenario {
  let id = "S7"

  /// What the requests of one run measured.
  struct Outcome {
    /// Milliseconds from each owner's release to the server seeing its client leave.
    var latencies: [Double] = []
    /// Requests whose start or disconnect the server did not see within its wait.
    var missed = 0
  }

  /// An owner: a screen with a bag, nothing else.
  final class Screen: AutoCancelOwner {
    let cancelBag = CancelBag(label: "bench screen")
  }

  /// Runs `count` requests one after another.
  static func measure(count: Int) async throws -> Outcome {
    let server = LoopbackHTTPServer()
    try server.start()
    defer { server.stop() }
    let session = URLSession(configuration: .default)
    defer { session.invalidateAndCancel() }
    var outcome = Outcome()
    for index in 0..<count {
      let id = "s7-\(index)"
      let url = server.url("/slow?size=50000000&chunk=16384&interval_ms=2&id=\(id)")
      var screen: Screen? = Screen()
      session.dataTask(with: url, in: screen!.cancelBag) { _, _, _ in }.resume()
      // Mid-transfer: the server has started sending the body.
      guard await server.waitForRecord(id: id, where: { $0.bytesSent > 0 }) != nil else {
        outcome.missed += 1
        continue
      }
      let released = DispatchTime.now()
      screen = nil  // the owner goes away: its bag's deinit cancels the request
      guard
        let record = await server.waitForRecord(id: id, where: { $0.clientWentAway }),
        let gone = record.clientWentAwayAt
      else {
        outcome.missed += 1
        continue
      }
      let nanoseconds =
        gone.uptimeNanoseconds >= released.uptimeNanoseconds
        ? gone.uptimeNanoseconds - released.uptimeNanoseconds : 0
      outcome.latencies.append(Double(nanoseconds) / 1_000_000)
    }
    return outcome
  }

  /// The `fraction` percentile of `values` (nearest rank).
  static func percentile(_ values: [Double], _ fraction: Double) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
    return sorted[min(max(rank, 0), sorted.count - 1)]
  }

  func run(in suite: Suite) async -> [ScenarioReport] {
    let count = suite.plan.s7Requests
    suite.log("S7: \(count) requests whose owner goes away mid-transfer, one at a time")
    let outcome: Outcome
    do {
      outcome = try await Self.measure(count: count)
    } catch {
      outcome = Outcome(latencies: [], missed: count)
      suite.log("S7: the loopback server did not start: \(error)")
    }
    let p99 = Self.percentile(outcome.latencies, 0.99)
    var report = ScenarioReport(
      name: "S7",
      title:
        "owner gone → server sees the client leave, \(grouped(count)) requests on loopback (ms; "
        + "median is p50)",
      references: [],
      results: [
        Figure(
          scenario: "S7-disconnect", implementation: "AutoCancel", unit: "ms",
          samples: outcome.latencies),
        Figure(
          scenario: "S7-disconnect-p99", implementation: "AutoCancel", unit: "ms", samples: [p99],
          sizeNote: "p99"),
      ])
    report.notes.append(
      "the first row is every request's latency (median = p50); the second is the p99.")
    report.notes.append(
      "one request at a time: /slow body of 50 MB in 16 KB chunks every 2 ms; the owner is "
        + "released once the server has sent its first bytes; a session with the default URL "
        + "cache. Disconnects the server did not see: \(outcome.missed).")
    report.target = { _ in
      TargetVerdict(
        pass: p99 < 20 && outcome.missed == 0,
        detail:
          "p99 < 20 ms (\(fixed(p99, 2)) ms), every disconnect seen (missed \(outcome.missed))")
    }
    return [report]
  }
}

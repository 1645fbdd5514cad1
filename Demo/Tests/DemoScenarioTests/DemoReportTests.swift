import DemoScenario
import Foundation
import Testing

@Suite("The demo's report")
struct DemoReportTests {
  static let report = DemoReport(
    plan: RunMeasurementTests.result.plan, seed: 5,
    without: RunMeasurement(RunMeasurementTests.result),
    with: RunMeasurement(RunMeasurementTests.result))

  @Test("gives both runs in JSON, with wasted bytes and exit-to-disconnect percentiles")
  func jsonHasBothRunsWithWasteBytesAndExitToDisconnectPercentiles() throws {
    let text = Self.report.json()
    #expect(!text.contains("\n"))
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    #expect(object["seed"] as? Int == 5)
    for run in ["without", "with"] {
      let measured = try #require(object[run] as? [String: Any])
      #expect(measured["wasted_bytes"] as? Int == 970)
      #expect(measured["bytes_sent"] as? Int == 2_370)
      let latency = try #require(measured["exit_to_disconnect_ms"] as? [String: Any])
      #expect(latency["p50"] as? Double == 4)
      #expect(latency["p99"] as? Double == 200)
    }
  }

  @Test("is a table with a row per measure and a column per run")
  func theTableHasARowPerMeasureAndAColumnPerRun() {
    let table = Self.report.table()
    #expect(table.contains("without binding"))
    #expect(table.contains("with AutoCancel"))
    #expect(table.contains("wasted: sent after its screen left"))
    #expect(table.contains("970 B"))
  }
}

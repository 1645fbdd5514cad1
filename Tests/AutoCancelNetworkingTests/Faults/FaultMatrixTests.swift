import AutoCancelTestSupport
import Foundation
import Testing

/// Every form of request against every fault the loopback server plays, on every kind of
/// session, ended by every trigger: see ``FaultCell`` for the table, ``FaultRun`` for the one
/// runner and what it checks.
@Suite("Requests meeting a misbehaving network", timeLimit(minutes: 120))
struct FaultMatrixTests {
  @Test(
    "end as they must, once, leaving nothing behind: every fault meets every form",
    timeLimit(minutes: 3))
  func sample() async throws {
    try await run(seeds: [TestSeed.fresh()], cells: FaultMatrix.sample(seed:))
  }

  @Test(
    "end as they must in every cell of the matrix, over several seeds",
    .enabled(if: FaultMatrix.isFull, "AUTOCANCEL_FAULT_MATRIX=full"))
  func fullMatrix() async throws {
    try await run(
      seeds: TestSeed.fresh(count: FaultMatrix.seedCount), cells: FaultMatrix.full(seed:))
  }

  private func run(seeds: [UInt64], cells: (UInt64) -> [FaultCell]) async throws {
    for seed in seeds {
      let plan = cells(seed)
      print(
        "fault-matrix \(TestSeed.describe(seed)): \(plan.count) cells,"
          + " timeout \(FaultMatrix.requestTimeout) s")
      let run = try FaultRun(seed: seed, requestTimeout: FaultMatrix.requestTimeout)
      let reports = await run.run(plan, parallel: FaultMatrix.parallel)
      for report in reports {
        for problem in report.problems {
          Issue.record("\(report.cell): \(problem) (\(TestSeed.describe(seed)))")
        }
      }
      for problem in await run.finish() {
        Issue.record("\(problem) (\(TestSeed.describe(seed)))")
      }
      let failed = reports.filter { !$0.problems.isEmpty }.count
      print(
        "fault-matrix \(TestSeed.describe(seed)): \(reports.count - failed) of \(reports.count) cells ok"
      )
    }
  }
}

/// S4, contention: two threads add and finish on one shared bag at the same time.
///
/// Its figure depends on how the two threads overlap, so it runs differently from the other
/// scenarios: both threads wait at a start line before the clock starts, so every round
/// measures two threads contending rather than one thread that started early; the rounds are
/// shorter and there are many more of them (25 by default, `RunPlan.s4Repetitions`), so the
/// median ratio of paired rounds does not hang on a few rounds the scheduler spoilt.
struct TwoThreadsScenario: Scenario {
  let id = "S4"

  func run(in suite: Suite) async -> [ScenarioReport] {
    let perThread = suite.plan.s4PerThread
    let repetitions = suite.plan.s4Repetitions
    suite.log("S4: 2 threads × \(perThread) add+finish on one bag, \(repetitions) rounds")
    let impls = suite.selected([.autoCancel, .naive, .plain, .floor, .originPort])
    let samples = suite.interleave(
      impls.map { impl in { impl.twoThreads(perThread) / Double(2 * perThread) } },
      repetitions: repetitions)
    var report = ScenarioReport(
      name: "S4",
      title: "2 threads × \(grouped(perThread)) add+finish cycles on one bag, started together, "
        + "\(repetitions) rounds (ns per cycle: wall time / all cycles)",
      references: ["floor", "naive", "plain"],
      results: zip(impls, samples).map {
        Figure(scenario: "S4", implementation: $0.name, unit: "ns", samples: $1)
      })
    report.target = Target.ratio("naive", atMost: 0.8)
    return [report]
  }
}

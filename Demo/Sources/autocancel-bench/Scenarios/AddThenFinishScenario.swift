/// S1, add+finish: a fresh work item added to one bag and finished at once, over and over —
/// the hot path of every request.
struct AddThenFinishScenario: Scenario {
  let id = "S1"

  func run(in suite: Suite) async -> [ScenarioReport] {
    let cycles = suite.plan.s1Cycles
    suite.log("S1: add then finish, \(cycles) cycles")
    let impls = suite.selected([.autoCancel, .naive, .plain, .floor, .originPort, .originPortQuirk])
    let samples = suite.interleave(
      impls.map { impl in { impl.addThenFinish(cycles, 0) / Double(cycles) } })
    var report = ScenarioReport(
      name: "S1", title: "add then finish, \(grouped(cycles)) cycles on one bag (ns per cycle)",
      references: ["floor", "naive", "plain"],
      results: zip(impls, samples).map {
        Figure(scenario: "S1", implementation: $0.name, unit: "ns", samples: $1)
      })
    if suite.runs(OriginPortBag.name) && suite.runs(OriginPortQuirkBag.name) {
      report.notes.append(quirkNote())
    }
    report.target = Target.ratio("floor", atMost: 2.5)
    return [report]
  }

  /// What the index-0 quirk leaves behind, observed on real bags.
  private func quirkNote() -> String {
    func boxesAfterCycles(_ add: (Work) -> Work, _ count: () -> Int) -> Int {
      for _ in 0..<1_000 { _ = add(Work()) }
      return count()
    }
    let faithful = OriginPortBag()
    let quirk = OriginPortQuirkBag()
    let faithfulBoxes = boxesAfterCycles(faithful.add, { faithful.boxCount })
    let quirkBoxes = boxesAfterCycles(quirk.add, { quirk.boxCount })
    return "origin-port-quirk keeps the original sweep `for (i = count - 1; i > 0; i--)`: "
      + "after 1,000 add+finish cycles its array holds \(quirkBoxes) boxes (the dead box at "
      + "index 0 is never removed, with its weak side table) vs \(faithfulBoxes) for origin-port; "
      + "one extra box examined per add, one dead box kept per bag for its whole life."
  }
}

/// S1b, add+finish among live work: S1 on a bag that already holds other live items, as the
/// bag of a screen with requests in flight does.
struct AddAmongLiveScenario: Scenario {
  let id = "S1b"

  func run(in suite: Suite) async -> [ScenarioReport] {
    let others = suite.plan.s1bOthers
    let cycles = suite.plan.s1Cycles
    let originCycles = suite.plan.originS1bCycles
    suite.log("S1b: add then finish with \(others) live")
    let impls = suite.selected([.autoCancel, .naive, .plain, .floor, .originPort, .originPortQuirk])
    let samples = suite.interleave(
      impls.map { impl in
        let count = impl.isOrigin ? originCycles : cycles
        return { impl.addThenFinish(count, others) / Double(count) }
      })
    var report = ScenarioReport(
      name: "S1b",
      title: "add then finish, \(grouped(cycles)) cycles, \(grouped(others)) other items live "
        + "(ns per cycle)",
      references: ["floor", "naive", "plain"],
      results: zip(impls, samples).map { impl, samples in
        var result = Figure(
          scenario: "S1b", implementation: impl.name, unit: "ns", samples: samples)
        if impl.isOrigin { result.sizeNote = "\(grouped(originCycles)) cycles" }
        return result
      })
    report.notes.append(
      "origin-port sweeps all \(grouped(others)) live boxes on every add: it runs "
        + "\(grouped(originCycles)) cycles (cost per cycle does not depend on the count).")
    report.target = Target.ratio("floor", atMost: 2.5)
    return [report]
  }
}

/// S5, memory: heap bytes each live registration costs beyond the work item itself.
struct HeapPerItemScenario: Scenario {
  let id = "S5"

  func run(in suite: Suite) async -> [ScenarioReport] {
    let plan = suite.plan
    let live = plan.s5Live
    let originLive = plan.originS5Live
    suite.log("S5: heap per live registration, \(live) live")
    let impls = suite.selected([.floor, .autoCancel, .naive, .plain, .originPort])
    let samples = suite.interleave(
      impls.map { impl in { impl.heapPerLiveItem(impl.isOrigin ? originLive : live) } },
      repetitions: min(plan.repetitions, plan.heapRepetitions), warmUp: false)
    let floorSamples = zip(impls, samples).first { $0.0.name == FloorBag.name }?.1
    var results: [Figure] = []
    for (impl, implSamples) in zip(impls, samples) {
      var beyondWork = implSamples
      if impl.name != FloorBag.name, let floorSamples {
        beyondWork = zip(implSamples, floorSamples).map { $0 - $1 }
      }
      var result = Figure(
        scenario: "S5", implementation: impl.name, unit: "bytes", samples: beyondWork)
      if impl.isOrigin { result.sizeNote = "\(grouped(originLive)) live" }
      results.append(result)
    }
    var report = ScenarioReport(
      name: "S5",
      title: "heap bytes per live registration with \(grouped(live)) live, beyond the work "
        + "item (mallinfo2 delta; the floor row is the work item itself)",
      references: [], results: results)
    report.notes.append(
      "every row but floor is (heap delta per item) − (floor's per item, same repetition).")
    report.notes.append(
      "origin-port is measured at \(grouped(originLive)) live (each add sweeps every live box).")
    report.target = { report in
      let median = report.result("AutoCancel")?.median ?? .nan
      return TargetVerdict(pass: median <= 48, detail: "≤ 48 bytes (\(fixed(median, 1)))")
    }
    return [report]
  }
}

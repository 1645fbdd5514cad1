/// S2, small bags: create a bag, add N items that stay live, end it — a screen's whole life
/// with its requests in flight. Bag creation and release are in every figure.
struct SmallBagsScenario: Scenario {
  let id = "S2"

  func run(in suite: Suite) async -> [ScenarioReport] {
    let impls = suite.selected([.autoCancel, .naive, .plain, .floor, .originPort])
    return suite.plan.smallBags.map { run in report(run, impls, suite) }
  }

  private func report(
    _ run: SmallBagRun, _ impls: [Implementation], _ suite: Suite
  ) -> ScenarioReport {
    suite.log("S2-\(run.label): add \(run.size.items) live, end the bag")
    let samples = suite.interleave(
      impls.map { impl in
        let size = impl.isOrigin ? run.originSize : run.size
        return { impl.addLiveThenEnd(size.items, size.bags) / Double(size.items * size.bags) }
      })
    let name = "S2-\(run.label)"
    let originReduced =
      run.originSize.items != run.size.items || run.originSize.bags != run.size.bags
    var report = ScenarioReport(
      name: name,
      title: "add \(grouped(run.size.items)) live items then end the bag, "
        + "\(grouped(run.size.bags)) bag(s) per repetition (ns per item, bag creation and "
        + "release included)",
      references: ["floor", "naive", "plain"],
      results: zip(impls, samples).map { impl, samples in
        var result = Figure(
          scenario: name, implementation: impl.name, unit: "ns", samples: samples)
        if impl.isOrigin && originReduced {
          result.sizeNote =
            "\(grouped(run.originSize.items)) items × \(run.originSize.bags) bag(s)"
        }
        return result
      })
    if run.originSize.items != run.size.items {
      report.notes.append(
        "origin-port sweeps every live box on each add (quadratic): it runs "
          + "\(grouped(run.originSize.items)) items per bag; at \(grouped(run.size.items)) its "
          + "cost per item would be about \(run.size.items / run.originSize.items)× the figure "
          + "shown.")
    }
    if run.size.items == 10 {
      // Per item, within half again the work's own allocation and release: twice as fast as
      // RxSwift's append-only DisposeBag, which is within 1.65× of that floor.
      report.target = Target.all([
        Target.ratio("naive", atMost: 0.8), Target.ratio("plain", atMost: 1.0),
        Target.ratio("floor", atMost: 1.5),
      ])
    }
    return report
  }
}

/// S2-bag, bag creation and release on their own: what the small-bag scenario spreads over
/// its items. An empty bag created and released; and a bag created, given one live item,
/// and ended (so the item is cancelled and released with it).
struct BagLifecycleScenario: Scenario {
  let id = "S2-bag"

  func run(in suite: Suite) async -> [ScenarioReport] {
    let bags = suite.plan.lifecycleBags
    suite.log("S2-bag: \(bags) bags created and released, empty and with one item")
    // An empty floor bag does nothing at all: it has no row in the empty-bag table.
    let emptyImpls = suite.selected([.autoCancel, .naive, .plain, .originPort])
    let oneItemImpls = suite.selected([.autoCancel, .naive, .plain, .floor, .originPort])
    let empty = suite.interleave(
      emptyImpls.map { impl in { impl.addLiveThenEnd(0, bags) / Double(bags) } })
    let oneItem = suite.interleave(
      oneItemImpls.map { impl in { impl.addLiveThenEnd(1, bags) / Double(bags) } })
    // A screen's bag costs no more than a locked dictionary would, empty or with one item.
    var emptyReport = ScenarioReport(
      name: "S2-bag-empty",
      title: "create an empty bag and release it, \(grouped(bags)) bags per repetition (ns per "
        + "bag)",
      references: ["naive", "plain"],
      results: zip(emptyImpls, empty).map {
        Figure(scenario: "S2-bag-empty", implementation: $0.name, unit: "ns", samples: $1)
      })
    var oneItemReport = ScenarioReport(
      name: "S2-bag-1",
      title: "create a bag, add one live item, end the bag, \(grouped(bags)) bags per "
        + "repetition (ns per bag)",
      references: ["floor", "naive", "plain"],
      results: zip(oneItemImpls, oneItem).map {
        Figure(scenario: "S2-bag-1", implementation: $0.name, unit: "ns", samples: $1)
      })
    emptyReport.target = Target.ratio("plain", atMost: 1.0)
    oneItemReport.target = Target.ratio("plain", atMost: 1.0)
    oneItemReport.notes.append(
      "the item is live when the bag ends: the bag cancels and releases it; floor is the work "
        + "item's allocation and release alone.")
    return [emptyReport, oneItemReport]
  }
}

/// One scenario of the bench: an id (what `--only` selects, and the prefix of the ids of the
/// tables it prints) and the measurement itself.
protocol Scenario: Sendable {
  /// "S1", "S2", "S2-bag", ...: the group `--only` names.
  var id: String { get }

  /// Runs every repetition and returns one report per table.
  func run(in suite: Suite) async -> [ScenarioReport]
}

/// Every scenario, in the order of the output.
let allScenarios: [any Scenario] = [
  AddThenFinishScenario(),
  AddAmongLiveScenario(),
  SmallBagsScenario(),
  BagLifecycleScenario(),
  GrowthScenario(),
  TwoThreadsScenario(),
  HeapPerItemScenario(),
  TaskLaunchScenario(),
  DisconnectScenario(),
  OneLinerScenario(),
]

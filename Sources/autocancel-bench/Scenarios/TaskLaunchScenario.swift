/// S6, task launches: `bag.task { }` launched and awaited, against a bare `Task { }`.
struct TaskLaunchScenario: Scenario {
  let id = "S6"

  func run(in suite: Suite) async -> [ScenarioReport] {
    let launches = suite.plan.s6Launches
    suite.log("S6: \(launches) task launches, awaited")
    var names: [String] = []
    var bodies: [() async -> Double] = []
    if suite.runs("AutoCancel") {
      names.append("AutoCancel")
      bodies.append { await TaskBodies.bagTask(count: launches) / Double(launches) }
    }
    if suite.runs("Task") {
      names.append("Task")
      bodies.append { await TaskBodies.bareTask(count: launches) / Double(launches) }
    }
    let samples = await suite.interleaveAsync(bodies)
    var report = ScenarioReport(
      name: "S6",
      title: "launch a task and await its completion, \(grouped(launches)) times (ns per task)",
      references: ["Task"],
      results: zip(names, samples).map {
        Figure(scenario: "S6", implementation: $0, unit: "ns", samples: $1)
      })
    report.notes.append("AutoCancel is `bag.task { }`; Task is a bare `Task { }`.")
    report.target = Target.ratio("Task", atMost: 1.25)
    return [report]
  }
}

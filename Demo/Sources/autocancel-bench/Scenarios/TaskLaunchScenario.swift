/// S6, task launches: `bag.task { }` launched and awaited, against a bare `Task { }`.
struct TaskLaunchScenario: Scenario {
  let id = "S6"

  func run(in suite: Suite) async -> [ScenarioReport] {
    let launches = suite.plan.s6Launches
    suite.log("S6: \(launches) task launches, awaited")
    var report = ScenarioReport(
      name: "S6",
      title: "launch a task and await its completion, \(grouped(launches)) times (ns per task)",
      references: ["Task"],
      results: await suite.figuresAgainstBareTask(scenario: "S6", launches: launches) {
        await TaskBodies.bagTask(count: $0)
      })
    report.notes.append("AutoCancel is `bag.task { }`; Task is a bare `Task { }`.")
    report.target = Target.ratio("Task", atMost: 1.25)
    return [report]
  }
}

/// S8, the one-liner: work that completes and says so, bound with `owner.autoCancel(work)`
/// on a long-lived owner and never finished by hand; the bag must let it go by itself,
/// without costing the hot path. Three tables: time per bind+complete beside S1 and the
/// origin port, `Task` churn through the one-liner, and the heap the owner holds afterwards.
struct OneLinerScenario: Scenario {
  let id = "S8"

  /// The name of the S1 row measured beside the one-liner, its reference.
  static let addThenFinishRow = "S1 add+finish"

  func run(in suite: Suite) async -> [ScenarioReport] {
    var reports = [bindThenComplete(suite)]
    reports.append(await taskChurn(suite))
    reports.append(await held(suite))
    return reports
  }

  private func bindThenComplete(_ suite: Suite) -> ScenarioReport {
    let cycles = suite.plan.s8Cycles
    suite.log("S8: \(cycles) bind+complete cycles through the one-liner")
    var names: [String] = []
    var bodies: [() -> Double] = []
    if suite.runs("AutoCancel") {
      names.append("AutoCancel")
      bodies.append { OneLinerBodies.bindThenComplete(cycles: cycles) / Double(cycles) }
      names.append(Self.addThenFinishRow)
      let s1 = Implementation.autoCancel
      bodies.append { s1.addThenFinish(cycles, 0) / Double(cycles) }
    }
    if suite.runs(OriginPortBag.name) {
      names.append(OriginPortBag.name)
      let origin = Implementation.originPort
      bodies.append { origin.addThenFinish(cycles, 0) / Double(cycles) }
    }
    let samples = suite.interleave(bodies)
    var report = ScenarioReport(
      name: "S8-oneliner",
      title: "bind with `owner.autoCancel(work)` then complete, \(grouped(cycles)) cycles on one "
        + "long-lived owner (ns per cycle)",
      references: [Self.addThenFinishRow],
      results: zip(names, samples).map {
        Figure(scenario: "S8-oneliner", implementation: $0, unit: "ns", samples: $1)
      })
    report.notes.append(
      "AutoCancel: a class that sets `isFinished` when it completes, never `finish()`ed; "
        + "\(Self.addThenFinishRow): S1's add+finish on the same run; origin-port: bind, then "
        + "the request released (its weak box is swept by the next add).")
    report.target = Target.ratio(Self.addThenFinishRow, atMost: 2.0)
    return report
  }

  private func taskChurn(_ suite: Suite) async -> ScenarioReport {
    let launches = suite.plan.s8TaskLaunches
    suite.log("S8: \(launches) tasks bound through the one-liner")
    var report = ScenarioReport(
      name: "S8-oneliner-task",
      title: "`owner.autoCancel(Task { })`, awaited, \(grouped(launches)) times on one "
        + "long-lived owner (ns per task)",
      references: ["Task"],
      results: await suite.figuresAgainstBareTask(
        scenario: "S8-oneliner-task", launches: launches
      ) {
        await OneLinerBodies.bindTask(count: $0)
      })
    report.notes.append("Task is a bare `Task { }`, awaited, bound to nothing.")
    return report
  }

  private func held(_ suite: Suite) async -> ScenarioReport {
    let items = suite.plan.s8HeldItems
    let launches = suite.plan.s8TaskLaunches
    let repetitions = min(suite.plan.repetitions, suite.plan.heapRepetitions)
    suite.log("S8: heap held after \(items) completed items")
    var results: [Figure] = []
    func figure(_ name: String, _ samples: [Double], _ sizeNote: String? = nil) -> Figure {
      var figure = Figure(
        scenario: "S8-oneliner-held", implementation: name, unit: "bytes", samples: samples)
      figure.sizeNote = sizeNote
      return figure
    }
    if suite.runs("AutoCancel") {
      results.append(
        figure(
          "AutoCancel",
          suite.interleave(
            [{ OneLinerBodies.heldAfterBindThenComplete(count: items) }],
            repetitions: repetitions, warmUp: false)[0]))
      var taskSamples: [Double] = []
      for _ in 0..<repetitions {
        taskSamples.append(await OneLinerBodies.heldAfterTasks(count: launches))
      }
      results.append(figure("AutoCancel Task", taskSamples, "\(grouped(launches)) tasks"))
    }
    if suite.runs(OriginPortBag.name) {
      results.append(
        figure(
          OriginPortBag.name,
          suite.interleave(
            [{ OneLinerBodies.originHeldAfterBindThenRelease(count: items) }],
            repetitions: repetitions, warmUp: false)[0]))
    }
    var report = ScenarioReport(
      name: "S8-oneliner-held",
      title: "heap bytes a long-lived owner holds after \(grouped(items)) completed items bound "
        + "with the one-liner (mallinfo2 delta, the owner still alive)",
      references: [], results: results)
    for figure in results {
      let count = figure.implementation == "AutoCancel Task" ? launches : items
      report.notes.append(
        "\(figure.implementation): \(fixed(figure.median / Double(count), 1)) bytes per "
          + "completed item")
    }
    report.notes.append(
      "work that leaves once finished holds a small constant; work kept until the owner goes "
        + "holds bytes in proportion to the count.")
    return report
  }
}

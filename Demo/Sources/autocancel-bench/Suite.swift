/// What every scenario runs with: the plan, the implementations chosen on the command line,
/// the progress log, and the interleaving of repetitions.
struct Suite {
  let plan: RunPlan
  /// Implementation names to run (`--implementations`), or nil for all.
  let implementations: Set<String>?
  let log: (String) -> Void

  /// `impls` without those left out by `--implementations`.
  func selected(_ impls: [Implementation]) -> [Implementation] {
    guard let implementations else { return impls }
    return impls.filter { implementations.contains($0.name) }
  }

  /// Whether the implementation (or reference row) `name` runs.
  func runs(_ name: String) -> Bool { implementations?.contains(name) ?? true }

  /// Runs `bodies` once each as a discarded warm-up, then `repetitions` (default
  /// `plan.repetitions`) rounds of A, B, C, ... Returns the samples of each body, in order.
  func interleave(
    _ bodies: [() -> Double], repetitions: Int? = nil, warmUp: Bool = true
  ) -> [[Double]] {
    if warmUp {
      for body in bodies { _ = body() }
    }
    var samples = [[Double]](repeating: [], count: bodies.count)
    for _ in 0..<(repetitions ?? plan.repetitions) {
      for (index, body) in bodies.enumerated() { samples[index].append(body()) }
    }
    return samples
  }

  /// The asynchronous form of ``interleave(_:repetitions:warmUp:)``.
  func interleaveAsync(_ bodies: [() async -> Double]) async -> [[Double]] {
    for body in bodies { _ = await body() }
    var samples = [[Double]](repeating: [], count: bodies.count)
    for _ in 0..<plan.repetitions {
      for (index, body) in bodies.enumerated() { samples[index].append(await body()) }
    }
    return samples
  }

  /// `launches` tasks launched through AutoCancel (`autoCancel` returns their total
  /// nanoseconds) beside as many bare `Task { }`s, interleaved: ns per task, as figures of
  /// `scenario`.
  func figuresAgainstBareTask(
    scenario: String, launches: Int, _ autoCancel: @escaping (Int) async -> Double
  ) async -> [Figure] {
    var names: [String] = []
    var bodies: [() async -> Double] = []
    if runs("AutoCancel") {
      names.append("AutoCancel")
      bodies.append { await autoCancel(launches) / Double(launches) }
    }
    if runs("Task") {
      names.append("Task")
      bodies.append { await TaskBodies.bareTask(count: launches) / Double(launches) }
    }
    let samples = await interleaveAsync(bodies)
    return zip(names, samples).map {
      Figure(scenario: scenario, implementation: $0, unit: "ns", samples: $1)
    }
  }
}

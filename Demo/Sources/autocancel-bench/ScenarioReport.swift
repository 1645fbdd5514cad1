/// A scenario's block in the table: its results, what ratios to show, its target.
struct ScenarioReport {
  let name: String
  let title: String
  /// Implementations to show ratios against (`floor`, `naive`, `Task`).
  let references: [String]
  var results: [Figure]
  var notes: [String] = []
  /// Evaluates the target for `AutoCancel`; nil when there is none.
  var target: ((ScenarioReport) -> TargetVerdict)?

  func result(_ implementation: String) -> Figure? {
    results.first { $0.implementation == implementation }
  }

  /// Paired median ratio of two implementations' samples (nan if one is missing).
  func ratio(_ implementation: String, _ reference: String) -> Double {
    guard let figure = result(implementation), let other = result(reference) else { return .nan }
    return figure.ratio(to: other)
  }
}

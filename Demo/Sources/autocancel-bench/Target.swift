/// The targets the bench checks for `AutoCancel`, built from paired ratios of one run.
enum Target {
  /// A scenario's target as a function of its report.
  typealias Check = (ScenarioReport) -> TargetVerdict

  /// `implementation`'s paired median ratio to `reference` is at most `limit`.
  static func ratio(
    _ reference: String, atMost limit: Double, of implementation: String = "AutoCancel"
  ) -> Check {
    { report in
      let ratio = report.ratio(implementation, reference)
      return TargetVerdict(
        pass: ratio <= limit, detail: "≤ \(limit)× \(reference) (\(fixed(ratio, 2))×)")
    }
  }

  /// Every one of `checks` passes.
  static func all(_ checks: [Check]) -> Check {
    { report in
      let verdicts = checks.map { $0(report) }
      return TargetVerdict(
        pass: verdicts.allSatisfy(\.pass),
        detail: verdicts.map(\.detail).joined(separator: ", "))
    }
  }
}

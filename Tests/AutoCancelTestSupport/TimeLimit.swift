import Testing

/// Swift Testing's time limit, on every platform that has it.
///
/// `.timeLimit` needs macOS 13 / iOS 16 / tvOS 16 / watchOS 9, and Swift Testing rejects
/// `@available` on a suite, so suites at the package's floors (macOS 12 / iOS 15) name their
/// limit through this function. Where the platform has no time limit, it is a condition that
/// always holds, and the tests' own bounded waits remain the guard against hangs.
public func timeLimit(minutes: Int) -> any TestTrait & SuiteTrait {
  if #available(macOS 13.0, iOS 16.0, tvOS 16.0, watchOS 9.0, *) {
    return TimeLimitTrait.timeLimit(.minutes(minutes))
  }
  return ConditionTrait.enabled(if: true)
}

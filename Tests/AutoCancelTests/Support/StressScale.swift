import Foundation

/// Sizes of the long and concurrent tests.
///
/// Under ThreadSanitizer (`.ci/run` sets `AUTOCANCEL_TSAN=1` for `swift test
/// --sanitize=thread`) every memory access is instrumented, so the sequential million is
/// scaled down to keep the suite fast; the contract checked is the same.
enum StressScale {
  static let underThreadSanitizer = ProcessInfo.processInfo.environment["AUTOCANCEL_TSAN"] == "1"

  /// Add-and-finish cycles of the O(1) test: 1,000,000, or 200,000 under TSan.
  static let millionCycles = underThreadSanitizer ? 200_000 : 1_000_000
}

import AutoCancelTestSupport
import Foundation

/// Sizes of the reliability runs, read once from the environment (their seeds come from
/// ``TestSeed``).
///
/// `AUTOCANCEL_RELIABILITY_OPS=<n>` sets the number of operations of the model-based suite
/// (default 1,000,000).
enum ReliabilityConfig {
  /// Operations for the whole model-based suite: `AUTOCANCEL_RELIABILITY_OPS`, else
  /// 1,000,000; 50,000 under ThreadSanitizer and 100,000 under AddressSanitizer, which make
  /// every operation about 25 and 8 times slower on this machine (set the variable to run
  /// more).
  static let totalOperations: Int =
    ProcessInfo.processInfo.environment["AUTOCANCEL_RELIABILITY_OPS"]
    .flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    ?? (Sanitizers.thread ? 50_000 : Sanitizers.address ? 100_000 : 1_000_000)

  /// What the runs are checked under, for the report.
  static var instrumentation: String { Sanitizers.description }
}

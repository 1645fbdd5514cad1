import AutoCancelTestSupport
import Foundation
import SeededRandom

/// Seeds and sizes of the reliability runs, read once from the environment.
///
/// - `AUTOCANCEL_SEED=<n>` replays the one run printed in a failure message.
/// - `AUTOCANCEL_RELIABILITY_OPS=<n>` sets the number of operations of the model-based suite
///   (default 1,000,000).
enum ReliabilityConfig {
  /// The seed given to replay one run, if any.
  static let replaySeed: UInt64? = ProcessInfo.processInfo.environment["AUTOCANCEL_SEED"]
    .flatMap { UInt64($0.trimmingCharacters(in: .whitespaces)) }

  /// The seed the runs of this process derive theirs from.
  static let baseSeed: UInt64 = replaySeed ?? UInt64.random(in: 1...UInt64.max)

  /// Operations for the whole model-based suite: `AUTOCANCEL_RELIABILITY_OPS`, else
  /// 1,000,000; 50,000 under ThreadSanitizer and 100,000 under AddressSanitizer, which make
  /// every operation about 25 and 8 times slower on this machine (set the variable to run
  /// more).
  static let totalOperations: Int =
    ProcessInfo.processInfo.environment["AUTOCANCEL_RELIABILITY_OPS"]
    .flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    ?? (Sanitizers.thread ? 50_000 : Sanitizers.address ? 100_000 : 1_000_000)

  /// What the runs are checked under, for the report.
  static var instrumentation: String {
    Sanitizers.thread
      ? "ThreadSanitizer"
      : Sanitizers.address ? "AddressSanitizer" : Sanitizers.valgrind ? "valgrind" : "none"
  }

  /// The seeds of `count` runs: the replayed one alone, or `count` derived from the base seed.
  static func seeds(count: Int) -> [UInt64] {
    if let replaySeed { return [replaySeed] }
    return (0..<count).map { SeededGenerator.derive(baseSeed, $0) }
  }
}

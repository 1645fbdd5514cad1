import Foundation

/// A small, fast, reproducible random number generator (SplitMix64).
///
/// The same seed gives the same sequence on every run and every platform, which is what makes
/// a failing stress run replayable.
struct SeededGenerator: RandomNumberGenerator {
  private var state: UInt64

  init(seed: UInt64) {
    state = seed
  }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// True with probability `percent` / 100.
  mutating func chance(_ percent: Int) -> Bool {
    below(100) < percent
  }

  /// A number in `0..<bound` (the modulo bias is negligible for the small bounds used here,
  /// and this is much cheaper than `Int.random(in:using:)` in debug builds).
  mutating func below(_ bound: Int) -> Int {
    Int(truncatingIfNeeded: next() % UInt64(bound))
  }

  /// A number in `range`.
  mutating func within(_ range: ClosedRange<Int>) -> Int {
    range.lowerBound + below(range.upperBound - range.lowerBound + 1)
  }

  /// A seed derived from `base` for run number `index`: independent streams, one per run.
  static func derive(_ base: UInt64, _ index: Int) -> UInt64 {
    var generator = SeededGenerator(
      seed: base ^ (UInt64(truncatingIfNeeded: index) &* 0xD6E8_FEB8_6659_FD93))
    return generator.next()
  }
}

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

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
    Int.random(in: 0..<100, using: &self) < percent
  }

  /// A seed derived from `base` for run number `index`: independent streams, one per run.
  static func derive(_ base: UInt64, _ index: Int) -> UInt64 {
    var generator = SeededGenerator(seed: base ^ (UInt64(truncatingIfNeeded: index) &* 0xD6E8_FEB8_6659_FD93))
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

  /// Operations for the whole model-based suite.
  static let totalOperations: Int =
    ProcessInfo.processInfo.environment["AUTOCANCEL_RELIABILITY_OPS"]
    .flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } ?? 1_000_000

  /// The seeds of `count` runs: the replayed one alone, or `count` derived from the base seed.
  static func seeds(count: Int) -> [UInt64] {
    if let replaySeed { return [replaySeed] }
    return (0..<count).map { SeededGenerator.derive(baseSeed, $0) }
  }
}

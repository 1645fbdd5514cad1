/// A small, fast, reproducible random number generator (SplitMix64).
///
/// The same seed gives the same sequence on every run and every platform, which is what makes
/// a demo scenario drawn from a seed, or a failing stress run, replayable. Not for anything
/// that needs unpredictable numbers.
///
/// A value type: a copy continues the sequence on its own, from where the original was.
///
/// ```swift
/// var random = SeededGenerator(seed: 42)
/// let size = Int.random(in: 1_000...5_000, using: &random)  // the same on every run
/// let leaveEarly = random.chance(75)
/// ```
public struct SeededGenerator: RandomNumberGenerator, Sendable {
  private var state: UInt64

  /// A generator whose sequence is determined by `seed` alone.
  public init(seed: UInt64) {
    state = seed
  }

  /// The next number of the sequence.
  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var mixed = state
    mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
    mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
    return mixed ^ (mixed >> 31)
  }

  /// True with probability `percent` / 100.
  public mutating func chance(_ percent: Int) -> Bool {
    below(100) < percent
  }

  /// A number in `0..<bound`; `bound` must be positive.
  ///
  /// The modulo bias is negligible for the small bounds the package uses, and this is much
  /// cheaper than `Int.random(in:using:)` in debug builds.
  public mutating func below(_ bound: Int) -> Int {
    Int(truncatingIfNeeded: next() % UInt64(bound))
  }

  /// A number in `range`.
  public mutating func within(_ range: ClosedRange<Int>) -> Int {
    range.lowerBound + below(range.upperBound - range.lowerBound + 1)
  }

  /// A seed derived from `base` for run number `index`: independent streams, one per run.
  public static func derive(_ base: UInt64, _ index: Int) -> UInt64 {
    var generator = SeededGenerator(
      seed: base ^ (UInt64(truncatingIfNeeded: index) &* 0xD6E8_FEB8_6659_FD93))
    return generator.next()
  }
}

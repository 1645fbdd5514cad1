/// A small, fast, reproducible random number generator (SplitMix64).
///
/// The same seed gives the same sequence on every run and every platform, which is what makes
/// a failing stress run replayable.
package struct SeededGenerator: RandomNumberGenerator {
  private var state: UInt64

  package init(seed: UInt64) {
    state = seed
  }

  package mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// True with probability `percent` / 100.
  package mutating func chance(_ percent: Int) -> Bool {
    below(100) < percent
  }

  /// A number in `0..<bound` (the modulo bias is negligible for the small bounds used here,
  /// and this is much cheaper than `Int.random(in:using:)` in debug builds).
  package mutating func below(_ bound: Int) -> Int {
    Int(truncatingIfNeeded: next() % UInt64(bound))
  }

  /// A number in `range`.
  package mutating func within(_ range: ClosedRange<Int>) -> Int {
    range.lowerBound + below(range.upperBound - range.lowerBound + 1)
  }

  /// A seed derived from `base` for run number `index`: independent streams, one per run.
  package static func derive(_ base: UInt64, _ index: Int) -> UInt64 {
    var generator = SeededGenerator(
      seed: base ^ (UInt64(truncatingIfNeeded: index) &* 0xD6E8_FEB8_6659_FD93))
    return generator.next()
  }
}

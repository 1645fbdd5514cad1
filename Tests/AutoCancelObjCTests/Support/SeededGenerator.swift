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

  /// A number in `0..<bound`.
  mutating func below(_ bound: Int) -> Int {
    Int(truncatingIfNeeded: next() % UInt64(bound))
  }

  /// A seed derived from `base` for stream number `index`: independent streams, one per thread.
  static func derive(_ base: UInt64, _ index: Int) -> UInt64 {
    var generator = SeededGenerator(
      seed: base ^ (UInt64(truncatingIfNeeded: index) &* 0xD6E8_FEB8_6659_FD93))
    return generator.next()
  }
}

/// The seeds of the stress tests: a fixed list, or the one in `AUTOCANCEL_SEED` (decimal or
/// `0x` hex) to replay a failure.
enum StressSeeds {
  static let fixed: [UInt64] = [0x5EED_0001, 0xC0FF_EE42, 0xDEAD_BEEF]

  static var all: [UInt64] {
    guard let text = ProcessInfo.processInfo.environment["AUTOCANCEL_SEED"] else { return fixed }
    let seed = text.hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text)
    return seed.map { [$0] } ?? fixed
  }
}

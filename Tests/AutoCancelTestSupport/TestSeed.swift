import Foundation
import SeededRandom

/// The seeds of the randomized tests, and the one way to replay a failed run.
///
/// Every seeded test takes its seeds from here and names the seed of a run in its failure
/// messages with ``describe(_:)``: `seed 0x5eed0001 (replay: AUTOCANCEL_SEED=0x5eed0001)`.
/// `AUTOCANCEL_SEED` has one meaning: replay exactly the run whose failure message printed
/// this seed. Set, every seeded test runs that one seed instead of its own (decimal, or hex
/// with a `0x` prefix), so pair it with the test's `--filter`:
///
/// ```sh
/// AUTOCANCEL_SEED=0x5eed0001 swift test --filter CancelBagStressTests
/// ```
///
/// A test replays the same operations from the same seed; which thread wins a race is up to
/// the machine, so a concurrent failure may take a few replays to recur.
package enum TestSeed {
  /// The seed in `AUTOCANCEL_SEED`, if it is set.
  ///
  /// A value that is neither decimal nor `0x`-prefixed hex stops the test process with a
  /// message: a replay that silently ran other seeds would look like a fixed bug.
  package static let replayed: UInt64? = ProcessInfo.processInfo.environment["AUTOCANCEL_SEED"]
    .map { text in
      guard let seed = parse(text) else {
        fatalError("AUTOCANCEL_SEED=\(text) is neither decimal nor 0x-prefixed hex")
      }
      return seed
    }

  /// The seeds of a test with a fixed list: `fixed`, or the replayed seed alone.
  ///
  /// ```swift
  /// @Test("…", arguments: TestSeed.seeds([0x5EED_0001, 0xC0FF_EE42]))
  /// func holdsUnderStress(seed: UInt64) { … }
  /// ```
  package static func seeds(_ fixed: [UInt64]) -> [UInt64] {
    replayed.map { [$0] } ?? fixed
  }

  /// The seeds of a test that draws new ones each run: `count` seeds derived from ``base``,
  /// or the replayed seed alone.
  package static func fresh(count: Int) -> [UInt64] {
    if let replayed { return [replayed] }
    return (0..<count).map { SeededGenerator.derive(base, $0) }
  }

  /// The seed of a test that runs once: the replayed one, or a new one.
  package static func fresh() -> UInt64 {
    fresh(count: 1)[0]
  }

  /// The seed this process derives its fresh seeds from: random, or the replayed seed.
  package static let base: UInt64 = replayed ?? UInt64.random(in: 1...UInt64.max)

  /// How a failure message names the seed of its run, with the setting that replays it.
  package static func describe(_ seed: UInt64) -> String {
    let hex = "0x" + String(seed, radix: 16)
    return "seed \(hex) (replay: AUTOCANCEL_SEED=\(hex))"
  }

  /// `text` as a seed: decimal, or hex after `0x`; surrounding spaces are ignored.
  package static func parse(_ text: String) -> UInt64? {
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    if trimmed.hasPrefix("0x") || trimmed.hasPrefix("0X") {
      return UInt64(trimmed.dropFirst(2), radix: 16)
    }
    return UInt64(trimmed)
  }
}

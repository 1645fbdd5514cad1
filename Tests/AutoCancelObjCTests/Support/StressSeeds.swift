import Foundation

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

/// Percentiles of a set of latencies, in milliseconds (nearest-rank method).
package struct LatencySummary: Sendable, Hashable, Codable {
  /// The median.
  package var p50: Double
  /// The 99th percentile.
  package var p99: Double
  /// The slowest.
  package var max: Double
  /// How many latencies were measured.
  package var count: Int

  /// Summarizes `milliseconds`; all zero when it is empty.
  package init(milliseconds: [Double]) {
    let sorted = milliseconds.sorted()
    count = sorted.count
    p50 = Self.percentile(50, of: sorted)
    p99 = Self.percentile(99, of: sorted)
    max = sorted.last ?? 0
  }

  private static func percentile(_ percent: Int, of sorted: [Double]) -> Double {
    guard !sorted.isEmpty else { return 0 }
    let rank = (percent * sorted.count + 99) / 100  // ceil(percent / 100 * count)
    return sorted[Swift.max(0, rank - 1)]
  }
}

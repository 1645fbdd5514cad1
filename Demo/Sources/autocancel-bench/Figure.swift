/// One figure of the output: a scenario measured for one implementation, one sample per
/// repetition (the repetitions of all implementations interleaved).
struct Figure {
  let scenario: String
  let implementation: String
  let unit: String
  let samples: [Double]
  /// Set when this implementation ran at another size than the scenario's (origin-port).
  var sizeNote: String?

  var median: Double { Self.median(samples) }
  var min: Double { samples.min() ?? .nan }
  var max: Double { samples.max() ?? .nan }

  static func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
  }

  /// The median of the per-repetition ratios self / other (paired by repetition, so drift
  /// of the machine between repetitions cancels out).
  func ratio(to other: Figure) -> Double {
    let count = Swift.min(samples.count, other.samples.count)
    return Self.median((0..<count).map { samples[$0] / other.samples[$0] })
  }
}

/// Monotonic nanoseconds (ContinuousClock), for timing one measured region.
struct Stopwatch {
  private let start = ContinuousClock.now

  /// Nanoseconds since the stopwatch was created.
  var elapsedNanoseconds: Double {
    let elapsed = ContinuousClock.now - start
    let parts = elapsed.components
    return Double(parts.seconds) * 1e9 + Double(parts.attoseconds) / 1e9
  }
}

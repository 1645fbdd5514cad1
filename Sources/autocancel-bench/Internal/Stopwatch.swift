import Dispatch

/// Monotonic nanoseconds, for timing one measured region.
///
/// `DispatchTime` rather than `ContinuousClock`, which needs iOS 16 / macOS 13: the bench
/// builds at the package's floors.
struct Stopwatch {
  private let start = DispatchTime.now().uptimeNanoseconds

  /// Nanoseconds since the stopwatch was created.
  var elapsedNanoseconds: Double {
    Double(DispatchTime.now().uptimeNanoseconds - start)
  }
}

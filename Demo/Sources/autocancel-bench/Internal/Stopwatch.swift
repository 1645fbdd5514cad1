import Dispatch

/// Monotonic nanoseconds (`DispatchTime`, available at every platform floor), for timing one
/// measured region.
struct Stopwatch {
  private let start = DispatchTime.now().uptimeNanoseconds

  /// Nanoseconds since the stopwatch was created.
  var elapsedNanoseconds: Double {
    Double(DispatchTime.now().uptimeNanoseconds - start)
  }
}

/// A snapshot of a run in progress, for the progress line.
package struct RunProgress: Sendable, Hashable {
  /// Which run.
  package var mode: BindingMode
  /// Seconds since the run started.
  package var elapsedSeconds: Double
  /// Screens left so far, and in all.
  package var screensLeft: Int
  package var screens: Int
  /// Requests ended (completed or failed, as the app saw them) so far, and in all.
  package var requestsEnded: Int
  package var requests: Int
  /// Body bytes the server has sent so far.
  package var bytesSent: Int
  /// Whether the run is over (the last snapshot).
  package var isFinished: Bool
}

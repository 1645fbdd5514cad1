import AutoCancelNetworking

/// The shape of `--json`: keys become snake_case (`wasted_bytes`, `exit_to_disconnect_ms`).
struct ReportJSON: Encodable {
  struct Run: Encodable {
    var requestsStarted: Int
    var requestsSeenByServer: Int
    var requestsCompleted: Int
    var requestsCancelled: Int
    var requestsNeverSent: Int
    var bytesSent: Int
    var wastedBytes: Int
    var connectionSecondsAfterExit: Double
    /// From a screen leaving to the server ending each of its requests still in flight.
    var exitToDisconnectMs: LatencySummary
    var responsesAfterScreenLeft: Int
    var durationSeconds: Double
    var bytesSentOnCancelled: Int
    /// With AutoCancel: the library's own account; absent without.
    var library: Library?

    init(_ run: RunMeasurement) {
      requestsStarted = run.requestsStarted
      requestsSeenByServer = run.requestsSeenByServer
      requestsCompleted = run.requestsCompleted
      requestsCancelled = run.requestsCancelled
      requestsNeverSent = run.requestsNeverSent
      bytesSent = run.bytesSent
      wastedBytes = run.wastedBytes
      connectionSecondsAfterExit = Format.rounded(run.connectionSecondsAfterExit)
      var latency = run.exitToServerEnd
      latency.p50 = Format.rounded(latency.p50)
      latency.p99 = Format.rounded(latency.p99)
      latency.max = Format.rounded(latency.max)
      exitToDisconnectMs = latency
      responsesAfterScreenLeft = run.responsesAfterScreenLeft
      durationSeconds = Format.rounded(run.durationSeconds)
      bytesSentOnCancelled = run.bytesSentOnCancelled
      library = run.library.map(Library.init)
    }
  }

  /// The library's `URLSessionSavings` for the run.
  struct Library: Encodable {
    var requestsCancelled: Int
    var requestsCancelledBeforeSent: Int
    var bytesReceivedBeforeCancel: Int64
    var bytesAvoided: Int64
    var bytesAvoidedUnknownLength: Int

    init(_ savings: URLSessionSavings) {
      requestsCancelled = savings.cancelled
      requestsCancelledBeforeSent = savings.cancelledBeforeSent
      bytesReceivedBeforeCancel = savings.bytesReceivedBeforeCancel
      bytesAvoided = savings.bytesAvoided
      bytesAvoidedUnknownLength = savings.cancelledWithUnknownRemainder
    }
  }

  var seed: UInt64
  var screens: Int
  var requestsPerScreen: Int
  var people: Int
  var screensLeftEarly: Int
  var without: Run
  var with: Run
  var wastedBytesSaved: Int
}

import AutoCancelNetworking
import Dispatch
import LoopbackHTTPServer

/// The numbers of one run, all measured at the server (except where named "app").
///
/// "After the screen left" means after ``ScreenExit/exitAt``: bytes the server sent, and time
/// it kept working, for a screen that no longer existed. A request's bytes sent after its
/// screen left are its final `bytesSent` minus the `bytesSent` the server had recorded at the
/// exit moment (all of them if it reached the server only afterwards). Requests already
/// finished at the server when their screen left count for nothing here.
package struct RunMeasurement: Sendable {
  /// Which run.
  package var mode: BindingMode
  /// Requests the app started.
  package var requestsStarted: Int
  /// Requests that reached the server (it read their head).
  package var requestsSeenByServer: Int
  /// Requests whose whole response the server sent.
  package var requestsCompleted: Int
  /// Requests whose client went away before the response was complete.
  package var requestsCancelled: Int
  /// Requests the app started that never reached the server (cancelled before being sent).
  package var requestsNeverSent: Int
  /// Response body bytes the server sent.
  package var bytesSent: Int
  /// Of those, the bytes sent after the screen that wanted them had left.
  package var wastedBytes: Int
  /// Seconds the server spent serving requests after their screen had left, summed over
  /// requests (each request holds one connection).
  package var connectionSecondsAfterExit: Double
  /// For requests still in flight at the server when their screen left: time from the
  /// screen leaving to the server ending the request (client gone, or response complete).
  package var exitToServerEnd: LatencySummary
  /// App: responses delivered after their screen had gone.
  package var responsesAfterScreenLeft: Int
  /// Wall-clock seconds the run took.
  package var durationSeconds: Double
  /// Body bytes the server sent on requests whose client went away: what the app received
  /// of the requests it cancelled, as the server saw it.
  package var bytesSentOnCancelled: Int
  /// With AutoCancel: the library's own account of the run (``RunResult/library``).
  package var library: URLSessionSavings?

  package init(_ result: RunResult) {
    mode = result.mode
    requestsStarted = result.startedRequestIDs.count
    let planned = Set(result.plan.requests.map(\.id))
    var byID: [String: RequestRecord] = [:]
    for record in result.records where planned.contains(record.id) {
      byID[record.id] = record
    }
    requestsSeenByServer = byID.count
    requestsCompleted = byID.values.filter(\.completed).count
    requestsCancelled = byID.values.filter(\.clientWentAway).count
    requestsNeverSent = Set(result.startedRequestIDs).subtracting(byID.keys).count
    bytesSent = byID.values.reduce(0) { $0 + $1.bytesSent }
    bytesSentOnCancelled = byID.values.filter(\.clientWentAway).reduce(0) { $0 + $1.bytesSent }
    library = result.library

    var wasted = 0
    var busyNanoseconds: UInt64 = 0
    var latencies: [Double] = []
    for exit in result.exits {
      for id in exit.requestIDs where !exit.finishedAtExit.contains(id) {
        guard let record = byID[id] else { continue }
        wasted += Swift.max(0, record.bytesSent - (exit.bytesSentAtExit[id] ?? 0))
        guard let finishedAt = record.finishedAt, finishedAt > exit.exitAt else { continue }
        let after = finishedAt.uptimeNanoseconds - exit.exitAt.uptimeNanoseconds
        busyNanoseconds += after
        latencies.append(Double(after) / 1e6)
      }
    }
    wastedBytes = wasted
    connectionSecondsAfterExit = Double(busyNanoseconds) / 1e9
    exitToServerEnd = LatencySummary(milliseconds: latencies)
    responsesAfterScreenLeft = result.responsesAfterScreenLeft
    durationSeconds = result.durationSeconds
  }
}

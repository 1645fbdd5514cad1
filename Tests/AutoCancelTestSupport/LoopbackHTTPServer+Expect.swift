import Dispatch
import LoopbackHTTPServer
import Testing

extension LoopbackHTTPServer {
  /// Waits until the record with `id` satisfies `predicate`, and returns it; if it does not
  /// within ``waitBound`` seconds (or the server stops first), records an issue and returns
  /// `nil`, so that a missed outcome fails the test instead of passing unnoticed.
  ///
  /// A cancelled wait returns `nil` without an issue: the test's time limit, or the test
  /// itself, ended it.
  ///
  /// ```swift
  /// await server.expectRecord(id: "d1") { $0.bytesSent >= 65_536 }
  /// ```
  @discardableResult
  package func expectRecord(
    id: String, sourceLocation: SourceLocation = #_sourceLocation,
    where predicate: @escaping @Sendable (RequestRecord) -> Bool = { $0.isFinished }
  ) async -> RequestRecord? {
    let started = DispatchTime.now()
    let record = await waitForRecord(id: id, timeout: waitBound, where: predicate)
    if record != nil {
      WaitLog.record(since: started, "the server's record \"\(id)\" is as expected", sourceLocation)
    } else if !Task.isCancelled {
      Issue.record(
        "The server's record \"\(id)\" did not reach the expected state",
        sourceLocation: sourceLocation)
    }
    return record
  }

  /// Waits until the connection counters satisfy `predicate`, and returns them; if they do not
  /// within ``waitBound`` seconds (or the server stops first), records an issue naming `what`
  /// and returns `nil`. A cancelled wait returns `nil` without an issue.
  ///
  /// ```swift
  /// await server.expectConnections("every connection closed") { $0.open == 0 }
  /// ```
  @discardableResult
  package func expectConnections(
    _ what: @autoclosure () -> String, sourceLocation: SourceLocation = #_sourceLocation,
    where predicate: @escaping @Sendable (ConnectionStats) -> Bool
  ) async -> ConnectionStats? {
    let started = DispatchTime.now()
    let stats = await waitForConnections(timeout: waitBound, where: predicate)
    if stats != nil {
      WaitLog.record(since: started, "the server's connections: \(what())", sourceLocation)
    } else if !Task.isCancelled {
      Issue.record(
        "The server's connections never reached the expected state: \(what())",
        sourceLocation: sourceLocation)
    }
    return stats
  }
}

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
}

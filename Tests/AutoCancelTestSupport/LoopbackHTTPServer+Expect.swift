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
    await expecting("the server's record \"\(id)\" is as expected", sourceLocation) {
      await waitForRecord(id: id, timeout: waitBound, where: predicate)
    }
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
    await expecting("the server's connections: \(what())", sourceLocation) {
      await waitForConnections(timeout: waitBound, where: predicate)
    }
  }
}

/// One of the server's bounded waits, as the tests' waits are: logged if slow (``WaitLog``),
/// an issue naming `what` if it gave up, nothing if the task was cancelled.
private func expecting<Value: Sendable>(
  _ what: String, _ sourceLocation: SourceLocation, _ wait: () async -> Value?
) async -> Value? {
  let started = DispatchTime.now()
  let value = await wait()
  if value != nil {
    WaitLog.record(since: started, what, sourceLocation)
  } else if !Task.isCancelled {
    Issue.record("Waited \(waitBound) s in vain until \(what)", sourceLocation: sourceLocation)
  }
  return value
}

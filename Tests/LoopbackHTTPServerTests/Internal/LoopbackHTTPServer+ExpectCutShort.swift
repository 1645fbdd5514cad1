import AutoCancelTestSupport
import LoopbackHTTPServer
import Testing

extension LoopbackHTTPServer {
  /// Waits until the record with `id` is finished (``expectRecord(id:sourceLocation:where:)``),
  /// and expects a response cut short (``RequestRecord/expectCutShort(after:faulted:clientWentAway:sourceLocation:)``);
  /// returns the record for the test's own checks. Throws if the record never finished.
  ///
  /// ```swift
  /// try await server.expectCutShort(id: "close", after: 2000, faulted: true, clientWentAway: false)
  /// ```
  @discardableResult
  func expectCutShort(
    id: String, after bytesSent: Int, faulted: Bool, clientWentAway: Bool,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async throws -> RequestRecord {
    let record = try #require(
      await expectRecord(id: id, sourceLocation: sourceLocation), sourceLocation: sourceLocation)
    record.expectCutShort(
      after: bytesSent, faulted: faulted, clientWentAway: clientWentAway,
      sourceLocation: sourceLocation)
    return record
  }
}

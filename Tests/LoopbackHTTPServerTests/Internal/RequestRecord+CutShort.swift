import LoopbackHTTPServer
import Testing

extension RequestRecord {
  /// Expects the record of a response cut short: not completed, with `bytesSent` body bytes
  /// sent, and a fault begun and the client gone or not, as `faulted` and `clientWentAway` say.
  ///
  /// ```swift
  /// let record = try #require(await server.expectRecord(id: "close"))
  /// record.expectCutShort(after: 2000, faulted: true, clientWentAway: false)
  /// ```
  func expectCutShort(
    after bytesSent: Int, faulted: Bool, clientWentAway: Bool,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    #expect(!completed, "the record of \(id) says completed", sourceLocation: sourceLocation)
    #expect(self.bytesSent == bytesSent, sourceLocation: sourceLocation)
    #expect((faultStartedAt != nil) == faulted, sourceLocation: sourceLocation)
    #expect(self.clientWentAway == clientWentAway, sourceLocation: sourceLocation)
  }
}

/// One request a screen makes: which route, how big the body, and its id at the server.
package struct RequestPlan: Sendable, Hashable {
  /// Unique within a run, e.g. `"s7-r2"`; sent as the `id` query parameter so the server's
  /// request record can be matched to it.
  package var id: String
  /// What kind of request it is.
  package var kind: RequestKind
  /// The body size the server will send, in bytes.
  package var bodyBytes: Int
  /// For a feed: how long the server waits before answering, in milliseconds.
  package var delayMilliseconds: Int

  package init(id: String, kind: RequestKind, bodyBytes: Int, delayMilliseconds: Int = 0) {
    self.id = id
    self.kind = kind
    self.bodyBytes = bodyBytes
    self.delayMilliseconds = delayMilliseconds
  }

  /// Images stream 8 KiB every 10 ms (about 0.8 MB/s).
  package static let imageChunk = 8192
  /// Downloads stream 16 KiB every 10 ms (about 1.6 MB/s).
  package static let downloadChunk = 16384

  /// The path and query on the loopback server, including the id.
  ///
  /// `close=1`: the server closes the connection after the response, so a connection carries
  /// one request, and once every request has ended every connection closes.
  package var pathAndQuery: String {
    switch kind {
    case .feed: "/delay?ms=\(delayMilliseconds)&size=\(bodyBytes)&close=1&id=\(id)"
    case .image:
      "/slow?size=\(bodyBytes)&chunk=\(Self.imageChunk)&interval_ms=10&close=1&id=\(id)"
    case .download:
      "/slow?size=\(bodyBytes)&chunk=\(Self.downloadChunk)&interval_ms=10&close=1&id=\(id)"
    }
  }
}

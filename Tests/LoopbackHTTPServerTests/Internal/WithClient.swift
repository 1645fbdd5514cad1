import AutoCancelTestSupport
import LoopbackHTTPServer

/// Runs `body` with a started server of its own and a raw client connected to it, and stops
/// the server when `body` returns or throws (``withServer(isolation:_:)``): the prologue of
/// every test that talks to the server over a socket of its own.
///
/// ```swift
/// try await withClient { server, client in
///   try await client.get("/bytes?size=10&id=a")
///   #expect(try await client.readResponse().body.count == 10)
/// }
/// ```
func withClient(
  isolation: isolated (any Actor)? = #isolation,
  _ body: (LoopbackHTTPServer, RawClient) async throws -> Void
) async throws {
  try await withServer { server in
    try await body(server, try await RawClient(port: server.port))
  }
}

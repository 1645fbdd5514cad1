import LoopbackHTTPServer

/// Runs `body` with a loopback server of its own, started, and stops the server when `body`
/// returns or throws: the prologue of every test that talks to a server.
///
/// The stop is the `async` one, so it blocks no thread of the cooperative pool, as a server
/// stopped in a `defer` or dropped by a suite's `deinit` would. A test that stops its server
/// itself may: stopping is idempotent. `body` runs on the caller's actor.
///
/// ```swift
/// @Test func download() async throws {
///   try await withServer { server in
///     let (data, _) = try await URLSession.shared.data(from: server.url("/bytes?size=10"))
///     #expect(data.count == 10)
///   }
/// }
/// ```
///
/// - Throws: `LoopbackHTTPServerError` if the server cannot start, or what `body` throws.
package func withServer<Result>(
  isolation: isolated (any Actor)? = #isolation,
  _ body: (LoopbackHTTPServer) async throws -> Result
) async throws -> Result {
  FreshURLCache.prepare()
  let server = LoopbackHTTPServer()
  try server.start()
  let result: Result
  do {
    result = try await body(server)
  } catch {
    await server.stop()
    throw error
  }
  await server.stop()
  return result
}

import Dispatch
import Foundation

/// A tiny HTTP/1.1 server on 127.0.0.1 that proves, at the server, whether clients cancel.
///
/// For every request it keeps a ``RequestRecord``: response body bytes actually written, request
/// body bytes read, whether the whole response went out, and when the client closed or reset
/// the connection before that. While a response is deliberately slow (between `/slow` chunks,
/// before `/delay` headers) the socket is watched with `poll`, so a client that leaves is noted
/// within about a millisecond and not one more byte is sent to it.
///
/// Routes (query parameters; every request may carry `id=...` or an `X-Request-ID` header,
/// which becomes ``RequestRecord/id``):
/// - `GET /bytes?size=N`: N body bytes at once.
/// - `GET /slow?size=N&chunk=C&interval_ms=T`: N body bytes (announced in `Content-Length`),
///   C bytes every T ms (defaults: C = 1024, T = 10); `rate=R` (bytes per second) replaces
///   `interval_ms`, with C defaulting to R / 100.
/// - `GET /delay?ms=T&size=N`: the response head after T ms, then N bytes.
/// - `GET /status?code=C`: status C (200...599) with a small text body.
/// - `POST|PUT /upload`: reads the body (`Content-Length` or chunked; `Expect: 100-continue`
///   honoured) and replies with its byte count as text. `hold=N` reads N body bytes, then
///   nothing until ``releaseUpload(id:)``: an upload caught in the middle, whose client flow
///   control holds back (the connection's receive buffer is kept small). `chunk=C&interval_ms=T`
///   reads the body (the rest, after a hold) C bytes at a time, T ms apart (defaults:
///   C = 65536, T = 10). A client that leaves is seen leaving once the server reads again and
///   has read what the client had sent.
/// - `/redirect?to=P&code=C`: status C (301, 302, 303, 307 or 308; default 302) with
///   `Location: P`, a path on this server (percent-encode its query: `to=/slow%3Fsize%3D10`),
///   any method. One hop; redirect to a `fault=stall` route for a redirect that then stalls.
/// - `/loop`: 302 to itself (the same path and query), for ever: a redirect loop, any method.
/// - `GET /auth?user=U&password=P&realm=R&size=N`: 401 with
///   `WWW-Authenticate: Basic realm="R"` unless the request carries
///   `Authorization: Basic <base64 of U:P>`, then 200 with N bytes (defaults: `user`,
///   `password`, `loopback`, 0).
/// - anything else: 404. Wrong method: 405. Invalid parameters: 400. Unparsable request: 400
///   and the connection closes.
///
/// Options every route takes (without them, a route behaves as above):
/// - `close=1`: the server closes the connection after the response, announcing it with
///   `Connection: close` (by default connections are kept alive).
/// - `chunked=1`: the body goes out in chunked framing (`Transfer-Encoding: chunked`, paced as
///   the route says), its length never announced.
/// - `fault=F&after=A`: the response goes wrong as F says; A is the number of body bytes sent
///   first (0 to the body's length; default half of it). The connection ends with the fault.
///   - `reset`: the head and A body bytes, then a reset (RST: `SO_LINGER` 0, then close).
///   - `close`: the head and A body bytes, then a close (FIN) short of `Content-Length`.
///   - `stall`: the head and A body bytes, then nothing until the client leaves or the server
///     stops.
///   - `badchunk`: the head announces `Transfer-Encoding: chunked`; A body bytes in valid
///     chunks, then a chunk-size line that is not hexadecimal; then nothing until the client
///     leaves or the server stops.
///   - `hangup`: the request is read, then the connection closes with nothing sent.
///   - `silence`: the request is read, then nothing is sent until the client leaves or the
///     server stops.
///
/// A fault's record says what happened: ``RequestRecord/faultStartedAt`` is when the fault
/// began, ``RequestRecord/bytesSent`` counts the body bytes sent before it (chunk framing not
/// counted), ``RequestRecord/completed`` is false, ``RequestRecord/finishedAt`` is when the
/// server ended the request (reset, close, hang-up) or when the client left (stall, silence,
/// bad framing: then ``RequestRecord/clientWentAwayAt`` too). Two more faults need no route: ``closedPort`` refuses connections, and ``stop()`` in
/// the middle of a transfer kills the whole server.
///
/// Connections are kept alive (HTTP/1.1 default) until the client closes or sends
/// `Connection: close`. Each connection is served by its own thread with blocking I/O, at
/// most 2048 at once (further clients wait in the listen backlog); this is the simplest
/// design whose "watch the socket while waiting" stays a single `poll` call.
///
/// Contract:
/// - All members are safe to call from any thread or task.
/// - ``start()`` binds once; calling it again while running does nothing.
/// - ``stop()`` is idempotent, also runs from `deinit`, and returns only when the listener and
///   every connection socket are closed and every server thread has ended. Requests cut
///   short by `stop()` are finished with ``RequestRecord/completed`` false and
///   ``RequestRecord/clientWentAwayAt`` nil. Records stay readable after `stop()`.
/// - A client closing its writing half (FIN) counts as going away, like a full close or reset.
///
/// ```swift
/// let server = LoopbackHTTPServer()
/// try server.start()
/// defer { server.stop() }
/// let url = server.url("/slow?size=1000000&chunk=1000&interval_ms=10&id=d1")
/// // ... start a download of `url`, then cancel it ...
/// if let record = await server.waitForRecord(id: "d1") {
///   print(record.clientWentAway, record.bytesSent)  // true, a few thousand
/// }
/// ```
public final class LoopbackHTTPServer: Sendable {
  private let core = ServerCore()

  /// Creates a server that is not listening yet; call ``start()``.
  ///
  /// ```swift
  /// let server = LoopbackHTTPServer()
  /// ```
  public init() {}

  /// Stops the server (see ``stop()``).
  deinit {
    core.stop()
  }

  /// Binds 127.0.0.1 on an ephemeral port and starts accepting connections.
  ///
  /// Returns once the socket is listening, so ``port`` and ``baseURL`` are valid and clients
  /// may connect at once. Calling it again while running does nothing.
  ///
  /// The first start in a process raises its soft limit of open descriptors to the hard limit
  /// (on Darwin, to at most `OPEN_MAX`): the server and its clients share the process, two
  /// descriptors per connection, and many requests in flight would pass a soft limit of 1,024
  /// (Linux) or 256 (macOS), where FoundationNetworking traps.
  ///
  /// - Throws: ``LoopbackHTTPServerError`` if a socket call fails, or if the server was
  ///   already stopped (a stopped server cannot restart; create a new one).
  ///
  /// ```swift
  /// let server = LoopbackHTTPServer()
  /// try server.start()
  /// print(server.baseURL)  // http://127.0.0.1:40123
  /// ```
  public func start() throws(LoopbackHTTPServerError) {
    try core.start()
  }

  /// Stops accepting, closes every connection, and waits for the server's threads to end.
  ///
  /// Idempotent and safe from any thread; every caller returns only after the shutdown is
  /// complete. It blocks the calling thread briefly (until in-flight socket calls return):
  /// for synchronous code (a `deinit`, a `defer`, the demo's command line); async code awaits
  /// the `async` overload, which blocks no thread. Afterwards the waits return at once: the
  /// record or stats if the predicate holds, else `nil`. (Called from one of the server's own
  /// threads, i.e. from inside a wait predicate, it shuts everything down but finishes the
  /// joining in the background instead of waiting for itself.)
  ///
  /// ```swift
  /// server.stop()
  /// server.stop()  // does nothing
  /// ```
  public func stop() {
    core.stop()
  }

  /// Stops accepting, closes every connection, and suspends until the server's threads have
  /// ended, without blocking a thread: the form for async code, where a blocked thread of
  /// the cooperative pool (two, on a two-core machine) holds up every other task.
  ///
  /// The same contract as the synchronous ``stop()``: idempotent, safe from any task, and
  /// every caller, of either form, returns only after the shutdown is complete. Swift picks
  /// this overload in async code, so there a plain `server.stop()` does not compile without
  /// `await`.
  ///
  /// ```swift
  /// let server = LoopbackHTTPServer()
  /// try server.start()
  /// // ... requests ...
  /// await server.stop()
  /// ```
  public func stop() async {
    await core.stopWithoutBlocking()
  }

  /// The port the server listens on, or 0 before ``start()``.
  ///
  /// ```swift
  /// let port = server.port  // e.g. 40123
  /// ```
  public var port: Int { core.port }

  /// A port on 127.0.0.1 that refuses connections while the server runs, or 0 before
  /// ``start()``.
  ///
  /// The server holds it reserved (a socket bound to it that never listens), so no other
  /// program can take it; a client connecting to it is refused at once (`ECONNREFUSED`;
  /// URLSession reports `URLError(.cannotConnectToHost)`). After ``stop()`` it is released.
  ///
  /// ```swift
  /// let refused = server.closedPortURL("/bytes?size=10")
  /// ```
  public var closedPort: Int { core.closedPort }

  /// The URL of `pathAndQuery` on ``closedPort``: every request to it is refused.
  ///
  /// ```swift
  /// let url = server.closedPortURL("/bytes?size=10")  // http://127.0.0.1:<closedPort>/bytes…
  /// ```
  public func closedPortURL(_ pathAndQuery: String) -> URL {
    URL(string: "http://127.0.0.1:\(closedPort)\(pathAndQuery)")!
  }

  /// `http://127.0.0.1:<port>`, the URL every route is relative to.
  ///
  /// ```swift
  /// let url = server.baseURL.appendingPathComponent("bytes")
  /// ```
  public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

  /// The URL of `pathAndQuery` on this server.
  ///
  /// - Parameter pathAndQuery: a path starting with `/`, with an optional query, e.g.
  ///   `"/bytes?size=10&id=a"`.
  ///
  /// ```swift
  /// let url = server.url("/delay?ms=50&size=10")
  /// ```
  public func url(_ pathAndQuery: String) -> URL {
    URL(string: "http://127.0.0.1:\(port)\(pathAndQuery)")!
  }

  /// A snapshot of every request record so far, in arrival order.
  ///
  /// ```swift
  /// let cancelled = server.records.filter(\.clientWentAway)
  /// ```
  public var records: [RequestRecord] { core.records }

  /// Lets the upload `id`, held by `hold=N`, read the rest of its body. Safe to call before the
  /// upload reaches its hold, and more than once.
  ///
  /// ```swift
  /// await server.waitForRecord(id: "post") { $0.requestBodyBytes >= 65_536 }  // held
  /// server.releaseUpload(id: "post")
  /// ```
  public func releaseUpload(id: String) {
    core.releaseUpload(id: id)
  }

  /// The latest record whose id is `id`, or `nil` if there is none yet.
  ///
  /// ```swift
  /// let record = server.record(id: "a")
  /// ```
  public func record(id: String) -> RequestRecord? { core.record(id: id) }

  /// A snapshot of the connection counters.
  ///
  /// ```swift
  /// print(server.connections.open)
  /// ```
  public var connections: ConnectionStats { core.stats }

  /// Waits until the record with `id` satisfies `predicate`, and returns it.
  ///
  /// The predicate is checked against the current record at once, then after every change
  /// (the record may not exist yet when the wait starts). It runs on a server thread or the
  /// caller's, never under the server's lock. Returns `nil` if `timeout` seconds pass, the
  /// task is cancelled, or the server stops, before it holds.
  ///
  /// - Parameters:
  ///   - id: the request id (`id` query parameter or `X-Request-ID` header).
  ///   - timeout: seconds to wait at most; a safety net, not a measurement.
  ///   - predicate: the condition; by default, that the record is finished.
  ///
  /// ```swift
  /// let record = await server.waitForRecord(id: "d1") { $0.bytesSent >= 4096 }
  /// ```
  public func waitForRecord(
    id: String, timeout: TimeInterval = 30,
    where predicate: @escaping @Sendable (RequestRecord) -> Bool = { $0.isFinished }
  ) async -> RequestRecord? {
    await core.waitForRecord(id: id, timeout: timeout, where: predicate)
  }

  /// Waits until the connection counters satisfy `predicate`, and returns them.
  ///
  /// Checked at once, then after every accept and close; the predicate never runs under the
  /// server's lock. Returns `nil` if `timeout` seconds pass, the task is cancelled, or the
  /// server stops, before it holds.
  ///
  /// ```swift
  /// let stats = await server.waitForConnections { $0.open == 0 }
  /// ```
  public func waitForConnections(
    timeout: TimeInterval = 30, where predicate: @escaping @Sendable (ConnectionStats) -> Bool
  ) async -> ConnectionStats? {
    await core.waitForConnections(timeout: timeout, where: predicate)
  }
}

import Dispatch

/// What a ``LoopbackHTTPServer`` saw and did for one HTTP request: the server-side proof of
/// whether a client cancelled.
///
/// A record is created when the request head has been read, and updated as the request body
/// is read and as response body bytes are written. It is *finished* (``finishedAt`` set)
/// exactly once, when the server stops working on the request: after the whole response was
/// written (``completed``), when the client went away (``clientWentAwayAt``), or when the
/// server was stopped. After that it never changes. Times are monotonic (`DispatchTime`,
/// uptime nanoseconds), comparable with `DispatchTime.now()` taken by the client.
///
/// ```swift
/// let record = await server.waitForRecord(id: "download-1") { $0.isFinished }
/// if let record, record.clientWentAway {
///   print("client left after \(record.bytesSent) of \(record.bytesPlanned) bytes")
/// }
/// ```
public struct RequestRecord: Sendable, Equatable {
  /// The request's id: its `id` query parameter, else its `X-Request-ID` header, else a
  /// generated `"request-<connection>-<n>"` (n counts requests on that connection). Not
  /// necessarily unique if clients reuse ids.
  public var id: String
  /// The serial number (1, 2, ...) of the TCP connection that carried the request; equal
  /// numbers mean the connection was reused (keep-alive).
  public var connection: Int
  /// The request method, e.g. `"GET"`.
  public var method: String
  /// The path without the query, e.g. `"/slow"`.
  public var path: String
  /// The decoded query parameters (last value wins for repeated names).
  public var query: [String: String]
  /// When the request head had been read.
  public var startedAt: DispatchTime
  /// The response status code chosen (0 until the server has decided it).
  public var status: Int
  /// The response body length announced in `Content-Length` (0 until decided).
  public var bytesPlanned: Int
  /// Response body bytes actually handed to the kernel so far (headers not counted).
  public var bytesSent: Int
  /// Request body bytes read so far (decoded, for chunked uploads).
  public var requestBodyBytes: Int
  /// Whether the whole response (headers and `bytesPlanned` body bytes) was written.
  public var completed: Bool
  /// When the server began the fault the request asked for (`fault=...`: the reset, the
  /// close, the hang-up, the first moment of a stall or of silence, the bad chunk's line), or
  /// `nil` if it asked for none or the fault has not begun yet.
  public var faultStartedAt: DispatchTime?
  /// When the server noticed that the client closed or reset the connection before the
  /// response was complete, or `nil` if it did not.
  public var clientWentAwayAt: DispatchTime?
  /// When the server stopped working on the request (for any reason), or `nil` while in
  /// progress.
  public var finishedAt: DispatchTime?

  /// Whether the server has stopped working on the request; the record no longer changes.
  public var isFinished: Bool { finishedAt != nil }

  /// Whether the client closed or reset the connection before the response was complete.
  public var clientWentAway: Bool { clientWentAwayAt != nil }

  /// Creates a record; the server builds these, tests may build expected values.
  public init(
    id: String, connection: Int, method: String, path: String, query: [String: String],
    startedAt: DispatchTime, status: Int = 0, bytesPlanned: Int = 0, bytesSent: Int = 0,
    requestBodyBytes: Int = 0, completed: Bool = false, faultStartedAt: DispatchTime? = nil,
    clientWentAwayAt: DispatchTime? = nil, finishedAt: DispatchTime? = nil
  ) {
    self.id = id
    self.connection = connection
    self.method = method
    self.path = path
    self.query = query
    self.startedAt = startedAt
    self.status = status
    self.bytesPlanned = bytesPlanned
    self.bytesSent = bytesSent
    self.requestBodyBytes = requestBodyBytes
    self.completed = completed
    self.faultStartedAt = faultStartedAt
    self.clientWentAwayAt = clientWentAwayAt
    self.finishedAt = finishedAt
  }
}

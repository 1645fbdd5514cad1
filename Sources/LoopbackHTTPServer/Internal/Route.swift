/// The server's routes: turns a request head into a response plan.
enum Route {
  /// What to send back for one request.
  struct Plan {
    enum Body {
      /// A fixed, small body.
      case text([UInt8])
      /// `size` pattern bytes in pieces of `chunk`, `interval` nanoseconds apart (0: at once).
      case pattern(size: Int, chunk: Int, interval: UInt64)
    }

    var status: Int
    var body: Body
    var contentType = "application/octet-stream"
    var headers: [(String, String)] = []
    /// Wait this long (watching the client) before sending the head.
    var delayNanoseconds: UInt64 = 0
    /// False for error replies after which the connection should close.
    var keepAlive = true

    var bodyLength: Int {
      switch body {
      case .text(let bytes): bytes.count
      case .pattern(let size, _, _): size
      }
    }

    static func text(_ status: Int, _ text: String, keepAlive: Bool = true) -> Plan {
      Plan(
        status: status, body: .text(Array(text.utf8)), contentType: "text/plain",
        keepAlive: keepAlive)
    }
  }

  private static let maxSize = 1 << 40
  private static let fastChunk = 64 * 1024
  private static let maxDelayMilliseconds = 600_000

  static func plan(for head: HTTPRequestHead, requestBodyBytes: Int) -> Plan {
    let isRead = head.method == "GET" || head.method == "HEAD"
    switch head.path {
    case "/bytes":
      guard isRead else { return methodNotAllowed("GET, HEAD") }
      guard let size = integer(head, "size", default: 0, in: 0...maxSize) else { return bad }
      return Plan(status: 200, body: .pattern(size: size, chunk: fastChunk, interval: 0))
    case "/slow":
      guard isRead else { return methodNotAllowed("GET, HEAD") }
      return slow(head) ?? bad
    case "/delay":
      guard isRead else { return methodNotAllowed("GET, HEAD") }
      guard let size = integer(head, "size", default: 0, in: 0...maxSize),
        let delay = integer(head, "ms", default: 0, in: 0...maxDelayMilliseconds)
      else { return bad }
      var plan = Plan(status: 200, body: .pattern(size: size, chunk: fastChunk, interval: 0))
      plan.delayNanoseconds = UInt64(delay) * 1_000_000
      return plan
    case "/status":
      guard isRead else { return methodNotAllowed("GET, HEAD") }
      guard let code = integer(head, "code", default: 200, in: 200...599) else { return bad }
      if code == 204 || code == 304 { return Plan(status: code, body: .text([])) }
      return .text(code, "status \(code)\n")
    case "/upload":
      guard head.method == "POST" || head.method == "PUT" else {
        return methodNotAllowed("POST, PUT")
      }
      let paced = head.query["chunk"] != nil || head.query["interval_ms"] != nil
      guard !paced || uploadPace(for: head) != nil else { return bad }
      return .text(200, "\(requestBodyBytes)")
    default:
      return .text(404, "no route for \(head.path)\n")
    }
  }

  /// `/slow?size=N&chunk=C&interval_ms=T`, or `rate=R` bytes per second instead of
  /// `interval_ms` (with `chunk` defaulting to a hundredth of the rate).
  private static func slow(_ head: HTTPRequestHead) -> Plan? {
    guard let size = integer(head, "size", default: 0, in: 0...maxSize) else { return nil }
    let chunk: Int
    let interval: UInt64
    if head.query["rate"] != nil {
      guard let rate = integer(head, "rate", default: 1, in: 1...maxSize),
        let given = integer(head, "chunk", default: max(1, rate / 100), in: 1...fastChunk)
      else { return nil }
      chunk = given
      interval = UInt64(Double(chunk) / Double(rate) * 1e9)
    } else {
      guard let given = integer(head, "chunk", default: 1024, in: 1...fastChunk),
        let milliseconds = integer(head, "interval_ms", default: 10, in: 0...maxDelayMilliseconds)
      else { return nil }
      chunk = given
      interval = UInt64(milliseconds) * 1_000_000
    }
    return Plan(status: 200, body: .pattern(size: size, chunk: chunk, interval: interval))
  }

  /// How to read the body of `/upload?chunk=C&interval_ms=T`: C bytes, then a pause of T ms
  /// (defaults: C = 65536, T = 10), so that an upload takes a while and a client can leave in
  /// the middle; nil for an upload read at once, or parameters out of range.
  static func uploadPace(for head: HTTPRequestHead) -> (chunk: Int, interval: UInt64)? {
    guard head.path == "/upload", head.query["chunk"] != nil || head.query["interval_ms"] != nil,
      let chunk = integer(head, "chunk", default: fastChunk, in: 1...maxSize),
      let milliseconds = integer(head, "interval_ms", default: 10, in: 0...maxDelayMilliseconds)
    else { return nil }
    return (chunk, UInt64(milliseconds) * 1_000_000)
  }

  /// The named integer parameter, its default when absent, or nil when present but invalid.
  private static func integer(
    _ head: HTTPRequestHead, _ name: String, default value: Int, in range: ClosedRange<Int>
  ) -> Int? {
    guard let text = head.query[name] else { return value }
    guard let parsed = Int(text), range.contains(parsed) else { return nil }
    return parsed
  }

  private static var bad: Plan { .text(400, "bad query parameter\n") }

  private static func methodNotAllowed(_ allowed: String) -> Plan {
    var plan = Plan.text(405, "method not allowed\n")
    plan.headers = [("Allow", allowed)]
    return plan
  }

  static func reason(_ status: Int) -> String {
    switch status {
    case 100: "Continue"
    case 200: "OK"
    case 201: "Created"
    case 202: "Accepted"
    case 204: "No Content"
    case 206: "Partial Content"
    case 301: "Moved Permanently"
    case 302: "Found"
    case 304: "Not Modified"
    case 400: "Bad Request"
    case 401: "Unauthorized"
    case 403: "Forbidden"
    case 404: "Not Found"
    case 405: "Method Not Allowed"
    case 408: "Request Timeout"
    case 409: "Conflict"
    case 429: "Too Many Requests"
    case 431: "Request Header Fields Too Large"
    case 500: "Internal Server Error"
    case 502: "Bad Gateway"
    case 503: "Service Unavailable"
    case 504: "Gateway Timeout"
    default: "Status \(status)"
    }
  }
}

import Foundation

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
    /// False when the connection closes after this response: error replies, `close=1`.
    var keepAlive = true
    /// How the response deliberately goes wrong (`fault=...`), or nil for a correct one.
    var fault: Fault?
    /// The body goes out in chunked framing, its length never announced (`chunked=1`).
    var chunked = false

    var bodyLength: Int {
      switch body {
      case .text(let bytes): bytes.count
      case .pattern(let size, _, _): size
      }
    }

    /// The body bytes to send: all of them, or those before a mid-body fault.
    var bodyBytesToSend: Int { fault?.bodyBytesBefore ?? bodyLength }

    static func text(_ status: Int, _ text: String, keepAlive: Bool = true) -> Plan {
      Plan(
        status: status, body: .text(Array(text.utf8)), contentType: "text/plain",
        keepAlive: keepAlive)
    }
  }

  /// A deliberate misbehaviour of one response, as a client meets it on a real network.
  enum Fault: Equatable {
    /// Close the connection before sending anything.
    case hangUp
    /// Send nothing, and wait until the client leaves or the server stops.
    case silence
    /// Send the head and `after` body bytes, then reset the connection (RST).
    case reset(after: Int)
    /// Send the head and `after` body bytes, then close the connection (FIN).
    case close(after: Int)
    /// Send the head and `after` body bytes, then nothing more until the client leaves or the
    /// server stops.
    case stall(after: Int)
    /// Announce a chunked body, send `after` body bytes in valid chunks, then a chunk-size
    /// line that is not hexadecimal, and wait until the client leaves or the server stops.
    case badChunk(after: Int)

    /// Body bytes sent before the fault; nil when nothing of the response is sent.
    var bodyBytesBefore: Int? {
      switch self {
      case .hangUp, .silence: nil
      case .reset(let after), .close(let after), .stall(let after), .badChunk(let after): after
      }
    }
  }

  private static let maxSize = 1 << 40
  private static let fastChunk = 64 * 1024
  private static let maxDelayMilliseconds = 600_000

  static func plan(for head: HTTPRequestHead, requestBodyBytes: Int) -> Plan {
    guard var plan = routePlan(for: head, requestBodyBytes: requestBodyBytes),
      applyOptions(head, to: &plan)
    else { return bad }
    return plan
  }

  /// The route's own response, or nil when a parameter is invalid.
  private static func routePlan(for head: HTTPRequestHead, requestBodyBytes: Int) -> Plan? {
    let isRead = head.method == "GET" || head.method == "HEAD"
    switch head.path {
    case "/bytes":
      guard isRead else { return methodNotAllowed("GET, HEAD") }
      guard let size = integer(head, "size", default: 0, in: 0...maxSize) else { return nil }
      return Plan(status: 200, body: .pattern(size: size, chunk: fastChunk, interval: 0))
    case "/slow":
      guard isRead else { return methodNotAllowed("GET, HEAD") }
      return slow(head)
    case "/delay":
      guard isRead else { return methodNotAllowed("GET, HEAD") }
      guard let size = integer(head, "size", default: 0, in: 0...maxSize),
        let delay = integer(head, "ms", default: 0, in: 0...maxDelayMilliseconds)
      else { return nil }
      var plan = Plan(status: 200, body: .pattern(size: size, chunk: fastChunk, interval: 0))
      plan.delayNanoseconds = UInt64(delay) * 1_000_000
      return plan
    case "/status":
      guard isRead else { return methodNotAllowed("GET, HEAD") }
      guard let code = integer(head, "code", default: 200, in: 200...599) else { return nil }
      if code == 204 || code == 304 { return Plan(status: code, body: .text([])) }
      return .text(code, "status \(code)\n")
    case "/upload":
      guard head.method == "POST" || head.method == "PUT" else {
        return methodNotAllowed("POST, PUT")
      }
      guard head.query["hold"] == nil || uploadHold(for: head) != nil else { return bad }
      let paced = head.query["chunk"] != nil || head.query["interval_ms"] != nil
      guard !paced || uploadPace(for: head) != nil else { return bad }
      return .text(200, "\(requestBodyBytes)")
    case "/redirect":
      guard let target = head.query["to"], target.first == "/",
        let code = integer(head, "code", default: 302, in: 301...308),
        [301, 302, 303, 307, 308].contains(code)
      else { return nil }
      return redirect(code, to: target)
    case "/loop":
      return redirect(302, to: head.target)
    case "/auth":
      return authenticate(head)
    default:
      return .text(404, "no route for \(head.path)\n")
    }
  }

  /// Applies the options every route takes: `close=1`, `chunked=1` and `fault=...&after=N`.
  /// False when one is invalid. A fault leaves the head's `Connection` as it was, as a server that breaks
  /// mid-response never announced it would.
  private static func applyOptions(_ head: HTTPRequestHead, to plan: inout Plan) -> Bool {
    switch head.query["close"] {
    case nil, "0": break
    case "1": plan.keepAlive = false
    default: return false
    }
    switch head.query["chunked"] {
    case nil, "0": break
    case "1": plan.chunked = true
    default: return false
    }
    guard let name = head.query["fault"] else { return true }
    let length = plan.bodyLength
    guard let after = integer(head, "after", default: length / 2, in: 0...length) else {
      return false
    }
    switch name {
    case "hangup": plan.fault = .hangUp
    case "silence": plan.fault = .silence
    case "reset": plan.fault = .reset(after: after)
    case "close": plan.fault = .close(after: after)
    case "stall": plan.fault = .stall(after: after)
    case "badchunk": plan.fault = .badChunk(after: after)
    default: return false
    }
    return true
  }

  private static func redirect(_ code: Int, to target: String) -> Plan {
    var plan = Plan.text(code, "redirecting to \(target)\n")
    plan.headers = [("Location", target)]
    return plan
  }

  /// `/auth?user=U&password=P&realm=R&size=N`: N bytes for a request carrying
  /// `Authorization: Basic base64(U:P)`, else 401 with a Basic challenge for realm R.
  private static func authenticate(_ head: HTTPRequestHead) -> Plan? {
    guard let size = integer(head, "size", default: 0, in: 0...maxSize) else { return nil }
    let user = head.query["user"] ?? "user"
    let password = head.query["password"] ?? "password"
    let realm = head.query["realm"] ?? "loopback"
    guard !realm.contains("\""), !realm.unicodeScalars.contains(where: { $0.value < 0x20 }) else {
      return nil
    }
    let expected = "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    if head.authorization == expected {
      return Plan(status: 200, body: .pattern(size: size, chunk: fastChunk, interval: 0))
    }
    var plan = Plan.text(401, "authentication required\n")
    plan.headers = [("WWW-Authenticate", "Basic realm=\"\(realm)\"")]
    return plan
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

  /// How to read the body of `/upload?chunk=C&interval_ms=T` (after its hold, if it has one): C
  /// bytes, then a pause of T ms (defaults: C = 65536, T = 10); nil for an upload read at
  /// once, or parameters out of range.
  static func uploadPace(for head: HTTPRequestHead) -> (chunk: Int, interval: UInt64)? {
    guard head.path == "/upload", head.query["chunk"] != nil || head.query["interval_ms"] != nil,
      let chunk = integer(head, "chunk", default: fastChunk, in: 1...maxSize),
      let milliseconds = integer(head, "interval_ms", default: 10, in: 0...maxDelayMilliseconds)
    else { return nil }
    return (chunk, UInt64(milliseconds) * 1_000_000)
  }

  /// How many body bytes of `/upload?hold=N` the server reads before it holds the upload
  /// until the test releases it; nil for an upload read at once, or a count out of range.
  static func uploadHold(for head: HTTPRequestHead) -> Int? {
    guard head.path == "/upload", head.query["hold"] != nil else { return nil }
    return integer(head, "hold", default: 0, in: 0...maxSize)
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
    case 303: "See Other"
    case 304: "Not Modified"
    case 307: "Temporary Redirect"
    case 308: "Permanent Redirect"
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

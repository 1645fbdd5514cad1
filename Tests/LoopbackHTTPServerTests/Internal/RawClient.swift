import AutoCancelTestSupport
import Dispatch

#if canImport(Glibc)
  import Glibc

  private let systemSend = Glibc.send
  private let systemClose = Glibc.close
  private typealias Linger = Glibc.linger
#elseif canImport(Darwin)
  import Darwin

  private let systemSend = Darwin.send
  private let systemClose = Darwin.close
  private typealias Linger = Darwin.linger
#endif

/// An HTTP/1.1 client on a raw socket, so tests control exactly when bytes are read and how
/// the connection ends (close, reset, half-close).
///
/// Its socket calls block (a read waits for the server), so each `async` call runs them on a
/// thread of its own (``onNewThread(_:)``), never on the cooperative pool that every test
/// shares. Reads and writes give up after ``waitBound`` seconds, so a broken server fails the
/// test instead of hanging it.
final class RawClient: @unchecked Sendable {
  // Safety: a test drives its client from one task, one call at a time; each call's socket work
  // runs on its own thread and ends before the call returns, so `fd` and `pending` are never
  // touched by two threads at once, and each thread sees the last one's writes (a thread's
  // start and a continuation's resumption order them).
  struct Response {
    var status: Int
    var headers: [String: String]
    var body: [UInt8]

    /// The body as UTF-8 text.
    var text: String { String(decoding: body, as: UTF8.self) }
  }

  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  private var fd: Int32
  private var pending: [UInt8] = []

  /// Connects to 127.0.0.1:`port`.
  init(port: Int) async throws {
    fd = try await Self.offThePool { try Self.openConnection(port: port) }
  }

  deinit { closeDescriptor() }

  /// Sends all of `text`.
  func send(_ text: String) async throws { try await send(Array(text.utf8)) }

  /// Sends all of `bytes`.
  func send(_ bytes: [UInt8]) async throws {
    try await blocking { try $0.sendAll(bytes) }
  }

  /// Sends `GET target` with optional extra header lines.
  func get(_ target: String, headers: [String] = []) async throws {
    let extra = headers.map { "\($0)\r\n" }.joined()
    try await send("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(extra)\r\n")
  }

  /// Sends `GET target` with optional extra header lines, and reads the whole response: a
  /// ``get(_:headers:)``, then a ``readResponse()``.
  func response(to target: String, headers: [String] = []) async throws -> Response {
    try await get(target, headers: headers)
    return try await readResponse()
  }

  /// Sends the head of an upload to `target` that announces `length` body bytes, then the
  /// first `sent` of them (all by default).
  func upload(
    _ target: String, method: String = "POST", length: Int, sending sent: Int? = nil,
    headers: [String] = []
  ) async throws {
    let extra = headers.map { "\($0)\r\n" }.joined()
    try await send(
      "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(length)\r\n\(extra)\r\n"
    )
    let count = sent ?? length
    if count > 0 { try await send([UInt8](repeating: 7, count: count)) }
  }

  /// Reads a response head (skipping `100 Continue`); the body is left unread.
  func readHead() async throws -> (status: Int, headers: [String: String]) {
    try await blocking { try $0.receiveHead(skippingInterim: true) }
  }

  /// Reads the next response head, `100 Continue` included.
  func readHeadIncludingInterim() async throws -> (status: Int, headers: [String: String]) {
    try await blocking { try $0.receiveHead(skippingInterim: false) }
  }

  /// Reads exactly `count` body bytes.
  func readBody(_ count: Int) async throws -> [UInt8] {
    try await blocking { try $0.receiveBody(count) }
  }

  /// Reads a whole response with a `Content-Length` body.
  func readResponse() async throws -> Response {
    try await blocking { client in
      let (status, headers) = try client.receiveHead(skippingInterim: true)
      let length = Int(headers["content-length"] ?? "0") ?? 0
      return Response(status: status, headers: headers, body: try client.receiveBody(length))
    }
  }

  /// How the server ended the connection.
  enum Ending: Equatable {
    /// End of stream: the server closed it (FIN).
    case closed
    /// The server reset it (RST).
    case reset
  }

  /// Reads until the server ends the connection, and returns how many bytes came before the
  /// end, and how it ended. Throws if the read times out (the server kept it open).
  func readToEnd() async throws -> (bytes: Int, ending: Ending) {
    try await blocking { try $0.receiveToEnd() }
  }

  /// Reads one CRLF-terminated line, without its CRLF.
  func readLine() async throws -> String {
    try await blocking { try $0.receiveLine() }
  }

  /// Reads and discards data until the server closes the connection; true once it has.
  /// Throws if the read times out (the server kept the connection open).
  func readsEndOfStream() async throws -> Bool {
    try await blocking { client in
      while try client.fill() { client.pending.removeAll() }
      client.pending.removeAll()
      return true
    }
  }

  /// Closes the socket normally (FIN, or RST if unread data remains).
  func close() { closeDescriptor() }

  /// Shuts down the writing half only (the client keeps reading).
  func shutdownWrite() { _ = shutdown(fd, Int32(SHUT_WR)) }

  /// Closes the socket with an immediate reset (SO_LINGER 0).
  func reset() {
    var linger = Linger(l_onoff: 1, l_linger: 0)
    _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Linger>.size))
    closeDescriptor()
  }

  /// The ways a client leaves a connection.
  enum Leaving: String, CaseIterable, Sendable {
    case close
    case reset
    case halfClose = "half-close"
  }

  /// Leaves the connection as `leaving` says.
  func leave(_ leaving: Leaving) {
    switch leaving {
    case .close: close()
    case .reset: reset()
    case .halfClose: shutdownWrite()
    }
  }

  /// Reads exactly `count` body bytes, then leaves as `leaving` says, on one thread and with no
  /// pause between the two: a client that leaves mid-body however late its task runs. Returns
  /// when it left.
  @discardableResult
  func readBody(_ count: Int, thenLeaving leaving: Leaving) async throws -> DispatchTime {
    try await blocking { client in
      _ = try client.receiveBody(count)
      let now = DispatchTime.now()
      client.leave(leaving)
      return now
    }
  }

  // MARK: The blocking socket calls, each run off the cooperative pool

  /// Runs `body` on a thread of its own, and returns what it returns or throws what it throws.
  private static func offThePool<Value: Sendable>(
    _ body: @escaping @Sendable () throws -> Value
  ) async throws -> Value {
    try await onNewThread { Result { try body() } }.get()
  }

  /// Runs `body` with this client on a thread of its own.
  private func blocking<Value: Sendable>(
    _ body: @escaping @Sendable (RawClient) throws -> Value
  ) async throws -> Value {
    try await Self.offThePool { [self] in try body(self) }
  }

  /// A connected socket to 127.0.0.1:`port`, whose reads and writes time out after
  /// ``waitBound`` seconds.
  private static func openConnection(port: Int) throws -> Int32 {
    #if canImport(Darwin)
      let fd = socket(AF_INET, SOCK_STREAM, 0)
    #else
      let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #endif
    guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
    var timeout = timeval(tv_sec: Int(waitBound), tv_usec: 0)
    _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var one: Int32 = 1
    #if canImport(Darwin)
      _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
    #endif
    _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0 else {
      let code = errno
      _ = systemClose(fd)
      throw Failure(description: "connect: errno \(code)")
    }
    return fd
  }

  private func sendAll(_ bytes: [UInt8]) throws {
    var offset = 0
    while offset < bytes.count {
      #if canImport(Darwin)
        let flags: Int32 = 0
      #else
        let flags = Int32(MSG_NOSIGNAL)
      #endif
      let count = bytes[offset...].withUnsafeBytes {
        systemSend(fd, $0.baseAddress, $0.count, flags)
      }
      guard count > 0 else { throw Failure(description: "send: errno \(errno)") }
      offset += count
    }
  }

  /// Reads more bytes; false at end of stream.
  private func fill() throws -> Bool {
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
    if count < 0 { throw Failure(description: "recv: errno \(errno)") }
    pending += buffer[0..<count]
    return count > 0
  }

  private func receiveHead(
    skippingInterim: Bool
  ) throws -> (
    status: Int, headers: [String: String]
  ) {
    while true {
      guard let end = Self.find([13, 10, 13, 10], in: pending) else {
        guard try fill() else { throw Failure(description: "end of stream before head") }
        continue
      }
      let text = String(decoding: pending[0..<end], as: UTF8.self)
      pending.removeFirst(end + 4)
      let lines = text.components(separatedBy: "\r\n")
      let statusLine = lines[0].split(separator: " ")
      guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
        throw Failure(description: "bad status line \(lines[0])")
      }
      if status == 100, skippingInterim { continue }
      var headers: [String: String] = [:]
      for line in lines.dropFirst() {
        let parts = line.split(separator: ":", maxSplits: 1)
        headers[parts[0].lowercased()] = parts.count > 1 ? String(parts[1].drop { $0 == " " }) : ""
      }
      return (status, headers)
    }
  }

  private func receiveBody(_ count: Int) throws -> [UInt8] {
    while pending.count < count {
      guard try fill() else { throw Failure(description: "end of stream inside body") }
    }
    let body = Array(pending[0..<count])
    pending.removeFirst(count)
    return body
  }

  private func receiveToEnd() throws -> (bytes: Int, ending: Ending) {
    var count = pending.count
    pending.removeAll()
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
      let received = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      if received > 0 {
        count += received
      } else if received == 0 {
        return (count, .closed)
      } else if errno == ECONNRESET {
        return (count, .reset)
      } else if errno != EINTR {
        throw Failure(description: "recv: errno \(errno)")
      }
    }
  }

  private func receiveLine() throws -> String {
    while true {
      if let end = Self.find([13, 10], in: pending) {
        let line = String(decoding: pending[0..<end], as: UTF8.self)
        pending.removeFirst(end + 2)
        return line
      }
      guard try fill() else { throw Failure(description: "end of stream inside a line") }
    }
  }

  private func closeDescriptor() {
    guard fd >= 0 else { return }
    _ = systemClose(fd)
    fd = -1
  }

  private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
    guard haystack.count >= needle.count else { return nil }
    for index in 0...(haystack.count - needle.count)
    where Array(haystack[index..<(index + needle.count)]) == needle {
      return index
    }
    return nil
  }
}

/// The number of this process's descriptors that are TCP sockets bound locally to `port`
/// (the server's listener and accepted connections), or nil where `/proc` is unavailable.
func descriptorsBound(toPort port: Int) -> Int? {
  guard let fds = try? listDirectory("/proc/self/fd") else { return nil }
  var inodes: Set<String> = []
  for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
    guard let text = readTextFile(table) else { continue }
    for line in text.split(separator: "\n").dropFirst() {
      let columns = line.split(separator: " ")
      guard columns.count > 9, let colon = columns[1].lastIndex(of: ":"),
        Int(columns[1][columns[1].index(after: colon)...], radix: 16) == port
      else { continue }
      inodes.insert(String(columns[9]))
    }
  }
  var count = 0
  for name in fds {
    var buffer = [CChar](repeating: 0, count: 256)
    let length = readlink("/proc/self/fd/\(name)", &buffer, buffer.count - 1)
    guard length > 0 else { continue }
    let target = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    if target.hasPrefix("socket:["), inodes.contains(String(target.dropFirst(8).dropLast())) {
      count += 1
    }
  }
  return count
}

private func listDirectory(_ path: String) throws -> [String] {
  guard let directory = opendir(path) else { throw RawClient.Failure(description: "opendir") }
  defer { closedir(directory) }
  var names: [String] = []
  while let entry = readdir(directory) {
    let name = withUnsafeBytes(of: entry.pointee.d_name) {
      String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
    }
    if name != "." && name != ".." { names.append(name) }
  }
  return names
}

private func readTextFile(_ path: String) -> String? {
  guard let file = fopen(path, "r") else { return nil }
  defer { fclose(file) }
  var bytes: [UInt8] = []
  var buffer = [UInt8](repeating: 0, count: 64 * 1024)
  while true {
    let count = fread(&buffer, 1, buffer.count, file)
    if count <= 0 { break }
    bytes += buffer[0..<count]
  }
  return String(decoding: bytes, as: UTF8.self)
}

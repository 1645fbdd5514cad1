import Dispatch
import Foundation

/// Serves the requests of one accepted connection, on its own thread, until the client
/// closes, asks to close, misbehaves, or the server stops.
///
/// Blocking I/O; while a response is deliberately slow (between chunks, before delayed
/// headers) the socket is watched with `poll`, so a client that leaves is noticed at once and
/// not one more byte is sent.
final class Connection {
  private let fd: Int32
  private let number: Int
  private let core: ServerCore
  /// Bytes received and not yet consumed (the start of a pipelined request, or body bytes).
  private var pending: [UInt8] = []
  private var receiveBuffer = [UInt8](repeating: 0, count: 64 * 1024)
  private var requestsServed = 0
  /// Body bytes read for the current request.
  private var bodyBytesRead = 0

  private static let maxHeadBytes = 64 * 1024
  private static let maxLineBytes = 8 * 1024
  /// Body bytes for generated responses: a repeating, readable pattern.
  private static let pattern: [UInt8] = {
    let alphabet = Array("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ\n".utf8)
    return (0..<(64 * 1024)).map { alphabet[$0 % alphabet.count] }
  }()

  init(fd: Int32, number: Int, core: ServerCore) {
    self.fd = fd
    self.number = number
    self.core = core
  }

  func run() {
    while !core.isStopping {
      switch readHead() {
      case .closed:
        return
      case .malformed(let status):
        _ = sendAll(Self.simpleResponse(status: status, keepAlive: false), record: nil)
        return
      case .head(let head):
        requestsServed += 1
        guard serve(head) else { return }
      }
    }
  }

  // MARK: Reading

  private enum HeadResult {
    case head(HTTPRequestHead)
    case malformed(status: Int)
    case closed
  }

  /// Receives more bytes into `pending`; returns false at end of stream or on error.
  private func fill() -> Bool {
    let count = receiveBuffer.withUnsafeMutableBytes { Socket.receive(fd, into: $0) }
    guard count > 0 else { return false }
    pending.append(contentsOf: receiveBuffer[0..<count])
    return true
  }

  private func readHead() -> HeadResult {
    var searchFrom = 0
    while true {
      if let end = Self.find([13, 10, 13, 10], in: pending, from: searchFrom) {
        let head = HTTPRequestHead(pending[0..<end])
        pending.removeFirst(end + 4)
        return head.map { .head($0) } ?? .malformed(status: 400)
      }
      if pending.count > Self.maxHeadBytes { return .malformed(status: 431) }
      searchFrom = max(0, pending.count - 3)
      guard fill() else { return .closed }
    }
  }

  private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
    guard haystack.count >= needle.count, start <= haystack.count - needle.count else {
      return nil
    }
    outer: for index in start...(haystack.count - needle.count) {
      for offset in 0..<needle.count where haystack[index + offset] != needle[offset] {
        continue outer
      }
      return index
    }
    return nil
  }

  /// Reads and discards `count` body bytes, reporting progress; false if the stream ended.
  ///
  /// With a hold, stops reading once the body has reached `hold.bytes` bytes, until the test
  /// releases the upload `hold.id` (or the server stops): the client, held back by flow
  /// control, is still sending. With a pace, reads the rest (after the hold) `chunk` bytes at
  /// a time, watching the client for `interval` nanoseconds in between.
  private func consume(
    _ count: Int, hold: (bytes: Int, id: String)?, pace: (chunk: Int, interval: UInt64)?,
    progress: (Int) -> Void
  ) -> Bool {
    var remaining = count
    var holding = hold
    while remaining > 0 {
      if let hold = holding, bodyBytesRead >= hold.bytes {
        guard waitForRelease(of: hold.id) else { return false }
        holding = nil
      }
      if pending.isEmpty, !fill() { return false }
      let limit = holding.map { $0.bytes - bodyBytesRead } ?? pace?.chunk ?? .max
      let taken = min(remaining, pending.count, limit)
      pending.removeFirst(taken)
      remaining -= taken
      progress(taken)
      if holding == nil, let pace, remaining > 0, pace.interval > 0 {
        guard watchPeer(until: DispatchTime.now().uptimeNanoseconds + pace.interval) else {
          return false
        }
      }
    }
    return true
  }

  /// Waits until the held upload `id` is released; false if the server stops first.
  ///
  /// The client cannot be seen leaving meanwhile: its close is queued behind the body bytes
  /// that the server holds back. It is seen once the server reads again.
  private func waitForRelease(of id: String) -> Bool {
    while !core.isUploadReleased(id: id) {
      if core.isStopping { return false }
      Socket.pause(milliseconds: 5)
    }
    return true
  }

  /// Reads one CRLF-terminated line (without the CRLF); nil if the stream ended or the line
  /// is too long.
  private func readLine() -> String? {
    var searchFrom = 0
    while true {
      if let end = Self.find([13, 10], in: pending, from: searchFrom) {
        let line = String(decoding: pending[0..<end], as: UTF8.self)
        pending.removeFirst(end + 2)
        return line
      }
      if pending.count > Self.maxLineBytes { return nil }
      searchFrom = max(0, pending.count - 1)
      guard fill() else { return nil }
    }
  }

  private enum BodyResult {
    case read
    case malformed
    case ended
  }

  private func readBody(_ head: HTTPRequestHead, id: String, record: Int) -> BodyResult {
    let progress: (Int) -> Void = { [self] count in
      bodyBytesRead += count
      core.updateRecord(record) { $0.requestBodyBytes += count }
    }
    let hold = Route.uploadHold(for: head).map { (bytes: $0, id: id) }
    let pace = Route.uploadPace(for: head)
    // A held or paced upload is held back by flow control, not buffered by the kernel: the
    // client is still sending while the server reads little, and stops sending when it leaves.
    if hold != nil || pace != nil { Socket.limitReceiveBuffer(fd, bytes: 65_536) }
    guard head.isChunked else {
      let read = consume(head.contentLength ?? 0, hold: hold, pace: pace, progress: progress)
      return read ? .read : .ended
    }
    while true {
      guard let line = readLine() else { return .ended }
      let sizeField = line.split(separator: ";", maxSplits: 1).first ?? ""
      guard let size = Int(sizeField.trimmingCharacters(in: .whitespaces), radix: 16), size >= 0
      else { return .malformed }
      if size == 0 { break }
      guard consume(size, hold: hold, pace: pace, progress: progress) else { return .ended }
      guard let end = readLine() else { return .ended }
      guard end.isEmpty else { return .malformed }
    }
    while true {  // trailer section, up to the blank line
      guard let line = readLine() else { return .ended }
      if line.isEmpty { return .read }
    }
  }

  // MARK: Serving

  /// Serves one request; returns whether the connection may carry another.
  private func serve(_ head: HTTPRequestHead) -> Bool {
    bodyBytesRead = 0
    let id = head.query["id"] ?? head.requestID ?? "request-\(number)-\(requestsServed)"
    let record = core.addRecord(
      RequestRecord(
        id: id, connection: number, method: head.method, path: head.path, query: head.query,
        startedAt: .now()))

    if head.hasBody {
      if head.expectsContinue {
        guard sendAll(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8), record: nil) else {
          return finishGone(record)
        }
      }
      switch readBody(head, id: id, record: record) {
      case .read:
        break
      case .ended:
        return finishGone(record)
      case .malformed:
        _ = sendAll(Self.simpleResponse(status: 400, keepAlive: false), record: nil)
        core.updateRecord(record) {
          $0.status = 400
          $0.finishedAt = .now()
        }
        return false
      }
    }

    let plan = Route.plan(for: head, requestBodyBytes: bodyBytesRead)
    let keepAlive = head.keepAlive && plan.keepAlive && !core.isStopping
    let sendsBody = head.method != "HEAD"
    let answers = plan.fault != .hangUp && plan.fault != .silence
    core.updateRecord(record) {
      // A response that is never sent keeps status 0 and plans no bytes.
      $0.status = answers ? plan.status : 0
      $0.bytesPlanned = sendsBody && answers ? plan.bodyLength : 0
    }

    if plan.delayNanoseconds > 0 {
      let deadline = DispatchTime.now().uptimeNanoseconds + plan.delayNanoseconds
      guard watchPeer(until: deadline) else { return finishGone(record) }
    }
    switch plan.fault {
    case .hangUp:
      startFault(record)
      return finishByServer(record)
    case .silence:
      startFault(record)
      return waitUntilTheClientLeaves(record)
    default: break
    }
    let chunked: Bool
    if case .badChunk = plan.fault { chunked = true } else { chunked = plan.chunked }
    guard sendAll(responseHead(plan, id: id, keepAlive: keepAlive, chunked: chunked), record: nil)
    else { return finishGone(record) }
    if sendsBody {
      guard sendBody(plan, record: record, chunked: chunked) else { return finishGone(record) }
      // A whole chunked body ends with the last, empty chunk; a fault never sends it.
      if chunked, plan.fault == nil {
        guard sendAll(Array("0\r\n\r\n".utf8), record: nil) else { return finishGone(record) }
      }
    }
    switch plan.fault {
    case .reset:
      Socket.resetOnClose(fd)
      startFault(record)
      return finishByServer(record)
    case .close:
      startFault(record)
      return finishByServer(record)
    case .stall:
      startFault(record)
      return waitUntilTheClientLeaves(record)
    case .badChunk:
      startFault(record)
      guard sendAll(Array("zz\r\n".utf8), record: nil) else { return finishGone(record) }
      return waitUntilTheClientLeaves(record)
    case .hangUp, .silence, nil:
      break
    }
    core.updateRecord(record) {
      $0.completed = true
      $0.finishedAt = .now()
    }
    return keepAlive
  }

  /// Sends the body bytes the plan sends (all, or those before a mid-body fault), paced as
  /// the plan says; in chunked framing when `chunked`. Counts payload bytes only.
  private func sendBody(_ plan: Route.Plan, record: Int, chunked: Bool) -> Bool {
    let limit = plan.bodyBytesToSend
    let source: ArraySlice<UInt8>
    let chunk: Int
    let interval: UInt64
    /// Text goes out as it stands; the pattern starts over in every piece.
    let repeats: Bool
    switch plan.body {
    case .text(let bytes):
      (source, chunk, interval, repeats) = (bytes[...], max(1, bytes.count), 0, false)
    case .pattern(_, let pieceSize, let pause):
      (source, chunk, interval, repeats) = (Self.pattern[...], pieceSize, pause, true)
    }
    let size = plan.bodyLength
    let start = DispatchTime.now().uptimeNanoseconds
    var sent = 0
    var chunksSent: UInt64 = 0
    while sent < limit {
      let piece = min(chunk, limit - sent, source.count)
      let offset = source.startIndex + (repeats ? 0 : sent)
      let bytes = source[offset..<(offset + piece)]
      if chunked {
        guard sendAll(Array("\(String(piece, radix: 16))\r\n".utf8), record: nil),
          sendAll(bytes, record: record), sendAll([13, 10], record: nil)
        else { return false }
      } else {
        guard sendAll(bytes, record: record) else { return false }
      }
      sent += piece
      chunksSent += 1
      if interval > 0, sent < size {
        guard watchPeer(until: start + chunksSent * interval) else { return false }
      }
    }
    return true
  }

  private func responseHead(
    _ plan: Route.Plan, id: String, keepAlive: Bool, chunked: Bool
  ) -> [UInt8] {
    var text = "HTTP/1.1 \(plan.status) \(Route.reason(plan.status))\r\n"
    if plan.status != 204, plan.status != 304 {
      text +=
        chunked ? "Transfer-Encoding: chunked\r\n" : "Content-Length: \(plan.bodyLength)\r\n"
      text += "Content-Type: \(plan.contentType)\r\n"
    }
    for (name, value) in plan.headers { text += "\(name): \(value)\r\n" }
    if id.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7F }) {
      text += "X-Request-ID: \(id)\r\n"
    }
    text += "Connection: \(keepAlive ? "keep-alive" : "close")\r\n\r\n"
    return Array(text.utf8)
  }

  private static func simpleResponse(status: Int, keepAlive: Bool) -> [UInt8] {
    let body = "\(status) \(Route.reason(status))\n"
    return Array(
      ("HTTP/1.1 \(status) \(Route.reason(status))\r\nContent-Length: \(body.utf8.count)\r\n"
        + "Content-Type: text/plain\r\nConnection: \(keepAlive ? "keep-alive" : "close")\r\n\r\n"
        + body).utf8)
  }

  // MARK: Writing and watching

  /// Writes all of `bytes`, counting them as body bytes of `record` when given; false if the
  /// peer is gone (or the server shut the socket down).
  private func sendAll<Bytes: Collection<UInt8>>(_ bytes: Bytes, record: Int?) -> Bool {
    let result: Bool? = bytes.withContiguousStorageIfAvailable { buffer in
      var offset = 0
      while offset < buffer.count {
        let rest = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[offset...])
        guard case .sent(let count) = Socket.send(fd, rest) else { return false }
        offset += count
        if let record { core.updateRecord(record) { $0.bytesSent += count } }
      }
      return true
    }
    if let result { return result }
    return sendAll(Array(bytes), record: record)
  }

  /// Waits until `deadline` (uptime nanoseconds); false as soon as the peer leaves.
  private func watchPeer(until deadline: UInt64) -> Bool {
    Socket.watchPeer(fd, until: deadline) { DispatchTime.now().uptimeNanoseconds } == .present
  }

  /// Notes in `record` that its fault begins now.
  private func startFault(_ record: Int) {
    core.updateRecord(record) { $0.faultStartedAt = .now() }
  }

  /// Finishes `record` at a fault of the server's own making (the connection then closes);
  /// the client is not blamed. Returns false (the connection is done).
  private func finishByServer(_ record: Int) -> Bool {
    core.updateRecord(record) { $0.finishedAt = .now() }
    return false
  }

  /// Sends nothing more, and waits until the client leaves or the server stops; then
  /// finishes `record` as ``finishGone(_:)`` does. Returns false (the connection is done).
  private func waitUntilTheClientLeaves(_ record: Int) -> Bool {
    _ = watchPeer(until: .max)
    return finishGone(record)
  }

  /// Finishes `record` because the connection broke; blames the client unless the server is
  /// stopping. Returns false (the connection is done).
  private func finishGone(_ record: Int) -> Bool {
    let now = DispatchTime.now()
    let blameClient = !core.isStopping
    core.updateRecord(record) {
      if blameClient { $0.clientWentAwayAt = now }
      $0.finishedAt = now
    }
    return false
  }
}

// A stand-in for LoopbackHTTPServer (same names, a subset of its routes) until that lands on
// main; the tests use it through `TestServer`.
import Dispatch
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

typealias TestServer = StandInServer

struct StandInRecord: Sendable {
  var id: String
  var bytesPlanned = 0
  var bytesSent = 0
  var completed = false
  var clientWentAway = false
  var isFinished = false
}

final class StandInServer: @unchecked Sendable {
  // Safety: mutable state is only touched under `lock`.
  private let lock = NSLock()
  private var records: [String: StandInRecord] = [:]
  private var waiters:
    [(String, @Sendable (StandInRecord) -> Bool, CheckedContinuation<StandInRecord?, Never>)] = []
  private var listener: Int32 = -1
  private var stopped = false
  private var openSockets: Set<Int32> = []
  private(set) var port = 0

  func start() throws {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var yes: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    _ = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    listen(fd, 1024)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    port = Int(UInt16(bigEndian: address.sin_port))
    listener = fd
    Thread.detachNewThread { [self] in acceptLoop(fd) }
  }

  func stop() {
    let (fd, sockets) = lock.withLock { () -> (Int32, Set<Int32>) in
      stopped = true
      return (listener, openSockets)
    }
    shutdown(fd, Int32(SHUT_RDWR))
    close(fd)
    for socket in sockets { shutdown(socket, Int32(SHUT_RDWR)) }
  }

  func url(_ pathAndQuery: String) -> URL {
    URL(string: "http://127.0.0.1:\(port)\(pathAndQuery)")!
  }

  func record(id: String) -> StandInRecord? { lock.withLock { records[id] } }

  func waitForRecord(
    id: String, timeout: TimeInterval = 10,
    where predicate: @escaping @Sendable (StandInRecord) -> Bool = { $0.isFinished }
  ) async -> StandInRecord? {
    await withCheckedContinuation { continuation in
      let now: StandInRecord? = lock.withLock {
        if let record = records[id], predicate(record) { return record }
        waiters.append((id, predicate, continuation))
        return nil
      }
      if let now { continuation.resume(returning: now) }
      DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [self] in
        let expired = lock.withLock { () -> [CheckedContinuation<StandInRecord?, Never>] in
          let mine = waiters.filter { $0.0 == id }
          waiters.removeAll { $0.0 == id }
          return mine.map(\.2)
        }
        for continuation in expired { continuation.resume(returning: nil) }
      }
    }
  }

  private func update(_ id: String, _ change: (inout StandInRecord) -> Void) {
    let ready: [(CheckedContinuation<StandInRecord?, Never>, StandInRecord)] = lock.withLock {
      var record = records[id] ?? StandInRecord(id: id)
      change(&record)
      records[id] = record
      var ready: [(CheckedContinuation<StandInRecord?, Never>, StandInRecord)] = []
      waiters.removeAll { waiter in
        guard waiter.0 == id, waiter.1(record) else { return false }
        ready.append((waiter.2, record))
        return true
      }
      return ready
    }
    for (continuation, record) in ready { continuation.resume(returning: record) }
  }

  private func acceptLoop(_ fd: Int32) {
    while true {
      let client = accept(fd, nil, nil)
      if client < 0 { return }
      let accepted = lock.withLock { () -> Bool in
        if stopped { return false }
        openSockets.insert(client)
        return true
      }
      if !accepted { close(client); return }
      Thread.detachNewThread { [self] in serve(client) }
    }
  }

  private func serve(_ fd: Int32) {
    defer {
      lock.withLock { _ = openSockets.remove(fd) }
      close(fd)
    }
    var buffer = [UInt8]()
    var chunk = [UInt8](repeating: 0, count: 16_384)
    while true {
      // Read one request head (and a Content-Length body).
      var headEnd: Int?
      while headEnd == nil {
        if let range = findHeadEnd(buffer) { headEnd = range; break }
        let n = read(fd, &chunk, chunk.count)
        if n <= 0 { return }
        buffer.append(contentsOf: chunk[0..<n])
      }
      let head = String(decoding: buffer[0..<headEnd!], as: UTF8.self)
      buffer.removeFirst(headEnd! + 4)
      let lines = head.components(separatedBy: "\r\n")
      let target = lines[0].split(separator: " ").dropFirst().first.map(String.init) ?? "/"
      let contentLength =
        lines.first { $0.lowercased().hasPrefix("content-length:") }
        .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
      while buffer.count < contentLength {
        let n = read(fd, &chunk, chunk.count)
        if n <= 0 { return }
        buffer.append(contentsOf: chunk[0..<n])
      }
      buffer.removeFirst(contentLength)
      let components = URLComponents(string: target)
      var query: [String: String] = [:]
      for item in components?.queryItems ?? [] { query[item.name] = item.value }
      let id = query["id"] ?? UUID().uuidString
      let path = components?.path ?? "/"
      let size = Int(query["size"] ?? "0") ?? 0
      switch path {
      case "/bytes", "/slow", "/delay":
        update(id) { $0.bytesPlanned = size }
        if path == "/delay" {
          if !waitForClose(fd, milliseconds: Int32(query["ms"] ?? "0") ?? 0) {
            update(id) {
              $0.clientWentAway = true; $0.isFinished = true
            }
            return
          }
        }
        let extra = path == "/bytes" ? "Cache-Control: max-age=60\r\n" : ""
        guard writeAll(fd, Array("HTTP/1.1 200 OK\r\nContent-Length: \(size)\r\n\(extra)\r\n".utf8))
        else {
          update(id) {
            $0.clientWentAway = true; $0.isFinished = true
          }
          return
        }
        let step = path == "/slow" ? Int(query["chunk"] ?? "1024") ?? 1024 : max(size, 1)
        let interval = path == "/slow" ? Int32(query["interval_ms"] ?? "10") ?? 10 : 0
        var sent = 0
        while sent < size {
          let count = min(step, size - sent)
          if !writeAll(fd, [UInt8](repeating: 120, count: count)) {
            update(id) {
              $0.clientWentAway = true; $0.isFinished = true
            }
            return
          }
          sent += count
          update(id) { $0.bytesSent = sent }
          if interval > 0, sent < size, !waitForClose(fd, milliseconds: interval) {
            update(id) {
              $0.clientWentAway = true; $0.isFinished = true
            }
            return
          }
        }
        update(id) {
          $0.completed = true; $0.isFinished = true
        }
      case "/upload":
        let body = Array("\(contentLength)".utf8)
        _ = writeAll(
          fd, Array("HTTP/1.1 200 OK\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body)
        update(id) {
          $0.completed = true; $0.isFinished = true
        }
      default:
        _ = writeAll(fd, Array("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n".utf8))
      }
    }
  }

  /// Waits `milliseconds`, watching the socket; false if the client went away meanwhile.
  private func waitForClose(_ fd: Int32, milliseconds: Int32) -> Bool {
    var watch = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    let ready = poll(&watch, 1, milliseconds)
    if ready <= 0 { return true }
    var byte: UInt8 = 0
    return recv(fd, &byte, 1, Int32(MSG_PEEK)) > 0
  }

  private func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
    var offset = 0
    while offset < bytes.count {
      let n = bytes[offset...].withUnsafeBytes {
        send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
      }
      if n <= 0 { return false }
      offset += n
    }
    return true
  }

  private func findHeadEnd(_ buffer: [UInt8]) -> Int? {
    guard buffer.count >= 4 else { return nil }
    for i in 0...(buffer.count - 4)
    where buffer[i] == 13 && buffer[i + 1] == 10 && buffer[i + 2] == 13 && buffer[i + 3] == 10 {
      return i
    }
    return nil
  }
}

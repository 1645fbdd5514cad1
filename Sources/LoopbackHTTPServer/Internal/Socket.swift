#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Thin wrappers over the BSD socket calls the server needs; the only file that touches the C
/// library.
///
/// Every descriptor is created close-on-exec, and writes never raise SIGPIPE
/// (`MSG_NOSIGNAL` on Linux, `SO_NOSIGPIPE` on Darwin); the process-wide signal disposition
/// is left alone.
enum Socket {
  /// What `accept` produced.
  enum Accepted {
    case connection(Int32)
    /// Nothing to accept right now (spurious wake-up, aborted connection, interrupted call).
    case none
    /// Out of descriptors or another resource: back off before trying again.
    case exhausted
    /// The listener is unusable (it was shut down by `stop()`, or failed).
    case closed
  }

  /// What the peer did while the server was waiting.
  enum PeerState {
    /// The wait ran to its deadline and the peer is still connected.
    case present
    /// The peer closed its side (FIN) or reset the connection.
    case gone
  }

  /// What a single `send` did.
  enum SendResult {
    case sent(Int)
    case failed
  }

  #if canImport(Darwin)
    private static let streamType = SOCK_STREAM
    private static let sendFlags: Int32 = 0
    private static let peerHangUpEvents: Int16 = 0
  #else
    private static let streamType = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
    private static let sendFlags = Int32(MSG_NOSIGNAL)
    // POLLRDHUP: the peer shut down its writing half. Not exported by every libc module map.
    private static let peerHangUpEvents: Int16 = 0x2000
  #endif

  /// Opens a listening TCP socket on 127.0.0.1 with an ephemeral port.
  ///
  /// The socket is non-blocking (the accept loop polls it), close-on-exec, `SO_REUSEADDR`,
  /// with a backlog of 1024.
  /// Raises the process's soft limit of open descriptors to its hard limit (on Darwin, to at
  /// most `OPEN_MAX`), once per process, before the first server listens.
  ///
  /// The server and its clients live in one process, so every connection costs it two
  /// descriptors, and URLSession keeps idle connections open: a test run or a demo with many
  /// requests in flight passes the common soft limits (1,024 on Linux, 256 on macOS) long
  /// before any hard limit, and FoundationNetworking traps when it runs out. Nothing changes
  /// if the soft limit is already as high, or if the call is refused.
  static let openFilesLimitRaised: Void = {
    var limit = rlimit()
    guard getrlimit(resourceNoFile, &limit) == 0 else { return }
    #if canImport(Darwin)
      // Darwin refuses RLIM_INFINITY for RLIMIT_NOFILE.
      let wanted = min(limit.rlim_max, rlim_t(OPEN_MAX))
    #else
      let wanted = limit.rlim_max
    #endif
    guard limit.rlim_cur < wanted else { return }
    limit.rlim_cur = wanted
    _ = setrlimit(resourceNoFile, &limit)
  }()

  #if canImport(Glibc)
    private static let resourceNoFile = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
  #else
    private static let resourceNoFile = RLIMIT_NOFILE
  #endif

  static func makeListener() throws(LoopbackHTTPServerError) -> (fd: Int32, port: Int) {
    let (fd, port) = try bindLoopback(reuseAddress: true)
    do throws(LoopbackHTTPServerError) {
      guard listen(fd, 1024) == 0 else {
        throw LoopbackHTTPServerError(operation: "listen", code: errno)
      }
      let flags = fcntl(fd, F_GETFL, 0)
      guard flags >= 0, fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0 else {
        throw LoopbackHTTPServerError(operation: "fcntl(O_NONBLOCK)", code: errno)
      }
      return (fd, port)
    } catch {
      close(fd)
      throw error
    }
  }

  /// Reserves an ephemeral port on 127.0.0.1 that refuses connections: a TCP socket bound to
  /// it that never listens. While the socket is open no one else can bind the port, and a
  /// client's connection attempt is answered with a reset (`ECONNREFUSED`).
  static func makeClosedPort() throws(LoopbackHTTPServerError) -> (fd: Int32, port: Int) {
    try bindLoopback(reuseAddress: false)
  }

  /// A close-on-exec TCP socket bound to 127.0.0.1 on an ephemeral port, and that port.
  private static func bindLoopback(
    reuseAddress: Bool
  ) throws(LoopbackHTTPServerError) -> (fd: Int32, port: Int) {
    let fd = socket(AF_INET, streamType, 0)
    guard fd >= 0 else { throw LoopbackHTTPServerError(operation: "socket", code: errno) }
    do throws(LoopbackHTTPServerError) {
      #if canImport(Darwin)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
      #endif
      var one: Int32 = 1
      if reuseAddress {
        guard
          setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size)) == 0
        else { throw LoopbackHTTPServerError(operation: "setsockopt(SO_REUSEADDR)", code: errno) }
      }

      var address = sockaddr_in()
      #if canImport(Darwin)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
      #endif
      address.sin_family = sa_family_t(AF_INET)
      address.sin_port = 0
      address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
      let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
      }
      guard bound == 0 else { throw LoopbackHTTPServerError(operation: "bind", code: errno) }

      var boundAddress = sockaddr_in()
      var length = socklen_t(MemoryLayout<sockaddr_in>.size)
      let named = withUnsafeMutablePointer(to: &boundAddress) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
      }
      guard named == 0 else { throw LoopbackHTTPServerError(operation: "getsockname", code: errno) }
      return (fd, Int(UInt16(bigEndian: boundAddress.sin_port)))
    } catch {
      close(fd)
      throw error
    }
  }

  /// Waits up to `timeoutMilliseconds` for the listener to become readable.
  ///
  /// Returns `false` when the listener reports an error or hang-up (Linux reports `POLLHUP`
  /// once `shutdown` was called on it).
  static func waitForIncoming(_ listener: Int32, timeoutMilliseconds: Int32) -> Bool {
    var entry = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
    let ready = poll(&entry, 1, timeoutMilliseconds)
    if ready > 0, entry.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 { return false }
    return true
  }

  /// Accepts one connection as a blocking, close-on-exec socket that never raises SIGPIPE.
  static func accept(_ listener: Int32) -> Accepted {
    // `accept4(SOCK_CLOEXEC)` is not exported by the Glibc module; set FD_CLOEXEC right after.
    #if canImport(Darwin)
      let fd = Darwin.accept(listener, nil, nil)
    #else
      let fd = Glibc.accept(listener, nil, nil)
    #endif
    guard fd >= 0 else {
      switch errno {
      case EAGAIN, EWOULDBLOCK, EINTR, ECONNABORTED, EPROTO: return .none
      case EMFILE, ENFILE, ENOBUFS, ENOMEM: return .exhausted
      default: return .closed
      }
    }
    // Accepted sockets inherit O_NONBLOCK on Darwin; connections use blocking I/O.
    let flags = fcntl(fd, F_GETFL, 0)
    if flags >= 0, flags & O_NONBLOCK != 0 { _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) }
    _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    var one: Int32 = 1
    #if canImport(Darwin)
      _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
    #endif
    _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    return .connection(fd)
  }

  /// Blocking receive; returns the byte count, 0 at end of stream, or -1 on error
  /// (`EINTR` is retried).
  static func receive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int {
    while true {
      let count = recv(fd, buffer.baseAddress, buffer.count, 0)
      if count < 0, errno == EINTR { continue }
      return count
    }
  }

  /// One blocking `send` (`EINTR` is retried); a failure means the peer is gone or the
  /// server shut the socket down.
  static func send(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) -> SendResult {
    while true {
      #if canImport(Darwin)
        let count = Darwin.send(fd, buffer.baseAddress, buffer.count, sendFlags)
      #else
        let count = Glibc.send(fd, buffer.baseAddress, buffer.count, sendFlags)
      #endif
      if count >= 0 { return .sent(count) }
      if errno == EINTR { continue }
      return .failed
    }
  }

  /// Waits until `deadline` (uptime nanoseconds) while watching the peer, returning as soon
  /// as it closes or resets the connection.
  ///
  /// Uses `poll` for readability and hang-up (`POLLRDHUP` on Linux); a readable socket is
  /// classified with `recv(MSG_PEEK)`: 0 bytes or `ECONNRESET` means gone, data means the
  /// client pipelined its next request, which is left in the socket.
  static func watchPeer(_ fd: Int32, until deadline: UInt64, now: () -> UInt64) -> PeerState {
    var events = Int16(POLLIN) | peerHangUpEvents
    while true {
      let current = now()
      if current >= deadline { return .present }
      let remaining = deadline - current
      let milliseconds = Int32(min((remaining + 999_999) / 1_000_000, 60_000))
      var entry = pollfd(fd: fd, events: events, revents: 0)
      let ready = poll(&entry, 1, milliseconds)
      if ready < 0 {
        if errno == EINTR { continue }
        return .gone
      }
      if ready == 0 { continue }
      let revents = entry.revents
      if revents & (Int16(POLLHUP | POLLERR | POLLNVAL) | peerHangUpEvents) != 0 { return .gone }
      if revents & Int16(POLLIN) != 0 {
        var byte: UInt8 = 0
        let peeked = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        if peeked == 0 { return .gone }
        if peeked < 0 {
          if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { continue }
          return .gone
        }
        // Pipelined data: stop asking for POLLIN, keep watching for hang-up only.
        events = peerHangUpEvents
      }
    }
  }

  /// Makes the next `close` of `fd` reset the connection (RST) instead of closing it (FIN):
  /// `SO_LINGER` on, with a zero timeout.
  static func resetOnClose(_ fd: Int32) {
    var option = linger(l_onoff: 1, l_linger: 0)
    _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
  }

  /// Shuts down both directions, waking any thread blocked on the socket; the descriptor
  /// stays open.
  static func shutdownBoth(_ fd: Int32) {
    _ = shutdown(fd, Int32(SHUT_RDWR))
  }

  /// Closes the descriptor.
  static func close(_ fd: Int32) {
    #if canImport(Darwin)
      _ = Darwin.close(fd)
    #else
      _ = Glibc.close(fd)
    #endif
  }

  /// Blocks the calling thread for about `milliseconds` (used only to back off).
  /// Caps the kernel's receive buffer of `fd` at `bytes`, ending its automatic growth: a
  /// client that sends while the server does not read is held back by flow control, instead of
  /// handing megabytes to the kernel.
  static func limitReceiveBuffer(_ fd: Int32, bytes: Int32) {
    var size = bytes
    _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
  }

  static func pause(milliseconds: Int32) {
    _ = poll(nil, 0, milliseconds)
  }

  /// The current value of `errno`, for error reports.
  static var lastError: Int32 { errno }
}

import Dispatch
import Foundation

/// The shared state of one server: its listener, its open connections, the request records,
/// and the tasks waiting on them.
///
/// Threads (the accept loop and one per connection) hold the core, never the front
/// ``LoopbackHTTPServer``, so dropping the server runs its `deinit`, which stops the core.
final class ServerCore: @unchecked Sendable {
  // Safety: every mutable property is in `state`, which is touched only inside `lock`.
  // Continuations are resumed and predicates evaluated only after the lock is released.
  private let lock = NSLock()
  private var state = State()
  /// Entered for the accept thread and for each connection thread; `stop()` waits on it.
  private let threads = DispatchGroup()

  /// Most connections served at once; the accept loop pauses while this many are open.
  static let maxConnections = 2048

  private enum Phase {
    case idle
    case running
    case stopping
    case stopped
  }

  private struct RecordWaiter {
    let id: String
    let predicate: @Sendable (RequestRecord) -> Bool
    let continuation: CheckedContinuation<RequestRecord?, Never>
  }

  private struct StatsWaiter {
    let predicate: @Sendable (ConnectionStats) -> Bool
    let continuation: CheckedContinuation<ConnectionStats?, Never>
  }

  private struct State {
    var phase = Phase.idle
    var listener: Int32 = -1
    var port = 0
    /// A bound socket that never listens, reserving a port that refuses connections.
    var closedPortDescriptor: Int32 = -1
    var closedPort = 0
    /// Descriptors of accepted connections whose threads have not closed them yet.
    var openDescriptors: Set<Int32> = []
    var stats = ConnectionStats()
    var records: [RequestRecord] = []
    /// The index in `records` of the latest record for each id.
    var latestIndex: [String: Int] = [:]
    var recordWaiters: [Int: RecordWaiter] = [:]
    var statsWaiters: [Int: StatsWaiter] = [:]
    var nextToken = 0
    /// Ids of held uploads (`hold=N`) that may read the rest of their body.
    var releasedUploads: Set<String> = []
  }

  private func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&state)
  }

  // MARK: Lifecycle

  var port: Int { withLock { $0.port } }

  var closedPort: Int { withLock { $0.closedPort } }

  /// Binds and starts the accept thread; a no-op when already running.
  func start() throws(LoopbackHTTPServerError) {
    switch withLock({ $0.phase }) {
    case .running: return
    case .stopping, .stopped: throw Self.startedAfterStop
    case .idle: break
    }
    Socket.openFilesLimitRaised
    let (fd, port) = try Socket.makeListener()
    let closed: (fd: Int32, port: Int)
    do {
      closed = try Socket.makeClosedPort()
    } catch {
      Socket.close(fd)
      throw error
    }
    let phase: Phase = withLock {
      guard $0.phase == .idle else { return $0.phase }
      $0.phase = .running
      $0.listener = fd
      $0.port = port
      $0.closedPortDescriptor = closed.fd
      $0.closedPort = closed.port
      threads.enter()
      return .idle
    }
    switch phase {
    case .idle:
      spawn(name: "LoopbackHTTPServer.accept") { [self] in acceptLoop(fd) }
    case .running:
      // Another thread started it concurrently.
      Socket.close(fd)
      Socket.close(closed.fd)
    case .stopping, .stopped:
      Socket.close(fd)
      Socket.close(closed.fd)
      throw Self.startedAfterStop
    }
  }

  private static let startedAfterStop = LoopbackHTTPServerError(
    operation: "start (the server was stopped)", code: 0)

  /// Stops accepting, shuts down every open connection, waits for all server threads to
  /// end, then resolves the remaining waiters. Idempotent; concurrent callers all wait.
  func stop() {
    let wasRunning = beginStop()
    if isServerThread {
      // Called from one of our own threads (say, the last reference to the server was
      // released inside a wait predicate): waiting here would wait for ourselves.
      DispatchQueue.global().async { [self] in
        threads.wait()
        if wasRunning { resolveWaitersAfterStop() }
      }
      return
    }
    threads.wait()
    if wasRunning { resolveWaitersAfterStop() }
  }

  /// ``stop()`` for async callers: the same shutdown, then a suspension until every server
  /// thread has ended (the group's notification resumes it), instead of a blocking wait.
  func stopWithoutBlocking() async {
    let wasRunning = beginStop()
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      threads.notify(queue: .global()) { [self] in
        if wasRunning { resolveWaitersAfterStop() }
        continuation.resume()
      }
    }
  }

  /// Moves to stopping and wakes every server thread; returns whether the server was
  /// running, in which case the caller resolves the waiters once the threads have ended.
  private func beginStop() -> Bool {
    withLock {
      switch $0.phase {
      case .idle:
        $0.phase = .stopped
        return false
      case .running:
        $0.phase = .stopping
        // Shut down (not close) under the lock: each descriptor's owner thread closes it only
        // after removing it from this set under the same lock, so the number cannot have
        // been reused by then. `shutdown` wakes threads blocked in recv/send/poll.
        if $0.listener >= 0 { Socket.shutdownBoth($0.listener) }
        for fd in $0.openDescriptors { Socket.shutdownBoth(fd) }
        if $0.closedPortDescriptor >= 0 {
          Socket.close($0.closedPortDescriptor)
          $0.closedPortDescriptor = -1
        }
        return true
      case .stopping, .stopped:
        return false
      }
    }
  }

  private func resolveWaitersAfterStop() {
    let (recordWaiters, statsWaiters, records, latest, stats) = withLock { state in
      state.phase = .stopped
      let taken = (state.recordWaiters, state.statsWaiters)
      state.recordWaiters = [:]
      state.statsWaiters = [:]
      return (taken.0, taken.1, state.records, state.latestIndex, state.stats)
    }
    for waiter in recordWaiters.values {
      let record = latest[waiter.id].map { records[$0] }
      waiter.continuation.resume(returning: record.flatMap { waiter.predicate($0) ? $0 : nil })
    }
    for waiter in statsWaiters.values {
      waiter.continuation.resume(returning: waiter.predicate(stats) ? stats : nil)
    }
  }

  /// Whether `stop()` has begun; connection threads use it to tell a server-side shutdown
  /// from a client going away.
  var isStopping: Bool { withLock { $0.phase == .stopping || $0.phase == .stopped } }

  private static let threadKey = "LoopbackHTTPServer.core"

  /// Whether the calling thread is one of this server's accept or connection threads.
  private var isServerThread: Bool {
    Thread.current.threadDictionary[Self.threadKey] as? UInt
      == UInt(bitPattern: ObjectIdentifier(self))
  }

  private func spawn(name: String, _ body: @escaping @Sendable () -> Void) {
    let marker = UInt(bitPattern: ObjectIdentifier(self))
    let thread = Thread { [threads] in
      Thread.current.threadDictionary[Self.threadKey] = marker
      body()
      threads.leave()
    }
    thread.name = name
    thread.stackSize = 512 * 1024
    thread.start()
  }

  private func acceptLoop(_ listener: Int32) {
    defer {
      withLock {
        $0.listener = -1
        Socket.close(listener)
      }
    }
    while true {
      if isStopping { return }
      // The timeout only bounds how long a missed wake-up could delay `stop()` on systems
      // where `shutdown` does not wake `poll` on a listener.
      guard Socket.waitForIncoming(listener, timeoutMilliseconds: 100) else { return }
      if withLock({ $0.stats.open >= Self.maxConnections }) {
        // Leave further clients in the backlog until a connection closes.
        Socket.pause(milliseconds: 5)
        continue
      }
      switch Socket.accept(listener) {
      case .connection(let fd):
        admit(fd)
      case .none:
        continue
      case .exhausted:
        Socket.pause(milliseconds: 10)
      case .closed:
        return
      }
    }
  }

  private func admit(_ fd: Int32) {
    let number: Int? = withLock {
      guard $0.phase == .running else { return nil }
      $0.openDescriptors.insert(fd)
      $0.stats.accepted += 1
      $0.stats.open += 1
      threads.enter()
      return $0.stats.accepted
    }
    guard let number else {
      Socket.close(fd)
      return
    }
    notifyStatsChanged()
    spawn(name: "LoopbackHTTPServer.connection") { [self] in
      Connection(fd: fd, number: number, core: self).run()
      withLock { _ = $0.openDescriptors.remove(fd) }
      Socket.close(fd)
      let now = DispatchTime.now()
      withLock {
        $0.stats.open -= 1
        $0.stats.lastClosedAt = now
      }
      notifyStatsChanged()
    }
  }

  // MARK: Records

  var records: [RequestRecord] { withLock { $0.records } }

  var stats: ConnectionStats { withLock { $0.stats } }

  /// Lets the held upload `id` read the rest of its body.
  func releaseUpload(id: String) {
    withLock { _ = $0.releasedUploads.insert(id) }
  }

  func isUploadReleased(id: String) -> Bool {
    withLock { $0.releasedUploads.contains(id) }
  }

  func record(id: String) -> RequestRecord? {
    withLock { state in state.latestIndex[id].map { state.records[$0] } }
  }

  /// Adds a record and returns its index, used for later updates.
  func addRecord(_ record: RequestRecord) -> Int {
    let index: Int = withLock {
      $0.records.append(record)
      $0.latestIndex[record.id] = $0.records.count - 1
      return $0.records.count - 1
    }
    notifyRecordChanged(record)
    return index
  }

  /// Applies `change` to the record at `index`, then wakes the waiters whose predicate now
  /// holds. (Connections stop updating a record once they finish it; updates are not
  /// filtered here so that a bug sending more bytes would show in the record.)
  func updateRecord(_ index: Int, _ change: (inout RequestRecord) -> Void) {
    let updated: RequestRecord = withLock {
      change(&$0.records[index])
      return $0.records[index]
    }
    notifyRecordChanged(updated)
  }

  private func notifyRecordChanged(_ record: RequestRecord) {
    let candidates = withLock { $0.recordWaiters.filter { $0.value.id == record.id } }
    for (token, waiter) in candidates where waiter.predicate(record) {
      resolveRecordWaiter(token, with: record)
    }
  }

  private func notifyStatsChanged() {
    let (stats, candidates) = withLock { ($0.stats, $0.statsWaiters) }
    for (token, waiter) in candidates where waiter.predicate(stats) {
      resolveStatsWaiter(token, with: stats)
    }
  }

  // MARK: Waiting

  func waitForRecord(
    id: String, timeout: TimeInterval, where predicate: @escaping @Sendable (RequestRecord) -> Bool
  ) async -> RequestRecord? {
    let token = withLock {
      $0.nextToken += 1
      return $0.nextToken
    }
    return await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        let (current, stopped): (RequestRecord?, Bool) = withLock { state in
          if state.phase == .stopped {
            return (state.latestIndex[id].map { state.records[$0] }, true)
          }
          state.recordWaiters[token] = RecordWaiter(
            id: id, predicate: predicate, continuation: continuation)
          return (state.latestIndex[id].map { state.records[$0] }, false)
        }
        if stopped {
          continuation.resume(returning: current.flatMap { predicate($0) ? $0 : nil })
          return
        }
        if let current, predicate(current) {
          resolveRecordWaiter(token, with: current)
        } else if Task.isCancelled {
          resolveRecordWaiter(token, with: nil)
        } else {
          DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [weak self] in
            self?.resolveRecordWaiter(token, with: nil)
          }
        }
      }
    } onCancel: {
      resolveRecordWaiter(token, with: nil)
    }
  }

  func waitForConnections(
    timeout: TimeInterval, where predicate: @escaping @Sendable (ConnectionStats) -> Bool
  ) async -> ConnectionStats? {
    let token = withLock {
      $0.nextToken += 1
      return $0.nextToken
    }
    return await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        let (current, stopped): (ConnectionStats, Bool) = withLock { state in
          if state.phase == .stopped { return (state.stats, true) }
          state.statsWaiters[token] = StatsWaiter(predicate: predicate, continuation: continuation)
          return (state.stats, false)
        }
        if stopped {
          continuation.resume(returning: predicate(current) ? current : nil)
          return
        }
        if predicate(current) {
          resolveStatsWaiter(token, with: current)
        } else if Task.isCancelled {
          resolveStatsWaiter(token, with: nil)
        } else {
          DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [weak self] in
            self?.resolveStatsWaiter(token, with: nil)
          }
        }
      }
    } onCancel: {
      resolveStatsWaiter(token, with: nil)
    }
  }

  private func resolveRecordWaiter(_ token: Int, with record: RequestRecord?) {
    let waiter = withLock { $0.recordWaiters.removeValue(forKey: token) }
    waiter?.continuation.resume(returning: record)
  }

  private func resolveStatsWaiter(_ token: Int, with stats: ConnectionStats?) {
    let waiter = withLock { $0.statsWaiters.removeValue(forKey: token) }
    waiter?.continuation.resume(returning: stats)
  }
}

import AutoCancel
import Testing

/// Operations of bag tasks that the test lets return one by one, with a log of when each
/// started and returned: to check that a policy starts launches in order, one at a time, or
/// never.
///
/// ```swift
/// let log = OperationLog()
/// let first = bag.task(key: "k", policy: .enqueue, operation: log.operation("first"))
/// await log.waitUntilStarted("first")
/// log.release("first")
/// ```
public final class OperationLog: Sendable {
  /// What happened to an operation.
  public enum Entry: Equatable, Sendable, CustomStringConvertible {
    case started(String)
    case returned(String)

    /// `first started`, `first returned`.
    public var description: String {
      switch self {
      case .started(let name): "\(name) started"
      case .returned(let name): "\(name) returned"
      }
    }
  }

  private struct Releases {
    var released: Set<String> = []
    var waiting: [String: CheckedContinuation<Void, Never>] = [:]
  }

  private let log = Protected<[Entry]>([])
  private let releases = Protected(Releases())

  /// A log of nothing, with no operation released.
  public init() {}

  /// An operation named `name`: logs its start, waits until `release(name)`, logs its return,
  /// and returns the bag's reason if its task was cancelled.
  ///
  /// Cancellation does not end the wait: a cancelled operation goes on until it is released,
  /// as one that does not check for cancellation would (the suites' time limits bound it).
  public func operation(_ name: String) -> @Sendable () async -> CancellationReason? {
    { [self] in
      log.withLock { $0.append(.started(name)) }
      await withCheckedContinuation { continuation in
        let isReleased = releases.withLock { releases in
          if releases.released.contains(name) { return true }
          releases.waiting[name] = continuation
          return false
        }
        if isReleased { continuation.resume() }
      }
      let reason = CancellationReason.current
      log.withLock { $0.append(.returned(name)) }
      return reason
    }
  }

  /// Lets the operation `name` return.
  public func release(_ name: String) {
    let waiting = releases.withLock { releases in
      releases.released.insert(name)
      return releases.waiting.removeValue(forKey: name)
    }
    waiting?.resume()
  }

  /// Returns once the operation `name` has started.
  public func waitUntilStarted(
    _ name: String, sourceLocation: SourceLocation = #_sourceLocation
  ) async {
    await waitUntil("\(name) starts", sourceLocation: sourceLocation) { hasStarted(name) }
  }

  /// Whether the operation `name` has started.
  public func hasStarted(_ name: String) -> Bool {
    log.withLock { $0.contains(.started(name)) }
  }

  /// Everything logged, in order.
  public var entries: [Entry] { log.current }

  /// The names of the operations in the order they started.
  public var startOrder: [String] {
    entries.compactMap { entry in
      if case .started(let name) = entry { return name }
      return nil
    }
  }

  /// The most operations that ran at once.
  public var mostAtOnce: Int {
    var running = 0
    var most = 0
    for entry in entries {
      switch entry {
      case .started: running += 1
      case .returned: running -= 1
      }
      most = max(most, running)
    }
    return most
  }
}

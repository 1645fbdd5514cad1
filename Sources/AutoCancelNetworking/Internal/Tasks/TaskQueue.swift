import Dispatch
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The library's own serial queue: every URLSession call the library makes runs here, never on
/// the thread of an awaiting Swift task and never under a lock of ours.
///
/// Making a twin session, making and resuming a request's task, cancelling a task (the
/// library's own and raw ones), deciding a redirect of a library task: all here, one at a time.
/// On Linux the twins' delegates run here too (``delegateQueue``), so a request's transfer
/// state (its task, its bytes, its redirect answers) needs no lock: it is only ever touched
/// on this queue.
///
/// Why a queue of its own: on Linux, `resume()`, `cancel()` and making a task each wait
/// synchronously for FoundationNetworking's process-wide work queue (and `resume()` of a twin's
/// task, for its URL cache's answer). Called from a cancellation handler, a `deinit` or under a
/// lock that code on that queue needs, `cancel()` can deadlock; called on a thread of Swift's
/// cooperative pool, any of them holds one of the pool's few threads.
///
/// Two calls wait for it, by contract: the completion-handler helpers, which return their task
/// made (``sync(_:)``), and a raw task added to a bag that has ended, which is cancelled before
/// `add` returns.
enum TaskQueue {
  /// The queue.
  static let queue: DispatchQueue = {
    let queue = DispatchQueue(label: "AutoCancelNetworking.TaskQueue", qos: .userInitiated)
    queue.setSpecific(key: onQueue, value: ())
    return queue
  }()

  /// Set on ``queue`` alone: tells a call that already runs there.
  private static let onQueue = DispatchSpecificKey<Void>()

  /// Runs `work` on the queue, later; returns at once.
  static func async(_ work: @escaping @Sendable () -> Void) {
    queue.async(execute: work)
  }

  /// Runs `work` on the queue and returns its result: inline when the caller already runs
  /// there.
  static func sync<Result>(_ work: () throws -> Result) rethrows -> Result {
    if DispatchQueue.getSpecific(key: onQueue) != nil { return try work() }
    return try queue.sync(execute: work)
  }

  /// Whether the caller runs on the queue.
  static var isCurrent: Bool { DispatchQueue.getSpecific(key: onQueue) != nil }

  /// The delegate queue of the library's twin sessions: operations run on ``queue``, one at a
  /// time, in order.
  static let delegateQueue: OperationQueue = {
    let operations = OperationQueue()
    operations.name = "AutoCancelNetworking.TaskQueue"
    operations.maxConcurrentOperationCount = 1
    operations.underlyingQueue = queue
    return operations
  }()
}

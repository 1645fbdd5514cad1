import Dispatch
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The library's own serial queues for URLSession work: never the thread of an awaiting Swift
/// task, never under a lock of ours.
///
/// - ``queue`` keeps what each request knows of its task (``Transfer``), the twin sessions and
///   the request instruments, and, on Linux, hears every event of the twins' tasks: so none of
///   it needs a lock. It never waits for URLSession.
/// - The ``lanes`` make the URLSession calls that wait: making and resuming a task, cancelling
///   it (the library's own tasks and raw ones), and handing over an authentication decision.
///   On Linux, each waits synchronously for FoundationNetworking's process-wide work queue
///   (and `resume()` of a twin's task, for its URL cache's answer); called from a cancellation
///   handler, a `deinit` or under a lock that code on that queue needs, `cancel()` can
///   deadlock; called on a thread of Swift's cooperative pool, any of them holds one of the
///   pool's few threads.
///
/// Each request (or raw task) makes all its calls on one lane, ``calls(for:)``, in order; the
/// requests of a process share the lanes. One queue for all would make every call wait for
/// every call queued before it: when FoundationNetworking's work queue is busy, each call
/// waits tens of milliseconds for it, and a cancel queued behind a burst waited seconds (up to
/// 6.6 s in a run of the tests under ThreadSanitizer), long enough for a request's own timeout
/// to end it first. With several lanes, that many calls wait for FoundationNetworking at once,
/// and a cancel waits for the calls of its own lane alone. Each lane is a serial queue of its
/// own, so a lane that waits holds one thread, and only while it has calls to make.
///
/// What ``queue`` decides, a lane does, in order: a redirect decision the first one hands to
/// a task before the library's cancel of it reaches the task first, and one that comes after
/// is dropped (FoundationNetworking stops the process on a decision that comes after a
/// cancel); and the decisions reach the task without waiting for URLSession calls of other
/// requests.
///
/// Two calls make their URLSession call on the caller's thread, by contract: the
/// completion-handler helpers, which return their task made (and cancelled, for a request
/// cancelled already), and a raw task added to a bag that has ended, which is cancelled before
/// `add` returns.
enum TaskQueue {
  /// The queue of what the library knows of its requests' tasks.
  static let queue: DispatchQueue = {
    let queue = DispatchQueue(label: "AutoCancelNetworking.TaskQueue", qos: .userInitiated)
    queue.setSpecific(key: onQueue, value: ())
    return queue
  }()

  /// Set on ``queue`` alone: tells a call that already runs there.
  private static let onQueue = DispatchSpecificKey<Void>()

  /// Where the URLSession calls that wait are made: eight serial queues. More would not make
  /// calls faster, as FoundationNetworking makes them one at a time on its one work queue; eight
  /// keep it fed while a few lanes wait on slow calls.
  static let lanes: [DispatchQueue] = (0..<8).map { index in
    DispatchQueue(label: "AutoCancelNetworking.TaskQueue.calls.\(index)", qos: .userInitiated)
  }

  /// The lane where the URLSession calls for `request` are made, the same for every call: a
  /// request's or a raw task's object, alive while its calls are queued.
  static func calls(for request: AnyObject) -> DispatchQueue {
    let hash = UInt(bitPattern: ObjectIdentifier(request).hashValue)
    return lanes[Int(hash % UInt(lanes.count))]
  }

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

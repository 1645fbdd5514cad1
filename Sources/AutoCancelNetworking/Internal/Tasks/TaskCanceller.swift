import Dispatch
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The one place where the library calls `URLSessionTask.cancel()`.
///
/// Two rules, both from swift-corelibs-foundation (see the "Cancelling URLSession work"
/// article):
///
/// 1. Never inline. `cancel()` waits synchronously for the session's internal queue, so
///    calling it from a cancellation handler, a `deinit` or under a lock that code on that
///    queue needs can deadlock. Every cancel is handed to one serial queue and the caller
///    returns at once.
/// 2. Never while a cached-response lookup is pending. On a session whose cache is not a
///    ``CancelSafeURLCache``, a data task's `cancel()` issued during the lookup is parked
///    and replayed later, and may then crash the process. For such tasks the cancel waits
///    until the task shows a sign of being past the lookup (a response head, bytes moved) or
///    has completed, checking every few milliseconds.
enum TaskCanceller {
  /// Serial queues for raw tasks, whose session the library cannot see; a task always uses
  /// the same one. Several, so that one busy session does not hold up everyone's cancels.
  static let sharedQueues = (0..<4).map {
    DispatchQueue(label: "AutoCancelNetworking.TaskCanceller.\($0)")
  }

  /// A new serial queue for the cancels of one session (see ``TaskRoute``).
  static func makeQueue() -> DispatchQueue {
    DispatchQueue(label: "AutoCancelNetworking.TaskCanceller.session")
  }

  /// The shared queue for `object` (a raw task, or a session on Apple platforms).
  static func sharedQueue(for object: AnyObject) -> DispatchQueue {
    sharedQueues[Int(UInt(bitPattern: ObjectIdentifier(object).hashValue) % 4)]
  }

  /// How often a deferred cancel looks at its task again.
  static let pollInterval = DispatchTimeInterval.milliseconds(2)

  /// Cancels `task` from the canceller's queue; returns at once.
  ///
  /// - Parameter waitForLookup: true when the task's session may still be looking its
  ///   request up in a cache that is not cancel-safe.
  ///   - queue: the serial queue that runs it: the session's, or the task's shared one.
  static func cancel(_ task: URLSessionTask, waitForLookup: Bool, on queue: DispatchQueue) {
    queue.async {
      if waitForLookup {
        cancelPastLookup(task, on: queue)
      } else {
        task.cancel()
      }
    }
  }

  /// Cancels `task` once it is past its cache lookup, looking again every few milliseconds.
  private static func cancelPastLookup(_ task: URLSessionTask, on queue: DispatchQueue) {
    dispatchPrecondition(condition: .onQueue(queue))
    switch task.state {
    case .completed, .canceling:
      return
    case .suspended:
      // Never resumed: no lookup started, and `resume()` after this does nothing.
      task.cancel()
    case .running:
      // FoundationNetworking sets the expected length when the response head arrives, long
      // after the lookup; `response` and the byte counts of completion-handler tasks only
      // move at the end. (A plain read of an Int64 that Foundation writes on its queue: a
      // stale value only delays the next check.)
      if task.countOfBytesExpectedToReceive != 0 || task.response != nil
        || task.countOfBytesReceived > 0 || task.countOfBytesSent > 0
      {
        task.cancel()
      } else {
        queue.asyncAfter(deadline: .now() + pollInterval) { cancelPastLookup(task, on: queue) }
      }
    @unknown default:
      task.cancel()
    }
  }
}

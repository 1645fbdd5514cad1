import AutoCancel
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// What a bag holds for a raw `URLSessionTask` bound with `add(_:)` or `autoCancel(_:)`:
/// cancels it without blocking, and tells the bag when the task has completed so that it
/// leaves by itself.
///
/// A wrapper, not a conformance of `URLSessionTask`: Foundation's own `cancel()` waits for the
/// session's queue on Linux, and the bag must never call it inline.
final class RawTaskWork: FinishReporting, Sendable {
  let task: URLSessionTask

  init(_ task: URLSessionTask) { self.task = task }

  /// Cancels the task from a private serial queue and returns at once.
  ///
  /// On Linux, cancelling a data or upload task while its session is still looking the
  /// request up in its URL cache can crash FoundationNetworking. The library cannot see a raw
  /// task's session, so for data and upload tasks it waits until the task is past that
  /// lookup (a response or bytes moved, or it completed).
  func cancel() {
    #if canImport(FoundationNetworking)
      TaskCanceller.cancel(
        task, waitForLookup: task is URLSessionDataTask, on: TaskCanceller.sharedQueue(for: task))
    #else
      TaskCanceller.cancel(task, waitForLookup: false, on: TaskCanceller.sharedQueue(for: task))
    #endif
  }

  /// True once URLSession has completed the task (it delivered its result or error).
  var isFinished: Bool { task.state == .completed }
}

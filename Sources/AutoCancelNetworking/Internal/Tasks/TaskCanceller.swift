import Dispatch
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The one place where the library calls `URLSessionTask.cancel()`, for every task it cancels:
/// raw tasks bound with the one-liner, the helpers' tasks and streams.
///
/// Two rules, from swift-corelibs-foundation (see the "Cancelling URLSession work" article):
///
/// 1. Never inline. `cancel()` waits synchronously for the process-wide queue that runs all
///    URLSession work on Linux, so calling it from a cancellation handler, a `deinit` or under a
///    lock that code on that queue needs can deadlock. Cancels go to one serial queue and the
///    caller returns at once. The one exception is ``cancelBeforeResume(_:)``.
/// 2. Never while the task's URL cache is being asked for a stored response
///    (``CacheLookup``): such a cancel is parked, replayed later, and may crash the process.
///    A cancel that comes then waits on the queue, looking again after 1, 2, 4 and then every
///    8 ms; lookups take microseconds to milliseconds (they run at background priority, which
///    a tighter loop here would starve when many tasks wait at once).
///
/// Tasks whose redirects a delegate decides come with a ``RedirectGate``, closed before the
/// cancel is made.
enum TaskCanceller {
  /// The serial queue that runs every cancel the library makes.
  static let queue = DispatchQueue(
    label: "AutoCancelNetworking.TaskCanceller", qos: .userInitiated)

  /// Cancels `task` from the canceller's queue, as soon as it is safe; returns at once.
  ///
  /// With `countingSavings`, for a raw task whose completion the library never sees, the
  /// cancel is counted in ``URLSessionSavings`` right after `cancel()` returns, unless the
  /// task had completed or been cancelled by someone else first.
  static func cancel(
    _ task: URLSessionTask, closing gate: RedirectGate? = nil, countingSavings: Bool = false
  ) {
    gate?.close()
    queue.async { cancelWhenSafe(task, counting: countingSavings, attempt: 0) }
  }

  /// Cancels a task that was never resumed, on the calling thread, before returning: so that
  /// the `resume()` its creator makes next finds it cancelled, and nothing is sent.
  ///
  /// The exception to rule 1, safe because such a task has no transfer and no lookup (a
  /// cancel before `resume()` starts its own lookup, with nothing else parked), and used only
  /// where no lock of ours is held: by a helper that made the task and is about to return it,
  /// and by a bag that had ended when the task was added to it.
  static func cancelBeforeResume(_ task: URLSessionTask) {
    task.cancel()
  }

  /// Cancels now if the task is past its cache lookup, else looks again shortly.
  private static func cancelWhenSafe(_ task: URLSessionTask, counting: Bool, attempt: Int) {
    dispatchPrecondition(condition: .onQueue(queue))
    guard task.state != .completed, task.state != .canceling else { return }
    #if canImport(FoundationNetworking)
      let wait: DispatchTimeInterval?
      switch CacheLookup.state(of: task) {
      case .settled: wait = nil
      case .pending: wait = DispatchTimeInterval.milliseconds(1 << min(attempt, 3))
      case .unknown: wait = isVisiblyPastLookup(task) ? nil : backOff(attempt)
      }
      if let wait {
        queue.asyncAfter(deadline: .now() + wait) {
          cancelWhenSafe(task, counting: counting, attempt: attempt + 1)
        }
        return
      }
    #endif
    let wasSuspended = task.state == .suspended
    task.cancel()
    if counting {
      SavingsAccount.count(
        CancelPhase(afterCancelOf: task, wasSuspended: wasSuspended),
        url: task.originalRequest?.url)
    }
  }

  #if canImport(FoundationNetworking)
    /// Whether the task shows, through public properties alone, that it is past its lookup:
    /// only a response head does for a GET (`countOfBytesExpectedToReceive`), or a body being
    /// sent. The fallback when ``CacheLookup`` cannot read the state.
    private static func isVisiblyPastLookup(_ task: URLSessionTask) -> Bool {
      task.state == .suspended || !(task is URLSessionDataTask)
        || task.countOfBytesExpectedToReceive != 0 || task.response != nil
        || task.countOfBytesExpectedToSend > 0 || task.countOfBytesReceived > 0
    }

    /// 2 ms, doubling up to a quarter of a second: a task whose server never answers is
    /// looked at four times a second, not five hundred.
    private static func backOff(_ attempt: Int) -> DispatchTimeInterval {
      DispatchTimeInterval.milliseconds(min(2 << min(attempt, 7), 250))
    }
  #endif
}

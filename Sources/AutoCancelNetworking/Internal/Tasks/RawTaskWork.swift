import AutoCancel
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// What a bag holds for a raw `URLSessionTask` bound with `add(_:)` or `autoCancel(_:)`:
/// cancels it once, from ``TaskQueue``, and says when it has completed so that it leaves by
/// itself.
///
/// Held strongly, like any work in a bag: a task bound before `resume()` may be held by nobody
/// else until then. A completed one leaves within the reaper's visit.
final class RawTaskWork: FinishReporting, WrappingWork, Sendable {
  let task: URLSessionTask

  /// Whether the task is still being added: a cancel that comes then (the bag had ended, or
  /// ended meanwhile) is made by the add, once it returned, not queued.
  private enum Adding: Sendable {
    case inProgress
    case cancelledMeanwhile
    case done
  }

  private let adding = Locked(Adding.inProgress)

  init(_ task: URLSessionTask) { self.task = task }

  /// Cancels the task from ``TaskQueue``, as soon as it is safe, and returns at once; during
  /// the add, leaves the cancel to it.
  func cancel() {
    let queues = adding.withLock { adding in
      switch adding {
      case .inProgress:
        adding = .cancelledMeanwhile
        return false
      case .cancelledMeanwhile:
        return false
      case .done:
        return true
      }
    }
    if queues { Self.cancelFromQueue(task) }
  }

  /// The add returned: makes the cancel that came meanwhile, if one did. A task never resumed
  /// is cancelled here and now, before `add` returns, so that the `resume()` its caller makes
  /// next finds it cancelled and nothing is sent (a task not started waits for nothing that
  /// could deadlock); any other from ``TaskQueue``.
  func added() {
    let cancelled = adding.withLock { adding in
      defer { adding = .done }
      if case .cancelledMeanwhile = adding { return true }
      return false
    }
    guard cancelled else { return }
    guard task.state == .suspended else { return Self.cancelFromQueue(task) }
    let end = Self.cancelled(task, phase: .notSent)
    task.cancel()
    TaskQueue.async { Self.report(end) }
  }

  /// True once URLSession has completed the task (it delivered its result or error).
  var isFinished: Bool { task.state == .completed }

  var wrappedTypeName: String { task.typeName }

  /// Cancels `task` on its lane of ``TaskQueue``: at once, unless its session's URL cache may still
  /// be answering for it (Linux, see ``LookupInspection``); then a little later.
  private static func cancelFromQueue(_ task: URLSessionTask) {
    TaskQueue.calls(for: task).async { cancelWhenSafe(task, attempt: 0) }
  }

  private static func cancelWhenSafe(_ task: URLSessionTask, attempt: Int) {
    let calls = TaskQueue.calls(for: task)
    dispatchPrecondition(condition: .onQueue(calls))
    let state = task.state
    guard state == .running || state == .suspended else { return }
    #if canImport(FoundationNetworking)
      if state == .running, let wait = LookupInspection.wait(before: task, attempt: attempt) {
        calls.asyncAfter(deadline: .now() + wait) {
          cancelWhenSafe(task, attempt: attempt + 1)
        }
        return
      }
    #endif
    let end = cancelled(task, phase: phase(of: task, state: state))
    task.cancel()
    TaskQueue.async { report(end) }
  }

  /// The end of `task`, cancelled by the library in `phase`, from its own counts as the cancel
  /// is made: the library never sees a raw task's completion.
  private static func cancelled(_ task: URLSessionTask, phase: RequestEnd.Phase) -> RequestEnd {
    let received = task.countOfBytesReceived
    let expected = task.countOfBytesExpectedToReceive
    #if canImport(FoundationNetworking)
      // FoundationNetworking does not count a data task's received bytes.
      let bytes: Int64? = received > 0 || phase != .receivingBody ? received : nil
    #else
      let bytes: Int64? = received
    #endif
    return RequestEnd(
      outcome: .cancelled, phase: phase, bytesReceived: bytes,
      expectedLength: expected > 0 ? expected : nil, url: task.originalRequest?.url)
  }

  private static func phase(
    of task: URLSessionTask, state: URLSessionTask.State
  )
    -> RequestEnd.Phase
  {
    if task.response != nil || task.countOfBytesExpectedToReceive != 0 { return .receivingBody }
    return state == .suspended ? .notSent : .awaitingResponse
  }

  private static func report(_ end: RequestEnd) {
    dispatchPrecondition(condition: .onQueue(TaskQueue.queue))
    for instrument in RequestInstruments.shared.current { instrument.requestEnded(end) }
  }
}

extension URLSessionTask {
  /// The public name of the task's kind, the same on every platform (an Apple task's class is
  /// a private subclass).
  var typeName: String {
    switch self {
    case is URLSessionUploadTask: "URLSessionUploadTask"
    case is URLSessionDataTask: "URLSessionDataTask"
    case is URLSessionDownloadTask: "URLSessionDownloadTask"
    default: "URLSessionTask"
    }
  }
}

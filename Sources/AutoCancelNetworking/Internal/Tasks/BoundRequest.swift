import AutoCancel
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A task, once it exists, with the gate its redirects go through, if any.
struct AttachedTask: Sendable {
  let task: URLSessionTask
  let gate: RedirectGate?
}

/// What every bound request keeps under its lock: the latch over its task, its place in its
/// bag, and what its kind adds (``TaskRequest``'s delivery, ``StreamRequest``'s head).
struct BoundRequestState<Extra: Sendable>: Sendable {
  /// The latch; a cancel carries what it leaves to count in ``URLSessionSavings``.
  var latch = CancelLatch<AttachedTask, PendingSaving>()
  /// The request's place in its bag, once `add` returned; nil without a bag.
  var registration: CancelRegistration?
  var extra: Extra

  init(_ extra: Extra) { self.extra = extra }

  /// The library cancels the request: a running task is counted at its completion, a
  /// request without one where the cancel meets it next.
  mutating func cancel() -> CancelLatch<AttachedTask, PendingSaving>.CancelAction {
    latch.cancel(latch.attachedWork.map { .atCompletion($0.task) } ?? .beforeTask)
  }

  /// The task completed: true if it delivers; otherwise a cancel of the library's won, and
  /// the task it left to count, if any, is returned in `counted` (and let go).
  mutating func complete(counting counted: inout URLSessionTask?) -> Bool {
    if latch.complete() { return true }
    if case .cancelled(.atCompletion(let task)) = latch {
      counted = task
      latch = .cancelled(.settled)
    }
    return false
  }
}

/// Counts a request the library cancelled once its completion reported it, if its transfer
/// stopped for that cancel: one that completed first, or failed otherwise, saved nothing.
/// `bodyBytes`: the body bytes the library itself saw come (a stream's chunks), if it did.
func countCancelled(
  _ task: URLSessionTask?, completedWith error: (any Error)?, bodyBytes: Int64? = nil
) {
  guard let task, let error, error.isCancellation else { return }
  SavingsAccount.countCancel(of: task, bodyBytes: bodyBytes)
}

/// A URLSession request bound to a bag and made by the library: a completion-handler or async
/// task (``TaskRequest``) or a stream (``StreamRequest``). Both join their bag and attach their
/// task the same way, here.
protocol BoundRequest: AutoCancellable, WrappingWork, AnyObject {
  associatedtype Extra: Sendable
  var state: Locked<BoundRequestState<Extra>> { get }
}

extension BoundRequest {
  /// Registers in `bag`, if any, and lets go of the bag: a request never keeps its bag alive,
  /// so an owner that goes while the request runs still ends its bag (a bag that had ended
  /// cancels the request at once).
  func register(in bag: consuming CancelBag?, label: String?, file: StaticString, line: UInt) {
    guard let bag else { return }
    let registration = bag.add(self, label: label, file: file, line: line)
    let cancelledMeanwhile = state.withLock { state in
      state.registration = registration
      return state.latch.cancellationReason != nil
    }
    // A cancel that came while `add` ran found no registration to finish.
    if cancelledMeanwhile { registration.finish() }
  }

  /// Attaches the task, made after the request registered; returns whether to start it.
  ///
  /// A request cancelled before its task existed cancels the task here, before it ever runs:
  /// on the calling thread when the caller resumes it next (the helpers that return their
  /// task), so that `resume()` finds it cancelled and nothing is sent; from the canceller's
  /// queue when the library would have resumed it (async calls, streams), which then do not.
  ///
  /// The cancel is counted in ``URLSessionSavings``: here, as not sent, for a task its caller
  /// has not resumed yet; at the task's completion for one the library resumed already.
  func attach(_ task: URLSessionTask, gate: RedirectGate?, callerResumes: Bool) -> Bool {
    let action = state.withLock { state in
      let action = state.latch.attach(AttachedTask(task: task, gate: gate))
      if case .cancel = action, !callerResumes { state.latch = .cancelled(.atCompletion(task)) }
      return action
    }
    switch action {
    case .proceed:
      return true
    case .cancel(let attached, _):
      if callerResumes {
        SavingsAccount.count(.notSent, url: task.originalRequest?.url)
        TaskCanceller.cancelBeforeResume(attached.task)
      } else {
        TaskCanceller.cancel(attached.task, closing: attached.gate)
      }
      return false
    }
  }
}

/// The kind of URLSession task a helper makes.
enum TaskKind: Sendable, Equatable {
  case data
  case upload
  case download

  /// The public name of the task's class.
  var typeName: String {
    switch self {
    case .data: "URLSessionDataTask"
    case .upload: "URLSessionUploadTask"
    case .download: "URLSessionDownloadTask"
    }
  }
}

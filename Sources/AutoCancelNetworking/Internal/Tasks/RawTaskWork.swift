import AutoCancel
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// What a bag holds for a raw `URLSessionTask` bound with `add(_:)` or `autoCancel(_:)`:
/// cancels it through ``TaskCanceller``, and says when it has completed so that it leaves by
/// itself.
///
/// Held strongly, like any work in a bag: a task bound before `resume()` may be held by nobody
/// else until then. A completed one leaves within the reaper's visit.
final class RawTaskWork: FinishReporting, WrappingWork, Sendable {
  let task: URLSessionTask

  init(_ task: URLSessionTask) { self.task = task }

  /// Cancels the task from the canceller's queue, as soon as it is safe, and returns at once;
  /// the canceller counts what the cancel saved, as it reads it then.
  func cancel() {
    TaskCanceller.cancel(task, countingSavings: true)
  }

  /// True once URLSession has completed the task (it delivered its result or error).
  var isFinished: Bool { task.state == .completed }

  var wrappedTypeName: String { task.typeName }
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

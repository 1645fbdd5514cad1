import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Where the library runs requests for a caller's session, kept per session by a
/// ``SessionRegistry``.
protocol SessionRoute: Sendable {
  /// The session the library made for this route, if any; it is invalidated (its tasks
  /// allowed to finish) once the caller's session is gone.
  var twin: URLSession? { get }
}

/// The route of completion-handler tasks: the caller's session, or its cancel-safe twin,
/// and how a cancel must be run there.
struct TaskRoute: SessionRoute {
  /// The session that creates the tasks: the caller's, or its twin.
  let session: URLSession
  let twin: URLSession?
  /// Whether a cancel must wait for the task to be past its cache lookup.
  let waitForLookup: Bool
  /// The serial queue that runs the cancels of tasks in `session`.
  let cancelQueue: DispatchQueue

  /// The route for a task of `kind`: download tasks never look the cache up in
  /// FoundationNetworking, so on a session that cannot be twinned they never wait.
  func adjusted(for kind: TaskKind) -> TaskRoute {
    guard kind == .download, waitForLookup else { return self }
    return TaskRoute(session: session, twin: twin, waitForLookup: false, cancelQueue: cancelQueue)
  }
}

/// The route of streamed requests: a delegate-based twin of the caller's session, whose
/// delegate forwards each task's events to its ``StreamRequest``.
struct StreamRoute: SessionRoute {
  let session: URLSession
  let delegate: StreamDelegate
  let cancelQueue: DispatchQueue

  var twin: URLSession? { session }
}

/// The kind of URLSession task a helper creates.
enum TaskKind: Sendable, Equatable {
  case data
  case upload
  case download
}

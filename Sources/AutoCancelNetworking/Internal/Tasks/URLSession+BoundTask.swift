import AutoCancel
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Makes a URLSession task that a bag and an awaiting Swift task can cancel: what Foundation
/// hands to a completion handler, on its way to the caller.
typealias TaskMaker<Task: URLSessionTask, Body> = (
  URLSession, @escaping @Sendable (Body?, URLResponse?, (any Error)?) -> Void
) -> Task

extension URLSession {
  /// The one path by which every helper creates its task: finds the route (a cancel-safe
  /// twin on Linux), registers a ``TaskRequest`` in `bag` and creates the task with `make`.
  ///
  /// - Parameters:
  ///   - deliverCancellationOnDelegateQueue: completion handlers hear of a cancellation on
  ///     the session's delegate queue, like every other completion; a continuation is
  ///     resumed on the cancelling thread.
  ///   - settle: turns what URLSession handed the completion handler into the result.
  func boundTask<Task: URLSessionTask, Body, Value: Sendable>(
    kind: TaskKind, in bag: CancelBag?, label: String?, cancellationError: any Error,
    deliverCancellationOnDelegateQueue: Bool,
    discard: (@Sendable (Value) -> Void)? = nil,
    settle: @escaping @Sendable (Body?, URLResponse?, (any Error)?) -> Result<Value, any Error>,
    completion: @escaping @Sendable (Result<Value, any Error>) -> Void,
    make: TaskMaker<Task, Body>
  ) -> (TaskRequest<Value>, Task) {
    let route = SessionRegistry.route(for: self, kind: kind)
    let request = TaskRequest<Value>(
      route: route, cancellationError: cancellationError,
      deliveryQueue: deliverCancellationOnDelegateQueue ? route.session.delegateQueue : nil,
      discard: discard, completion: completion)
    let task = request.start(in: bag, label: label) { session, done in
      make(session) { body, response, error in done(settle(body, response, error)) }
    }
    return (request, task)
  }

  /// A completion-handler task bound to `bag`: the handler receives `URLError(.cancelled)`
  /// when a cancel wins.
  func boundTask<Task: URLSessionTask, Body: Sendable>(
    kind: TaskKind, in bag: CancelBag, label: String?,
    discard: (@Sendable (Body) -> Void)? = nil,
    completionHandler: @escaping @Sendable (Body?, URLResponse?, (any Error)?) -> Void,
    make: TaskMaker<Task, Body>
  ) -> Task {
    boundTask(
      kind: kind, in: bag, label: label, cancellationError: URLError(.cancelled),
      deliverCancellationOnDelegateQueue: true,
      discard: discard.map { discard in
        { (result: (Body?, URLResponse?)) in _ = result.0.map(discard) }
      },
      settle: { body, response, error in
        if let error { return .failure(error) }
        return .success((body, response))
      },
      completion: { result in
        switch result {
        case .success(let (body, response)): completionHandler(body, response, nil)
        case .failure(let error): completionHandler(nil, nil, error)
        }
      },
      make: make
    ).1
  }

  /// Runs one task bound to `bag` (if any) and to the awaiting Swift task, and returns its
  /// value; throws `CancellationError` when either cancels it.
  func awaitBoundTask<Task: URLSessionTask, Body, Value: Sendable>(
    kind: TaskKind, in bag: CancelBag?, label: String?,
    discard: (@Sendable (Value) -> Void)? = nil,
    settle: @escaping @Sendable (Body?, URLResponse?, (any Error)?) -> Result<Value, any Error>,
    make: @escaping TaskMaker<Task, Body>
  ) async throws -> Value {
    // The awaiting task's cancel may come before the request exists (the task was already
    // cancelled) or while it is being set up: the latch keeps it.
    let awaiting = Locked(CancelLatch<TaskRequest<Value>, Void>())
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        let (request, task) = boundTask(
          kind: kind, in: bag, label: label, cancellationError: CancellationError(),
          deliverCancellationOnDelegateQueue: false, discard: discard, settle: settle,
          completion: { continuation.resume(with: $0) }, make: make)
        switch awaiting.withLock({ $0.attach(request) }) {
        case .proceed: request.resumeUnlessCancelled(task)
        case .cancel(let request, _): request.cancel()
        }
      }
    } onCancel: {
      if case .cancel(let request) = awaiting.withLock({ $0.cancel(()) }) { request.cancel() }
    }
  }
}

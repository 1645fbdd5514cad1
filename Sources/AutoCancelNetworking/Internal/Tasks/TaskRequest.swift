import AutoCancel
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// One URLSession task made by a helper, bound to a bag and, for the async calls, to the
/// awaiting Swift task: decides who delivers its one result, URLSession or a cancel, and cancels
/// the task through ``TaskCanceller``.
///
/// Its state is a ``CancelLatch`` over the task, and who to deliver to. The request registers in
/// its bag before the task exists, so a cancel may come first: the latch keeps it, and the task
/// is then cancelled as it is made, never started. The first of "URLSession completed" and
/// "cancelled" wins and delivers; the other is ignored. Either way the registration is
/// finished: the request leaves its bag.
final class TaskRequest<Body: Sendable>: BoundRequest, Sendable {
  /// Foundation's completion handler: body, response, error, as URLSession hands them over.
  typealias Handler = @Sendable (Body?, URLResponse?, (any Error)?) -> Void

  /// Who hears of the result.
  enum Delivery: Sendable {
    /// A completion handler: URLSession's triple as it comes (on the session's delegate
    /// queue), or a cancellation on `queue`, at once.
    case handler(Handler, queue: DeliveryQueue)
    /// An async call that has not begun to wait yet.
    case awaiting
    /// An async call waiting for the body and response, or an error.
    case continuation(CheckedContinuation<(Body?, URLResponse?), any Error>)
    /// The result was delivered.
    case delivered
  }

  /// The queue a completion handler's cancellation is delivered on: the session's delegate
  /// queue. Boxed so that `Delivery` is `Sendable` whether or not the SDK at hand marks
  /// `OperationQueue` so (FoundationNetworking does; Apple's SDKs have not always): the queue
  /// is only ever asked to add an operation, which it does from any thread.
  struct DeliveryQueue: @unchecked Sendable {
    let operationQueue: OperationQueue
  }

  struct Extra: Sendable {
    var delivery: Delivery
  }

  let state: Locked<BoundRequestState<Extra>>
  let kind: TaskKind
  /// Cleans up a result that arrived after a cancel won (a downloaded file nobody will read).
  private let discard: (@Sendable (Body) -> Void)?

  init(kind: TaskKind, delivery: Delivery, discard: (@Sendable (Body) -> Void)? = nil) {
    self.state = Locked(BoundRequestState(Extra(delivery: delivery)))
    self.kind = kind
    self.discard = discard
  }

  var wrappedTypeName: String { kind.typeName }

  /// Makes the task with `make` on the session that runs the helpers' tasks for `session`
  /// (on Linux, its cancel-safe twin when it has no delegate), handing it the completion to
  /// install.
  private func makeTask<SessionTask: URLSessionTask>(
    for session: URLSession, _ make: (URLSession, @escaping Handler) -> SessionTask
  ) -> (SessionTask, gate: RedirectGate?) {
    #if canImport(FoundationNetworking)
      let runner = TwinRegistry.sessionForTasks(of: session)
    #else
      let runner = session
    #endif
    let task = make(runner) { [self] body, response, error in completed(body, response, error) }
    return (task, RedirectGuard.install(on: task, of: runner))
  }

  /// A completion-handler helper's task, made and attached, for its caller to resume: a task
  /// whose request was cancelled first is cancelled here, before it is returned, so that the
  /// caller's `resume()` does nothing.
  func taskForCaller<SessionTask: URLSessionTask>(
    for session: URLSession, _ make: (URLSession, @escaping Handler) -> SessionTask
  ) -> SessionTask {
    let (task, gate) = makeTask(for: session, make)
    _ = attach(task, gate: gate, callerResumes: true)
    return task
  }

  /// The async call: makes the task, resumes it, and waits for its body and response.
  ///
  /// - Throws: `CancellationError` when the bag or the awaiting task cancelled the request,
  ///   otherwise URLSession's error.
  ///
  /// A request cancelled before its task is made is counted as not sent, under `url`.
  func value(
    for session: URLSession, url: @autoclosure () -> URL?,
    _ make: (URLSession, @escaping Handler) -> URLSessionTask
  ) async throws -> (Body?, URLResponse?) {
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        let cancelledFirst = state.withLock { state in
          guard state.latch.cancellationReason == nil else { return true }
          state.extra.delivery = .continuation(continuation)
          return false
        }
        if cancelledFirst {
          SavingsAccount.count(.notSent, url: url())
          return continuation.resume(throwing: CancellationError())
        }
        let (task, gate) = makeTask(for: session, make)
        // Resumed before it is attached: a cancel can reach the task only once the library's
        // own `resume()` has returned, never race it into a cache lookup.
        task.resume()
        _ = attach(task, gate: gate, callerResumes: false)
      }
    } onCancel: {
      cancel()
    }
  }

  /// Cancels: reports the cancellation at once, and cancels the URLSession task from the
  /// canceller's queue. Idempotent; does nothing once URLSession completed.
  func cancel() {
    let decided:
      (CancelLatch<AttachedTask, PendingSaving>.CancelAction, Delivery, CancelRegistration?)? =
        state.withLock { state in
          let action = state.cancel()
          if case .none = action { return nil }
          return (action, state.extra.takeDelivery(), state.registration)
        }
    guard let (action, delivery, registration) = decided else { return }
    if case .cancel(let attached) = action {
      TaskCanceller.cancel(attached.task, closing: attached.gate)
    }
    registration?.finish()  // no-op when the bag itself is cancelling
    switch delivery {
    case .handler(let handler, let queue):
      queue.operationQueue.addOperation { handler(nil, nil, URLError(.cancelled)) }
    case .continuation(let continuation):
      continuation.resume(throwing: CancellationError())
    case .awaiting, .delivered:
      break  // `value` finds the latch cancelled and throws
    }
  }

  /// URLSession's completion handler ran (on the session's delegate queue). After a cancel of
  /// the library's, its byte counts are final: the cancel is counted here.
  private func completed(_ body: Body?, _ response: URLResponse?, _ error: (any Error)?) {
    var cancelledTask: URLSessionTask?
    let decided: (Delivery, CancelRegistration?)? = state.withLock { state in
      guard state.complete(counting: &cancelledTask) else { return nil }
      return (state.extra.takeDelivery(), state.registration)
    }
    guard let (delivery, registration) = decided else {
      countCancelled(cancelledTask, completedWith: error)
      if let body { discard?(body) }
      return
    }
    registration?.finish()
    switch delivery {
    case .handler(let handler, _):
      handler(body, response, error)
    case .continuation(let continuation):
      if let error {
        continuation.resume(throwing: error)
      } else {
        continuation.resume(returning: (body, response))
      }
    case .awaiting, .delivered:
      preconditionFailure("Invalid state: a task completed that nobody waits for")
    }
  }
}

extension TaskRequest.Extra {
  /// Who to deliver to, now that the result is decided; nobody afterwards.
  mutating func takeDelivery() -> TaskRequest.Delivery {
    guard case .awaiting = delivery else {
      defer { delivery = .delivered }
      return delivery
    }
    return .awaiting
  }
}

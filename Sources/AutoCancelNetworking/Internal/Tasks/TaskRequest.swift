import AutoCancel
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// One URLSession task made by a helper, bound to a bag and, for the async calls, to the
/// awaiting Swift task: decides who delivers its one result, URLSession or a cancel.
///
/// The first of "the task ended" and "cancelled" wins and delivers; the other is ignored.
/// Either way the registration is finished: the request leaves its bag.
final class TaskRequest<Body: TransferredBody>: BoundRequest, Sendable {
  /// Foundation's completion handler: body, response, error, as URLSession hands them over.
  typealias Handler = @Sendable (Body?, URLResponse?, (any Error)?) -> Void

  /// Who hears of the result.
  enum Delivery: Sendable {
    /// A completion handler, run on the session's delegate queue.
    case handler(Handler, queue: DeliveryQueue)
    /// An async call that has not begun to wait yet.
    case awaiting
    /// An async call waiting for the body and response, or an error.
    case continuation(CheckedContinuation<(Body?, URLResponse?), any Error>)
  }

  /// The session's delegate queue, where a completion handler runs. Boxed so that `Delivery`
  /// is `Sendable` whether or not the SDK at hand marks `OperationQueue` so
  /// (FoundationNetworking does; Apple's SDKs have not always): the queue is only ever asked
  /// to add an operation, which it does from any thread.
  struct DeliveryQueue: @unchecked Sendable {
    let operationQueue: OperationQueue
  }

  /// Where the request stands.
  enum Stage: Sendable {
    /// Running; the result goes to `Delivery`, and the request leaves its bag through
    /// `registration`, once its next step kept it (nil until then, and without a bag).
    case open(Delivery, registration: CancelRegistration?)
    /// The library's cancel won, and was reported.
    case cancelled
    /// The task's result was delivered.
    case completed
  }

  private let state: Locked<Stage>
  let transfer: Transfer
  /// Makes an async call's body its caller's (a downloaded file moved out of URLSession's
  /// way) before it is delivered.
  private let prepare: (@Sendable (Body) throws -> Body)?

  init(
    _ spec: TaskSpec, delivery: Delivery, prepare: (@Sendable (Body) throws -> Body)? = nil
  ) {
    state = Locked(.open(delivery, registration: nil))
    transfer = Transfer(spec)
    self.prepare = prepare
    transfer.setClient(self)
  }

  /// A completion-handler helper's task, made for its caller to resume, after the request
  /// joined its bag (`registration`): made on the calling thread, the one URLSession call of
  /// the library made there. A request cancelled first gets a task cancelled before it is
  /// returned, so that the caller's `resume()` does nothing.
  func taskForCaller(
    on session: URLSession, registration: CancelRegistration?
  )
    -> URLSessionTask
  {
    keep(registration)
    let transfer = transfer
    let make = TaskQueue.sync { transfer.maker(for: session) }
    let task = make()
    if TaskQueue.sync({ transfer.adopt(task) }) {
      task.cancel()  // never resumed: nothing to wait for, nothing sent
    }
    return task
  }

  /// Keeps the registration; finishes it at once if the request ended meanwhile.
  private func keep(_ registration: CancelRegistration?) {
    guard let registration else { return }
    let ended = state.withLock { stage in
      guard case .open(let delivery, _) = stage else { return true }
      stage = .open(delivery, registration: registration)
      return false
    }
    if ended { registration.finish() }
  }

  /// The async call: starts the task on ``TaskQueue`` and waits for its body and response.
  ///
  /// - Throws: `CancellationError` when the bag or the awaiting task cancelled the request,
  ///   otherwise URLSession's error.
  func value(
    on session: URLSession, registration: CancelRegistration?
  ) async throws -> (Body?, URLResponse?) {
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        let cancelledFirst = state.withLock { stage in
          guard case .open = stage else { return true }
          stage = .open(.continuation(continuation), registration: registration)
          return false
        }
        if cancelledFirst {
          registration?.finish()
          continuation.resume(throwing: CancellationError())
        }
        // Started even when cancelled first: its transfer reports the request never sent.
        start(on: session)
      }
    } onCancel: {
      cancel()
    }
  }

  /// Cancels: reports the cancellation at once, and cancels the URLSession task from
  /// ``TaskQueue``. Idempotent; does nothing once the result was delivered.
  func cancel() {
    let decided: (Delivery, CancelRegistration?)? = state.withLock { stage in
      guard case .open(let delivery, let registration) = stage else { return nil }
      stage = .cancelled
      return (delivery, registration)
    }
    guard let (delivery, registration) = decided else { return }
    cancelTransfer()
    registration?.finish()  // no-op when the bag itself is cancelling
    switch delivery {
    case .handler(let handler, let queue):
      queue.operationQueue.addOperation { handler(nil, nil, URLError(.cancelled)) }
    case .continuation(let continuation):
      continuation.resume(throwing: CancellationError())
    case .awaiting:
      break  // `value` finds the request cancelled and throws
    }
  }

  func transferReceivedHead(_ response: URLResponse) {}

  func transferReceived(_ data: Data) {}

  /// The task ended: delivers its result, unless a cancel of the library's won (a result
  /// that comes then is discarded).
  func transferEnded(_ transferred: TransferBody, _ response: URLResponse?, _ error: (any Error)?) {
    let body = Body(transferred: transferred)
    let decided: (Delivery, CancelRegistration?)? = state.withLock { stage in
      guard case .open(let delivery, let registration) = stage else { return nil }
      stage = .completed
      return (delivery, registration)
    }
    guard let (delivery, registration) = decided else {
      body?.discard()
      return
    }
    registration?.finish()
    switch delivery {
    case .handler(let handler, let queue):
      #if canImport(FoundationNetworking)
        // From the library's queue: to the session's delegate queue, as Foundation would.
        queue.operationQueue.addOperation {
          handler(body, response, error)
          body?.discard()
        }
      #else
        // Inside Foundation's own completion handler, on the session's delegate queue.
        _ = queue
        handler(body, response, error)
      #endif
    case .continuation(let continuation):
      if let error {
        continuation.resume(throwing: error)
        return
      }
      continuation.resume(with: Result { (try body.map { try prepare?($0) ?? $0 }, response) })
      // What `prepare` did not take (a file it failed to move) goes.
      if prepare != nil { body?.discard() }
    case .awaiting:
      preconditionFailure("Invalid state: a task ended that nobody waits for")
    }
  }
}

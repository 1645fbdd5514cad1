import AutoCancel
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// One streamed request: the response head goes to an awaiting continuation, body chunks to
/// an `AsyncThrowingStream`. Cancelling never blocks (``TaskCanceller``).
///
/// Its state is a ``CancelLatch`` over the task (registered in the bag before the task
/// exists, so a cancel may come first) and where the response head stands. The first of
/// "completed" and "cancelled" (bag, awaiting task before the head, consumer gone) wins.
final class StreamRequest: BoundRequest, Sendable {
  /// Where the response head stands.
  enum Head: Sendable {
    /// Not arrived; the continuation waits for it once `response(makeTask:)` runs.
    case awaited(CheckedContinuation<URLResponse, any Error>?)
    /// Handed to its continuation, or the continuation resumed with an error.
    case settled

    /// Settles the head and returns the continuation still waiting for it, if any.
    mutating func takeWaiter() -> CheckedContinuation<URLResponse, any Error>? {
      guard case .awaited(let continuation) = self else { return nil }
      self = .settled
      return continuation
    }
  }

  let state = Locked(BoundRequestState(Head.awaited(nil)))
  /// The gate of the task's redirects, where a delegate of the library's decides them.
  let gate: RedirectGate?
  private let chunks: AsyncThrowingStream<Data, any Error>.Continuation

  /// A request and its body. The request does not keep the body: dropping a body never
  /// iterated must reach `onTermination`.
  static func make(gated: Bool) -> (StreamRequest, URLSessionDataStream) {
    let (stream, continuation) = AsyncThrowingStream<Data, any Error>.makeStream()
    let request = StreamRequest(chunks: continuation, gate: gated ? RedirectGate() : nil)
    let consumerGone: @Sendable () -> Void = { [weak request] in request?.cancel() }
    continuation.onTermination = { termination in
      if case .cancelled = termination { consumerGone() }
    }
    return (request, URLSessionDataStream(chunks: stream, consumerGone: consumerGone))
  }

  private init(chunks: AsyncThrowingStream<Data, any Error>.Continuation, gate: RedirectGate?) {
    self.chunks = chunks
    self.gate = gate
  }

  var wrappedTypeName: String { TaskKind.data.typeName }

  /// Waits for the response head; `makeTask` creates the task, which is resumed here unless
  /// the request was cancelled first (it then never starts).
  func response(makeTask: @Sendable () -> URLSessionTask) async throws -> URLResponse {
    try await withCheckedThrowingContinuation { continuation in
      let waiting = state.withLock { state in
        guard state.latch.cancellationReason == nil else { return false }
        state.extra = .awaited(continuation)
        return true
      }
      guard waiting else { return continuation.resume(throwing: CancellationError()) }
      let task = makeTask()
      if attach(task, gate: gate, callerResumes: false) { task.resume() }
    }
  }

  func received(_ response: URLResponse) {
    let waiter = state.withLock { state in
      state.latch.attachedWork == nil ? nil : state.extra.takeWaiter()
    }
    waiter?.resume(returning: response)
  }

  func received(_ data: Data) {
    if state.withLock({ $0.latch.attachedWork != nil }) { chunks.yield(data) }
  }

  func completed(_ error: (any Error)?) {
    let decided: (CheckedContinuation<URLResponse, any Error>?, CancelRegistration?)? =
      state.withLock { state in
        state.latch.complete() ? (state.extra.takeWaiter(), state.registration) : nil
      }
    guard let (waiter, registration) = decided else { return }
    registration?.finish()
    if let waiter {
      waiter.resume(throwing: error ?? URLError(.badServerResponse))
      chunks.finish()
    } else if let error {
      chunks.finish(throwing: error)
    } else {
      chunks.finish()
    }
  }

  /// Cancels for the bag, or because the consumer stopped iterating.
  func cancel() { cancel(beforeHeadOnly: false) }

  /// The awaiting task was cancelled. Once the head arrived, the body belongs to its
  /// consumer, whose own cancellation governs it.
  func cancelByAwaitingTask() { cancel(beforeHeadOnly: true) }

  private func cancel(beforeHeadOnly: Bool) {
    let decided:
      (
        CancelLatch<AttachedTask, Void>.CancelAction,
        CheckedContinuation<URLResponse, any Error>?, CancelRegistration?
      )? = state.withLock { state in
        if beforeHeadOnly, case .settled = state.extra { return nil }
        let action = state.latch.cancel(())
        if case .none = action { return nil }
        return (action, state.extra.takeWaiter(), state.registration)
      }
    guard let (action, waiter, registration) = decided else { return }
    registration?.finish()
    if case .cancel(let attached) = action {
      TaskCanceller.cancel(attached.task, closing: attached.gate)
    }
    waiter?.resume(throwing: CancellationError())
    chunks.finish(throwing: CancellationError())
  }
}

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

  /// The head's state, and on Linux a response held back while an authentication challenge
  /// about it is decided, with the body that came with it.
  struct Extra: Sendable {
    var head = Head.awaited(nil)
    var challenged: (response: URLResponse, body: Data)?
    /// Body bytes that came before a cancel of the library's: what ``URLSessionSavings``
    /// counts as received, since FoundationNetworking counts no data task's bytes.
    var bodyBytes: Int64 = 0
  }

  let state = Locked(BoundRequestState(Extra()))
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
  /// A request cancelled before its task is made is counted as not sent, under `url`.
  func response(
    url: @autoclosure () -> URL?, makeTask: @Sendable () -> URLSessionTask
  ) async throws -> URLResponse {
    try await withCheckedThrowingContinuation { continuation in
      let waiting = state.withLock { state in
        guard state.latch.cancellationReason == nil else { return false }
        state.extra.head = .awaited(continuation)
        return true
      }
      guard waiting else {
        SavingsAccount.count(.notSent, url: url())
        return continuation.resume(throwing: CancellationError())
      }
      let task = makeTask()
      // Resumed before it is attached: a cancel can reach the task only once the library's
      // own `resume()` has returned, never race it into a cache lookup.
      task.resume()
      _ = attach(task, gate: gate, callerResumes: false)
    }
  }

  func received(_ response: URLResponse) {
    let waiter = state.withLock { state in
      state.extra.challenged = nil
      return state.latch.isOpen ? state.extra.head.takeWaiter() : nil
    }
    waiter?.resume(returning: response)
  }

  func received(_ data: Data) {
    let yields = state.withLock { state in
      guard state.latch.isOpen else { return false }
      state.extra.bodyBytes += Int64(data.count)
      guard state.extra.challenged == nil else {
        state.extra.challenged?.body.append(data)
        return false
      }
      return true
    }
    if yields { chunks.yield(data) }
  }

  /// On Linux, a 401 with a challenge arrived: FoundationNetworking reads its body, then asks
  /// about the challenge, and retries with a credential or not. The response and its body
  /// are held back until it is decided.
  func receivedChallenge(_ response: URLResponse) {
    state.withLock { $0.extra.challenged = (response, Data()) }
  }

  /// The challenge was decided without a retry: FoundationNetworking would leave the task
  /// waiting, so the 401 and its body are the response, as on Apple platforms, and the task
  /// is cancelled behind them.
  func challengeEndsWithoutRetry() {
    let held:
      (
        URLResponse, Data, CheckedContinuation<URLResponse, any Error>?, AttachedTask?,
        CancelRegistration?
      )? = state.withLock { state in
        guard let (response, body) = state.extra.challenged,
          let attached = state.latch.attachedWork, state.latch.complete()
        else { return nil }
        // (Not attached yet, the task is cancelled as it is attached: see `attach`.)
        state.extra.challenged = nil
        return (response, body, state.extra.head.takeWaiter(), attached, state.registration)
      }
    guard let (response, body, waiter, attached, registration) = held else { return }
    registration?.finish()
    waiter?.resume(returning: response)
    if !body.isEmpty { chunks.yield(body) }
    chunks.finish()
    if let attached { TaskCanceller.cancel(attached.task, closing: attached.gate) }
  }

  /// The task completed. After a cancel of the library's, its byte counts are final: the
  /// cancel is counted here.
  func completed(_ error: (any Error)?) {
    var cancelledTask: URLSessionTask?
    var bodyBytes: Int64 = 0
    let decided: (CheckedContinuation<URLResponse, any Error>?, CancelRegistration?)? =
      state.withLock { state in
        // Completed already when a 401 whose challenge went unanswered was the answer.
        if case .completed = state.latch { return nil }
        guard state.complete(counting: &cancelledTask) else {
          bodyBytes = state.extra.bodyBytes
          return nil
        }
        return (state.extra.head.takeWaiter(), state.registration)
      }
    guard let (waiter, registration) = decided else {
      return countCancelled(cancelledTask, completedWith: error, bodyBytes: bodyBytes)
    }
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
        CancelLatch<AttachedTask, PendingSaving>.CancelAction,
        CheckedContinuation<URLResponse, any Error>?, CancelRegistration?
      )? = state.withLock { state in
        if beforeHeadOnly, case .settled = state.extra.head { return nil }
        let action = state.cancel()
        if case .none = action { return nil }
        return (action, state.extra.head.takeWaiter(), state.registration)
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

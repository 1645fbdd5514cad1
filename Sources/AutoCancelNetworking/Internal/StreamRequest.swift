import AutoCancel
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// One streamed request: the response head goes to an awaiting continuation, body chunks to
/// an `AsyncThrowingStream`. The first of "completed", "cancelled" (bag, awaiting task,
/// consumer gone) wins; cancelling never blocks (``TaskCanceller``).
final class StreamRequest: ReasonAwareCancellable, @unchecked Sendable {
  // Safety: `state` is only touched under `lock`; the rest is immutable.

  private enum Phase {
    case awaitingResponse(CheckedContinuation<URLResponse, any Error>?)
    case streaming
    case ended
  }

  private struct State {
    var phase = Phase.awaitingResponse(nil)
    var task: URLSessionTask?
    var registration: CancelRegistration?
    var cancelled = false
    var cancelError: (any Error)?
  }

  private let lock = NSLock()
  private var state = State()
  private let chunks: AsyncThrowingStream<Data, any Error>.Continuation
  /// The body until `takeBody()` hands it out: the request must not keep the stream alive,
  /// or dropping it would never reach `onTermination`.
  private var pendingBody: URLSessionDataStream?
  private let cancelQueue: DispatchQueue

  init(cancelQueue: DispatchQueue) {
    self.cancelQueue = cancelQueue
    let (stream, continuation) = AsyncThrowingStream<Data, any Error>.makeStream()
    chunks = continuation
    let consumerGone: @Sendable () -> Void = { [weak self] in self?.consumerLeft() }
    pendingBody = URLSessionDataStream(chunks: stream, consumerGone: consumerGone)
    continuation.onTermination = { termination in
      if case .cancelled = termination { consumerGone() }
    }
  }

  /// The body, handed out once.
  func takeBody() -> URLSessionDataStream {
    lock.withLock {
      defer { pendingBody = nil }
      return pendingBody!
    }
  }

  /// Registers in `bag`; false if the bag had already ended (the request is then cancelled).
  func register(in bag: CancelBag, label: String?) -> Bool {
    let registration = bag.add(self, label: label)
    return lock.withLock {
      state.registration = registration
      return !state.cancelled
    }
  }

  /// Waits for the response head; `start` creates and resumes the task.
  func response(start: @escaping @Sendable () -> URLSessionTask?) async throws -> URLResponse {
    try await withCheckedThrowingContinuation { continuation in
      let refusal: (any Error)?? = lock.withLock {
        guard case .awaitingResponse = state.phase, !state.cancelled else {
          return .some(state.cancelError)
        }
        state.phase = .awaitingResponse(continuation)
        return .none
      }
      if case .some(let error) = refusal {
        continuation.resume(throwing: error ?? CancelledError(reason: .explicit))
        return
      }
      let task = start()
      let cancelNow: Bool = lock.withLock {
        state.task = task
        return state.cancelled
      }
      // A task cancelled before it was ever resumed must not be resumed: nothing is sent.
      if cancelNow, let task {
        TaskCanceller.cancel(task, waitForLookup: false, on: cancelQueue)
      } else {
        task?.resume()
      }
    }
  }

  func received(_ response: URLResponse) {
    let continuation: CheckedContinuation<URLResponse, any Error>? = lock.withLock {
      guard case .awaitingResponse(let continuation) = state.phase, !state.cancelled else {
        return nil
      }
      state.phase = .streaming
      return continuation
    }
    continuation?.resume(returning: response)
  }

  func received(_ data: Data) {
    let streaming = lock.withLock { () -> Bool in
      if case .streaming = state.phase, !state.cancelled { return true }
      return false
    }
    if streaming { chunks.yield(data) }
  }

  func completed(_ error: (any Error)?) {
    let (phase, registration) = lock.withLock { () -> (Phase?, CancelRegistration?) in
      guard !state.cancelled else { return (nil, nil) }
      let phase = state.phase
      state.phase = .ended
      return (phase, state.registration)
    }
    guard let phase else { return }
    registration?.finish()
    switch phase {
    case .awaitingResponse(let continuation):
      continuation?.resume(throwing: error ?? URLError(.badServerResponse))
      chunks.finish()
    case .streaming:
      if let error { chunks.finish(throwing: error) } else { chunks.finish() }
    case .ended:
      break
    }
  }

  func cancel() { cancel(reason: .explicit) }

  func cancel(reason: CancellationReason) {
    cancel(reporting: CancelledError(reason: reason))
  }

  /// The awaiting task was cancelled while waiting for the response head. Once the head
  /// arrived, the body belongs to its consumer, whose own cancellation governs it.
  func cancelBySwiftTask() {
    cancel(reporting: SwiftTaskCancellation<Data>.Marker(), onlyBeforeResponse: true)
  }

  /// The consumer stopped iterating: cancel the transfer, leave the bag.
  private func consumerLeft() {
    cancel(reporting: CancelledError(reason: .explicit))
  }

  private func cancel(reporting error: any Error, onlyBeforeResponse: Bool = false) {
    let decided: (Phase, URLSessionTask?, CancelRegistration?)? = lock.withLock {
      guard !state.cancelled else { return nil }
      if case .ended = state.phase { return nil }
      if onlyBeforeResponse, case .streaming = state.phase { return nil }
      state.cancelled = true
      state.cancelError = error
      let phase = state.phase
      state.phase = .ended
      return (phase, state.task, state.registration)
    }
    guard let (phase, task, registration) = decided else { return }
    registration?.finish()
    if let task { TaskCanceller.cancel(task, waitForLookup: false, on: cancelQueue) }
    if case .awaitingResponse(let continuation) = phase {
      continuation?.resume(throwing: error)
    }
    chunks.finish(throwing: error)
  }
}

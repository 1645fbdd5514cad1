import AutoCancel
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// One streamed request: the response head goes to an awaiting continuation, body chunks to
/// an `AsyncThrowingStream`.
///
/// The first of "completed" and "cancelled" (bag, awaiting task before the head, consumer
/// gone) wins; the other is ignored.
final class StreamRequest: BoundRequest, Sendable {
  /// Where the response head stands.
  enum Head: Sendable {
    /// Not arrived; the continuation waits for it once `response(on:registration:)` runs.
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

  /// Where the request stands.
  enum Stage: Sendable {
    /// Running: where its head stands, and its place in its bag, once its next step kept it
    /// (nil until then, and without a bag).
    case open(Head, registration: CancelRegistration?)
    /// The library's cancel won, and was reported.
    case cancelled
    /// The task ended, and its end was delivered.
    case completed
  }

  private let state = Locked(Stage.open(.awaited(nil), registration: nil))
  let transfer: Transfer
  private let chunks: AsyncThrowingStream<Data, any Error>.Continuation

  /// A request and its body. The request does not keep the body: dropping a body never
  /// iterated must reach `onTermination`.
  static func make(_ request: URLRequest) -> (StreamRequest, URLSessionDataStream) {
    let (stream, continuation) = AsyncThrowingStream<Data, any Error>.makeStream()
    let streamed = StreamRequest(request, chunks: continuation)
    let consumerGone: @Sendable () -> Void = { [weak streamed] in streamed?.cancel() }
    continuation.onTermination = { termination in
      if case .cancelled = termination { consumerGone() }
    }
    return (streamed, URLSessionDataStream(chunks: stream, consumerGone: consumerGone))
  }

  private init(_ request: URLRequest, chunks: AsyncThrowingStream<Data, any Error>.Continuation) {
    self.chunks = chunks
    transfer = Transfer(.stream(request))
    transfer.setClient(self)
  }

  /// Starts the task on ``TaskQueue`` and waits for the response head, after the request
  /// joined its bag (`registration`).
  func response(
    on session: URLSession, registration: CancelRegistration?
  ) async throws -> URLResponse {
    try await withCheckedThrowingContinuation { continuation in
      let waiting = state.withLock { stage in
        guard case .open = stage else { return false }
        stage = .open(.awaited(continuation), registration: registration)
        return true
      }
      if !waiting {
        registration?.finish()
        continuation.resume(throwing: CancellationError())
      }
      // Started even when cancelled first: its transfer reports the request never sent.
      start(on: session)
    }
  }

  func transferReceivedHead(_ response: URLResponse) {
    let waiter: CheckedContinuation<URLResponse, any Error>? = state.withLock { stage in
      guard case .open(var head, let registration) = stage else { return nil }
      defer { stage = .open(head, registration: registration) }
      return head.takeWaiter()
    }
    waiter?.resume(returning: response)
  }

  func transferReceived(_ data: Data) {
    let yields = state.withLock { stage in
      guard case .open = stage else { return false }
      return true
    }
    if yields { chunks.yield(data) }
  }

  func transferEnded(_ body: TransferBody, _ response: URLResponse?, _ error: (any Error)?) {
    let decided: (CheckedContinuation<URLResponse, any Error>?, CancelRegistration?)? =
      state.withLock { stage in
        guard case .open(var head, let registration) = stage else { return nil }
        stage = .completed
        return (head.takeWaiter(), registration)
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
    let decided: (CheckedContinuation<URLResponse, any Error>?, CancelRegistration?)? =
      state.withLock { stage in
        guard case .open(var head, let registration) = stage else { return nil }
        if beforeHeadOnly, case .settled = head { return nil }
        stage = .cancelled
        return (head.takeWaiter(), registration)
      }
    guard let (waiter, registration) = decided else { return }
    cancelTransfer()
    registration?.finish()
    waiter?.resume(throwing: CancellationError())
    chunks.finish(throwing: CancellationError())
  }
}

#if !canImport(FoundationNetworking)
  /// On Apple platforms, the per-task delegate of a stream made on the caller's own session:
  /// receives its response, data and completion. Everything it does not implement (redirects,
  /// challenges, server trust, metrics) goes to the session's delegate, as for the caller's
  /// other tasks.
  final class StreamDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private let transfer: Transfer
    private let client: any BoundRequest

    init(transfer: Transfer, client: any BoundRequest) {
      self.transfer = transfer
      self.client = client
    }

    func urlSession(
      _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
      completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
      client.transferReceivedHead(response)
      completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
      client.transferReceived(data)
    }

    func urlSession(
      _ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?
    ) {
      client.transferEnded(.data(nil), task.response, error)
      transfer.taskEnded(error: error)
    }
  }
#endif

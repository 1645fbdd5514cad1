import AutoCancel
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension URLSession {
  /// Starts `request` and returns its response head and a stream of its body, bound to the
  /// awaiting task and, optionally, to `bag`.
  ///
  /// FoundationNetworking on Linux has no `bytes(for:)`; this is the streaming call that
  /// works there, chunk by chunk. It returns once the response head arrived. The transfer
  /// stops, and the call or the stream throws `CancellationError`, when the bag ends or
  /// cancels its work, when the awaiting task is cancelled before the head arrives (after
  /// it, the iterating task's cancellation governs the body), or when the consumer stops
  /// iterating.
  ///
  /// ```swift
  /// let (body, response) = try await session.stream(for: request, in: cancelBag)
  /// for try await chunk in body { file.write(chunk) }
  /// ```
  ///
  /// The request runs on a delegate-based twin of `self` (same configuration, cache wrapped
  /// in a ``CancelSafeURLCache`` on Linux), so `self`'s delegate, if any, does not see it.
  ///
  /// - Parameters:
  ///   - request: The request.
  ///   - bag: A bag that also cancels the transfer when it ends or cancels its work; `nil` to
  ///     follow the awaiting and iterating tasks alone.
  ///   - label: A name for the work in the bag's snapshot and events.
  /// - Returns: The body stream (iterate it once) and the response.
  /// - Throws: `CancellationError` when cancelled, otherwise what URLSession reports.
  public func stream(
    for request: URLRequest, in bag: CancelBag?, label: String? = nil
  ) async throws -> (URLSessionDataStream, URLResponse) {
    let route = SessionRegistry.streams.route(for: self)
    let (streamed, body) = StreamRequest.make(cancelQueue: route.cancelQueue)
    streamed.register(in: bag, label: label)
    let response = try await withTaskCancellationHandler {
      try await streamed.response {
        let task = route.session.dataTask(with: request)
        route.delegate.register(streamed, for: task)
        return task
      }
    } onCancel: {
      streamed.cancelByAwaitingTask()
    }
    return (body, response)
  }
}

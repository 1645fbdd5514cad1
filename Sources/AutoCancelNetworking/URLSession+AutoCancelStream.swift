import AutoCancel
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension URLSession {
  /// Starts `request` and returns its response head and a stream of its body, bound to `bag`
  /// and to the iterating task.
  ///
  /// FoundationNetworking on Linux has no `bytes(for:)`; this is the streaming call that
  /// works there, chunk by chunk. It returns once the response head arrived. The transfer
  /// stops, and the call or the stream throws `CancelledError(reason:)`, when the bag ends,
  /// when the awaiting task is cancelled before the head arrives (reason
  /// `CancellationReason.current` or `.explicit`), or when the consumer stops iterating.
  ///
  /// ```swift
  /// let (body, response) = try await session.stream(for: request, in: cancelBag)
  /// for try await chunk in body { file.write(chunk) }
  /// ```
  ///
  /// The request runs on a delegate-based twin of `self` (same configuration, cache wrapped
  /// in a ``CancelSafeURLCache`` on Linux), so `self`'s delegate, if any, does not see it.
  /// As with the other async calls, the bag is held only while the request is registered.
  ///
  /// - Parameters:
  ///   - request: The request.
  ///   - bag: The bag that cancels the transfer when it ends.
  ///   - label: A name for the work in the bag's snapshot and events.
  /// - Returns: The body stream (iterate it once) and the response.
  public func stream(
    for request: URLRequest, in bag: consuming CancelBag, label: String? = nil
  ) async throws -> (URLSessionDataStream, URLResponse) {
    let route = StreamSessions.route(for: self)
    let streamed = StreamRequest(cancelQueue: route.cancelQueue)
    let body = streamed.takeBody()
    do {
      let registered = streamed.register(in: consume bag, label: label)
      let response = try await withTaskCancellationHandler {
        guard registered else { return try await streamed.response { nil } }
        return try await streamed.response {
          let task = route.session.dataTask(with: request)
          route.delegate.register(streamed, for: task)
          return task
        }
      } onCancel: {
        streamed.cancelBySwiftTask()
      }
      return (body, response)
    } catch is SwiftTaskCancellation<Data>.Marker {
      throw CancelledError(reason: CancellationReason.current ?? .explicit)
    }
  }
}

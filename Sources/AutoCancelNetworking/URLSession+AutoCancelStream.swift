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
  /// `self`'s delegate decides what it decides for `self`'s other tasks: redirects,
  /// authentication challenges (and, on Apple platforms, server trust and metrics). On Apple
  /// platforms the request is a task of `self` with a delegate of its own for the body. On
  /// Linux, where a task's own delegate receives no data, it runs on the twin of `self` that
  /// the completion-handler helpers use (a copy of its configuration, with a delegate of the
  /// library's), and `self`'s delegate receives, with `self` as their session, those decisions
  /// and the response head (its disposition ignored, as FoundationNetworking ignores it); the
  /// twin is invalidated soon after `self` is gone.
  ///
  /// - Parameters:
  ///   - request: The request.
  ///   - bag: A bag that also cancels the transfer when it ends or cancels its work; `nil` to
  ///     follow the awaiting and iterating tasks alone.
  ///   - label: A name for the work in the bag's snapshot and events.
  ///   - file: The call's `#fileID`, kept as its `CallSite`: leave the default.
  ///   - line: The call's `#line`: leave the default.
  /// - Returns: The body stream (iterate it once) and the response.
  /// - Throws: `CancellationError` when cancelled, otherwise what URLSession reports.
  public func stream(
    for request: URLRequest, in bag: consuming CancelBag?, label: String? = nil,
    file: StaticString = #fileID, line: UInt = #line
  ) async throws -> (URLSessionDataStream, URLResponse) {
    let (streamed, body) = StreamRequest.make(request)
    let registration = streamed.register(in: consume bag, label: label, file: file, line: line)
    let response = try await withTaskCancellationHandler {
      try await streamed.response(on: self, registration: registration)
    } onCancel: {
      streamed.cancelByAwaitingTask()
    }
    return (body, response)
  }
}

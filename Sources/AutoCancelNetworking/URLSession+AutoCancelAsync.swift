import AutoCancel
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Async URLSession calls bound to a `CancelBag` and to the awaiting Swift task.
///
/// Each returns what Foundation's async method returns, and throws
/// `CancelledError(reason:)` when it was cancelled:
///
/// - by the bag (its owner went away, it ended, a key replaced it, a deadline passed): the
///   error carries the bag's reason;
/// - by cancelling the awaiting Swift task: the reason is `CancellationReason.current`
///   (the bag's reason when the task was launched by `CancelBag`) or
///   `CancellationReason.explicit`.
///
/// ```swift
/// final class ProfileModel: AutoCancelOwner {
///   let cancelBag = CancelBag()
///   func refresh() async throws -> Profile {
///     let (data, _) = try await URLSession.shared.data(from: profileURL, in: cancelBag)
///     return try JSONDecoder().decode(Profile.self, from: data)
///   }
/// }
/// ```
///
/// ## Contract (all helpers)
///
/// - Built on completion-handler tasks: Foundation's own async methods deadlock or crash under
///   cancellation on Linux (see "Cancelling URLSession work").
/// - The cancellation is reported at once; `URLSessionTask.cancel()` runs afterwards on a
///   private serial queue, so the connection closes without blocking anyone.
/// - A bag that already ended, or a Swift task already cancelled, throws before any request
///   is sent.
/// - The work leaves the bag when it completes, whichever way.
/// - The call holds the bag only while it registers the request: when the owner that stores
///   the bag goes away mid-request, the bag ends (`CancellationReason.ownerGone`) and the
///   request is cancelled. (A bag that the caller keeps in a local variable stays alive.)
extension URLSession {
  /// Loads `request` and returns its body and response.
  ///
  /// See the contract above.
  ///
  /// ```swift
  /// let (data, response) = try await session.data(for: request, in: cancelBag)
  /// ```
  ///
  /// - Parameters:
  ///   - request: The request.
  ///   - bag: The bag that cancels the request when it ends.
  ///   - label: A name for the work in the bag's snapshot and events.
  /// - Throws: `CancelledError` when cancelled, otherwise what URLSession reports.
  public func data(
    for request: URLRequest, in bag: consuming CancelBag, label: String? = nil
  ) async throws -> (Data, URLResponse) {
    try await bound(in: consume bag, label: label, kind: .data) { session, done in
      session.dataTask(with: request) { data, response, error in
        done(Self.pair(data, response, error))
      }
    }
  }

  /// Loads `url` and returns its body and response.
  ///
  /// See ``data(for:in:label:)``.
  ///
  /// ```swift
  /// let (data, _) = try await URLSession.shared.data(from: url, in: cancelBag)
  /// ```
  public func data(
    from url: URL, in bag: consuming CancelBag, label: String? = nil
  ) async throws -> (Data, URLResponse) {
    try await data(for: URLRequest(url: url), in: consume bag, label: label)
  }

  /// Sends `bodyData` with `request` and returns the response body and response.
  ///
  /// See the contract above.
  ///
  /// ```swift
  /// let (reply, _) = try await session.upload(for: request, from: json, in: cancelBag)
  /// ```
  public func upload(
    for request: URLRequest, from bodyData: Data, in bag: consuming CancelBag, label: String? = nil
  ) async throws -> (Data, URLResponse) {
    try await bound(in: consume bag, label: label, kind: .upload) { session, done in
      session.uploadTask(with: request, from: bodyData) { data, response, error in
        done(Self.pair(data, response, error))
      }
    }
  }

  /// Sends the file at `fileURL` with `request` and returns the response body and response.
  ///
  /// See the contract above.
  ///
  /// ```swift
  /// let (reply, _) = try await session.upload(for: request, fromFile: video, in: cancelBag)
  /// ```
  public func upload(
    for request: URLRequest, fromFile fileURL: URL, in bag: consuming CancelBag,
    label: String? = nil
  ) async throws -> (Data, URLResponse) {
    try await bound(in: consume bag, label: label, kind: .upload) { session, done in
      session.uploadTask(with: request, fromFile: fileURL) { data, response, error in
        done(Self.pair(data, response, error))
      }
    }
  }

  /// Downloads `request` to a file and returns its location and the response.
  ///
  /// See the contract above. The file is moved out of URLSession's way before this returns:
  /// it belongs to the caller, who moves or deletes it.
  ///
  /// ```swift
  /// let (file, _) = try await session.download(for: request, in: cancelBag)
  /// try FileManager.default.moveItem(at: file, to: destination)
  /// ```
  public func download(
    for request: URLRequest, in bag: consuming CancelBag, label: String? = nil
  ) async throws -> (URL, URLResponse) {
    try await bound(
      in: consume bag, label: label, kind: .download,
      discard: { file, _ in try? FileManager.default.removeItem(at: file) }
    ) { session, done in
      session.downloadTask(with: request) { file, response, error in
        done(
          Result {
            if let error { throw error }
            guard let file, let response else { throw URLError(.badServerResponse) }
            // URLSession may delete its file once this handler returns: keep a copy.
            let kept = FileManager.default.temporaryDirectory
              .appendingPathComponent("AutoCancel-\(UUID().uuidString).tmp")
            try FileManager.default.moveItem(at: file, to: kept)
            return (kept, response)
          })
      }
    }
  }

  /// Downloads `url` to a file and returns its location and the response.
  ///
  /// See ``download(for:in:label:)``.
  ///
  /// ```swift
  /// let (file, _) = try await session.download(from: url, in: cancelBag)
  /// ```
  public func download(
    from url: URL, in bag: consuming CancelBag, label: String? = nil
  ) async throws -> (URL, URLResponse) {
    try await download(for: URLRequest(url: url), in: consume bag, label: label)
  }

  /// Runs one completion-handler task made by `make`, bound to `bag` and to the current
  /// Swift task.
  private func bound<Value: Sendable>(
    in bag: consuming CancelBag, label: String?, kind: TaskKind,
    discard: (@Sendable (Value) -> Void)? = nil,
    make:
      @escaping (URLSession, @escaping @Sendable (Result<Value, any Error>) -> Void) ->
      URLSessionTask
  ) async throws -> Value {
    // Hold the bag only until the request is registered: a bag kept alive by this call could
    // never end with its owner.
    let handOff = BagHandOff(consume bag)
    let swiftTask = SwiftTaskCancellation<Value>()
    let route = CancelSafeSessions.route(for: self, kind: kind)
    do {
      return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
          let request = BoundRequest<Value>(deliveryQueue: nil, discard: discard) {
            continuation.resume(with: $0)
          }
          let task = request.start(
            in: handOff.take(), label: label, route: route
          ) {
            make(route.session, $0)
          }
          if swiftTask.attach(request) { request.resumeUnlessCancelled(task) }
        }
      } onCancel: {
        swiftTask.cancel()
      }
    } catch is SwiftTaskCancellation<Value>.Marker {
      throw CancelledError(reason: CancellationReason.current ?? .explicit)
    }
  }

  private static func pair(
    _ data: Data?, _ response: URLResponse?, _ error: (any Error)?
  ) -> Result<(Data, URLResponse), any Error> {
    if let error { return .failure(error) }
    guard let response else { return .failure(URLError(.badServerResponse)) }
    return .success((data ?? Data(), response))
  }
}

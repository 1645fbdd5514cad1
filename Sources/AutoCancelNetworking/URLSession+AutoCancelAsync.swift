import AutoCancel
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Async URLSession calls that follow the awaiting Swift task and, optionally, a bag.
///
/// Each returns what Foundation's async method returns. The request is cancelled, down to
/// its connection, when the awaiting task is cancelled, and also when `bag` ends or cancels
/// its work (`cancelAll`, a key, a deadline); either way the call throws the standard
/// `CancellationError`, so `catch is CancellationError` catches every cancellation.
///
/// An async call reaches its owner through the task that awaits it. Launch it from the
/// owner's bag, capturing the owner weakly: the owner going away, `cancelAll`, keys and
/// deadlines all cancel the task, and with it the request. The task already carries the bag,
/// so pass `nil`:
///
/// ```swift
/// final class AvatarModel: AutoCancelOwner {
///   let cancelBag = CancelBag()
///   func load(_ url: URL) {
///     cancelBag.task { [weak self] in
///       let (data, _) = try await URLSession.shared.data(from: url, in: nil)
///       self?.show(data)
///     }
///   }
/// }
/// ```
///
/// An owner method awaited by someone else (SwiftUI's `.task {}`, a caller's task) follows
/// that task; pass the owner's bag to add its `cancelAll`, keys and deadlines:
///
/// ```swift
/// func refresh() async throws -> Profile {
///   let (data, _) = try await URLSession.shared.data(from: profileURL, in: cancelBag)
///   return try JSONDecoder().decode(Profile.self, from: data)
/// }
/// ```
///
/// > Important: While an owner's method runs, its caller holds the owner, so the owner
/// > cannot go away mid-request there: its departure reaches the request only through the
/// > awaiting task. A task that captures its owner strongly keeps the owner, and so the
/// > request, alive until it ends.
///
/// ## Contract (all helpers)
///
/// - Built on completion-handler tasks: Foundation's own async methods deadlock or crash under
///   cancellation on Linux (see "Cancelling URLSession work"). On Linux the task may run on a
///   cancel-safe twin of `self` (see ``CancelSafeURLCache``).
/// - The cancellation is reported at once; `URLSessionTask.cancel()` runs afterwards on a
///   private serial queue, so the connection closes without blocking anyone.
/// - A bag that already ended, or a Swift task already cancelled, throws before any request
///   is sent.
/// - The request leaves `bag` when it completes, whichever way.
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
  ///   - bag: A bag that also cancels the request when it ends or cancels its work; `nil` to
  ///     follow the awaiting task alone.
  ///   - label: A name for the work in the bag's snapshot and events.
  /// - Throws: `CancellationError` when cancelled, otherwise what URLSession reports.
  public func data(
    for request: URLRequest, in bag: CancelBag?, label: String? = nil
  ) async throws -> (Data, URLResponse) {
    try await awaitBoundTask(kind: .data, in: bag, label: label, settle: Self.body) {
      $0.dataTask(with: request, completionHandler: $1)
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
    from url: URL, in bag: CancelBag?, label: String? = nil
  ) async throws -> (Data, URLResponse) {
    try await data(for: URLRequest(url: url), in: bag, label: label)
  }

  /// Sends `bodyData` with `request` and returns the response body and response.
  ///
  /// See the contract above.
  ///
  /// ```swift
  /// let (reply, _) = try await session.upload(for: request, from: json, in: cancelBag)
  /// ```
  public func upload(
    for request: URLRequest, from bodyData: Data, in bag: CancelBag?, label: String? = nil
  ) async throws -> (Data, URLResponse) {
    try await awaitBoundTask(kind: .upload, in: bag, label: label, settle: Self.body) {
      $0.uploadTask(with: request, from: bodyData, completionHandler: $1)
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
    for request: URLRequest, fromFile fileURL: URL, in bag: CancelBag?, label: String? = nil
  ) async throws -> (Data, URLResponse) {
    try await awaitBoundTask(kind: .upload, in: bag, label: label, settle: Self.body) {
      $0.uploadTask(with: request, fromFile: fileURL, completionHandler: $1)
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
    for request: URLRequest, in bag: CancelBag?, label: String? = nil
  ) async throws -> (URL, URLResponse) {
    try await awaitBoundTask(
      kind: .download, in: bag, label: label,
      discard: { file, _ in try? FileManager.default.removeItem(at: file) },
      settle: Self.keptFile
    ) {
      $0.downloadTask(with: request, completionHandler: $1)
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
    from url: URL, in bag: CancelBag?, label: String? = nil
  ) async throws -> (URL, URLResponse) {
    try await download(for: URLRequest(url: url), in: bag, label: label)
  }

  @Sendable private static func body(
    _ data: Data?, _ response: URLResponse?, _ error: (any Error)?
  ) -> Result<(Data, URLResponse), any Error> {
    if let error { return .failure(error) }
    guard let response else { return .failure(URLError(.badServerResponse)) }
    return .success((data ?? Data(), response))
  }

  /// Moves a downloaded file out of URLSession's way: it may delete its file once the
  /// completion handler returns.
  @Sendable private static func keptFile(
    _ file: URL?, _ response: URLResponse?, _ error: (any Error)?
  ) -> Result<(URL, URLResponse), any Error> {
    Result {
      if let error { throw error }
      guard let file, let response else { throw URLError(.badServerResponse) }
      let kept = FileManager.default.temporaryDirectory
        .appendingPathComponent("AutoCancel-\(UUID().uuidString).tmp")
      try FileManager.default.moveItem(at: file, to: kept)
      return (kept, response)
    }
  }
}

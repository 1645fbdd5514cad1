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
/// A plain `Task` that holds the owner weakly reaches it through the bag instead:
/// `in: self?.cancelBag` follows the owner, because the call lets go of the bag as soon as the
/// request is registered in it, so the owner going away still ends the bag:
///
/// ```swift
/// Task { [weak self] in
///   let (data, _) = try await URLSession.shared.data(from: url, in: self?.cancelBag)
///   self?.show(data)
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
/// - Each task behaves as those of the completion-handler helpers
///   (`dataTask(with:in:label:completionHandler:)` and its kin) do: `self`'s configuration and
///   delegate apply, as described there. Foundation's own async methods deadlock or crash
///   under cancellation on Linux (see "Cancelling URLSession work").
/// - The task is made and resumed on a queue of the library's: the awaiting task's thread, one
///   of Swift's cooperative pool, never waits for URLSession.
/// - The call holds `bag` only while it registers the request, never while it waits.
/// - The cancellation is reported at once; `URLSessionTask.cancel()` runs afterwards on the
///   library's queue, so the connection closes without blocking anyone.
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
  ///   - file: The call's `#fileID`, kept as its `CallSite`: leave the default.
  ///   - line: The call's `#line`: leave the default.
  /// - Throws: `CancellationError` when cancelled, otherwise what URLSession reports.
  public func data(
    for request: URLRequest, in bag: consuming CancelBag?, label: String? = nil,
    file: StaticString = #fileID, line: UInt = #line
  ) async throws -> (Data, URLResponse) {
    try await bodyAndResponse(
      .data(request), in: consume bag, label: label, file: file, line: line)
  }

  /// Loads `url` and returns its body and response.
  ///
  /// Keeps the call's `file` and `line` as the item's `CallSite` while call sites are on.
  ///
  /// See ``data(for:in:label:file:line:)``.
  ///
  /// ```swift
  /// let (data, _) = try await URLSession.shared.data(from: url, in: cancelBag)
  /// ```
  public func data(
    from url: URL, in bag: consuming CancelBag?, label: String? = nil,
    file: StaticString = #fileID, line: UInt = #line
  ) async throws -> (Data, URLResponse) {
    try await data(for: URLRequest(url: url), in: consume bag, label: label, file: file, line: line)
  }

  /// Sends `bodyData` with `request` and returns the response body and response.
  ///
  /// Keeps the call's `file` and `line` as the item's `CallSite` while call sites are on.
  ///
  /// See the contract above.
  ///
  /// ```swift
  /// let (reply, _) = try await session.upload(for: request, from: json, in: cancelBag)
  /// ```
  public func upload(
    for request: URLRequest, from bodyData: Data, in bag: consuming CancelBag?,
    label: String? = nil,
    file: StaticString = #fileID, line: UInt = #line
  ) async throws -> (Data, URLResponse) {
    try await bodyAndResponse(
      .upload(request, bodyData), in: consume bag, label: label, file: file, line: line)
  }

  /// Sends the file at `fileURL` with `request` and returns the response body and response.
  ///
  /// Keeps the call's `file` and `line` as the item's `CallSite` while call sites are on.
  ///
  /// See the contract above.
  ///
  /// ```swift
  /// let (reply, _) = try await session.upload(for: request, fromFile: video, in: cancelBag)
  /// ```
  public func upload(
    for request: URLRequest, fromFile fileURL: URL, in bag: consuming CancelBag?,
    label: String? = nil,
    file: StaticString = #fileID, line: UInt = #line
  ) async throws -> (Data, URLResponse) {
    try await bodyAndResponse(
      .uploadFile(request, fileURL), in: consume bag, label: label, file: file, line: line)
  }

  /// Downloads `request` to a file and returns its location and the response.
  ///
  /// Keeps the call's `file` and `line` as the item's `CallSite` while call sites are on.
  ///
  /// See the contract above. The file is moved out of URLSession's way before this returns:
  /// it belongs to the caller, who moves or deletes it.
  ///
  /// ```swift
  /// let (file, _) = try await session.download(for: request, in: cancelBag)
  /// try FileManager.default.moveItem(at: file, to: destination)
  /// ```
  public func download(
    for request: URLRequest, in bag: consuming CancelBag?, label: String? = nil,
    file: StaticString = #fileID, line: UInt = #line
  ) async throws -> (URL, URLResponse) {
    let task = TaskRequest<URL>(.download(request), delivery: .awaiting, prepare: Self.keep)
    let registration = task.register(in: consume bag, label: label, file: file, line: line)
    let (file, response) = try await task.value(on: self, registration: registration)
    guard let file, let response else { throw URLError(.badServerResponse) }
    return (file, response)
  }

  /// Downloads `url` to a file and returns its location and the response.
  ///
  /// Keeps the call's `file` and `line` as the item's `CallSite` while call sites are on.
  ///
  /// See ``download(for:in:label:file:line:)``.
  ///
  /// ```swift
  /// let (file, _) = try await session.download(from: url, in: cancelBag)
  /// ```
  public func download(
    from url: URL, in bag: consuming CancelBag?, label: String? = nil,
    file: StaticString = #fileID, line: UInt = #line
  ) async throws -> (URL, URLResponse) {
    try await download(
      for: URLRequest(url: url), in: consume bag, label: label, file: file, line: line)
  }

  /// Runs a data or upload task bound to `bag` (if any) and to the awaiting task, and returns
  /// its body and response.
  private func bodyAndResponse(
    _ spec: TaskSpec, in bag: consuming CancelBag?, label: String?, file: StaticString,
    line: UInt
  ) async throws -> (Data, URLResponse) {
    let task = TaskRequest<Data>(spec, delivery: .awaiting)
    let registration = task.register(in: consume bag, label: label, file: file, line: line)
    let (data, response) = try await task.value(on: self, registration: registration)
    guard let response else { throw URLError(.badServerResponse) }
    return (data ?? Data(), response)
  }

  /// Moves a downloaded file out of URLSession's way, to a file of the caller's.
  @Sendable private static func keep(_ file: URL) throws -> URL {
    let kept = FileManager.default.temporaryDirectory
      .appendingPathComponent("AutoCancel-\(UUID().uuidString).tmp")
    try FileManager.default.moveItem(at: file, to: kept)
    return kept
  }
}

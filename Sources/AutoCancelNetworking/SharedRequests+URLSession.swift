import AutoCancel
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Shared URLSession requests: one download for every owner that wants it.
extension SharedRequests where Key == URLRequest, Value == SharedResponse {
  /// Loads `request` once for every caller that asks for it while it runs, and cancels the
  /// download, down to its connection, only when the last of them is gone.
  ///
  /// The request runs through `URLSession.data(for:in:label:)`, so it
  /// takes the library's crash-free cancel path on Linux. A caller whose task is cancelled
  /// (its bag ended, its screen went away) stops waiting at once with `CancellationError`;
  /// the others keep waiting. When none is left, the download is cancelled. Requests are
  /// told apart by `URLRequest` equality (URL, method, headers, body).
  ///
  /// ```swift
  /// let avatars = SharedURLRequests()
  ///
  /// cancelBag.task { [weak self] in
  ///   let response = try await avatars.data(for: URLRequest(url: avatarURL))
  ///   self?.show(response.data)
  /// }
  /// ```
  ///
  /// - Throws: `CancellationError` when the caller's task is cancelled, otherwise what
  ///   URLSession reports (also to every caller waiting for the same request).
  public func data(
    for request: URLRequest, session: URLSession = .shared
  ) async throws -> SharedResponse {
    try await value(for: request, whenJoining: { Self.joined(request.url) }) {
      // The shared operation's task is cancelled when its last caller leaves; the request
      // follows that task.
      let (data, response) = try await session.data(
        for: request, in: nil, label: request.url?.absoluteString)
      return SharedResponse(data: data, response: response)
    }
  }

  /// Tells the request instruments that a caller joined the download of `url`.
  private static func joined(_ url: URL?) {
    TaskQueue.async {
      for instrument in RequestInstruments.shared.current {
        instrument.sharedRequestJoined(url: url)
      }
    }
  }
}

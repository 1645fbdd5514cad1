import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The body and response of a request shared through `SharedRequests`.
///
/// Every caller of ``AutoCancel/SharedRequests/data(for:session:)`` gets the same value.
///
/// ```swift
/// let shared = try await avatars.data(for: request)
/// print(shared.data.count, (shared.response as? HTTPURLResponse)?.statusCode ?? 0)
/// ```
public struct SharedResponse: @unchecked Sendable {
  // Safety: `Data` is Sendable; the `URLResponse` is never mutated after the load completed
  // and is only read, so sharing it among the callers is safe.

  /// The response body.
  public let data: Data

  /// The response: an `HTTPURLResponse` for HTTP requests.
  public let response: URLResponse

  /// Pairs a body with its response.
  public init(data: Data, response: URLResponse) {
    self.data = data
    self.response = response
  }
}

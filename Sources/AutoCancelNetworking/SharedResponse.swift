import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The body and response of a request shared through ``SharedURLRequests``.
///
/// Every caller of ``SharedRequests/data(for:session:)`` gets the same value.
///
/// ```swift
/// let shared = try await avatars.data(for: request)
/// print(shared.data.count, (shared.response as? HTTPURLResponse)?.statusCode ?? 0)
/// ```
public struct SharedResponse: @unchecked Sendable {
  // Safety: every caller of one shared load gets this same value, so it must cross tasks.
  // `Data` is Sendable; `URLResponse` is an immutable-after-creation class, declared Sendable
  // by FoundationNetworking but not by every Apple SDK this package supports. The response is
  // made by URLSession before the load completes, never mutated afterwards, and this type
  // only exposes it read-only (and is created only by the shared loader).

  /// The response body.
  public let data: Data

  /// The response: an `HTTPURLResponse` for HTTP requests.
  public let response: URLResponse

  /// Pairs a body with its response; made only by the shared loader.
  init(data: Data, response: URLResponse) {
    self.data = data
    self.response = response
  }
}

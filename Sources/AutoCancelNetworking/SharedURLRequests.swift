import AutoCancel
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Shared URL loads: one download for every owner that wants it, cancelled only when the
/// last of them is gone.
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
/// See ``SharedRequests/data(for:session:)``.
public typealias SharedURLRequests = SharedRequests<URLRequest, SharedResponse>

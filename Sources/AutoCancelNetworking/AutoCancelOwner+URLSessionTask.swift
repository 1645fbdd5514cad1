import AutoCancel
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension AutoCancelOwner {
  /// Binds a raw `URLSessionTask` to this owner: cancelled, without blocking, when the owner
  /// goes away; forgotten by itself once it has completed.
  ///
  /// The Swift form of `[self autoCancelRequestOnDealloc:task]`. Same contract as
  /// ``AutoCancel/CancelBag/add(_:key:label:)``.
  ///
  /// ```swift
  /// let task = session.dataTask(with: url) { [weak self] data, _, _ in self?.show(data) }
  /// autoCancel(task)
  /// task.resume()
  /// ```
  @discardableResult
  public func autoCancel(
    _ task: URLSessionTask, key: (any Hashable & Sendable)? = nil, label: String? = nil
  ) -> CancelRegistration {
    cancelBag.add(task, key: key, label: label)
  }
}

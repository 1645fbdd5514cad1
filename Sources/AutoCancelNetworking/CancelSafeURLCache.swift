import AutoCancel
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// On Linux, a URL cache that answers URLSession's cached-response lookups synchronously, so
/// that a data task that your own code cancels can never race the lookup and crash the
/// process.
///
/// It stores nothing itself: every read, write and removal goes to the cache it wraps
/// (`URLCache.shared` by default), so responses are cached exactly as before.
///
/// The library installs it on the twin sessions it runs every helper's task and stream on.
/// Install it on a session whose tasks you cancel with `URLSessionTask.cancel()` yourself, or
/// bind to a bag with `autoCancel(task)`: the library's cancel of such a raw task otherwise
/// waits for the lookup, reading FoundationNetworking's private state to see it end.
///
/// ## Why it exists
///
/// In swift-corelibs-foundation, `resume()` of a data task on a session with a URL cache
/// asks the cache for a stored response on a background queue and parks every later
/// `cancel()` in a list until the answer comes. When the answer comes, the list is replayed
/// off the session's queue: the transfer may start and finish before the parked cancel runs,
/// and the cancel then looks up a task the session has already forgotten:
/// `TaskRegistry.swift:118: Fatal error: Trying to access a behaviour for a task that in not
/// in the registry.` Answering the lookup synchronously, inside `resume()`, leaves no moment
/// at which a cancel can be parked.
///
/// ```swift
/// let configuration = URLSessionConfiguration.default
/// configuration.urlCache = CancelSafeURLCache(wrapping: .shared)
/// let session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
/// ```
///
/// ## Contract
///
/// - Thread-safe as far as the wrapped cache is: every call is forwarded as is.
/// - The lookup runs on the thread that calls `resume()` (for the library's own tasks, its own
///   queue; or `cancel()` of a task that was never resumed), while FoundationNetworking holds
///   the queue that runs all URLSession work of the process: a slow lookup (a disk read)
///   holds every session's work meanwhile. Wrap only caches whose lookups are quick and do not
///   wait for your own locks.
/// - On Apple platforms it is a plain forwarding cache; nothing there needs it.
public final class CancelSafeURLCache: URLCache, @unchecked Sendable {
  // Safety: the only stored property is an immutable reference to a thread-safe cache.

  /// The cache that actually stores the responses.
  public let base: URLCache

  /// Wraps `base`; every read and write goes to it.
  ///
  /// ```swift
  /// configuration.urlCache = CancelSafeURLCache(wrapping: configuration.urlCache ?? .shared)
  /// ```
  public init(wrapping base: URLCache = .shared) {
    self.base = base
    #if canImport(FoundationNetworking)
      super.init(memoryCapacity: 0, diskCapacity: 0, diskPath: nil)
    #else
      super.init(memoryCapacity: 0, diskCapacity: 0, directory: nil)
    #endif
  }

  /// The wrapped cache's response for `request`.
  public override func cachedResponse(for request: URLRequest) -> CachedURLResponse? {
    base.cachedResponse(for: request)
  }

  /// Stores `cachedResponse` for `request` in the wrapped cache.
  public override func storeCachedResponse(
    _ cachedResponse: CachedURLResponse, for request: URLRequest
  ) {
    base.storeCachedResponse(cachedResponse, for: request)
  }

  /// Removes the wrapped cache's response for `request`.
  public override func removeCachedResponse(for request: URLRequest) {
    base.removeCachedResponse(for: request)
  }

  /// Empties the wrapped cache.
  public override func removeAllCachedResponses() {
    base.removeAllCachedResponses()
  }

  /// Removes the wrapped cache's responses stored since `date`.
  public override func removeCachedResponses(since date: Date) {
    base.removeCachedResponses(since: date)
  }

  /// Stores `cachedResponse` for the task's current request in the wrapped cache.
  public override func storeCachedResponse(
    _ cachedResponse: CachedURLResponse, for dataTask: URLSessionDataTask
  ) {
    guard let request = dataTask.currentRequest else { return }
    base.storeCachedResponse(cachedResponse, for: request)
  }

  #if canImport(FoundationNetworking)
    /// Looks the task's request up in the wrapped cache and calls `completionHandler` before
    /// returning: the lookup that makes cancellation safe.
    ///
    /// Linux only. On Apple platforms, where a lookup cannot race a cancel, the lookup by
    /// task is URLCache's own: whether the SDK's completion handler is `@Sendable` differs
    /// between SDKs, so an override there would compile with some Xcodes only.
    public override func getCachedResponse(
      for dataTask: URLSessionDataTask,
      completionHandler: @escaping @Sendable (CachedURLResponse?) -> Void
    ) {
      completionHandler(dataTask.currentRequest.flatMap { base.cachedResponse(for: $0) })
    }
  #endif

  /// Removes the wrapped cache's response for the task's current request.
  public override func removeCachedResponse(for dataTask: URLSessionDataTask) {
    guard let request = dataTask.currentRequest else { return }
    base.removeCachedResponse(for: request)
  }

  /// The wrapped cache's memory capacity.
  public override var memoryCapacity: Int {
    get { base.memoryCapacity }
    set { base.memoryCapacity = newValue }
  }

  /// The wrapped cache's disk capacity.
  public override var diskCapacity: Int {
    get { base.diskCapacity }
    set { base.diskCapacity = newValue }
  }

  /// The wrapped cache's memory usage.
  public override var currentMemoryUsage: Int { base.currentMemoryUsage }

  /// The wrapped cache's disk usage.
  public override var currentDiskUsage: Int { base.currentDiskUsage }
}

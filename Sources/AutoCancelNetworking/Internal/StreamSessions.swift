import AutoCancel
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Delegate-based sessions for ``URLSessionDataStream``: completion handlers cannot stream,
/// so each session the caller uses gets a streaming twin with the same configuration (its
/// cache wrapped in a ``CancelSafeURLCache`` on Linux) and a delegate that forwards each
/// task's events to its ``StreamRequest``.
enum StreamSessions {
  struct Route: Sendable {
    let session: URLSession
    let delegate: StreamDelegate
    let cancelQueue: DispatchQueue
  }

  private final class Entry: @unchecked Sendable {
    // Safety: both properties are set once, before the entry is shared.
    weak var original: URLSession?
    let route: Route
    init(original: URLSession, route: Route) {
      self.original = original
      self.route = route
    }
  }

  private final class Registry: @unchecked Sendable {
    // Safety: `entries` is only touched under `lock`.
    let lock = NSLock()
    var entries: [ObjectIdentifier: Entry] = [:]
  }

  private static let registry = Registry()

  static func route(for session: URLSession) -> Route {
    let id = ObjectIdentifier(session)
    let (found, stale): (Route?, [Entry]) = registry.lock.withLock {
      if let entry = registry.entries[id], entry.original === session { return (entry.route, []) }
      let stale = registry.entries.filter { $0.value.original == nil }
      for key in stale.keys { registry.entries[key] = nil }
      return (nil, Array(stale.values))
    }
    if let found { return found }
    for entry in stale { entry.route.session.finishTasksAndInvalidate() }
    let route = makeRoute(for: session)
    let (chosen, unused): (Route, Route?) = registry.lock.withLock {
      if let entry = registry.entries[id], entry.original === session {
        return (entry.route, route)  // another thread won; ours goes unused
      }
      registry.entries[id] = Entry(original: session, route: route)
      return (route, nil)
    }
    // Invalidated after the lock, as in CancelSafeSessions: URLSession code never runs under it.
    unused?.session.finishTasksAndInvalidate()
    return chosen
  }

  private static func makeRoute(for session: URLSession) -> Route {
    let configuration = session.configuration
    #if canImport(FoundationNetworking)
      if let cache = configuration.urlCache, !(cache is CancelSafeURLCache) {
        configuration.urlCache = CancelSafeURLCache(wrapping: cache)
      }
    #endif
    let delegate = StreamDelegate()
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 1
    let twin = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
    return Route(session: twin, delegate: delegate, cancelQueue: TaskCanceller.makeQueue())
  }
}

/// Forwards a streaming session's delegate calls to the ``StreamRequest`` of each task.
final class StreamDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
  // Safety: `requests` is only touched under `lock`.
  private let lock = NSLock()
  private var requests: [Int: StreamRequest] = [:]

  func register(_ request: StreamRequest, for task: URLSessionTask) {
    lock.withLock { requests[task.taskIdentifier] = request }
  }

  private func request(for task: URLSessionTask, removing: Bool = false) -> StreamRequest? {
    lock.withLock {
      removing ? requests.removeValue(forKey: task.taskIdentifier) : requests[task.taskIdentifier]
    }
  }

  func urlSession(
    _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
  ) {
    request(for: dataTask)?.received(response)
    completionHandler(.allow)
  }

  func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
    request(for: dataTask)?.received(data)
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?
  ) {
    request(for: task, removing: true)?.completed(error)
  }
}

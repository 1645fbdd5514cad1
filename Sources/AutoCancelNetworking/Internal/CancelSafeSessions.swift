import AutoCancel
import Dispatch
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Where the library runs a request for a given session, and how it may cancel it there.
struct CancelSafeRoute: Sendable {
  /// The session that creates the task: the caller's, or its cancel-safe twin.
  let session: URLSession
  /// Whether a cancel must wait for the task to be past its cache lookup.
  let waitForLookup: Bool
  /// The serial queue that runs this session's cancels.
  let cancelQueue: DispatchQueue

  init(
    session: URLSession, waitForLookup: Bool, cancelQueue: DispatchQueue = TaskCanceller.makeQueue()
  ) {
    self.session = session
    self.waitForLookup = waitForLookup
    self.cancelQueue = cancelQueue
  }
}

/// Maps sessions to a session on which cancelling is safe on Linux.
///
/// - A session without a URL cache, or whose cache is a ``CancelSafeURLCache``, is safe as is.
/// - A session without a delegate (`URLSession.shared`, most app sessions) gets a twin: the
///   same configuration and delegate queue, with its cache wrapped in a `CancelSafeURLCache`.
///   Responses still go to and come from the original cache.
/// - A session with a delegate cannot be copied (the delegate would stop hearing about the
///   work): its data tasks keep it, and their cancels wait for the end of the lookup
///   (``TaskCanceller``).
///
/// Twins are made once per session and dropped (finishing their tasks) when the original
/// session is gone. On Apple platforms every session is used as is.
enum CancelSafeSessions {
  private final class Entry: @unchecked Sendable {
    // Safety: both properties are set once, before the entry is shared.
    weak var original: URLSession?
    let route: CancelSafeRoute
    init(original: URLSession, route: CancelSafeRoute) {
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

  /// The route for work of `kind` on `session`.
  static func route(for session: URLSession, kind: TaskKind) -> CancelSafeRoute {
    #if canImport(FoundationNetworking)
      let id = ObjectIdentifier(session)
      let (found, stale): (CancelSafeRoute?, [Entry]) = registry.lock.withLock {
        if let entry = registry.entries[id], entry.original === session {
          return (entry.route, [])
        }
        return (nil, pruneLocked())
      }
      if let found { return found.for(kind) }
      for entry in stale where entry.route.session !== entry.original {
        entry.route.session.finishTasksAndInvalidate()
      }
      let route = makeRoute(for: session)
      return registry.lock.withLock {
        if let entry = registry.entries[id], entry.original === session {
          // Another thread won; use its route (ours, if a twin, goes unused).
          if route.session !== session { route.session.finishTasksAndInvalidate() }
          return entry.route.for(kind)
        }
        registry.entries[id] = Entry(original: session, route: route)
        return route.for(kind)
      }
    #else
      return CancelSafeRoute(session: session, waitForLookup: false)
    #endif
  }

  /// Removes entries whose session is gone; call under the lock.
  private static func pruneLocked() -> [Entry] {
    let stale = registry.entries.filter { $0.value.original == nil }
    for key in stale.keys { registry.entries[key] = nil }
    return Array(stale.values)
  }

  private static func makeRoute(for session: URLSession) -> CancelSafeRoute {
    let configuration = session.configuration
    guard let cache = configuration.urlCache, !(cache is CancelSafeURLCache) else {
      return CancelSafeRoute(session: session, waitForLookup: false)
    }
    guard session.delegate == nil else {
      return CancelSafeRoute(session: session, waitForLookup: true)
    }
    configuration.urlCache = CancelSafeURLCache(wrapping: cache)
    let twin = URLSession(
      configuration: configuration, delegate: nil, delegateQueue: session.delegateQueue)
    twin.sessionDescription = session.sessionDescription
    return CancelSafeRoute(session: twin, waitForLookup: false)
  }
}

extension CancelSafeRoute {
  /// The route for a task of `kind`: download tasks never look the cache up in
  /// FoundationNetworking, so they stay on the original session and never wait.
  func `for`(_ kind: TaskKind) -> CancelSafeRoute {
    guard kind == .download, waitForLookup else { return self }
    return CancelSafeRoute(session: session, waitForLookup: false, cancelQueue: cancelQueue)
  }
}

/// The kind of URLSession task a helper creates.
enum TaskKind: Sendable, Equatable {
  case data
  case upload
  case download
}

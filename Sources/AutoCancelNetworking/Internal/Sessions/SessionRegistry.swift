import AutoCancel
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Remembers, for each session a caller uses, the route the library made for it: the
/// completion-handler tasks' route (``SessionRegistry/tasks``) and the streams' route
/// (``SessionRegistry/streams``).
///
/// Routes are made once per session and dropped, their twin sessions invalidated, when the
/// caller's session is gone. The registry never keeps a caller's session alive, and never
/// runs URLSession code under its lock.
final class SessionRegistry<Route: SessionRoute>: Sendable {
  /// What is remembered per session: never the session itself, only the route made for it.
  private final class Entry: @unchecked Sendable {
    // Safety: both properties are set in `init`, before the entry is shared, and never
    // assigned again (`original` only turns nil when the session goes).
    weak var original: URLSession?
    let route: Route

    init(original: URLSession, route: Route) {
      self.original = original
      self.route = route
    }
  }

  private let entries = Locked<[ObjectIdentifier: Entry]>([:])
  private let makeRoute: @Sendable (URLSession) -> Route

  init(makeRoute: @escaping @Sendable (URLSession) -> Route) {
    self.makeRoute = makeRoute
  }

  /// The route for `session`, made on first use.
  func route(for session: URLSession) -> Route {
    let id = ObjectIdentifier(session)
    let (found, stale): (Route?, [Entry]) = entries.withLock { entries in
      if let entry = entries[id], entry.original === session { return (entry.route, []) }
      let stale = entries.filter { $0.value.original == nil }
      for key in stale.keys { entries[key] = nil }
      return (nil, Array(stale.values))
    }
    if let found { return found }
    for entry in stale { entry.route.twin?.finishTasksAndInvalidate() }
    let made = makeRoute(session)
    let (chosen, unused): (Route, Route?) = entries.withLock { entries in
      if let entry = entries[id], entry.original === session {
        return (entry.route, made)  // another thread won; ours goes unused
      }
      entries[id] = Entry(original: session, route: made)
      return (made, nil)
    }
    unused?.twin?.finishTasksAndInvalidate()
    return chosen
  }
}

extension SessionRegistry where Route == TaskRoute {
  /// Completion-handler tasks, on a session where cancelling is safe on Linux.
  ///
  /// - A session without a URL cache, or whose cache is a ``CancelSafeURLCache``, is safe as
  ///   is.
  /// - A session without a delegate (`URLSession.shared`, most app sessions) gets a twin: the
  ///   same configuration and delegate queue, its cache wrapped in a `CancelSafeURLCache`.
  ///   Responses still go to and come from the original cache.
  /// - A session with a delegate cannot be copied (the delegate would stop hearing about the
  ///   work): its data tasks keep it, and their cancels wait for the end of the lookup
  ///   (``TaskCanceller``).
  static let tasks = SessionRegistry { session in
    let configuration = session.configuration
    guard let cache = configuration.urlCache, !(cache is CancelSafeURLCache) else {
      return TaskRoute(
        session: session, twin: nil, waitForLookup: false, cancelQueue: TaskCanceller.makeQueue())
    }
    guard session.delegate == nil else {
      return TaskRoute(
        session: session, twin: nil, waitForLookup: true, cancelQueue: TaskCanceller.makeQueue())
    }
    configuration.urlCache = CancelSafeURLCache(wrapping: cache)
    let twin = URLSession(
      configuration: configuration, delegate: nil, delegateQueue: session.delegateQueue)
    twin.sessionDescription = session.sessionDescription
    return TaskRoute(
      session: twin, twin: twin, waitForLookup: false, cancelQueue: TaskCanceller.makeQueue())
  }

  /// The route for a task of `kind` on `session`. On Apple platforms every session is safe
  /// as is.
  static func route(for session: URLSession, kind: TaskKind) -> TaskRoute {
    #if canImport(FoundationNetworking)
      return tasks.route(for: session).adjusted(for: kind)
    #else
      return TaskRoute(
        session: session, twin: nil, waitForLookup: false,
        cancelQueue: TaskCanceller.sharedQueue(for: session))
    #endif
  }
}

extension SessionRegistry where Route == StreamRoute {
  /// Streams: completion handlers cannot stream, so each session gets a delegate-based twin
  /// with the same configuration (its cache wrapped in a ``CancelSafeURLCache`` on Linux).
  static let streams = SessionRegistry { session in
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
    return StreamRoute(session: twin, delegate: delegate, cancelQueue: TaskCanceller.makeQueue())
  }
}

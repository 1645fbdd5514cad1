#if canImport(FoundationNetworking)
  import AutoCancel
  import Foundation
  import FoundationNetworking

  /// On Linux, the sessions the library makes beside a caller's session, one registry per
  /// kind: a copy of the caller's configuration whose URL cache answers lookups synchronously
  /// (a ``CancelSafeURLCache`` around the caller's own), so that no cancel can be parked behind
  /// a lookup, whoever resumes the task and whenever.
  ///
  /// - ``tasks`` runs the helpers' completion-handler and async tasks for a session without a
  ///   delegate (`URLSession.shared`, most app sessions): there is no delegate to bypass, its
  ///   completion handlers run on the session's delegate queue, and its tasks behave as the
  ///   session's own would. A session with a delegate keeps its tasks, and ``TaskCanceller``
  ///   waits out their lookups.
  /// - ``streams`` runs streams, for any session: completion handlers cannot stream, and a
  ///   task's own delegate receives no data on Linux, so its delegate is the library's
  ///   (``StreamDelegate``), which hands redirects and challenges to the caller's delegate.
  ///
  /// A twin is made on first use and invalidated soon after the caller's session is gone: the
  /// library's reaper looks twice a second while twins exist. It lets its tasks in flight
  /// finish, then frees its connections. A registry never keeps a caller's session alive, and
  /// never runs URLSession code under its lock.
  final class TwinRegistry<Twin: Sendable>: Sendable {
    /// A twin and the session it was made for, held weakly.
    private struct Entry: Sendable {
      let original: WeakSession
      let twin: Twin
    }

    private struct State: Sendable {
      var entries: [ObjectIdentifier: Entry] = [:]
      /// Whether the reaper visits: from the first twin until a visit leaves none.
      var isReaped = false
    }

    private let state = Locked(State())
    private let make: @Sendable (URLSession) -> Twin
    private let session: @Sendable (Twin) -> URLSession

    /// - Parameters:
    ///   - make: makes the twin of a caller's session.
    ///   - session: the session of a twin, to invalidate.
    init(
      make: @escaping @Sendable (URLSession) -> Twin,
      session: @escaping @Sendable (Twin) -> URLSession
    ) {
      self.make = make
      self.session = session
    }

    /// The twin of `session`, made on first use.
    func twin(for session: URLSession) -> Twin {
      let id = ObjectIdentifier(session)
      if let found = state.withLock({ $0.entries[id] }), found.original.session === session {
        return found.twin
      }
      let made = Entry(original: WeakSession(session), twin: make(session))
      let (chosen, unused, joinsReaper): (Twin, Twin?, Bool) = state.withLock { state in
        if let entry = state.entries[id], entry.original.session === session {
          return (entry.twin, made.twin, false)  // another thread won; ours goes unused
        }
        // An entry under this identifier whose session is gone is a dead session's, whose
        // address was reused: its twin goes.
        let stale = state.entries.updateValue(made, forKey: id)?.twin
        defer { state.isReaped = true }
        return (made.twin, stale, !state.isReaped)
      }
      if let unused { self.session(unused).finishTasksAndInvalidate() }
      if joinsReaper { Reaper.shared.visit { [self] in invalidateOrphans() } }
      return chosen
    }

    /// Invalidates the twins whose session is gone; returns whether any twin is left.
    func invalidateOrphans() -> Bool {
      let (orphans, isLeft): ([Twin], Bool) = state.withLock { state in
        let gone = state.entries.filter { $0.value.original.session == nil }
        for id in gone.keys { state.entries[id] = nil }
        state.isReaped = !state.entries.isEmpty
        return (gone.values.map(\.twin), state.isReaped)
      }
      for twin in orphans { session(twin).finishTasksAndInvalidate() }
      return isLeft
    }
  }

  /// A stream twin: its session, and the library's delegate of it.
  struct StreamTwin: Sendable {
    let session: URLSession
    let delegate: StreamDelegate
  }

  extension TwinRegistry where Twin == URLSession {
    /// Completion-handler and async tasks of sessions without a delegate.
    static let tasks = TwinRegistry {
      copy(of: $0)
    } session: {
      $0
    }

    /// The session that runs a helper's task for `session`: its twin if `session` has no
    /// delegate, else `session` itself.
    static func sessionForTasks(of session: URLSession) -> URLSession {
      session.delegate == nil ? tasks.twin(for: session) : session
    }
  }

  extension TwinRegistry where Twin == StreamTwin {
    /// Streams, of every session.
    static let streams = TwinRegistry { session in
      let delegate = StreamDelegate(original: session)
      return StreamTwin(session: copy(of: session, delegate: delegate), delegate: delegate)
    } session: {
      $0.session
    }
  }

  /// A session with a copy of `session`'s configuration (its cookies, protocol classes,
  /// timeouts, and its cache behind a ``CancelSafeURLCache``) and `delegate`: completion
  /// handlers run on `session`'s delegate queue, a delegate on a serial queue of its own.
  private func copy(
    of session: URLSession, delegate: (any URLSessionDelegate)? = nil
  ) -> URLSession {
    // A copy: `configuration` is the session's own object in FoundationNetworking.
    let configuration = session.configuration.copy() as! URLSessionConfiguration
    if let cache = configuration.urlCache, !(cache is CancelSafeURLCache) {
      configuration.urlCache = CancelSafeURLCache(wrapping: cache)
    }
    let queue: OperationQueue
    if delegate == nil {
      queue = session.delegateQueue
    } else {
      queue = OperationQueue()
      queue.maxConcurrentOperationCount = 1
    }
    let twin = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
    twin.sessionDescription = session.sessionDescription
    return twin
  }
#endif

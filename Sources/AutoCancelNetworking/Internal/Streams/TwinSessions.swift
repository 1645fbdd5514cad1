#if canImport(FoundationNetworking)
  import AutoCancel
  import Foundation
  import FoundationNetworking

  /// On Linux, the sessions the library makes to stream a caller's requests: completion
  /// handlers cannot stream, and a task's own delegate receives no data there, so each
  /// session a caller streams on gets a twin with the caller's configuration and a delegate of
  /// the library's (``StreamDelegate``).
  ///
  /// A twin is made once per session and invalidated soon after the caller's session is gone:
  /// the library's reaper looks twice a second while twins exist. It then lets its streams in
  /// flight finish, and frees its connections once they have. The registry never keeps a
  /// caller's session alive, and never runs URLSession code under its lock.
  final class TwinSessions: Sendable {
    static let shared = TwinSessions()

    /// A twin and the session it was made for, held weakly.
    private struct Entry: Sendable {
      let original: WeakSession
      let twin: URLSession
      let delegate: StreamDelegate
    }

    private struct State: Sendable {
      var entries: [ObjectIdentifier: Entry] = [:]
      /// Whether the reaper visits: from the first twin until a visit leaves none.
      var isReaped = false
    }

    private let state = Locked(State())

    /// The twin of `session`, made on first use.
    func twin(for session: URLSession) -> (session: URLSession, delegate: StreamDelegate) {
      let id = ObjectIdentifier(session)
      if let found = state.withLock({ $0.entries[id] }), found.original.session === session {
        return (found.twin, found.delegate)
      }
      let made = makeTwin(of: session)
      let (chosen, unused, joinsReaper): (Entry, URLSession?, Bool) = state.withLock { state in
        if let entry = state.entries[id], entry.original.session === session {
          return (entry, made.twin, false)  // another thread won; ours goes unused
        }
        // An entry under this identifier whose session is gone is a dead session's, whose
        // address was reused: its twin goes.
        let stale = state.entries.updateValue(made, forKey: id)?.twin
        defer { state.isReaped = true }
        return (made, stale, !state.isReaped)
      }
      unused?.finishTasksAndInvalidate()
      if joinsReaper { Reaper.shared.visit { TwinSessions.shared.invalidateOrphans() } }
      return (chosen.twin, chosen.delegate)
    }

    /// Invalidates the twins whose session is gone; returns whether any twin is left.
    func invalidateOrphans() -> Bool {
      let (orphans, isLeft): ([URLSession], Bool) = state.withLock { state in
        let gone = state.entries.filter { $0.value.original.session == nil }
        for id in gone.keys { state.entries[id] = nil }
        state.isReaped = !state.entries.isEmpty
        return (gone.values.map(\.twin), state.isReaped)
      }
      for twin in orphans { twin.finishTasksAndInvalidate() }
      return isLeft
    }

    /// How many twins exist (for tests).
    var count: Int { state.withLock { $0.entries.count } }

    /// A session with a copy of `session`'s configuration (its cache, cookies, protocol
    /// classes, timeouts) and the library's delegate, on a serial queue of its own.
    private func makeTwin(of session: URLSession) -> Entry {
      // A copy: `configuration` is the session's own object in FoundationNetworking.
      let configuration = session.configuration.copy() as! URLSessionConfiguration
      let delegate = StreamDelegate(original: session)
      let queue = OperationQueue()
      queue.maxConcurrentOperationCount = 1
      let twin = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
      twin.sessionDescription = session.sessionDescription
      return Entry(original: WeakSession(session), twin: twin, delegate: delegate)
    }
  }
#endif

#if canImport(FoundationNetworking)
  import AutoCancel
  import Foundation
  import FoundationNetworking

  /// On Linux, the sessions the library runs its requests on: one twin beside each caller's
  /// session, made on first use, on ``TaskQueue``.
  ///
  /// A twin has a copy of the caller's configuration (its cookies, protocol classes, headers,
  /// timeouts) whose URL cache answers lookups inside `resume()` (a ``CancelSafeURLCache``
  /// around the caller's own), so that no cancel is ever parked behind a lookup; and the
  /// library's delegate (``TwinDelegate``), which hears every event of its tasks on
  /// ``TaskQueue`` and hands the caller's delegate what Foundation would give it.
  ///
  /// A twin is invalidated soon after the caller's session is gone: the library's reaper looks
  /// twice a second while twins exist; the twin lets its tasks in flight finish, then frees its
  /// connections. The registry never keeps a caller's session alive.
  final class TwinSessions: @unchecked Sendable {
    // Safety: `twins` and `isReaped` are read and written on `TaskQueue.queue` alone.

    static let shared = TwinSessions()

    /// A twin session, its delegate, and the caller's session it was made for, held weakly.
    struct Twin: Sendable {
      let session: URLSession
      let delegate: TwinDelegate
      let original: WeakSession
    }

    private var twins: [ObjectIdentifier: Twin] = [:]
    /// Whether the reaper visits: from the first twin until a visit leaves none.
    private var isReaped = false

    /// The twin of `session`, made on first use.
    func twin(for session: URLSession) -> Twin {
      dispatchPrecondition(condition: .onQueue(TaskQueue.queue))
      let id = ObjectIdentifier(session)
      if let twin = twins[id] {
        if twin.original.session === session { return twin }
        // A dead session's twin, whose address was reused: it goes.
        twin.session.finishTasksAndInvalidate()
      }
      let original = WeakSession(session)
      let delegate = TwinDelegate(original: original)
      let twin = Twin(
        session: Self.copy(of: session, delegate: delegate), delegate: delegate, original: original)
      twins[id] = twin
      if !isReaped {
        isReaped = true
        Reaper.shared.visit { TaskQueue.sync { TwinSessions.shared.invalidateOrphans() } }
      }
      return twin
    }

    /// Whether any twin exists.
    var hasTwins: Bool {
      dispatchPrecondition(condition: .onQueue(TaskQueue.queue))
      return !twins.isEmpty
    }

    /// Invalidates the twins whose session is gone; returns whether any twin is left. The
    /// reaper calls it twice a second while twins exist.
    func invalidateOrphans() -> Bool {
      dispatchPrecondition(condition: .onQueue(TaskQueue.queue))
      for (id, twin) in twins where twin.original.session == nil {
        twins[id] = nil
        twin.session.finishTasksAndInvalidate()
      }
      isReaped = !twins.isEmpty
      return isReaped
    }

    /// A session with a copy of `session`'s configuration, its cache behind a
    /// ``CancelSafeURLCache``, and `delegate`, on ``TaskQueue``.
    private static func copy(of session: URLSession, delegate: TwinDelegate) -> URLSession {
      // A copy: `configuration` is the session's own object in FoundationNetworking.
      let configuration = session.configuration.copy() as! URLSessionConfiguration
      if let cache = configuration.urlCache, !(cache is CancelSafeURLCache) {
        configuration.urlCache = CancelSafeURLCache(wrapping: cache)
      }
      let twin = URLSession(
        configuration: configuration, delegate: delegate, delegateQueue: TaskQueue.delegateQueue)
      twin.sessionDescription = session.sessionDescription
      return twin
    }
  }

  /// A session held without keeping it alive.
  final class WeakSession: @unchecked Sendable {
    // Safety: written once, in `init`, before the box is shared; Swift's weak references may
    // then be read from any thread.
    private(set) weak var session: URLSession?

    init(_ session: URLSession) { self.session = session }
  }
#endif

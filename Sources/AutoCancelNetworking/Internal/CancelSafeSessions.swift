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
  /// What is remembered per session: never the session itself (the registry must not keep
  /// a caller's session alive), only its twin, if any.
  private final class Entry: @unchecked Sendable {
    // Safety: all properties are set once, before the entry is shared.
    weak var original: URLSession?
    let twin: URLSession?
    let waitForLookup: Bool
    let cancelQueue: DispatchQueue
    init(original: URLSession, twin: URLSession?, waitForLookup: Bool) {
      self.original = original
      self.twin = twin
      self.waitForLookup = waitForLookup
      self.cancelQueue = TaskCanceller.makeQueue()
    }

    func route(for session: URLSession, kind: TaskKind) -> CancelSafeRoute {
      CancelSafeRoute(
        session: twin ?? session, waitForLookup: waitForLookup, cancelQueue: cancelQueue
      ).for(kind)
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
      let (found, stale): (Entry?, [Entry]) = registry.lock.withLock {
        if let entry = registry.entries[id], entry.original === session { return (entry, []) }
        let stale = registry.entries.filter { $0.value.original == nil }
        for key in stale.keys { registry.entries[key] = nil }
        return (nil, Array(stale.values))
      }
      if let found { return found.route(for: session, kind: kind) }
      for entry in stale { entry.twin?.finishTasksAndInvalidate() }
      let made = makeEntry(for: session)
      let (entry, unused): (Entry, Entry?) = registry.lock.withLock {
        if let entry = registry.entries[id], entry.original === session {
          return (entry, made)  // another thread won
        }
        registry.entries[id] = made
        return (made, nil)
      }
      unused?.twin?.finishTasksAndInvalidate()
      return entry.route(for: session, kind: kind)
    #else
      return CancelSafeRoute(session: session, waitForLookup: false)
    #endif
  }

  private static func makeEntry(for session: URLSession) -> Entry {
    let configuration = session.configuration
    guard let cache = configuration.urlCache, !(cache is CancelSafeURLCache) else {
      return Entry(original: session, twin: nil, waitForLookup: false)
    }
    guard session.delegate == nil else {
      return Entry(original: session, twin: nil, waitForLookup: true)
    }
    configuration.urlCache = CancelSafeURLCache(wrapping: cache)
    let twin = URLSession(
      configuration: configuration, delegate: nil, delegateQueue: session.delegateQueue)
    twin.sessionDescription = session.sessionDescription
    return Entry(original: session, twin: twin, waitForLookup: false)
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

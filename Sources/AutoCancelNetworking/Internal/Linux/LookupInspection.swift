#if canImport(FoundationNetworking)
  import Dispatch
  import Foundation
  import FoundationNetworking

  /// On Linux, whether a raw task of the app's own session may still be waiting for its URL
  /// cache's answer: the one moment at which cancelling it can crash the process. The library's
  /// own tasks never need it: their twins' caches answer inside `resume()`.
  ///
  /// swift-corelibs-foundation 6.3.1, `URLSessionTask.swift`: `resume()` of a data or upload
  /// task on a session with a URL cache sets `_protocolStorage = .awaitingCacheReply` (`:159`)
  /// and asks the cache on a background thread (`URLCache.swift:674`). A `cancel()` made until
  /// the answer comes is parked in that state's list (`:174-176`) and replayed after the resume
  /// that starts the transfer; if the transfer completes first, the parked cancel reports a
  /// failure for a task the session has forgotten: `TaskRegistry.swift:118: Fatal error: Trying
  /// to access a behaviour for a task that in not in the registry.`
  ///
  /// No public property changes when the answer comes, so the state is read where
  /// FoundationNetworking keeps it: the task's `_protocolStorage`, under its own
  /// `_protocolLock`, found with `Mirror` alone. Where they are is learnt once, from a task of
  /// the library's own that nothing else touches; each inspection then reads those two fields
  /// and no other. Every answer it does not know leads to the safe side, never to a cancel:
  ///
  /// - the fields are missing, moved, or of another type: the inspection is off, and a cancel
  ///   waits until the task shows a response head or a body being sent;
  /// - a state other than the four of 6.3.1: the cancel waits, looking again;
  /// - `.awaitingCacheReply`, or `.toBeCreated` on a resumed task (inside its `resume()`): the
  ///   cancel waits, looking again after 1, 2, 4 and then every 8 ms;
  /// - `.existing` or `.invalidated`: the cancel is made.
  ///
  /// It runs only for a resumed data or upload task (downloads never ask the cache) that shows
  /// no public sign of being past its lookup (a response head, bytes received or sent).
  enum LookupInspection {
    /// What an inspection found.
    enum Answer: Equatable {
      /// Past its lookup, or never resumed: a cancel now is safe.
      case settled
      /// The cache has not answered, or the answer cannot be told: wait.
      case pending
      /// The fields were not found: only public signs can tell.
      case unreadable
    }

    /// Where `_protocolLock` and `_protocolStorage` are among the stored properties that
    /// `URLSessionTask` itself declares, and how many it declares.
    struct Layout {
      let fieldCount: Int
      let lock: Int
      let storage: Int
    }

    /// The layout found on this FoundationNetworking; nil if not found.
    static let layout: Layout? = {
      // A task of the library's own, never resumed, on a session without a cache, that no
      // other code reads or writes: every field of it may be read.
      let configuration = URLSessionConfiguration.ephemeral
      configuration.urlCache = nil
      let session = URLSession(configuration: configuration)
      defer { session.invalidateAndCancel() }
      let probe = session.dataTask(with: URL(string: "http://127.0.0.1:9/")!)
      guard let mirror = taskMirror(of: probe) else { return nil }
      let labels = mirror.children.map(\.label)
      guard let lock = labels.firstIndex(of: "_protocolLock"),
        let storage = labels.firstIndex(of: "_protocolStorage")
      else { return nil }
      let layout = Layout(fieldCount: labels.count, lock: lock, storage: storage)
      // What a task never resumed holds: the lock, and `.toBeCreated`.
      guard read(probe, layout) == "toBeCreated" else { return nil }
      return layout
    }()

    /// Whether the fields were found on this FoundationNetworking.
    static var isAvailable: Bool { layout != nil }

    /// How long to wait before cancelling `task`, a resumed raw task, and looking again; nil
    /// to cancel now.
    static func wait(before task: URLSessionTask, attempt: Int) -> DispatchTimeInterval? {
      guard task is URLSessionDataTask, !showsItIsPast(task) else { return nil }
      switch answer(for: task) {
      case .settled: return nil
      case .pending: return .milliseconds(1 << min(attempt, 3))
      // 2 ms, doubling up to a quarter of a second: public signs are all that is left.
      case .unreadable: return .milliseconds(min(2 << min(attempt, 7), 250))
      }
    }

    /// Whether `task` shows, through public properties alone, that it is past its lookup.
    private static func showsItIsPast(_ task: URLSessionTask) -> Bool {
      task.response != nil || task.countOfBytesExpectedToReceive != 0
        || task.countOfBytesReceived > 0 || task.countOfBytesSent > 0
    }

    /// Reads the state of `task`, a resumed task.
    static func answer(for task: URLSessionTask, layout: Layout? = layout) -> Answer {
      guard let layout else { return .unreadable }
      return answer(forState: read(task, layout))
    }

    /// What the state named `name` means for a resumed task; nil: the fields were not where
    /// the layout said.
    static func answer(forState name: String?) -> Answer {
      switch name {
      case nil: .unreadable
      case "existing", "invalidated": .settled
      // `awaitingCacheReply`; `toBeCreated`, inside `resume()`; or a case this code does not
      // know.
      default: .pending
      }
    }

    /// Reads two fields of `task`, and no other: the lock, which is never reassigned, and the
    /// state, under that lock, as FoundationNetworking itself reads it. Returns the name of the
    /// state's case (6.3.1's `_ProtocolState`: `toBeCreated`, `awaitingCacheReply`,
    /// `existing`, `invalidated`), or nil when the fields are not where `layout` says.
    private static func read(_ task: URLSessionTask, _ layout: Layout) -> String? {
      guard let mirror = taskMirror(of: task) else { return nil }
      // Children are made one at a time, on access: reaching the k-th reads no other field.
      let children = mirror.children
      guard children.count == layout.fieldCount else { return nil }
      func child(_ offset: Int) -> Mirror.Child {
        children[children.index(children.startIndex, offsetBy: offset)]
      }
      let lockField = child(layout.lock)
      guard lockField.label == "_protocolLock", let lock = lockField.value as? NSLock else {
        return nil
      }
      lock.lock()
      let storageField = child(layout.storage)
      lock.unlock()
      guard storageField.label == "_protocolStorage" else { return nil }
      let state = Mirror(reflecting: storageField.value)
      guard state.displayStyle == .enum else { return nil }
      // A case with a payload shows as one labelled child; one without, by its name.
      return state.children.first?.label ?? String(describing: storageField.value)
    }

    /// The mirror of the stored properties `URLSessionTask` itself declares.
    private static func taskMirror(of task: URLSessionTask) -> Mirror? {
      var mirror = Mirror(reflecting: task)
      while mirror.subjectType != URLSessionTask.self {
        guard let superclass = mirror.superclassMirror else { return nil }
        mirror = superclass
      }
      return mirror
    }
  }
#endif

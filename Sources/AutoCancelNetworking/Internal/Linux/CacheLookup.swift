#if canImport(FoundationNetworking)
  @_spi(Reflection) import Swift
  import Foundation
  import FoundationNetworking

  /// Whether FoundationNetworking is still asking a data task's URL cache for a stored
  /// response: the one moment at which cancelling the task can crash the process.
  ///
  /// swift-corelibs-foundation 6.3.1, `URLSessionTask.swift`: `resume()` of a data or upload
  /// task on a session with a URL cache sets `_protocolStorage = .awaitingCacheReply` (`:159`)
  /// and asks the cache on a background thread (`URLCache.swift:674`). A `cancel()` made until
  /// the answer comes is parked in that state's list (`:174-176`) and replayed with a protocol
  /// captured at `:201-202`, right after the resume that starts the transfer. If the replaying
  /// thread is descheduled between the two and the transfer completes meanwhile, the parked
  /// cancel reports a failure for a task the session has already forgotten:
  /// `TaskRegistry.swift:118: Fatal error: Trying to access a behaviour for a task that in not
  /// in the registry.` A cancel made in any other state is never parked: before `resume()`,
  /// it makes the later `resume()` a no-op (`:475`); after the answer, it stops the transfer
  /// on the session's queue (`:389-405`), or does nothing once the task completed.
  ///
  /// No public property changes when the answer comes, so the state is read where
  /// FoundationNetworking keeps it: the task's private `_protocolStorage`, under its own
  /// `_protocolLock`, both found by name once. If a later FoundationNetworking renames them,
  /// the state is ``State/unknown`` and ``TaskCanceller`` falls back to public signs.
  enum CacheLookup {
    enum State {
      /// The cache has not answered yet: a cancel now would be parked.
      case pending
      /// Not in a lookup: not resumed yet, the cache answered, no cache, or completed.
      case settled
      /// This FoundationNetworking keeps its state elsewhere.
      case unknown
    }

    /// The positions of `_protocolLock` and `_protocolStorage` among the stored properties
    /// `URLSessionTask` itself declares, which is the order of its mirror's children.
    private static let fields: (lock: Int, storage: Int)? = {
      var names: [String] = []
      let classType = _EachFieldOptions(rawValue: 1 << 0)
      _ = _forEachField(of: URLSessionTask.self, options: classType) { name, _, _, _ in
        names.append(String(cString: name))
        return true
      }
      guard let lock = names.firstIndex(of: "_protocolLock"),
        let storage = names.firstIndex(of: "_protocolStorage")
      else { return nil }
      return (lock, storage)
    }()

    /// Whether `task` is waiting for its cache's answer.
    ///
    /// Reads two properties of the task and nothing else: the lock, which is never reassigned,
    /// and the state, under that lock, as FoundationNetworking itself reads it.
    static func state(of task: URLSessionTask) -> State {
      guard let fields else { return .unknown }
      var mirror = Mirror(reflecting: task)
      while mirror.subjectType != URLSessionTask.self {
        guard let superclass = mirror.superclassMirror else { return .unknown }
        mirror = superclass
      }
      // Children are made one at a time, on access: reaching the k-th reads no other field.
      let children = mirror.children
      func child(_ offset: Int) -> Any {
        children[children.index(children.startIndex, offsetBy: offset)].value
      }
      guard let lock = child(fields.lock) as? NSLock else { return .unknown }
      lock.lock()
      let storage = child(fields.storage)
      lock.unlock()
      // `.awaitingCacheReply(bag)`: the one case whose payload is the list of parked callbacks.
      return Mirror(reflecting: storage).children.first?.label == "awaitingCacheReply"
        ? .pending : .settled
    }
  }
#endif

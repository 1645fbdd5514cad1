/// An observer installed with ``CancelBag/observe(_:)``; cancel it to stop observing.
///
/// Observers also stop when the bag ends, after hearing of the work it cancelled. An
/// observation is ``AutoCancellable``, so it can be bound to another owner:
///
/// ```swift
/// debugPanel.autoCancel(screen.cancelBag.observe { event in debugPanel.log(event) })
/// ```
public struct CancelBagObservation: AutoCancellable, Hashable {
  let core: BagCore
  let id: Int?

  /// Stops delivering events to the handler. Idempotent; any thread.
  ///
  /// An event being delivered on another thread at this moment may still arrive.
  public func cancel() {
    if let id { core.removeObserver(id: id) }
  }

  /// Two observations are equal when they name the same observer of the same bag.
  public static func == (lhs: CancelBagObservation, rhs: CancelBagObservation) -> Bool {
    lhs.core.identity == rhs.core.identity && lhs.id == rhs.id
  }

  /// Hashes the bag's identity and the observer's number.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(core.identity)
    hasher.combine(id)
  }
}

/// Observing what happens to a bag's work.
extension CancelBag {
  /// Calls `handler` for every piece of work registered, finished, failed or cancelled from now
  /// on.
  ///
  /// The handler runs synchronously on the thread that caused the event, never under the
  /// bag's lock, so it may use the bag; keep it short. Capture the bag weakly: the bag keeps
  /// its handlers until it ends, and a handler holding the bag would keep it from ever ending.
  /// Events of one item that race on different threads (a registration and its immediate
  /// finish) may arrive in either order.
  /// When the bag ends, the handler hears of every item it cancels, then is released. On a
  /// bag that has ended, the handler is never called.
  ///
  /// ```swift
  /// cancelBag.observe { event in
  ///   print(event)  // "cancelled #4 avatar (Task<Image, Error>): owner gone"
  /// }
  /// ```
  @discardableResult
  public func observe(
    _ handler: @escaping @Sendable (CancelBagEvent) -> Void
  )
    -> CancelBagObservation
  {
    CancelBagObservation(core: core, id: core.addObserver(handler))
  }
}

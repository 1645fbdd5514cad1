import AutoCancel

/// Observing what happens to a bag's work, and what it holds.
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
    CancelBagObservation(observation: observeItems { handler(CancelBagEvent($0)) })
  }

  /// The work in flight, oldest first. Any thread; empty once the bag ended.
  ///
  /// ```swift
  /// print(cancelBag.snapshot().map(\.description))
  /// // ["#3 feed (Task<Feed, Error>), 0.820 s", "#5 (URLSessionDataTask)"]
  /// ```
  public func snapshot() -> [CancelBagItem] {
    itemSnapshots().map(CancelBagItem.init)
  }
}

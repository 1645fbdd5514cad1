import AutoCancel

/// Finding work that keeps running after its bag cancelled it.
extension CancelBag {
  /// How long, in seconds, work may keep running after its bag cancelled it before it is
  /// reported to ``overdueWorkHandler``. Default: 10.
  ///
  /// Process-wide; read and set it from any thread. A new value applies to work already
  /// watched too. Values below zero count as zero.
  ///
  /// ```swift
  /// CancelBag.overdueWorkThreshold = 2  // a test that must see a stuck task soon
  /// ```
  public static var overdueWorkThreshold: Double {
    get { OverdueWatch.settings.withLock { $0.threshold } }
    set { OverdueWatch.settings.withLock { $0.threshold = max(0, newValue) } }
  }

  /// Called once for each piece of work still running ``overdueWorkThreshold`` seconds after
  /// its bag cancelled it; nil watches nothing. Default: nil, in debug and release builds
  /// alike: the library prints nothing unless you ask, with `{ print($0) }` for instance.
  /// Setting it turns the diagnostics on (``AutoCancelDiagnostics/enable()``): set it at
  /// launch, before the first bag is made, since only the work of bags made after the
  /// diagnostics were turned on is watched.
  ///
  /// Watched is work that its bag cancelled, and that can tell that it stopped: a bag task, a
  /// `Task` bound with `add`, and `FinishReporting` classes
  /// (`URLSessionTask` and `Operation` with `AutoCancelNetworking`); a `FinishReporting`
  /// value type, boxed by the bag, is not. Work given to a bag that had ended, cancelled at
  /// once, is watched too, and reported as item `#0`. Work that stops in time costs one entry
  /// in a list, made when it is cancelled; adding and finishing work cost nothing more,
  /// cancelling plain work costs nothing, and with the handler nil a cancel that meets
  /// watchable work costs one read of this setting. One shared timer, the
  /// library's reaper, looks at the list twice a second while it holds anything: the report
  /// comes up to half a second after the threshold passed. Work is held weakly meanwhile:
  /// work that nothing else keeps has stopped.
  ///
  /// The handler runs on the reaper's queue, never under a lock of the library, so it may
  /// use bags; keep it short. Each piece of work is reported at most once per cancel, and
  /// never again once it stopped. Process-wide; read and set it from any thread. Work
  /// cancelled while the handler is nil is not watched, even if a handler is set later.
  ///
  /// ```swift
  /// CancelBag.overdueWorkHandler = { overdue in
  ///   logger.warning("\(overdue.item.label ?? "work") ignores its cancel: \(overdue.reason)")
  /// }
  /// ```
  public static var overdueWorkHandler: (@Sendable (OverdueWork) -> Void)? {
    get { OverdueWatch.settings.withLock { $0.handler } }
    set {
      if newValue != nil { AutoCancelDiagnostics.enable() }
      // The old handler is released after the lock: what it captured may end a bag.
      let old = OverdueWatch.settings.withLock { settings in
        defer { settings.handler = newValue }
        return settings.handler
      }
      _ = old
    }
  }
}

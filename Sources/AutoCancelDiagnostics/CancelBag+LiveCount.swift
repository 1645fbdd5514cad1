import AutoCancel

/// Counting the labelled bags that are alive: owners that should have gone away.
extension CancelBag {
  /// The number of bags made with `label` since the diagnostics were turned on
  /// (``AutoCancelDiagnostics/enable()``) that have not been deinitialized.
  ///
  /// A bag lives as long as its owner stores it, so a count that keeps growing as a screen
  /// is opened and closed tells that the screen's model is leaked (a retain cycle, a task
  /// holding it): its bag, and its work, never end. A bag that has ended (`end(reason:)`)
  /// counts until it is deinitialized. Child and linked bags count under their own labels;
  /// bags without a label are not counted.
  ///
  /// Process-wide; any thread. A snapshot: bags may be made or released right after it is
  /// read. Counting costs a labelled bag one short lock when it is made and one when it is
  /// deinitialized; adding, finishing and cancelling work cost nothing.
  ///
  /// ```swift
  /// AutoCancelDiagnostics.enable()  // at launch
  ///
  /// final class FeedViewModel {
  ///   let cancelBag = CancelBag(label: "FeedViewModel")
  /// }
  /// // In a debug overlay, or a test that opens and closes the screen:
  /// print(CancelBag.liveCount(label: "FeedViewModel"))  // 1 while the feed is on screen
  /// ```
  public static func liveCount(label: String) -> Int {
    LiveBags.count(of: label)
  }

  /// Every label of a bag that has not been deinitialized, with how many such bags there are,
  /// among the bags made since the diagnostics were turned on.
  ///
  /// Labels whose bags were all deinitialized are absent. Read label by label: bags made or
  /// released while it is read may or may not be counted. Process-wide; any thread.
  ///
  /// ```swift
  /// for (label, count) in CancelBag.liveCountsByLabel.sorted(by: { $0.key < $1.key }) {
  ///   print("\(label): \(count)")  // "FeedViewModel: 1", "SharedRequests: 1", …
  /// }
  /// ```
  public static var liveCountsByLabel: [String: Int] {
    LiveBags.all
  }

  /// Sets how many bags labelled `label` may be alive at once before ``pilingUpHandler``
  /// hears that owners of that kind are piling up; nil removes the limit.
  ///
  /// Setting a limit turns the diagnostics on (``AutoCancelDiagnostics/enable()``), so that this
  /// one line at launch watches a kind of owner. Set it to the number of owners of a kind the
  /// app means to keep: 1 for a screen shown
  /// once at a time, the depth of a navigation stack for its pages. When making a bag takes
  /// the label's count over the limit, the handler gets one ``PilingUpBags`` report; it hears
  /// of the label again only after its count came back to the limit or under it, so a leak
  /// that grows by one bag per visit is reported once, not on every visit. A label already
  /// over a new limit is reported when its next bag is made. Negative limits count as zero.
  ///
  /// Process-wide; any thread; setting the same limit again re-arms the report. It costs a
  /// labelled bag nothing beyond the count it already keeps.
  ///
  /// ```swift
  /// #if DEBUG
  ///   CancelBag.setLiveCountLimit(1, label: "FeedViewModel")
  /// #endif
  /// ```
  public static func setLiveCountLimit(_ limit: Int?, label: String) {
    AutoCancelDiagnostics.enable()
    LiveBags.setLimit(limit, of: label)
  }

  /// The limit set for `label` with ``setLiveCountLimit(_:label:)``, or nil.
  ///
  /// Process-wide; any thread.
  ///
  /// ```swift
  /// CancelBag.setLiveCountLimit(2, label: "ArticlePage")
  /// print(CancelBag.liveCountLimit(label: "ArticlePage") ?? 0)  // 2
  /// ```
  public static func liveCountLimit(label: String) -> Int? {
    LiveBags.limit(of: label)
  }

  /// Called when making a bag takes its label over the limit set with
  /// ``setLiveCountLimit(_:label:)``; nil reports nothing. Default: nil, in debug and release
  /// builds alike: the library prints nothing unless you ask, with `{ print($0) }` for
  /// instance. Setting it turns the diagnostics on (``AutoCancelDiagnostics/enable()``).
  ///
  /// Runs on the thread that made the bag, at the end of `init`, never under a lock of the
  /// library: it may make and use bags. Keep it short; it runs once per pile-up, not once
  /// per bag. Process-wide; read and set it from any thread.
  ///
  /// ```swift
  /// CancelBag.pilingUpHandler = { pileUp in
  ///   assertionFailure("\(pileUp)")  // stop in the debugger where the extra owner is made
  /// }
  /// ```
  public static var pilingUpHandler: (@Sendable (PilingUpBags) -> Void)? {
    get { LiveBags.handler.withLock { $0 } }
    set {
      AutoCancelDiagnostics.enable()
      // The old handler is released after the lock: what it captured may end a bag.
      let old = LiveBags.handler.withLock { handler in
        defer { handler = newValue }
        return handler
      }
      _ = old
    }
  }
}

import AutoCancel

/// Turns on the diagnostics of bags: how many of each label are alive, a report when owners of
/// a kind pile up, and the account of what became of their work (``CancelBagStatistics``).
///
/// Off until you turn it on, at launch, with one line; nothing is counted and nothing is
/// printed before:
///
/// ```swift
/// @main struct FeedApp: App {
///   init() {
///     #if DEBUG
///       AutoCancelDiagnostics.enable()
///       CancelBag.setLiveCountLimit(1, label: "FeedViewModel")
///       CancelBag.pilingUpHandler = { assertionFailure("\($0)") }
///     #endif
///   }
///   var body: some Scene { WindowGroup { FeedView() } }
/// }
/// ```
///
/// A bag takes the process's switches as it is made, and keeps them: the diagnostics count the
/// bags made after they were turned on, and bags made before carry nothing of them. Setting a
/// limit (``AutoCancel/CancelBag/setLiveCountLimit(_:label:)``) or a handler
/// (``AutoCancel/CancelBag/pilingUpHandler``) turns them on too.
public enum AutoCancelDiagnostics {
  /// Turns the diagnostics on for every bag made from now on. Call it at launch, before the
  /// first bag is made; a second call does nothing. Any thread.
  ///
  /// With it on, a labelled bag costs two short locks more in its life (when it is made and
  /// when it is deinitialized), and a bag that registered work one more when it ends, to add
  /// its counts to the account; adding and finishing work cost nothing more, and cancelling
  /// one item alone a few additions under the bag's lock.
  ///
  /// ```swift
  /// let missed = AutoCancelDiagnostics.enable()
  /// assert(missed == 0, "\(missed) bags were made before the diagnostics were turned on")
  /// ```
  ///
  /// - Returns: How many bags were made before the diagnostics were turned on, which go on
  ///   without them: 0 when the first call came before the first bag, as it should.
  @discardableResult
  public static func enable() -> Int {
    ProcessSwitches.install(DiagnosticsInstrument.shared)
  }

  /// Turns the diagnostics on, as ``enable()`` does, and hands every report to `report`: work
  /// that outlives its cancel (``AutoCancel/CancelBag/overdueWorkHandler``) and owners piling
  /// up over their label's limit (``AutoCancel/CancelBag/pilingUpHandler``). The one line that
  /// an app's debug builds need at launch; the library prints nothing unless `report` does.
  ///
  /// ```swift
  /// #if DEBUG
  ///   AutoCancelDiagnostics.enable(reporting: { print($0) })
  /// #endif
  /// ```
  ///
  /// Replaces both handlers; a later call replaces them again. Any thread.
  ///
  /// - Returns: How many bags were made before the diagnostics were turned on (see
  ///   ``enable()``).
  @discardableResult
  public static func enable(
    reporting report: @escaping @Sendable (DiagnosticReport) -> Void
  ) -> Int {
    let missed = enable()
    CancelBag.overdueWorkHandler = { report(.overdueWork($0)) }
    CancelBag.pilingUpHandler = { report(.pilingUp($0)) }
    return missed
  }

  /// Whether ``enable()`` was called. Any thread.
  ///
  /// ```swift
  /// AutoCancelDiagnostics.enable()
  /// print(AutoCancelDiagnostics.isEnabled)  // true
  /// ```
  public static var isEnabled: Bool {
    ProcessSwitches.installedInstruments.contains { $0 === DiagnosticsInstrument.shared }
  }
}

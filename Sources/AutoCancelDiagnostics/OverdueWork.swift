import AutoCancel

/// Work still running long after its bag cancelled it: what the watchdog reports, once.
///
/// Work that can tell that it stopped (a bag task, a `Task` bound with
/// `CancelBag.add`, `FinishReporting` work such as a
/// `URLSessionTask` or an `Operation`) and is still running
/// ``AutoCancel/CancelBag/overdueWorkThreshold`` seconds after its bag cancelled it is handed to
/// ``AutoCancel/CancelBag/overdueWorkHandler``: it ignores its cancel, and keeps its resources (a socket,
/// a screen's model) alive.
///
/// ```swift
/// CancelBag.overdueWorkHandler = { overdue in
///   logger.warning("\(overdue)")
///   // "AutoCancel: #4 sync (Task<(), Error>) still runs 10.2 s after it was cancelled
///   //  (owner gone)"
/// }
/// ```
///
/// The core's article "Debugging Work" shows where it fits.
public struct OverdueWork: Sendable, CustomStringConvertible {
  /// The work, as a snapshot would list it: its number, label, key and type, and where it
  /// was added while its bag keeps call sites (`CancelBagItem.callSite`).
  public let item: CancelBagItem

  /// Why its bag cancelled it.
  public let reason: CancellationReason

  /// Seconds from the cancel to the moment the work was found still running: at least
  /// ``AutoCancel/CancelBag/overdueWorkThreshold``, and up to half a second more.
  public let secondsSinceCancel: Double

  /// A report of `item`, cancelled for `reason`, still running `secondsSinceCancel` later.
  init(item: CancelBagItem, reason: CancellationReason, secondsSinceCancel: Double) {
    self.item = item
    self.reason = reason
    self.secondsSinceCancel = secondsSinceCancel
  }

  /// `AutoCancel: #4 sync (Task<(), Error>) still runs 10.2 s after it was cancelled (owner
  /// gone)`.
  public var description: String {
    let tenths = Int((secondsSinceCancel * 10).rounded())
    return
      "AutoCancel: \(item) still runs \(tenths / 10).\(tenths % 10) s after it was cancelled "
      + "(\(reason))"
  }
}

import Dispatch

/// Work that can tell, after its bag cancelled it, whether it has stopped: the way to ask a
/// bag task or a `Task` bound with `add`. (``FinishReporting`` work is asked `isFinished`.)
protocol StopReporting: AnyObject {
  /// Whether the work has stopped: true once, true for good.
  var hasStopped: Bool { get }
}

/// Work that a bag cancelled and that can tell whether it stopped, as the bag hands it to an
/// instrument that watches for work running on after its cancel
/// (`BagInstrument.cancelled(_:in:)`).
package struct CancelledWork: Sendable {
  /// Weak: work that nothing else keeps (a task that returned, an operation its queue let go)
  /// has stopped.
  private weak var work: StoredWork?
  private let sequence: UInt64
  private let details: ItemDetails?
  /// Why the bag cancelled it.
  package let reason: CancellationReason
  /// When, in `DispatchTime.now().uptimeNanoseconds`.
  package let cancelledAt: UInt64

  /// Whether the work has stopped: it is gone, or says so. Asks ``FinishReporting`` work its
  /// `isFinished`, the user's code: call it outside every lock.
  package var hasStopped: Bool {
    guard let work else { return true }
    if let work = work as? any StopReporting { return work.hasStopped }
    if let work = work as? any FinishReporting { return work.isFinished }
    return true
  }

  /// The work as a snapshot shows it, aged at `now`; nil once it is gone.
  package func item(now: UInt64) -> ItemSnapshot? {
    work.map { ItemSnapshot(work: $0, sequence: sequence, details: details, now: now) }
  }

  /// The watchable work of one cancel, collected while cancelling and handed to the bag's
  /// instrument after every lock.
  ///
  /// Asks the instrument whether it watches only when a cancel meets work flagged
  /// ``ItemFlags/watched``, once per cancel: plain work costs nothing, and nothing is cast; a
  /// bag without an instrument collects nothing.
  struct Batch {
    private let attached: AttachedInstrument?
    /// Whether the instrument watches: nil until watched work comes.
    private var isOn: Bool?
    private var now: UInt64 = 0
    private var entries: [CancelledWork] = []

    init(_ attached: AttachedInstrument?) {
      self.attached = attached
    }

    /// Watches `work`, cancelled for `reason`, if its `flags` say that it can tell that it
    /// stopped and the bag's instrument watches.
    mutating func add(
      _ work: StoredWork, flags: ItemFlags, sequence: UInt64, details: ItemDetails?,
      reason: CancellationReason
    ) {
      guard flags.contains(.watched), let attached else { return }
      if isOn == nil { isOn = attached.instrument.watchesCancelledWork }
      guard isOn == true else { return }
      if now == 0 { now = DispatchTime.now().uptimeNanoseconds }
      entries.append(
        CancelledWork(
          work: work, sequence: sequence, details: details, reason: reason, cancelledAt: now))
    }

    /// Hands what was collected to the instrument. After every lock.
    consuming func start() {
      guard let attached, !entries.isEmpty else { return }
      attached.instrument.cancelled(entries, in: attached.bag)
    }
  }
}

import Dispatch

/// Work that can tell, after its bag cancelled it, whether it has stopped: the watch's way to
/// ask a bag task or a `Task` bound with `add`. (``FinishReporting`` work is asked
/// `isFinished`.)
protocol StopReporting: AnyObject {
  /// Whether the work has stopped: true once, true for good.
  var hasStopped: Bool { get }
}

/// The watchdog of work that keeps running after its bag cancelled it
/// (``CancelBag/overdueWorkHandler``).
///
/// A bag hands it the watchable work of each cancel, after its lock (`Batch`); the library's
/// reaper visits it twice a second while it watches anything, asks each piece of work outside
/// any lock whether it stopped, and reports what is still running past the threshold, once.
enum OverdueWatch {
  struct Settings: Sendable {
    var threshold: Double = 10
    var handler: (@Sendable (OverdueWork) -> Void)?
  }

  static let settings = Locked(Settings())

  /// Cancelled work being watched.
  struct Entry: Sendable {
    /// Weak: work that nothing else keeps (a task that returned, an operation its queue let
    /// go) has stopped.
    weak var work: StoredWork?
    var sequence: UInt64
    var details: ItemDetails?
    var reason: CancellationReason
    var cancelledAt: UInt64
  }

  struct State: Sendable {
    var entries: [Entry] = []
    /// The reaper visits: from the first entry until a visit leaves none.
    var isVisited = false
  }

  private static let state = Locked(State())

  /// The watchable work of one cancel, collected while cancelling and handed over after.
  ///
  /// Reads the setting only when a cancel meets work flagged ``ItemFlags/watched``, once per
  /// cancel: plain work costs nothing, and nothing is cast.
  struct Batch {
    /// Whether the handler is set: nil until watched work comes.
    private var isOn: Bool?
    private var now: UInt64 = 0
    private var entries: [Entry] = []

    init() {}

    /// Watches `work`, cancelled for `reason`, if its `flags` say that it can tell that it
    /// stopped and a handler is set.
    mutating func add(
      _ work: StoredWork, flags: ItemFlags, sequence: UInt64, details: ItemDetails?,
      reason: CancellationReason
    ) {
      guard flags.contains(.watched) else { return }
      if isOn == nil { isOn = OverdueWatch.settings.withLock { $0.handler != nil } }
      guard isOn == true else { return }
      if now == 0 { now = DispatchTime.now().uptimeNanoseconds }
      entries.append(
        Entry(
          work: work, sequence: sequence, details: details, reason: reason, cancelledAt: now))
    }

    /// Starts watching what was collected. After every lock.
    consuming func start() {
      guard !entries.isEmpty else { return }
      OverdueWatch.watch(entries)
    }
  }

  private static func watch(_ new: [Entry]) {
    let joins = state.withLock { state -> Bool in
      state.entries.append(contentsOf: new)
      defer { state.isVisited = true }
      return !state.isVisited
    }
    if joins { Reaper.shared.visit { OverdueWatch.visit() } }
  }

  /// The reaper's visit: drops what stopped, reports what is overdue, keeps the rest. Returns
  /// whether anything is left to watch.
  static func visit() -> Bool {
    let taken = state.withLock { state -> [Entry] in
      defer { state.entries = [] }
      return state.entries
    }
    let (threshold, handler) = settings.withLock { ($0.threshold, $0.handler) }
    let now = DispatchTime.now().uptimeNanoseconds
    var kept: [Entry] = []
    var overdue: [OverdueWork] = []
    for entry in taken {
      // Asked outside any lock: `isFinished` is the user's code.
      guard let work = entry.work, !hasStopped(work) else { continue }
      let seconds = Double(now &- entry.cancelledAt) / 1_000_000_000
      guard seconds >= threshold else {
        kept.append(entry)
        continue
      }
      let item = CancelBagItem(
        work: work, sequence: entry.sequence, details: entry.details, now: now)
      overdue.append(OverdueWork(item: item, reason: entry.reason, secondsSinceCancel: seconds))
    }
    if let handler {
      for report in overdue { handler(report) }
    }
    return state.withLock { state in
      // Entries added during the visit are already there.
      state.entries.append(contentsOf: kept)
      state.isVisited = !state.entries.isEmpty
      return state.isVisited
    }
  }

  private static func hasStopped(_ work: StoredWork) -> Bool {
    if let work = work as? any StopReporting { return work.hasStopped }
    if let work = work as? any FinishReporting { return work.isFinished }
    return true
  }
}

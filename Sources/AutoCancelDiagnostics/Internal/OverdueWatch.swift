import AutoCancel
import Dispatch

/// The watchdog of work that keeps running after its bag cancelled it
/// (``AutoCancel/CancelBag/overdueWorkHandler``).
///
/// A bag hands the diagnostics' instrument the watchable work of each cancel, after its lock;
/// the library's reaper visits the watch twice a second while it watches anything, asks each
/// piece of work outside any lock whether it stopped, and reports what is still running past
/// the threshold, once.
enum OverdueWatch {
  struct Settings: Sendable {
    var threshold: Double = 10
    var handler: (@Sendable (OverdueWork) -> Void)?
  }

  /// Process-wide, as the handler it holds: set once at launch for every bag.
  static let settings = Locked(Settings())

  struct State: Sendable {
    var watched: [CancelledWork] = []
    /// The reaper visits: from the first entry until a visit leaves none.
    var isVisited = false
  }

  /// Process-wide, so that one reaper visit serves the work of every bag.
  private static let state = Locked(State())

  /// Whether a handler is set: whether bags hand over what they cancel.
  static var isOn: Bool { settings.withLock { $0.handler != nil } }

  static func watch(_ new: [CancelledWork]) {
    let joins = state.withLock { state -> Bool in
      state.watched.append(contentsOf: new)
      defer { state.isVisited = true }
      return !state.isVisited
    }
    if joins { Reaper.shared.visit { OverdueWatch.visit() } }
  }

  /// The reaper's visit: drops what stopped, reports what is overdue, keeps the rest. Returns
  /// whether anything is left to watch.
  static func visit() -> Bool {
    let taken = state.withLock { state -> [CancelledWork] in
      defer { state.watched = [] }
      return state.watched
    }
    let (threshold, handler) = settings.withLock { ($0.threshold, $0.handler) }
    let now = DispatchTime.now().uptimeNanoseconds
    var kept: [CancelledWork] = []
    var overdue: [OverdueWork] = []
    for work in taken where !work.hasStopped {
      // `hasStopped` is asked outside any lock: `isFinished` is the user's code.
      let seconds = Double(now &- work.cancelledAt) / 1_000_000_000
      guard seconds >= threshold else {
        kept.append(work)
        continue
      }
      guard let item = work.item(now: now) else { continue }
      overdue.append(
        OverdueWork(item: CancelBagItem(item), reason: work.reason, secondsSinceCancel: seconds))
    }
    if let handler {
      for report in overdue { handler(report) }
    }
    return state.withLock { state in
      // Work handed over during the visit is already there.
      state.watched.append(contentsOf: kept)
      state.isVisited = !state.watched.isEmpty
      return state.isVisited
    }
  }
}

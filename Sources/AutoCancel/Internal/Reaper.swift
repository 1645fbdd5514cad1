import Dispatch

/// Runs, twice a second, the sweeps that something has asked for, for as long as each says it
/// is still needed: so that finished work leaves its bag without waiting for a later add.
///
/// One per process, and idle unless something is to be swept: a bag joins on its first
/// finish-reporting add and leaves once a sweep finds none left (`BagCore.reap()`), and
/// `AutoCancelNetworking` sweeps its twin sessions the same way. Sweeps run on the reaper's
/// own serial queue, never under a lock. Process-wide because one timer serves every bag:
/// a timer per bag would cost each bag that holds such work a thread wake-up of its own.
package final class Reaper: Sendable {
  package static let shared = Reaper(interval: DispatchTimeInterval.milliseconds(500))

  private struct State: Sendable {
    /// The sweeps to run; each returns whether it is needed again.
    var sweeps: [@Sendable () -> Bool] = []
    /// A visit is due: set with the first sweep, cleared when a visit leaves none.
    var isScheduled = false
  }

  private let state = Locked(State())
  private let interval: DispatchTimeInterval
  private let queue = DispatchQueue(label: "AutoCancel.Reaper", qos: .utility)

  init(interval: DispatchTimeInterval) {
    self.interval = interval
  }

  /// Runs `sweep` at the next visit, and at every visit after that until it returns false.
  package func visit(_ sweep: @escaping @Sendable () -> Bool) {
    let schedule = state.withLock { state -> Bool in
      state.sweeps.append(sweep)
      defer { state.isScheduled = true }
      return !state.isScheduled
    }
    if schedule { scheduleVisit() }
  }

  private func scheduleVisit() {
    queue.asyncAfter(deadline: .now() + interval) { self.visitAll() }
  }

  /// Runs every sweep taken; the ones still needed stay for the next visit.
  private func visitAll() {
    let sweeps = state.withLock { state -> [@Sendable () -> Bool] in
      defer { state.sweeps = [] }
      return state.sweeps
    }
    let kept = sweeps.filter { $0() }
    let reschedule = state.withLock { state -> Bool in
      // Sweeps that joined during the visit are already here.
      state.sweeps.append(contentsOf: kept)
      state.isScheduled = !state.sweeps.isEmpty
      return state.isScheduled
    }
    if reschedule { scheduleVisit() }
  }
}

import Dispatch

/// Visits, twice a second, the bags that hold finish-reporting work, and drops the work that
/// finished: so that a burst of work that all finishes leaves its bag without waiting for a
/// later add.
///
/// One per process, and idle unless some bag holds such work: a bag joins on its first
/// finish-reporting add and leaves once a visit finds none left. The reaper holds bags
/// weakly, and asks `isFinished` on its own serial queue, never under a lock.
final class Reaper: Sendable {
  static let shared = Reaper(interval: DispatchTimeInterval.milliseconds(500))

  private struct State: Sendable {
    var bags: [Locked<BagState>.WeakReference] = []
    /// A visit is due: set with the first bag, cleared when a visit leaves no bag.
    var isScheduled = false
  }

  private let state = Locked(State())
  private let interval: DispatchTimeInterval
  private let queue = DispatchQueue(label: "AutoCancel.Reaper", qos: .utility)

  init(interval: DispatchTimeInterval) {
    self.interval = interval
  }

  /// Adds `core` to the bags to visit. Called once per stay, when the bag's state says it
  /// joins (`BagState.joinsReaper()`).
  func visit(_ core: BagCore) {
    let schedule = state.withLock { state -> Bool in
      state.bags.append(core.weakReference)
      defer { state.isScheduled = true }
      return !state.isScheduled
    }
    if schedule { scheduleVisit() }
  }

  private func scheduleVisit() {
    queue.asyncAfter(deadline: .now() + interval) { self.visitAll() }
  }

  /// Sweeps every bag taken; the ones with finish-reporting work left stay for the next visit.
  private func visitAll() {
    let bags = state.withLock { state -> [Locked<BagState>.WeakReference] in
      defer { state.bags = [] }
      return state.bags
    }
    let kept = bags.filter { bag in bag.locked.map { BagCore($0).reap() } ?? false }
    let reschedule = state.withLock { state -> Bool in
      // Bags that joined during the visit are already here.
      state.bags.append(contentsOf: kept)
      state.isScheduled = !state.bags.isEmpty
      return state.isScheduled
    }
    if reschedule { scheduleVisit() }
  }
}

import AutoCancel

/// Untyped requests held weakly, and purged in amortized O(1) once they are gone.
///
/// Each request goes into the holder's bag as a closure that cancels it, if it is still alive
/// and can be cancelled, when the bag cancels. A request that is gone (released by its network
/// layer when it finished) has its registration finished by the next sweep. A sweep runs when
/// the number of boxes reaches twice what the last sweep kept (at least
/// ``minimumSweepThreshold``), never on every add: each sweep examines at most twice the adds
/// since the previous one, and the bag holds fewer than `max(16, 2 × live)` untyped requests.
final class WeaklyHeldRequests: Sendable {
  private let state = Locked(State())

  /// The fewest boxes a sweep waits for.
  static let minimumSweepThreshold = 16

  private struct Entry: Sendable {
    let request: WeakRequest
    let registration: CancelRegistration
  }

  private struct State: Sendable {
    var entries: [Entry] = []
    var sweepThreshold = WeaklyHeldRequests.minimumSweepThreshold
    /// Boxes examined by every sweep so far: the cost that must stay linear in the adds.
    var examined = 0
  }

  /// Binds `request` to `bag`, weakly; sweeps the boxes of gone requests when they have doubled.
  func add(_ request: AnyObject, to bag: CancelBag, canceller: some UntypedCanceller) {
    let box = WeakRequest(request)
    let registration = bag.add { _ in box.cancel(using: canceller) }
    let gone: [CancelRegistration] = state.withLock { state in
      state.entries.append(Entry(request: box, registration: registration))
      guard state.entries.count >= state.sweepThreshold else { return [] }
      state.examined += state.entries.count
      var gone: [CancelRegistration] = []
      state.entries.removeAll { entry in
        guard entry.request.isGone else { return false }
        gone.append(entry.registration)
        return true
      }
      state.sweepThreshold = max(Self.minimumSweepThreshold, 2 * state.entries.count)
      return gone
    }
    // Finishing takes the bag's lock: after ours is released.
    for registration in gone { registration.finish() }
  }

  /// The boxes held now, gone or not.
  var count: Int { state.withLock { $0.entries.count } }

  /// Boxes examined by every sweep so far.
  var examined: Int { state.withLock { $0.examined } }
}

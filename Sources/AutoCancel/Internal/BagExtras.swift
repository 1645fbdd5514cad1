/// The parts of a bag's state that most bags never use: links, keys, item details,
/// observers, memberships and the deadline's timer.
///
/// Once the bag ended, only the keys of tasks still returning stay (see `BagState.end`).
///
/// Kept apart, and allocated on first use, so that a bag holding plain work (the common
/// screen) creates, guards and destroys a small state: an empty bag with all of these inline
/// cost about four times as many instructions to create and release (callgrind, release).
final class BagExtras: @unchecked Sendable {
  // Safety: reachable only from the `BagState` that holds it, so only under that bag's lock;
  // once taken out of the state (when the bag ends), only the thread that took it reads it.

  /// Links to children and linked bags, by sequence.
  var links: [UInt64: StoredWork] = [:]
  /// The work under each key, and who follows it.
  var keys: [BagKey: KeyEntry] = [:]
  var details: [UInt64: ItemDetails] = [:]
  var observers: [Observer] = []
  var nextObserverID = 0
  /// The bag's own registrations in its parents and link sources, finished when it ends.
  var memberships: [CancelRegistration] = []
  /// The timer of the bag's deadline, if it has one.
  var deadlineTimer: StoredWork?
  /// What taking the members of the keys out decided when the bag ended, to do after its lock:
  /// set only in the extras that the ending takes out.
  var keyEffectsOfEnd: KeyEffects?
  /// What became of the bag's work, for its instrument: set only in the extras that the ending
  /// takes out.
  var tallyOfEnd: WorkTally?
  /// The process-wide instrument, attached when the bag was made, and the bag as it knows it:
  /// it hears the bag's end and the bytes its items moved.
  var instrument: AttachedInstrument?

  /// The observers to tell of an event, or nil (no array to retain) when there are none.
  var observersToNotify: [Observer]? { observers.isEmpty ? nil : observers }
}

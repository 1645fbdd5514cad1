/// What hears of bags beyond their owners: installed for the whole process, or given to one
/// bag in tests.
///
/// Installed with `ProcessSwitches.install(_:)` at launch (the signposts and diagnostics
/// modules each install one), it is attached to every bag made from then on. The core calls
/// it at a few summary points (a bag made, ended with what became of its work, released; work
/// cancelled that can tell whether it stopped) and, only if it ``hearsWork``,
/// for every registration, on the path of `CancelBag.observe(_:)`: synchronously, on the
/// thread that caused the event, never under the bag's lock. Bags made while none is
/// installed carry nothing of it.
///
/// A class: its existential is one reference, which a bag made without an instrument reads
/// as one nil pointer.
package protocol BagInstrument: AnyObject, Sendable {
  /// Whether it hears every registration (``workEvent(_:in:)``, ``transferred(item:in:sent:received:)``):
  /// read once per bag. An instrument that does not keeps the bag's adds on the short path.
  var hearsWork: Bool { get }

  /// `bag` was made. Called by its initializer, on its thread.
  func bagMade(_ bag: InstrumentedBag)

  /// Something happened to an item of `bag`: registered, or ended (finished, failed,
  /// cancelled). Events of one item that race on different threads may arrive in either
  /// order.
  func workEvent(_ event: ItemEvent, in bag: InstrumentedBag)

  /// `bag` ended for `reason`, cancelling `cancelled` items (links to other bags excepted),
  /// after their own events.
  func bagEnded(_ bag: InstrumentedBag, reason: CancellationReason, cancelled: Int)

  /// What became of the work of `bag`: once when it ended (after ``bagEnded(_:reason:cancelled:)``),
  /// if it registered any, and once more for each item added after its end. Not called for a
  /// bag that registered nothing.
  func workCounted(_ tally: WorkTally, in bag: InstrumentedBag)

  /// Whether it watches cancelled work that can tell whether it stopped: asked once for each
  /// cancel that meets such work, so an instrument may answer by a setting of its own.
  var watchesCancelledWork: Bool { get }

  /// `work`, cancelled by `bag`, can tell whether it stopped: called after the bag's lock, on
  /// the thread that cancelled it, only if ``watchesCancelledWork`` said so.
  func cancelled(_ work: [CancelledWork], in bag: InstrumentedBag)

  /// The item `sequence` of `bag`, still in flight, moved `sent` and `received` bytes so far:
  /// for the end of its interval.
  func transferred(item sequence: UInt64, in bag: InstrumentedBag, sent: Int64, received: Int64)

  /// `bag` was released, after its end. Called by its `deinit`, on its thread.
  func bagReleased(_ bag: InstrumentedBag)
}

extension BagInstrument {
  package var hearsWork: Bool { false }
  package func bagMade(_ bag: InstrumentedBag) {}
  package func workEvent(_ event: ItemEvent, in bag: InstrumentedBag) {}
  package func bagEnded(_ bag: InstrumentedBag, reason: CancellationReason, cancelled: Int) {}
  package func workCounted(_ tally: WorkTally, in bag: InstrumentedBag) {}
  package var watchesCancelledWork: Bool { false }
  package func cancelled(_ work: [CancelledWork], in bag: InstrumentedBag) {}
  package func transferred(
    item sequence: UInt64, in bag: InstrumentedBag, sent: Int64, received: Int64
  ) {}
  package func bagReleased(_ bag: InstrumentedBag) {}
}

/// The instruments installed in the process, heard as one, in the order of their install: what
/// a bag made while any is installed attaches.
final class InstrumentSet: BagInstrument {
  let members: [any BagInstrument]
  let hearsWork: Bool
  /// The members that hear every registration.
  private let workHearers: [any BagInstrument]

  init(_ members: [any BagInstrument]) {
    self.members = members
    workHearers = members.filter(\.hearsWork)
    hearsWork = !workHearers.isEmpty
  }

  func bagMade(_ bag: InstrumentedBag) {
    for member in members { member.bagMade(bag) }
  }

  func workEvent(_ event: ItemEvent, in bag: InstrumentedBag) {
    for member in workHearers { member.workEvent(event, in: bag) }
  }

  func bagEnded(_ bag: InstrumentedBag, reason: CancellationReason, cancelled: Int) {
    for member in members { member.bagEnded(bag, reason: reason, cancelled: cancelled) }
  }

  func workCounted(_ tally: WorkTally, in bag: InstrumentedBag) {
    for member in members { member.workCounted(tally, in: bag) }
  }

  var watchesCancelledWork: Bool { members.contains { $0.watchesCancelledWork } }

  func cancelled(_ work: [CancelledWork], in bag: InstrumentedBag) {
    for member in members where member.watchesCancelledWork { member.cancelled(work, in: bag) }
  }

  func transferred(item sequence: UInt64, in bag: InstrumentedBag, sent: Int64, received: Int64) {
    for member in workHearers {
      member.transferred(item: sequence, in: bag, sent: sent, received: received)
    }
  }

  func bagReleased(_ bag: InstrumentedBag) {
    for member in members { member.bagReleased(bag) }
  }
}

/// The bag an instrument hears of: its identity and label.
package struct InstrumentedBag: Sendable, Hashable {
  /// Equal for the events of one bag, while it lives.
  package let identity: ObjectIdentifier
  /// The bag's label, if it has one.
  package let label: String?

  package init(identity: ObjectIdentifier, label: String?) {
    self.identity = identity
    self.label = label
  }
}

/// An instrument attached to one bag.
struct AttachedInstrument: Sendable {
  var instrument: any BagInstrument
  var bag: InstrumentedBag
}

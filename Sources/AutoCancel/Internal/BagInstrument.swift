/// A process-wide tracer of bags: hears every registration from its add to its end, and each
/// bag's end with how many items it cancelled.
///
/// Installed with `ProcessSwitches.install(_:)` at launch (the signposts module installs one),
/// it is attached to each new bag as an observer, so it hears the events of
/// ``CancelBag/observe(_:)`` on the same path: synchronously, on the thread that caused them,
/// never under the bag's lock. Bags made while none is installed carry nothing of it.
///
/// A class: its existential is one reference, which a bag made without an instrument reads
/// as one nil pointer.
package protocol BagInstrument: AnyObject, Sendable {
  /// Something happened to an item of `bag`: registered, or ended (finished, failed,
  /// cancelled). Events of one item that race on different threads may arrive in either
  /// order.
  func workEvent(_ event: CancelBagEvent, in bag: InstrumentedBag)

  /// `bag` ended for `reason`, cancelling `cancelled` items (links to other bags excepted),
  /// after their own events.
  func bagEnded(_ bag: InstrumentedBag, reason: CancellationReason, cancelled: Int)

  /// The item `sequence` of `bag`, still in flight, moved `sent` and `received` bytes so far:
  /// for the end of its interval.
  func transferred(item sequence: UInt64, in bag: InstrumentedBag, sent: Int64, received: Int64)
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

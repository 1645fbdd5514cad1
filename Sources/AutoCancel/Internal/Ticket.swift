/// Where a registration lives in its bag: a slot, and the sequence number it was given.
///
/// Sequence numbers are never reused, so a stale ticket (finished twice, or kept after its
/// slot was reused) never matches a later registration.
///
/// Usable from inline code: a `CancelRegistration` stores one, and its inlinable
/// `finish()` passes it to the core.
@usableFromInline
struct Ticket: Hashable, Sendable {
  var index: UInt32
  var sequence: UInt64

  /// The ticket of work that was never registered (added to a bag that had ended).
  static let inactive = Ticket(index: 0, sequence: 0)

  /// The index of every link's ticket: links live beside the slot table, not in it, so that
  /// a drained table can be given back while links stay.
  static let linkIndex = UInt32.max
}

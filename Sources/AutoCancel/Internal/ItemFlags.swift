/// What a slot remembers about its work beyond the work itself.
///
/// Usable from inline code, with its raw value and initializer: `addTicket(_:flags:details:)`
/// takes flags with a default value, `[]`, which the inlinable `CancelBag.add` evaluates.
@usableFromInline
struct ItemFlags: OptionSet, Sendable {
  /// One bit per flag.
  @usableFromInline var rawValue: UInt64

  /// The flags of `rawValue`'s bits.
  @usableFromInline
  init(rawValue: UInt64) { self.rawValue = rawValue }

  /// Registered under a key: its removal must clear the key, if the key still names it.
  static let keyed = ItemFlags(rawValue: 1 << 0)
  /// Has an entry in `details` (a label, a key, the time it was added).
  static let detailed = ItemFlags(rawValue: 1 << 1)
  /// A link to a child or linked bag: not work in flight, survives `cancelAll`.
  static let link = ItemFlags(rawValue: 1 << 2)
  /// Can tell that it stopped (a bag task, a bound `Task`, ``FinishReporting`` work): watched
  /// once cancelled, while the overdue-work handler is set. Only its cancels read the setting.
  static let watched = ItemFlags(rawValue: 1 << 3)
  static let bitCount: UInt64 = 4
}

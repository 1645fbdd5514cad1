import Dispatch

/// A key given by a user: a `Hashable & Sendable` value, hashed through `AnyHashable`.
struct BagKey: Hashable, @unchecked Sendable {
  // Safety: made only from `Hashable & Sendable` values; `AnyHashable` is a box around it.
  let base: AnyHashable

  init(_ value: some Hashable & Sendable) {
    base = AnyHashable(value)
  }

  /// The user's value, as given.
  var value: any Hashable & Sendable {
    // The box holds exactly the value given to `init`, which was `Hashable & Sendable`.
    base.base as! any Hashable & Sendable
  }
}

/// Label, key, age and timeout of an item that asked for them.
///
/// A class, so that the hot path (work without any of these) carries one nil pointer.
///
/// Usable from inline code, with `makeDetailed(label:key:)`, for the inlinable
/// `make(label:key:)`.
@usableFromInline
final class ItemDetails: @unchecked Sendable {
  // Safety: `timer` changes only under the bag's lock while the item is in the table; once
  // the item is taken out, only the thread that took it reads it.
  let label: String?
  let key: BagKey?
  let addedAt: UInt64
  /// The timer of the item's timeout, stopped when the item ends.
  var timer: StoredWork?

  init(label: String?, key: BagKey?, addedAt: UInt64) {
    self.label = label
    self.key = key
    self.addedAt = addedAt
  }

  /// Details for work added with a label or a key; nil (and no clock read) for the rest.
  @inlinable
  static func make(label: String?, key: (any Hashable & Sendable)?) -> ItemDetails? {
    // Inlined, so that a call without label or key costs a constant nil.
    guard label != nil || key != nil else { return nil }
    return makeDetailed(label: label, key: key)
  }

  /// Details for work added with a label or a key, stamped with the time it was added.
  @usableFromInline
  static func makeDetailed(label: String?, key: (any Hashable & Sendable)?) -> ItemDetails {
    ItemDetails(
      label: label, key: key.map { BagKey($0) }, addedAt: DispatchTime.now().uptimeNanoseconds)
  }
}

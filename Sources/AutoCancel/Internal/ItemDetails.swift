import Dispatch

/// A key given by a user: a `Hashable & Sendable` value, compared through `AnyHashable`.
///
/// Its hash is computed once, when the key is given: an `AnyHashable` hashes through its box
/// on every lookup, and a keyed launch looks its key up a few times.
struct BagKey: Hashable, @unchecked Sendable {
  // Safety: made only from `Hashable & Sendable` values; `AnyHashable` is a box around it.
  let base: AnyHashable
  private let hash: Int

  init(_ value: some Hashable & Sendable) {
    base = AnyHashable(value)
    hash = base.hashValue
  }

  static func == (lhs: BagKey, rhs: BagKey) -> Bool {
    lhs.hash == rhs.hash && lhs.base == rhs.base
  }

  func hash(into hasher: inout Hasher) {
    hasher.combine(hash)
  }

  /// The user's value, as given.
  var value: any Hashable & Sendable {
    // The box holds exactly the value given to `init`, which was `Hashable & Sendable`.
    base.base as! any Hashable & Sendable
  }
}

/// How keyed work holds its key (see `KeyEntry`).
enum KeyHold {
  /// Added work: holds its key while it is registered.
  case work
  /// A launched task: holds its key once its turn lets it through, until it returns.
  case task(KeyTurn)
}

/// Label, key, age and timeout of an item that asked for them, and, for keyed work, its policy
/// and how it holds its key.
///
/// A class, so that the hot path (work without any of these) carries one nil pointer.
///
/// Usable from inline code, with `makeDetailed(label:key:)` and `make(label:key:policy:)`, for
/// the inlinable `make(label:key:)` and `CancelBag.add`.
@usableFromInline
final class ItemDetails: @unchecked Sendable {
  // Safety: `timer` and `keyEffects` change only under the bag's lock while the item is in the
  // table (`keyEffects` as the item is taken out of it); once the item is taken out, only the
  // thread that took it reads them. The rest never changes.
  let label: String?
  let key: BagKey?
  /// When the work was added, for work added with a label or a key; nil for details made for
  /// a call site alone, which read no clock.
  let addedAt: UInt64?
  /// Where the work was added, while the bag keeps call sites.
  let callSite: ItemCallSite?
  /// What the work does when its key already runs.
  let policy: KeyPolicy
  /// How the work holds its key, if it has one.
  let hold: KeyHold
  /// The timer of the item's timeout, stopped when the item ends.
  var timer: StoredWork?
  /// What taking the item out of the table decided about its key, to do after the lock.
  var keyEffects: KeyEffects?

  init(
    label: String?, key: BagKey?, addedAt: UInt64?, callSite: ItemCallSite? = nil,
    policy: KeyPolicy = .replace, hold: KeyHold = .work
  ) {
    self.label = label
    self.key = key
    self.addedAt = addedAt
    self.callSite = callSite
    self.policy = policy
    self.hold = hold
  }

  /// The item left the table: stops its timer, and does what its leaving decided about its key.
  /// After the lock.
  func itemEnded() {
    timer?.cancel()
    keyEffects?.perform()
  }

  /// Details for work added with a label, a key or a call site to keep; nil (and no clock
  /// read) for the rest.
  @inlinable @inline(__always)
  static func make(
    label: String?, key: (any Hashable & Sendable)?, file: StaticString, line: UInt,
    keepsCallSite: Bool
  ) -> ItemDetails? {
    // Inlined, so that a call without label or key, on a bag that keeps no call sites, costs a
    // constant nil. The key is not handed on when it is nil: an existential nil made to be
    // handed on cost every add a value-witness destroy (callgrind, release).
    guard label != nil || key != nil else {
      return keepsCallSite ? makeSited(ItemCallSite(fileID: file, line: line)) : nil
    }
    return makeDetailed(
      label: label, key: key,
      callSite: keepsCallSite ? ItemCallSite(fileID: file, line: line) : nil)
  }

  /// Details for plain work that keeps its call site alone: no clock read.
  @usableFromInline
  static func makeSited(_ callSite: ItemCallSite) -> ItemDetails {
    ItemDetails(label: nil, key: nil, addedAt: nil, callSite: callSite)
  }

  /// Details for work added with a label, a key or a call site: stamped with the time it was
  /// added when it has a label or a key.
  @usableFromInline
  static func makeDetailed(
    label: String?, key: (any Hashable & Sendable)?, callSite: ItemCallSite?
  ) -> ItemDetails {
    let isNamed = label != nil || key != nil
    return ItemDetails(
      label: label, key: key.map { BagKey($0) },
      addedAt: isNamed ? DispatchTime.now().uptimeNanoseconds : nil, callSite: callSite)
  }

  /// Details for work that already runs, added under `key` with `policy` (never
  /// ``KeyPolicy/enqueue``: ``AddPolicy`` has none).
  @usableFromInline
  static func make(
    label: String?, key: any Hashable & Sendable, policy: KeyPolicy, callSite: ItemCallSite?
  ) -> ItemDetails {
    ItemDetails(
      label: label, key: BagKey(key), addedAt: DispatchTime.now().uptimeNanoseconds,
      callSite: callSite, policy: policy)
  }
}

import AutoCancel

/// A description of one piece of work in a bag: what a snapshot lists and an event names.
///
/// Answers "what is this screen still waiting for?":
///
/// ```swift
/// for item in cancelBag.snapshot() {
///   print(item)  // "#12 feed (URLSessionDataTask) added at FeedModel.swift:42, 1.204 s"
/// }
/// ```
///
/// Every item has an ``id`` and a ``workType``. Work added with a label or a key also has its
/// ``label``, ``key`` and ``age``; work added without one has none, which keeps the hot path
/// free of clock reads. While its bag keeps call sites (`AUTOCANCEL_CALL_SITES=1`), an item
/// also says where it was added: ``callSite``.
public struct CancelBagItem: Sendable, CustomStringConvertible {
  let snapshot: ItemSnapshot

  /// A number unique within the bag, increasing in the order work was added.
  public var id: UInt64 { snapshot.id }

  /// The label given to `CancelBag.add(_:key:label:file:line:)` or to a launcher, if any.
  public var label: String? { snapshot.label }

  /// The key the work was added under, if any.
  public var key: (any Hashable & Sendable)? { snapshot.key }

  /// The type of the work, such as `URLSessionDataTask` or `Task<Data, Error>`.
  public var workType: String { snapshot.workType }

  /// Where the work was added (`#fileID:#line` of the call), if its bag keeps call sites
  /// (see ``CallSite``).
  public var callSite: CallSite? { snapshot.callSite.map(CallSite.init) }

  /// Seconds since the work was added, when it was added with a label or a key: at the
  /// moment of the snapshot, or of the event.
  public var age: Double? { snapshot.age }

  init(_ snapshot: ItemSnapshot) {
    self.snapshot = snapshot
  }

  /// `#id label (type) key K added at File.swift:line, age`, such as
  /// `#12 feed (URLSessionDataTask) added at FeedModel.swift:42, 1.204 s`; the parts the item
  /// does not have are left out.
  public var description: String { snapshot.description }
}

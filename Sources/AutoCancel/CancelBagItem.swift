import Dispatch

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
  /// A number unique within the bag, increasing in the order work was added.
  public let id: UInt64

  /// The label given to ``CancelBag/add(_:key:label:file:line:)-(Work,_,_,_,_)`` or to a launcher, if any.
  public let label: String?

  /// The key the work was added under, if any.
  public let key: (any Hashable & Sendable)?

  /// The type of the work, such as `URLSessionDataTask` or `Task<Data, Error>`.
  public let workType: String

  /// Where the work was added (`#fileID:#line` of the call), if its bag keeps call sites
  /// (see ``CallSite``).
  public let callSite: CallSite?

  /// Seconds since the work was added, when it was added with a label or a key: at the
  /// moment of the snapshot, or of the event.
  public let age: Double?

  init(work: StoredWork, sequence: UInt64, details: ItemDetails?, now: UInt64?) {
    self.id = sequence
    self.label = details?.label
    self.key = details?.key?.value
    self.workType =
      (work as? any WrappingWork)?.wrappedTypeName ?? String(describing: type(of: work))
    self.callSite = details?.callSite
    if let addedAt = details?.addedAt, let now, now >= addedAt {
      self.age = Double(now - addedAt) / 1_000_000_000
    } else {
      self.age = nil
    }
  }

  /// `#id label (type) key K added at File.swift:line, age`, such as
  /// `#12 feed (URLSessionDataTask) added at FeedModel.swift:42, 1.204 s`; the parts the item
  /// does not have are left out.
  public var description: String {
    var text = "#\(id)"
    if let label { text += " \(label)" }
    text += " (\(workType))"
    if let key { text += " key \(key)" }
    if let callSite { text += " added at \(callSite)" }
    if let age {
      let milliseconds = Int((age * 1000).rounded())
      text += ", \(milliseconds / 1000).\(String(milliseconds % 1000 + 1000).dropFirst()) s"
    }
    return text
  }
}

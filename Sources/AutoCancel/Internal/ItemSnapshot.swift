import Dispatch

/// A piece of work in a bag, as a snapshot or an event shows it: its number, label, key,
/// type, call site and age. Diagnostics show it as a `CancelBagItem`.
package struct ItemSnapshot: Sendable, CustomStringConvertible {
  package let id: UInt64

  package let label: String?

  package let key: (any Hashable & Sendable)?

  package let workType: String

  package let callSite: ItemCallSite?

  package let age: Double?

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

  package var description: String {
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

/// An observer of a bag's events, installed with `CancelBag.observeItems(_:)`: cancel it to
/// stop observing. Diagnostics hand it out as a `CancelBagObservation`.
///
/// Observers also stop when the bag ends, after hearing of the work it cancelled.
package struct ItemObservation: Sendable, Hashable {
  let core: BagCore
  /// Nil for an observer of a bag that had ended, which is never called.
  let id: Int?

  /// Stops delivering events to the handler. Idempotent; any thread. An event being
  /// delivered on another thread at this moment may still arrive.
  package func cancel() {
    if let id { core.removeObserver(id: id) }
  }

  package static func == (lhs: ItemObservation, rhs: ItemObservation) -> Bool {
    lhs.core.identity == rhs.core.identity && lhs.id == rhs.id
  }

  package func hash(into hasher: inout Hasher) {
    hasher.combine(core.identity)
    hasher.combine(id)
  }
}

extension CancelBag {
  /// Calls `handler` for every piece of work registered, finished, failed or cancelled from
  /// now on: synchronously, on the thread that caused the event, never under the bag's lock.
  /// On a bag that has ended, the handler is never called.
  package func observeItems(_ handler: @escaping @Sendable (ItemEvent) -> Void) -> ItemObservation {
    ItemObservation(core: core, id: core.addObserver(handler))
  }

  /// The work in flight, oldest first.
  package func itemSnapshots() -> [ItemSnapshot] {
    madeCore?.snapshot() ?? []
  }
}

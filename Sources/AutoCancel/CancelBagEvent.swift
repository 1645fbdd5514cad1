/// Something that happened to a piece of work in a bag: registered, finished or cancelled.
///
/// Delivered to the handlers of ``CancelBag/observe(_:)``, synchronously, on the thread that
/// caused the event, never under the bag's lock.
///
/// ```swift
/// cancelBag.observe { event in
///   if case .cancelled(let reason) = event.kind {
///     logger.debug("\(event.item) cancelled: \(reason)")
///   }
/// }
/// ```
public struct CancelBagEvent: Sendable, CustomStringConvertible {
  /// What happened.
  public enum Kind: Sendable, Hashable {
    /// The work was added to the bag.
    case registered
    /// The work completed and left the bag without being cancelled.
    case finished
    /// The bag cancelled the work, for this reason.
    case cancelled(CancellationReason)
  }

  /// What happened.
  public let kind: Kind

  /// The work it happened to.
  public let item: CancelBagItem

  /// `registered #3 feed (Task<Data, Error>)`, and so on.
  public var description: String {
    switch kind {
    case .registered: "registered \(item)"
    case .finished: "finished \(item)"
    case .cancelled(let reason): "cancelled \(item): \(reason)"
    }
  }
}

import AutoCancel

/// Something that happened to a piece of work in a bag: registered, finished, failed or
/// cancelled.
///
/// Delivered to the handlers of ``AutoCancel/CancelBag/observe(_:)``, synchronously, on the thread that
/// caused the event, never under the bag's lock.
///
/// ```swift
/// cancelBag.observe { event in
///   switch event.kind {
///   case .cancelled(let reason): logger.debug("\(event.item) cancelled: \(reason)")
///   case .failed(let error): crashReporter.record(error, context: "\(event.item)")
///   case .registered, .finished: break
///   }
/// }
/// ```
///
/// Every item that was registered ends with exactly one of ``Kind/finished``,
/// ``Kind/failed(_:)`` and ``Kind/cancelled(_:)``.
public struct CancelBagEvent: Sendable, CustomStringConvertible {
  let event: ItemEvent

  /// What happened.
  ///
  /// Kinds compare as their payloads do: reasons as `CancellationReason` compares them, and
  /// errors, which are not `Equatable`, by their type and their `String(reflecting:)` text
  /// (see ``==(_:_:)``).
  public enum Kind: Sendable, Hashable {
    /// The work was added to the bag.
    case registered
    /// The work completed and left the bag without being cancelled.
    case finished
    /// The work ended by throwing `error`, which is not a cancellation, and left the bag.
    ///
    /// Sent, in place of ``finished``, for a task that the bag launched
    /// (`CancelBag.task(key:label:priority:file:line:operation:)` and its
    /// siblings) or that was bound with `CancelBag.add(_:key:label:file:line:)`, when it
    /// throws an error whose `Swift.Error.isCancellation` is false: a failure that nobody
    /// awaits still reaches the bag's observers. A task that throws `CancellationError`
    /// finishes; a task that the bag cancelled was already reported as ``cancelled(_:)``,
    /// and whatever it throws afterwards is not reported again.
    case failed(any Error)
    /// The bag cancelled the work, for this reason.
    case cancelled(CancellationReason)

    /// The kind of `kind`, as the bag told it.
    init(_ kind: ItemEvent.Kind) {
      switch kind {
      case .registered: self = .registered
      case .finished: self = .finished
      case .failed(let error): self = .failed(error)
      case .cancelled(let reason): self = .cancelled(reason)
      }
    }

    /// Whether two kinds are the same: the same case, with equal reasons, or errors of the
    /// same type and the same `String(reflecting:)` text.
    ///
    /// Errors are compared by their text because `any Error` is not `Equatable`: what a test
    /// or a log deduplication needs is "the same failure", which the text of an error says.
    ///
    /// ```swift
    /// #expect(event.kind == .failed(APIError.offline))
    /// ```
    public static func == (lhs: Kind, rhs: Kind) -> Bool {
      switch (lhs, rhs) {
      case (.registered, .registered), (.finished, .finished):
        true
      case (.cancelled(let left), .cancelled(let right)):
        left == right
      case (.failed(let left), .failed(let right)):
        ObjectIdentifier(type(of: left)) == ObjectIdentifier(type(of: right))
          && String(reflecting: left) == String(reflecting: right)
      default:
        false
      }
    }

    /// Hashes the case and its payload, as ``==(_:_:)`` compares them.
    public func hash(into hasher: inout Hasher) {
      switch self {
      case .registered:
        hasher.combine(0)
      case .finished:
        hasher.combine(1)
      case .failed(let error):
        hasher.combine(2)
        hasher.combine(ObjectIdentifier(type(of: error)))
        hasher.combine(String(reflecting: error))
      case .cancelled(let reason):
        hasher.combine(3)
        hasher.combine(reason)
      }
    }
  }

  /// What happened.
  public var kind: Kind { Kind(event.kind) }

  /// The work it happened to.
  public var item: CancelBagItem { CancelBagItem(event.item) }

  init(_ event: ItemEvent) {
    self.event = event
  }

  /// `registered #3 feed (Task<Data, Error>)`, `failed #3 feed (Task<Data, Error>): offline`,
  /// and so on.
  public var description: String { event.description }
}

/// Why a piece of work was cancelled.
///
/// Every cancellation that AutoCancel performs carries a reason. Work that implements
/// ``ReasonAwareCancellable/cancel(reason:)`` receives it; a task launched with
/// ``CancelBag/task(key:label:priority:file:line:operation:)->Task<Success,Error>`` reads it through
/// ``CancellationReason/current``; observers see it in `CancelBagEvent`; a bag that ended
/// keeps it in ``CancelBag/endReason``. Errors do not carry it: every async API of the
/// library throws the standard `CancellationError` (see ``Swift/Error/isCancellation``).
///
/// Reasons compare by kind, and custom reasons by their description too.
///
/// ```swift
/// bag.task {
///   do {
///     try await search(query)
///   } catch is CancellationError {
///     if CancellationReason.current == .replaced { return }  // a newer search took over
///   }
/// }
/// ```
public struct CancellationReason: Sendable, Hashable, CustomStringConvertible {
  private enum Storage: Hashable {
    case ownerGone
    case explicit
    case replaced
    case duplicate
    case timedOut
    case parentEnded
    case linkEnded
    case custom(String)
  }

  private let storage: Storage

  private init(_ storage: Storage) { self.storage = storage }

  /// The bag was deinitialized: its owner went away.
  public static let ownerGone = CancellationReason(.ownerGone)

  /// Someone asked for it: ``CancelRegistration/cancel()``, ``CancelBag/cancelAll(reason:)``
  /// or ``CancelBag/end(reason:)`` with the default reason.
  public static let explicit = CancellationReason(.explicit)

  /// Newer work was added under the same key.
  public static let replaced = CancellationReason(.replaced)

  /// The work was added under a key that already runs, with ``KeyPolicy/ignoreNew``: the work
  /// under the key is kept, and this work, which already runs, is cancelled at once.
  ///
  /// ```swift
  /// cancelBag.add(refresh, key: "refresh", policy: .ignoreNew)  // cancelled if one runs
  /// ```
  public static let duplicate = CancellationReason(.duplicate)

  /// A timeout of the item or a deadline of its bag passed.
  public static let timedOut = CancellationReason(.timedOut)

  /// The parent of the item's bag ended.
  public static let parentEnded = CancellationReason(.parentEnded)

  /// A bag that the item's bag is linked to ended.
  public static let linkEnded = CancellationReason(.linkEnded)

  /// A reason of your own, such as `.custom("user signed out")`.
  ///
  /// Two custom reasons are equal when their descriptions are equal.
  public static func custom(_ description: String) -> CancellationReason {
    CancellationReason(.custom(description))
  }

  /// The place of this reason's kind among the eight kinds (the seven named reasons, in the
  /// order they are declared, then every custom reason), for an instrument's counts.
  package var kindIndex: Int {
    switch storage {
    case .ownerGone: 0
    case .explicit: 1
    case .replaced: 2
    case .duplicate: 3
    case .timedOut: 4
    case .parentEnded: 5
    case .linkEnded: 6
    case .custom: 7
    }
  }

  /// A short human-readable phrase, such as `owner gone` or the text of a custom reason.
  public var description: String {
    switch storage {
    case .ownerGone: "owner gone"
    case .explicit: "explicit"
    case .replaced: "replaced"
    case .duplicate: "duplicate"
    case .timedOut: "timed out"
    case .parentEnded: "parent ended"
    case .linkEnded: "link ended"
    case .custom(let text): text
    }
  }
}

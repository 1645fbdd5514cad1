/// What an add under a key does when work under that key is already running.
///
/// Given to ``CancelBag/add(_:key:policy:label:file:line:)``. Work given to `add` already
/// runs, so it cannot wait for its turn: the launches' ``KeyPolicy/enqueue`` has no
/// counterpart here, and `policy: .enqueue` on an add does not compile.
///
/// | Policy | Something runs under the key | Nothing runs under the key |
/// |---|---|---|
/// | ``replace`` | Everything under the key is cancelled (``CancellationReason/replaced``); the new work is registered | Registered |
/// | ``ignoreNew`` | The new work is cancelled at once (``CancellationReason/duplicate``); the registration is inactive | Registered |
/// | ``runConcurrently`` | Registered beside it | Registered |
///
/// ```swift
/// let prefetch = session.dataTask(with: thumbnailURL)
/// cancelBag.add(prefetch, key: "prefetch", policy: .runConcurrently)
/// prefetch.resume()
/// ```
///
/// See <doc:KeysAndPolicies>.
public enum AddPolicy: Sendable, Hashable {
  /// Latest wins: the work under the key is cancelled, with reason
  /// ``CancellationReason/replaced``, and the new work is registered. What `add(_:key:)`
  /// does.
  case replace

  /// Keep what runs, drop the new: while anything runs or waits under the key, the new work
  /// is cancelled at once, with reason ``CancellationReason/duplicate``, and the registration
  /// returned is inactive, as on an ended bag.
  case ignoreNew

  /// No deduplication: the new work joins what runs under the key; all of it goes with a
  /// later replace, ``CancelBag/cancel(key:reason:)``, `cancelAll` or `end`.
  case runConcurrently

  /// The launch policy that decides the same way.
  ///
  /// Usable from inline code, for the inlinable `add(_:key:policy:label:file:line:)`.
  @usableFromInline var keyPolicy: KeyPolicy {
    switch self {
    case .replace: .replace
    case .ignoreNew: .ignoreNew
    case .runConcurrently: .runConcurrently
    }
  }
}

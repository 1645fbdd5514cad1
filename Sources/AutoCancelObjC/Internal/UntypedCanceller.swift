/// Cancels an untyped request only if it can be cancelled.
///
/// On Apple platforms the Objective-C runtime answers: the request gets `cancel` only when it
/// `respondsToSelector:` it, so a request without that method is left alone instead of crashing
/// the app as the original category did. Tests supply their own rule.
///
/// # Implementation requirements
///
/// ``cancelIfPossible(_:)`` may be called from any thread (the one that releases the owner),
/// never under a lock of ours, and must do nothing for a request that cannot be cancelled.
protocol UntypedCanceller: Sendable {
  /// Sends `cancel` to `request` if it has that method; does nothing otherwise.
  func cancelIfPossible(_ request: AnyObject)
}

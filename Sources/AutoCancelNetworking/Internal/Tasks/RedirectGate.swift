import AutoCancel

/// Lets a redirect go on only while the library has not started to cancel the task.
///
/// On Linux, a task whose delegate decides redirects waits for that decision in a state that
/// a cancel ends; a decision that arrives after the cancel crashes FoundationNetworking
/// (`HTTPURLProtocol.swift:705`, "Received callback for HTTP redirection, but we're not waiting
/// for it"). The decision reaches the task through ``answer(_:)``, and ``close()`` comes
/// before every cancel the library makes, under the same lock: a decision that passed first is
/// on the task's queue before the cancel, which then stops the next hop; one that comes after
/// is dropped, and the cancel completes the task.
final class RedirectGate: Sendable {
  private let isOpen = Locked(true)

  /// Calls `decide` (which hands a redirect decision to FoundationNetworking, which only
  /// enqueues it) unless the gate was closed; then it is dropped.
  func answer(_ decide: () -> Void) {
    isOpen.withLock { isOpen in
      if isOpen { decide() }
    }
  }

  /// Drops every later decision. Called before the task is cancelled.
  func close() {
    isOpen.withLock { $0 = false }
  }
}

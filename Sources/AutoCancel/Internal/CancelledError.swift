/// A cancellation error that carries its reason, for sibling modules of the package.
///
/// Public APIs throw the standard `CancellationError` instead, so that `catch is
/// CancellationError` catches every cancellation; ``Swift/Error/isCancellation`` answers true
/// for both.
package struct CancelledError: Error, Sendable, Hashable, CustomStringConvertible {
  /// Why the work was cancelled.
  package let reason: CancellationReason

  /// Makes an error for work cancelled for `reason`.
  package init(reason: CancellationReason) {
    self.reason = reason
  }

  /// `cancelled (reason)`, such as `cancelled (owner gone)`.
  package var description: String { "cancelled (\(reason))" }
}

extension CancelledError: CancellationRepresenting {
  package var representsCancellation: Bool { true }
}

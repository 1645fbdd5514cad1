extension Error {
  /// Whether this error reports a cancellation, whoever caused it.
  ///
  /// The one question to ask of an error from AutoCancel: true for the standard
  /// `CancellationError`, which every async API of the library throws when it was cancelled
  /// (the awaiting task was cancelled, the owner went away, the bag cancelled all or ended, a
  /// newer item took the key, a deadline passed), and for `URLError(.cancelled)`, which
  /// completion handlers of `AutoCancelNetworking` receive. False for everything else.
  ///
  /// ```swift
  /// do {
  ///   show(try await api.feed())
  /// } catch where error.isCancellation {
  ///   return  // nothing to show: the screen went away, or a newer load took over
  /// } catch {
  ///   showFailure(error)
  /// }
  /// ```
  ///
  /// The error does not carry the reason. Where it is needed, read
  /// ``CancellationReason/current`` inside the bag's task, ``CancelBag/endReason`` on the bag,
  /// or the `CancelBagEvent` of an observer.
  public var isCancellation: Bool {
    if self is CancellationError { return true }
    if let representing = self as? any CancellationRepresenting {
      return representing.representsCancellation
    }
    return false
  }
}

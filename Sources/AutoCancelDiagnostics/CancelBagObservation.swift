import AutoCancel

/// An observer installed with ``AutoCancel/CancelBag/observe(_:)``; cancel it to stop observing.
///
/// Observers also stop when the bag ends, after hearing of the work it cancelled. An
/// observation is `AutoCancellable`, so it can be bound to another owner:
///
/// ```swift
/// debugPanel.autoCancel(screen.cancelBag.observe { event in debugPanel.log(event) })
/// ```
///
/// Two observations are equal when they name the same observer of the same bag.
public struct CancelBagObservation: AutoCancellable, Hashable {
  let observation: ItemObservation

  /// Stops delivering events to the handler. Idempotent; any thread.
  ///
  /// An event being delivered on another thread at this moment may still arrive.
  public func cancel() {
    observation.cancel()
  }
}

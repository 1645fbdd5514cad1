import AutoCancel
import Foundation

/// An `Operation` can go in a bag: the bag calls `Operation.cancel()` when it ends.
///
/// `cancel()` only marks the operation cancelled; the operation checks `isCancelled` and
/// stops, as Foundation documents. Called once per registration, from any thread.
///
/// ```swift
/// let resize = BlockOperation { ... }
/// cancelBag.add(resize)
/// queue.addOperation(resize)
/// ```
extension Operation: AutoCancellable {}

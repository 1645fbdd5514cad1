import AutoCancel
import Foundation

/// An `Operation` can go in a bag: the bag calls `Operation.cancel()` when it ends, and
/// forgets the operation by itself once `isFinished` says true.
///
/// `cancel()` only marks the operation cancelled; the operation checks `isCancelled` and
/// stops, as Foundation documents. It is thread-safe, does not block, and does nothing to an
/// operation that has finished. Called at most once per registration, from any thread.
///
/// ```swift
/// let resize = BlockOperation { ... }
/// autoCancel(resize)  // or cancelBag.add(resize)
/// queue.addOperation(resize)
/// ```
///
/// The conformance lives here, not in the core, because `Operation` is Foundation's and the
/// core depends on the standard library and Dispatch alone; this module is the package's
/// Foundation layer.
extension Operation: FinishReporting {}

import AutoCancel

/// Work that says when it has completed, so that the bag it is bound to can let it go without
/// a `finish()` call: an `AutoCancellable` with `isFinished`, the shape of the core's
/// refining protocol for finished work.
///
/// The bench's only use of that protocol goes through this name (`CompletingWork` conforms
/// to it), so that pointing S8 at the core's own protocol is this one declaration becoming a
/// `typealias`. Bound to a bag that does not know the protocol, completed work stays until
/// the owner goes, and S8 shows what that costs.
protocol FinishReporting: AutoCancellable {
  /// True once the work has completed, and from then on.
  var isFinished: Bool { get }
}

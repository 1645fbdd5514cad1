/// Attaches one ``DeallocHolder`` to an object for the object's whole life.
///
/// The seam between the binder and the Objective-C runtime: on Apple platforms the holder is an
/// associated object, which the runtime releases right after the object's `dealloc`; tests
/// supply an in-memory store whose objects release their holder the same way.
///
/// # Implementation requirements
///
/// - ``holder(of:)`` may be called from any thread, concurrently with ``attach(_:to:)``.
/// - ``attach(_:to:)`` keeps the holder strongly until the object is deallocated, then releases
///   it; that release is what cancels the work in flight.
/// - Attaching a second holder replaces the first and releases it, as the runtime does. The
///   binder never attaches twice to one object: it attaches under its own lock, after checking.
protocol AssociatedHolderStore: Sendable {
  /// The kind of object holders are attached to.
  associatedtype Object: AnyObject

  /// The holder attached to `object`, or nil if none is yet.
  func holder(of object: Object) -> DeallocHolder?

  /// Attaches `holder` to `object`, to be released when `object` is deallocated.
  func attach(_ holder: DeallocHolder, to object: Object)
}

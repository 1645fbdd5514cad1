import AutoCancelTestSupport
@testable import AutoCancelObjC

/// An object that keeps an attached holder as the Objective-C runtime keeps an associated
/// object: strongly, until the object itself is deallocated.
final class FakeObject: Sendable {
  fileprivate let attached = Protected<DeallocHolder?>(nil)
}

/// The runtime's associated objects, in memory: the seam's implementation for tests.
///
/// Faithful to the runtime where it matters: a second `attach` replaces the first holder and
/// releases it (which would cancel what was bound to it), and every attach is counted.
final class InMemoryHolderStore: AssociatedHolderStore {
  private let attaches = Protected(0)

  func holder(of object: FakeObject) -> DeallocHolder? {
    object.attached.current
  }

  func attach(_ holder: DeallocHolder, to object: FakeObject) {
    let replaced = object.attached.withLock { attached in
      defer { attached = holder }
      return attached
    }
    attaches.withLock { $0 += 1 }
    // The replaced holder, if any, is released here, outside the lock, as the runtime does.
    withExtendedLifetime(replaced) {}
  }

  /// How many holders were attached, to every object.
  var attachCount: Int { attaches.current }
}

/// "Responds to `cancel`" for tests: requests that conform to ``CancelResponder``.
struct TestCanceller: UntypedCanceller {
  func cancelIfPossible(_ request: AnyObject) {
    (request as? any CancelResponder)?.cancel()
  }
}

/// A request type that has a `cancel` method, as an Objective-C request that responds to it.
protocol CancelResponder: AnyObject {
  func cancel()
}

/// A binder over the in-memory store, as `NSObject`'s one-liners use the runtime's.
func makeBinder() -> DeallocBinder<InMemoryHolderStore, TestCanceller> {
  DeallocBinder(store: InMemoryHolderStore(), canceller: TestCanceller())
}

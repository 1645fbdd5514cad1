import AutoCancel
import Dispatch

/// Binds work to any object through the holder attached to it, creating that holder exactly
/// once.
///
/// The original category created its holder without a lock and attached it non-atomically: two
/// threads binding to a fresh object could each attach one, and the loser's release cancelled a
/// request just bound to it. Here the holder is looked up first (the common case, no lock of
/// ours), and created and attached under `creation` after a second look, so exactly one holder
/// is ever attached to an object. Creating it runs no user code, so one lock serves every
/// object; it is taken only while an object has no holder yet.
final class DeallocBinder<Store: AssociatedHolderStore, Canceller: UntypedCanceller>: Sendable {
  let store: Store
  let canceller: Canceller
  /// How many holders this binder attached. Its lock makes the second look and the attach
  /// one step.
  private let creation = Locked(0)

  init(store: Store, canceller: Canceller) {
    self.store = store
    self.canceller = canceller
  }

  /// The holder attached to `object`, attached now if it had none.
  func holder(for object: Store.Object) -> DeallocHolder {
    if let holder = store.holder(of: object) { return holder }
    return creation.withLock { attached in
      if let holder = store.holder(of: object) { return holder }
      let holder = DeallocHolder()
      store.attach(holder, to: object)
      attached += 1
      return holder
    }
  }

  /// Binds `work` to `object`, held as the holder's bag holds it (see `CancelBag.add`), added
  /// at `file`:`line`: the public wrappers hand on their caller's.
  @discardableResult
  func bind<Work: AutoCancellable>(
    _ work: Work, to object: Store.Object, key: (any Hashable & Sendable)? = nil,
    file: StaticString = #fileID, line: UInt = #line
  ) -> CancelRegistration {
    holder(for: object).autoCancel(work, key: key, file: file, line: line)
  }

  /// Binds a `DispatchWorkItem` to `object`, added at `file`:`line`.
  @discardableResult
  func bind(
    _ item: DispatchWorkItem, to object: Store.Object, key: (any Hashable & Sendable)? = nil,
    file: StaticString = #fileID, line: UInt = #line
  ) -> CancelRegistration {
    holder(for: object).cancelBag.add(item, key: key, file: file, line: line)
  }

  /// Binds a request of unknown type, as `autoCancelRequestOnDealloc:` did.
  ///
  /// Work that is ``AutoCancellable`` goes to the bag like any typed work: a thin wrapper that
  /// nothing else keeps is still cancelled. Anything else is held weakly, as the category held
  /// it, and cancelled only if it can be; once it is gone, it leaves the bag like any finished
  /// work. Nil is ignored. An Objective-C caller has no Swift call site: the item's is this
  /// method's.
  func bindUntyped(_ request: AnyObject?, to object: Store.Object) {
    guard let request else { return }
    if let work = request as? any AutoCancellable & AnyObject {
      bind(work, to: object)
    } else {
      bind(WeakRequest(request, canceller: canceller), to: object)
    }
  }
}

// The only code that touches the Objective-C runtime: where a holder is kept, and how an
// untyped request is cancelled. Everything else is plain Swift, tested on every platform.
#if canImport(ObjectiveC)
  import ObjectiveC

  /// Holders kept as associated objects: the runtime releases them right after their object's
  /// `dealloc`, which is what cancels the work in flight.
  struct RuntimeHolderStore: AssociatedHolderStore {
    func holder(of object: NSObject) -> DeallocHolder? {
      objc_getAssociatedObject(object, HolderKey.address) as? DeallocHolder
    }

    func attach(_ holder: DeallocHolder, to object: NSObject) {
      // Nonatomic is enough: a holder is attached once and never replaced, so no reader can
      // race with the release of an older value.
      objc_setAssociatedObject(
        object, HolderKey.address, holder, .OBJC_ASSOCIATION_RETAIN_NONATOMIC)
    }
  }

  /// The object whose address names the holder among an object's associated objects: a
  /// `static let`, so it lives as long as the process and its address is never reused.
  private final class HolderKey: Sendable {
    static let shared = HolderKey()

    /// The key that the runtime's associated-object calls take.
    static var address: UnsafeRawPointer {
      UnsafeRawPointer(Unmanaged.passUnretained(shared).toOpaque())
    }
  }

  /// Sends `cancel` only to a request that responds to it.
  struct RespondsToCancel: UntypedCanceller {
    func cancelIfPossible(_ request: AnyObject) {
      let cancel = sel_registerName("cancel")
      guard let object = request as? NSObjectProtocol, object.responds(to: cancel),
        let implementation = class_getMethodImplementation(object_getClass(request), cancel)
      else { return }
      // Called through its own signature, `-(void)cancel`: `performSelector:` is only defined
      // for methods that return an object. A proxy's implementation is the runtime's
      // forwarder, which forwards the message as it is.
      typealias Cancel = @convention(c) (AnyObject, Selector) -> Void
      unsafeBitCast(implementation, to: Cancel.self)(request, cancel)
    }
  }

  /// The binder behind `NSObject`'s one-liners.
  let runtimeBinder = DeallocBinder(store: RuntimeHolderStore(), canceller: RespondsToCancel())
#endif

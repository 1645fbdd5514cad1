#if canImport(ObjectiveC)
  import AutoCancel
  import Dispatch
  import ObjectiveC

  extension NSObject {
    /// Binds `work` to this object: it is cancelled when the object is deallocated, unless it
    /// finishes first.
    ///
    /// The original category's one-liner, on any `NSObject`, with no conformance and no stored
    /// property. A hidden holder is attached to the object with the Objective-C runtime's
    /// associated objects the first time anything is bound to it, exactly once even when
    /// several threads bind at the same moment; the runtime releases it right after the
    /// object's `dealloc`, and its `CancelBag` then cancels what is in flight, with reason
    /// `.ownerGone`.
    ///
    /// ```swift
    /// final class AvatarLoader: NSObject {
    ///   func load(_ request: ImageRequest) {
    ///     request.start()
    ///     autoCancelRequestOnDealloc(request)
    ///   }
    /// }
    /// ```
    ///
    /// The work is held as a `CancelBag` holds it: a `Task`, an `Operation`, a
    /// `URLSessionTask` (with `AutoCancelNetworking`) and `FinishReporting` work leave by
    /// themselves once done, as with `autoCancel(_:)`, however the call site typed them; for
    /// other work, finish the registration returned when it completes. Thread-safe; the work
    /// is cancelled on the thread that releases the object, never under a lock.
    ///
    /// A class that is also an `AutoCancelOwner` keeps its `autoCancel(_:key:label:)`, which
    /// goes to its stored bag; prefer that bag there, as `cancelAll(reason:)` reaches only
    /// the work in it.
    ///
    /// - Parameters:
    ///   - work: The work to cancel when the object goes away.
    ///   - key: Latest wins: work bound to this object under an equal key is cancelled.
    ///   - file: The call's `#fileID`, kept as its `CallSite`: leave the default.
    ///   - line: The call's `#line`: leave the default.
    /// - Returns: The registration: finish it when the work completes, or cancel it alone.
    @discardableResult
    public func autoCancelRequestOnDealloc<Work: AutoCancellable>(
      _ work: Work, key: (any Hashable & Sendable)? = nil,
      file: StaticString = #fileID, line: UInt = #line
    ) -> CancelRegistration {
      runtimeBinder.bind(work, to: self, key: key, file: file, line: line)
    }

    /// Binds a `DispatchWorkItem` to this object: it never runs once the object is
    /// deallocated.
    ///
    /// Keeps the call's `file` and `line` as the item's `CallSite` while call sites are on.
    ///
    /// ```swift
    /// let save = DispatchWorkItem { store.save() }
    /// autoCancelRequestOnDealloc(save)
    /// DispatchQueue.main.asyncAfter(deadline: .now() + 2, execute: save)
    /// ```
    @discardableResult
    public func autoCancelRequestOnDealloc(
      _ item: DispatchWorkItem, key: (any Hashable & Sendable)? = nil,
      file: StaticString = #fileID, line: UInt = #line
    ) -> CancelRegistration {
      runtimeBinder.bind(item, to: self, key: key, file: file, line: line)
    }

    /// Binds a request of any type to this object, as the Objective-C category's
    /// `autoCancelRequestOnDealloc:` did: Objective-C call sites keep compiling unchanged.
    ///
    /// ```objc
    /// @import AutoCancelObjC;
    ///
    /// [request start];
    /// [self autoCancelRequestOnDealloc:request];
    /// ```
    ///
    /// When the object is deallocated, the request receives `cancel` only if it responds to
    /// that selector: a request without it is left alone instead of crashing. A request that
    /// conforms to `AutoCancellable` in Swift is bound as the typed form binds it. Any other
    /// request is held weakly, as the category held it: once its network layer releases it,
    /// it is finished, and its trace leaves the holder soon after, as finished work leaves a
    /// bag. A nil request is ignored. Thread-safe.
    ///
    /// > Important: Remove the original category when you add this package. Two categories
    /// > that define one selector on one class are undefined behaviour in Objective-C: either
    /// > method may run.
    ///
    /// - Parameter request: The request; `cancel` is sent to it when the object goes away, if
    ///   it is still alive and responds to it.
    @objc(autoCancelRequestOnDealloc:)
    public func _autoCancelObjectiveCRequestOnDealloc(_ request: AnyObject?) {
      runtimeBinder.bindUntyped(request, to: self)
    }
  }
#endif

import Testing

@testable import AutoCancelObjC

/// Binds work to a new object with `bind`, expects the object's holder to hold `held` pieces
/// of it, and releases the object, the last reference to it: the start of every test of what
/// an object's release cancels, which checks that afterwards.
///
/// ```swift
/// let work = RecordingWork()
/// bindThenRelease(holding: 1) { binder, object in binder.bind(work, to: object) }
/// #expect(work.reasons == [.ownerGone])
/// ```
func bindThenRelease(
  holding held: Int, sourceLocation: SourceLocation = #_sourceLocation,
  _ bind: (DeallocBinder<InMemoryHolderStore, TestCanceller>, FakeObject) -> Void
) {
  let binder = makeBinder()
  var object: FakeObject? = FakeObject()
  bind(binder, object!)
  #expect(binder.holder(for: object!).cancelBag.count == held, sourceLocation: sourceLocation)
  object = nil
}

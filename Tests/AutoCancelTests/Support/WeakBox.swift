/// A weak reference, to check that something was freed.
///
/// ```swift
/// var owner: ModelOwner? = ModelOwner()
/// let weakOwner = WeakBox(owner)
/// owner = nil
/// #expect(weakOwner.object == nil)
/// ```
struct WeakBox<Object: AnyObject> {
  weak var object: Object?
  init(_ object: Object?) { self.object = object }
}

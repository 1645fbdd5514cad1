// Stand-ins for the few Apple framework types the samples use, where the framework is missing
// (Linux; UIKit on macOS) or lacks them (watchOS's UIKit has no view controllers), so that the
// samples type-check and run everywhere exactly as the articles show them. On a platform that
// has the type, the samples use the real one. (Views that need more of SwiftUI than these stay
// inside `#if canImport(SwiftUI)`.)

#if !canImport(UIKit) || os(watchOS)
  /// A stand-in for UIKit's view controller: the lifecycle calls the samples override.
  @MainActor
  class UIViewController {
    init() {}
    func viewWillAppear(_ animated: Bool) {}
    func viewDidDisappear(_ animated: Bool) {}
  }
#endif

#if !canImport(Combine)
  /// A stand-in for Combine's `ObservableObject`.
  protocol ObservableObject: AnyObject {}

  /// A stand-in for Combine's `@Published`: a plain stored value.
  @propertyWrapper
  struct Published<Value> {
    var wrappedValue: Value
    init(wrappedValue: Value) { self.wrappedValue = wrappedValue }
  }
#endif

#if !canImport(SwiftUI)
  /// A stand-in for SwiftUI's `View`: the main-actor types the samples' views are.
  @MainActor
  protocol View {}

  /// A stand-in for SwiftUI's `StateObject`: keeps the object the view made.
  @MainActor
  @propertyWrapper
  struct StateObject<ObjectType: ObservableObject> {
    let wrappedValue: ObjectType
    init(wrappedValue: @autoclosure () -> ObjectType) { self.wrappedValue = wrappedValue() }
  }

  /// A stand-in for SwiftUI's `Button` with a title: calls `action` when tapped.
  struct Button: View {
    let action: @MainActor () -> Void
    init(_ title: String, action: @escaping @MainActor () -> Void) { self.action = action }
  }

  extension View {
    /// A stand-in for SwiftUI's `disabled(_:)`.
    func disabled(_ disabled: Bool) -> Self { self }
  }
#endif

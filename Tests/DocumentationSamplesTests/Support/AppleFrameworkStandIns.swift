// Stand-ins for the few Apple framework types the samples use, where the framework is missing
// (Linux; UIKit on macOS) or lacks them (watchOS's UIKit has no view controllers), so that the
// samples type-check and run everywhere exactly as the articles show them. On a platform that
// has the type, the samples use the real one.

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

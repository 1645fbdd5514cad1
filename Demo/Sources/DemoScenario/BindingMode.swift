/// How a screen's requests relate to the screen.
package enum BindingMode: String, Sendable, Hashable, CaseIterable {
  /// Plain URLSession tasks: nobody cancels them when their screen goes away.
  case withoutBinding = "without"
  /// Each request is bound to its screen's `CancelBag`: the screen going away cancels it.
  case withAutoCancel = "with"

  /// The column title in the report.
  package var title: String {
    switch self {
    case .withoutBinding: "without binding"
    case .withAutoCancel: "with AutoCancel"
    }
  }
}

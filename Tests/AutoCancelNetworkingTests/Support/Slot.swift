import AutoCancelTestSupport

/// A lock-protected slot, for the load tests that release owners from other threads at
/// seeded moments. The tests of documented patterns hold their owners as apps do instead.
final class Slot<Value: Sendable>: Sendable {
  private let value: Protected<Value?>

  init(_ value: Value?) { self.value = Protected(value) }

  func put(_ newValue: Value) { value.withLock { $0 = newValue } }
  func take() -> Value? {
    value.withLock { value in
      defer { value = nil }
      return value
    }
  }
  func peek<Result>(_ body: (Value?) -> Result) -> Result { value.withLock { body($0) } }
}

// Named tasks (SE-0469) where the compiler has them.
//
// `Task(name:priority:operation:)` is emitted into the client and available from iOS 13 /
// macOS 10.15 (hence the `availability-ok` below), but only compilers from Swift 6.2 know it,
// and the package's tools version, 6.0, lets Xcode 16 build it. Runtimes before iOS 26 /
// macOS 26 keep no name, and start the task as if it had none.

extension Task where Failure == any Error {
  /// A task named `name`, where the compiler can name tasks; unnamed with older compilers.
  @inlinable
  static func named(
    _ name: String?, priority: TaskPriority?,
    operation: sending @escaping @isolated(any) () async throws -> Success
  ) -> Task {
    #if compiler(>=6.2)
      Task(name: name, priority: priority, operation: operation)  // availability-ok: iOS 13
    #else
      Task(priority: priority, operation: operation)
    #endif
  }
}

extension Task where Failure == Never {
  /// A task named `name`, where the compiler can name tasks; unnamed with older compilers.
  @inlinable
  static func named(
    _ name: String?, priority: TaskPriority?,
    operation: sending @escaping @isolated(any) () async -> Success
  ) -> Task {
    #if compiler(>=6.2)
      Task(name: name, priority: priority, operation: operation)  // availability-ok: iOS 13
    #else
      Task(priority: priority, operation: operation)
    #endif
  }
}

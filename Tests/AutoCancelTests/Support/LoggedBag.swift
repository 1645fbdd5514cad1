import AutoCancel
import AutoCancelTestSupport

/// A bag whose keyed tasks run the operations of one ``OperationLog``, each operation named
/// after its task: to launch under a key by a policy, and let each operation return when the
/// test says.
///
/// ```swift
/// let keyed = LoggedBag()
/// let first = keyed.launch("first", policy: .enqueue)
/// await keyed.log.waitUntilStarted("first")
/// #expect(try await keyed.release("first", first) == nil)
/// ```
struct LoggedBag: Sendable {
  let bag = CancelBag()
  let log = OperationLog()

  /// Launches the task `name` under `key` by `policy`; its operation runs until released, and
  /// returns the bag's reason if the task was cancelled. `nil` if the policy refused it.
  @discardableResult
  func launch(
    _ name: String, key: String = "k", policy: KeyPolicy
  ) -> Task<CancellationReason?, any Error>? {
    bag.task(key: key, policy: policy, operation: log.operation(name))
  }

  /// Lets the operation of `task`, named `name`, return, and returns what the task returned.
  @discardableResult
  func release(
    _ name: String, _ task: Task<CancellationReason?, any Error>?
  ) async throws -> CancellationReason? {
    log.release(name)
    return try await task?.value
  }
}

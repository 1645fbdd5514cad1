import AutoCancel
import AutoCancelTestSupport
import Testing

extension CancelBag {
  /// Launches a task under `key` that waits until it is cancelled, then returns what `read`
  /// reads, or awaits, inside it; returns once the task has started. A missed wait records an
  /// issue at the caller.
  ///
  /// ```swift
  /// let task = await bag.taskUntilCancelled { CancellationReason.current }
  /// bag.end()
  /// #expect(await task.value == .explicit)
  /// ```
  func taskUntilCancelled<Value: Sendable>(
    key: (any Hashable & Sendable)? = nil, sourceLocation: SourceLocation = #_sourceLocation,
    reading read: @escaping @Sendable () async -> Value
  ) async -> Task<Value, Never> {
    let started = Gate()
    let task = self.task(key: key) { () async -> Value in
      started.open()
      await suspendUntilCancelled(sourceLocation: sourceLocation)
      return await read()
    }
    await started.wait("the task starts", sourceLocation: sourceLocation)
    return task
  }
}

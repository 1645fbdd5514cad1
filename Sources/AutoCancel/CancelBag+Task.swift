/// Launching Swift tasks bound to a bag.
extension CancelBag {
  /// Starts a task bound to the bag: cancelled when the bag ends, gone from it when it ends.
  ///
  /// The task is registered before it starts and leaves the bag as its operation returns,
  /// before anyone awaiting its value resumes. The operation inherits the caller's actor, as
  /// with `Task { }`; its own code may read ``CancellationReason/current`` once cancelled.
  ///
  /// Unlike `Task { }`, `self` must be written out in the operation: a task that captures its
  /// owner strongly keeps the owner, and so the bag, alive until the task ends, and nothing
  /// is cancelled when the screen goes away. Capture `[weak self]`:
  ///
  /// ```swift
  /// cancelBag.task(key: "search") { [weak self] in
  ///   let results = try await api.search(query)
  ///   self?.show(results)
  /// }
  /// ```
  ///
  /// If the bag has ended, the task starts already cancelled.
  ///
  /// - Parameters:
  ///   - key: Latest wins: a task already in the bag under an equal key is cancelled.
  ///   - label: A name shown in snapshots and events.
  ///   - priority: The task's priority.
  ///   - operation: The work.
  /// - Returns: The task, to await or cancel.
  @inlinable @discardableResult
  public func task<Success: Sendable>(
    key: (any Hashable & Sendable)? = nil,
    label: String? = nil,
    priority: TaskPriority? = nil,
    @_inheritActorContext operation: sending @escaping @isolated(any) () async throws -> Success
  ) -> Task<Success, any Error> {
    launch(key: key, label: label, priority: priority, operation).task
  }

  /// Starts a non-throwing task bound to the bag.
  ///
  /// The same as the throwing form: registered before it starts, cancelled when the bag ends,
  /// gone from the bag when it returns.
  ///
  /// ```swift
  /// cancelBag.task { [weak self] in
  ///   for await value in updates { self?.apply(value) }
  /// }
  /// ```
  @inlinable @discardableResult
  public func task<Success: Sendable>(
    key: (any Hashable & Sendable)? = nil,
    label: String? = nil,
    priority: TaskPriority? = nil,
    @_inheritActorContext operation: sending @escaping @isolated(any) () async -> Success
  ) -> Task<Success, Never> {
    launch(key: key, label: label, priority: priority, operation).task
  }

  /// Starts a task bound to the bag, with its registration.
  ///
  /// Inlinable, with the `task` methods that call it, so that it is specialized for the
  /// caller's `Success`: generic code would look up the metadata of `Task<Success, _>` and
  /// copy the task through value witnesses on every launch.
  @inlinable
  func launch<Success: Sendable>(
    key: (any Hashable & Sendable)?, label: String?, priority: TaskPriority?,
    _ operation: sending @escaping @isolated(any) () async throws -> Success
  ) -> (task: Task<Success, any Error>, registration: CancelRegistration) {
    // Safety: `operation` was sent to us; it moves into the task and is used nowhere else. The
    // region checker cannot follow it through `launch`'s non-escaping closure.
    nonisolated(unsafe) let operation = operation
    return launch(key: key, label: label) { registration, cancellation in
      Task(priority: priority) {
        defer { registration.finish() }
        cancellation.begin()
        defer { cancellation.end() }
        return try await operation()
      }
    }
  }

  /// The non-throwing form of `launch`.
  @inlinable
  func launch<Success: Sendable>(
    key: (any Hashable & Sendable)?, label: String?, priority: TaskPriority?,
    _ operation: sending @escaping @isolated(any) () async -> Success
  ) -> (task: Task<Success, Never>, registration: CancelRegistration) {
    // Safety: as in the throwing form, `operation` only moves into the task.
    nonisolated(unsafe) let operation = operation
    return launch(key: key, label: label) { registration, cancellation in
      Task(priority: priority) {
        defer { registration.finish() }
        cancellation.begin()
        defer { cancellation.end() }
        return await operation()
      }
    }
  }

  /// Registers a task's cancellation, makes the task, and hands the task over.
  ///
  /// The registration comes first so that the task can finish it; a cancel that arrives
  /// before the task exists is kept by `TaskCancellation` and applied by `attach`.
  @inlinable
  func launch<Launched: CancellableTask>(
    key: (any Hashable & Sendable)?, label: String?,
    _ makeTask: (CancelRegistration, TaskCancellation) -> Launched
  ) -> (task: Launched, registration: CancelRegistration) {
    let cancellation = TaskCancellation()
    let registration = add(cancellation, key: key, label: label)
    let task = makeTask(registration, cancellation)
    cancellation.attach(task)
    return (task, registration)
  }
}

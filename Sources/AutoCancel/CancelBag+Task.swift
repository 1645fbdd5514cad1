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
  /// A failure is not lost when nobody awaits the task: if the operation throws an error whose
  /// ``Swift/Error/isCancellation`` is false, the bag's observers hear
  /// `CancelBagEvent.Kind.failed(_:)` with it, in place of `CancelBagEvent.Kind.finished`,
  /// before anyone awaiting the task resumes. A `CancellationError` is no failure, and a task
  /// the bag cancelled was already reported as cancelled. Returning costs nothing more for it.
  ///
  /// ```swift
  /// cancelBag.observe { event in
  ///   if case .failed(let error) = event.kind { log("\(event.item.label ?? "task"): \(error)") }
  /// }
  /// cancelBag.task(label: "sync") { try await store.sync() }  // a thrown error reaches `log`
  /// ```
  ///
  /// The task is named after its label and key (`"search [query]"`, SE-0469), where the
  /// compiler and the runtime keep task names (Swift 6.2, iOS 26 / macOS 26); no name is made
  /// for a task without a key.
  ///
  /// - Parameters:
  ///   - key: Latest wins: work in the bag under an equal key is cancelled, with reason
  ///     ``CancellationReason/replaced`` (``KeyPolicy/replace``). For the other policies, see
  ///     ``task(key:policy:label:priority:file:line:operation:)``.
  ///   - label: A name shown in snapshots and events, and the task's name.
  ///   - priority: The task's priority.
  ///   - file: The call's `#fileID`, kept as its call site (see
  ///     <doc:Contracts#Call-sites>): leave the default.
  ///   - line: The call's `#line`: leave the default.
  ///   - operation: The work.
  /// - Returns: The task, to await or cancel.
  @inlinable @discardableResult
  public func task<Success: Sendable>(
    key: (any Hashable & Sendable)? = nil, label: String? = nil, priority: TaskPriority? = nil,
    file: StaticString = #fileID, line: UInt = #line,
    @_inheritActorContext operation: sending @escaping @isolated(any) () async throws -> Success
  ) -> Task<Success, any Error> {
    // Never refused: without a policy, a key replaces.
    launched(key: key, label: label, file: file, line: line, operation) { launch, name, operation in
      Task.named(name, priority: priority) { try await launch.run(isolation: nil, operation) }
    }!
  }

  /// Starts a non-throwing task bound to the bag.
  ///
  /// Keeps its call site (see <doc:Contracts#Call-sites>).
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
    key: (any Hashable & Sendable)? = nil, label: String? = nil, priority: TaskPriority? = nil,
    file: StaticString = #fileID, line: UInt = #line,
    @_inheritActorContext operation: sending @escaping @isolated(any) () async -> Success
  ) -> Task<Success, Never> {
    // Never refused: without a policy, a key replaces.
    launched(key: key, label: label, file: file, line: line, operation) { launch, name, operation in
      Task.named(name, priority: priority) { await launch.run(isolation: nil, operation) }
    }!
  }

  /// Starts a task bound to the bag under `key`, by `policy`: at once, after the work under the
  /// key, or not at all.
  ///
  /// What the launch does when work under `key` is running (see ``KeyPolicy``):
  ///
  /// - ``KeyPolicy/replace``: cancels that work, with reason ``CancellationReason/replaced``,
  ///   and starts.
  /// - ``KeyPolicy/ignoreNew``: returns `nil`; the operation never runs.
  /// - ``KeyPolicy/enqueue``: starts once everything before it under the key has returned, in
  ///   launch order.
  /// - ``KeyPolicy/runConcurrently``: starts beside it.
  ///
  /// ```swift
  /// func saveTapped() {
  ///   let save = cancelBag.task(key: "save", policy: .ignoreNew) { [document] in
  ///     try await api.save(document)
  ///   }
  ///   if save == nil { log("already saving: tap ignored") }
  /// }
  /// ```
  ///
  /// The operation runs only if the task was not cancelled before it started: a launch that is
  /// cancelled while it waits for its turn (by itself, `cancelAll`, `end`, a replacing launch
  /// under its key or ``cancel(key:reason:)``), or launched on a bag that has ended, never runs
  /// its operation, and its task throws `CancellationError`. (The forms without a policy start
  /// the operation already cancelled instead, so that the non-throwing form can return its
  /// value.) A waiting launch is registered from the start: it counts in ``count`` and in
  /// ``isRunning(key:)``, and a `Task` handle cancelled while it waits takes it out of the
  /// queue.
  ///
  /// Otherwise the same as ``task(key:label:priority:file:line:operation:)->Task<Success,Error>``: the
  /// operation inherits the caller's actor, its task is named after `label` and `key`, and it
  /// leaves the bag, giving its key back, as the operation returns.
  ///
  /// - Parameters:
  ///   - key: The key. Keys compare as `AnyHashable` does.
  ///   - policy: What to do when work under `key` runs.
  ///   - label: A name shown in snapshots and events, and the task's name.
  ///   - priority: The task's priority.
  ///   - file: The call's `#fileID`, kept as its call site (see
  ///     <doc:Contracts#Call-sites>): leave the default.
  ///   - line: The call's `#line`: leave the default.
  ///   - operation: The work.
  /// - Returns: The task, to await or cancel; `nil` if `policy` refused the launch.
  @inlinable @discardableResult
  public func task<Success: Sendable>(
    key: any Hashable & Sendable, policy: KeyPolicy, label: String? = nil,
    priority: TaskPriority? = nil, file: StaticString = #fileID, line: UInt = #line,
    @_inheritActorContext operation: sending @escaping @isolated(any) () async throws -> Success
  ) -> Task<Success, any Error>? {
    launched(key: key, label: label, policy: policy, file: file, line: line, operation) {
      launch, name, operation in
      Task.named(name, priority: priority) {
        try await launch.runIfStarted(isolation: nil, operation)
      }
    }
  }

  /// Starts a task without a key, label or priority, as
  /// ``task(key:label:priority:file:line:operation:)->Task<Success,Never>`` does, and returns
  /// its registration instead of the task: for work of the library's other modules that is
  /// cancelled with a reason of its own, such as a shared request whose last caller left.
  package func launch(
    file: StaticString = #fileID, line: UInt = #line,
    _ operation: sending @escaping @isolated(any) () async -> Void
  ) -> CancelRegistration {
    var registration: CancelRegistration?
    // Never refused: no key.
    _ = launched(key: nil, label: nil, file: file, line: line, operation) {
      launch, _, operation in
      registration = launch.registration
      return Task.named(nil, priority: nil) { await launch.run(isolation: nil, operation) }
    }
    return registration!
  }

  /// Registers a task about to be launched, and names it: nil if `policy` refuses it.
  ///
  /// The registration comes before the task, so that the task can finish it; a cancel that
  /// arrives before the task exists is kept by `TaskCancellation` and applied by `attach`.
  /// Inlinable, with the launchers, so that each is specialized for the caller's `Success`:
  /// generic code would look up the metadata of `Task<Success, _>` and copy the task through
  /// value witnesses on every launch.
  /// The one way a bag launches a task: takes the task's place in the bag (nil when its key's
  /// policy refuses it), has `start` make the task that runs `operation`, ties the task to its
  /// place, then hands the place to `attached` (for a timeout).
  ///
  /// `operation` goes through as `sending`, so that each launch's own closure can hand it on
  /// to the `Task` it makes.
  @inlinable
  func launched<Operation, Success, Failure>(
    key: (any Hashable & Sendable)?, label: String?, policy: KeyPolicy = .replace,
    file: StaticString, line: UInt, _ operation: sending Operation,
    _ start: (BagTask, String?, sending Operation) -> Task<Success, Failure>,
    attached: (BagTask) -> Void = { _ in }
  ) -> Task<Success, Failure>? {
    guard
      let (launch, name) = prepareTask(
        key: key, label: label, policy: policy, file: file, line: line)
    else { return nil }
    let task = start(launch, name, operation)
    launch.cancellation.attach(task)
    attached(launch)
    return task
  }

  @inlinable
  func prepareTask(
    key: (any Hashable & Sendable)?, label: String?, policy: KeyPolicy = .replace,
    file: StaticString, line: UInt
  ) -> (launch: BagTask, name: String?)? {
    let cancellation = withCore { TaskCancellation(core: $0) }
    // Compared, not bound: binding would copy the key, an existential, on every launch.
    guard key != nil else {
      let registration = add(cancellation, label: label, file: file, line: line)
      // A task without a key is named after its label alone: no string is made.
      return (BagTask(cancellation: cancellation, registration: registration, turn: nil), label)
    }
    return cancellation.core.launch(
      cancellation, key: key, label: label, policy: policy,
      callSite: keepsCallSites ? ItemCallSite(fileID: file, line: line) : nil)
  }
}

#if compiler(>=6.2)
  /// Launching bag tasks that start synchronously, on the caller's thread (SE-0472).
  ///
  /// Needs a Swift 6.2 compiler (Xcode 26), which has `Task.immediate`; with older compilers
  /// these methods do not exist.
  extension CancelBag {
    /// Starts a task bound to the bag that runs at once, on the calling thread, until its first
    /// suspension.
    ///
    /// From iOS 26 / macOS 26 / tvOS 26 / watchOS 26 / visionOS 26, the task starts with
    /// `Task.immediate`: called on the operation's actor (the caller's, inherited as with
    /// ``task(key:label:priority:file:line:operation:)->Task<Success,Error>``), the operation runs
    /// before this method returns, up to its first `await` that really suspends, so that a
    /// button's first state change is on screen in the same frame. Called from another actor,
    /// it is enqueued on its own. On earlier systems it starts as
    /// ``task(key:label:priority:file:line:operation:)->Task<Success,Error>`` does: enqueued, soon after
    /// this method returns. Write the operation so that both are correct.
    ///
    /// The task is registered before it starts, so an operation that returns without
    /// suspending has left the bag (and given its key back) when this method returns.
    /// Otherwise the same as ``task(key:label:priority:file:line:operation:)->Task<Success,Error>``.
    ///
    /// ```swift
    /// @MainActor func refreshTapped() {
    ///   cancelBag.immediateTask(key: "refresh") { [weak self] in
    ///     self?.isRefreshing = true  // on screen before the first suspension
    ///     defer { self?.isRefreshing = false }
    ///     try await self?.reload()
    ///   }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - key: Latest wins, as in ``task(key:label:priority:file:line:operation:)->Task<Success,Error>``.
    ///   - label: A name shown in snapshots and events, and the task's name.
    ///   - priority: The task's priority.
    ///   - file: The call's `#fileID`, kept as its call site (see
    ///     <doc:Contracts#Call-sites>): leave the default.
    ///   - line: The call's `#line`: leave the default.
    ///   - isolation: The caller's actor: leave the default.
    ///   - operation: The work.
    /// - Returns: The task, to await or cancel.
    @inlinable @discardableResult
    public func immediateTask<Success: Sendable>(
      key: (any Hashable & Sendable)? = nil, label: String? = nil, priority: TaskPriority? = nil,
      file: StaticString = #fileID, line: UInt = #line,
      isolation: isolated (any Actor)? = #isolation,
      @_inheritActorContext operation: sending @escaping @isolated(any) () async throws -> Success
    ) -> Task<Success, any Error> {
      // Never refused: a key replaces.
      launched(key: key, label: label, file: file, line: line, operation) {
        launch, name, operation in
        if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) {
          Task.immediate(name: name, priority: priority) {
            try await launch.run(isolation: isolation, operation)
          }
        } else {
          Task.named(name, priority: priority) { try await launch.run(isolation: nil, operation) }
        }
      }!
    }

    /// Starts a non-throwing task bound to the bag that runs at once, on the calling thread,
    /// until its first suspension.
    ///
    /// Keeps its call site (see <doc:Contracts#Call-sites>).
    ///
    /// The same as the throwing form, including on systems before iOS 26 / macOS 26, where it
    /// starts enqueued.
    ///
    /// ```swift
    /// cancelBag.immediateTask { [weak self] in
    ///   self?.phase = .loading  // before this call returns, from iOS 26 / macOS 26
    ///   for await value in updates { self?.apply(value) }
    /// }
    /// ```
    @inlinable @discardableResult
    public func immediateTask<Success: Sendable>(
      key: (any Hashable & Sendable)? = nil, label: String? = nil, priority: TaskPriority? = nil,
      file: StaticString = #fileID, line: UInt = #line,
      isolation: isolated (any Actor)? = #isolation,
      @_inheritActorContext operation: sending @escaping @isolated(any) () async -> Success
    ) -> Task<Success, Never> {
      // Never refused: a key replaces.
      launched(key: key, label: label, file: file, line: line, operation) {
        launch, name, operation in
        if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) {
          Task.immediate(name: name, priority: priority) {
            await launch.run(isolation: isolation, operation)
          }
        } else {
          Task.named(name, priority: priority) { await launch.run(isolation: nil, operation) }
        }
      }!
    }

    /// Starts a task bound to the bag under `key`, by `policy`, that runs at once, on the
    /// calling thread, until its first suspension, if the policy lets it start now.
    ///
    /// Keeps its call site (see <doc:Contracts#Call-sites>).
    ///
    /// ``task(key:policy:label:priority:file:line:operation:)`` started as
    /// ``immediateTask(key:label:priority:file:line:isolation:operation:)->Task<Success,Error>`` starts:
    /// a launch that waits for its turn (``KeyPolicy/enqueue``) suspends at once, and runs on
    /// its actor once let through; `nil` when the policy refuses it.
    ///
    /// ```swift
    /// @MainActor func saveTapped() {
    ///   cancelBag.immediateTask(key: "save", policy: .ignoreNew) { [weak self, draft] in
    ///     self?.isSaving = true  // before this call returns, from iOS 26 / macOS 26
    ///     defer { self?.isSaving = false }
    ///     try await api.save(draft)
    ///   }
    /// }
    /// ```
    @inlinable @discardableResult
    public func immediateTask<Success: Sendable>(
      key: any Hashable & Sendable, policy: KeyPolicy, label: String? = nil,
      priority: TaskPriority? = nil, file: StaticString = #fileID, line: UInt = #line,
      isolation: isolated (any Actor)? = #isolation,
      @_inheritActorContext operation: sending @escaping @isolated(any) () async throws -> Success
    ) -> Task<Success, any Error>? {
      launched(key: key, label: label, policy: policy, file: file, line: line, operation) {
        launch, name, operation in
        if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) {
          Task.immediate(name: name, priority: priority) {
            try await launch.runIfStarted(isolation: isolation, operation)
          }
        } else {
          Task.named(name, priority: priority) {
            try await launch.runIfStarted(isolation: nil, operation)
          }
        }
      }
    }
  }
#endif

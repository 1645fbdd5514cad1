/// Deadlines: bags and items that give up when time runs out.
@available(macOS 13.0, iOS 16.0, tvOS 16.0, watchOS 9.0, *)
extension CancelBag {
  /// Ends the bag, with reason ``CancellationReason/timedOut``, once `duration` has passed on
  /// `clock`: the continuous clock unless you pass one (a test's manual clock, say).
  ///
  /// A later call replaces the deadline. The timer (one sleeping task) is stopped when the bag
  /// ends for any reason, and a bag without a deadline has none. If the bag has ended,
  /// nothing happens.
  ///
  /// ```swift
  /// let checkoutBag = CancelBag(parent: cancelBag)
  /// checkoutBag.setDeadline(after: .seconds(30))
  /// ```
  public func setDeadline<C: Clock>(
    after duration: C.Duration, tolerance: C.Duration? = nil, clock: C = ContinuousClock()
  ) {
    let core = self.core
    let timer = startDeadlineTimer(after: duration, tolerance: tolerance, clock: clock) {
      core.end(reason: .timedOut, trigger: .deadline)
    }
    core.setDeadlineTimer(timer)
  }

  /// Starts a task bound to the bag that is cancelled, with reason
  /// ``CancellationReason/timedOut``, if it has not finished after `timeout`.
  ///
  /// Keeps its call site (see <doc:Contracts#Call-sites>).
  ///
  /// Otherwise the same as ``task(key:label:priority:file:line:operation:)->Task<Success,Error>``.
  ///
  /// ```swift
  /// cancelBag.task(timeout: .seconds(10)) { try await api.profile() }
  /// ```
  @discardableResult
  public func task<Success: Sendable>(
    key: (any Hashable & Sendable)? = nil, label: String? = nil, timeout: Duration,
    priority: TaskPriority? = nil, file: StaticString = #fileID, line: UInt = #line,
    @_inheritActorContext operation: sending @escaping @isolated(any) () async throws -> Success
  ) -> Task<Success, any Error> {
    // Never refused: a key replaces.
    launched(key: key, label: label, file: file, line: line, operation) { launch, name, operation in
      Task.named(name, priority: priority) { try await launch.run(isolation: nil, operation) }
    } attached: {
      $0.registration.cancel(after: timeout)
    }!
  }

  /// Starts a non-throwing task bound to the bag, cancelled if it has not finished after
  /// `timeout`.
  ///
  /// Keeps its call site (see <doc:Contracts#Call-sites>).
  ///
  /// ```swift
  /// cancelBag.task(timeout: .seconds(5)) { await cache.warmUp() }
  /// ```
  @discardableResult
  public func task<Success: Sendable>(
    key: (any Hashable & Sendable)? = nil, label: String? = nil, timeout: Duration,
    priority: TaskPriority? = nil, file: StaticString = #fileID, line: UInt = #line,
    @_inheritActorContext operation: sending @escaping @isolated(any) () async -> Success
  ) -> Task<Success, Never> {
    // Never refused: a key replaces.
    launched(key: key, label: label, file: file, line: line, operation) { launch, name, operation in
      Task.named(name, priority: priority) { await launch.run(isolation: nil, operation) }
    } attached: {
      $0.registration.cancel(after: timeout)
    }!
  }
}

@available(macOS 13.0, iOS 16.0, tvOS 16.0, watchOS 9.0, *)
extension CancelRegistration {
  /// Cancels the work, with reason ``CancellationReason/timedOut``, if it is still in flight
  /// once `duration` has passed on `clock`: the continuous clock unless you pass one.
  ///
  /// The timer stops as soon as the work ends (finished or cancelled), and a later call
  /// replaces it. Does nothing if the work already ended.
  ///
  /// ```swift
  /// cancelBag.add(request).cancel(after: .seconds(15))
  /// ```
  public func cancel<C: Clock>(
    after duration: C.Duration, tolerance: C.Duration? = nil, clock: C = ContinuousClock()
  ) {
    let registration = self
    let timer = startDeadlineTimer(after: duration, tolerance: tolerance, clock: clock) {
      registration.core.cancel(registration.ticket, reason: .timedOut, trigger: .deadline)
    }
    core.setTimer(timer, for: ticket)
  }
}

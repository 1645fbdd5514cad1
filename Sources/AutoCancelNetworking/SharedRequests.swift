import AutoCancel

/// Runs one request per key for many callers, and cancels it only when every caller is gone.
///
/// Several owners often want the same thing at once: two screens showing the same avatar,
/// a list and its detail page loading the same record. `SharedRequests` runs the request
/// once per key and hands the value to every caller that asked for it while it ran
/// (late joiners included). Cancellation is reference-counted:
///
/// - A caller whose task is cancelled (its bag ended, its screen went away) stops waiting at
///   once with `CancellationError`; the others keep waiting, unaffected.
/// - The request itself is cancelled, with reason `CancellationReason.ownerGone`, only when
///   the last caller waiting for it has gone.
/// - Once the request completes, its key is free: the next call starts a new request.
///
/// ```swift
/// let avatars = SharedRequests<UserID, Image>()
///
/// // In each screen that shows the avatar:
/// cancelBag.task { [weak self] in
///   let image = try await avatars.value(for: user.id) { try await api.avatar(user.id) }
///   self?.show(image)
/// }
/// ```
///
/// Thread-safe; call from any task.
public final class SharedRequests<Key: Hashable & Sendable, Value: Sendable>: Sendable {
  private let state = Locked(State())
  private let bag = CancelBag(label: "SharedRequests")

  /// Makes an empty set of shared requests.
  public init() {}

  /// The number of requests running now, one per key. For tests.
  @_spi(Testing)
  public var count: Int {
    state.withLock { state in state.entries.values.count { $0.result == nil } }
  }

  /// How many callers share the request running for `key` now: waiting for it, or joining.
  ///
  /// Zero when no request runs for `key`. A snapshot, for tests: import the module with
  /// `@_spi(Testing) import AutoCancel` to see it.
  ///
  /// ```swift
  /// await waitUntil("both screens wait") { avatars.callerCount(for: user.id) == 2 }
  /// ```
  @_spi(Testing)
  public func callerCount(for key: Key) -> Int {
    state.withLock { state in
      guard let entry = state.entries[key], entry.result == nil else { return 0 }
      return entry.sharers
    }
  }

  /// The value for `key`: from the request already running for it, or from `operation`,
  /// started now and shared with every caller that asks for `key` until it completes.
  ///
  /// If the calling task is cancelled, this throws `CancellationError` at once, without
  /// waiting for the request; the request goes on for the other callers, and is cancelled
  /// when none is left. If the request fails, every caller waiting for it gets its error.
  ///
  /// ```swift
  /// let profile = try await profiles.value(for: id) { try await api.profile(id) }
  /// ```
  public func value(
    for key: Key, operation: @escaping @Sendable () async throws -> Value
  ) async throws -> Value {
    try await value(for: key, whenJoining: nil, operation: operation)
  }

  /// ``value(for:operation:)``, calling `whenJoining`, after the lock, when the caller joins
  /// the request already running for `key` instead of starting one: the seam through which
  /// AutoCancelNetworking counts shared downloads.
  package func value(
    for key: Key, whenJoining: (() -> Void)?,
    operation: @escaping @Sendable () async throws -> Value
  ) async throws -> Value {
    let (entryID, waiterID, starts) = state.withLock { $0.join(key) }
    if starts {
      start(key, entryID, operation)
    } else {
      whenJoining?()
    }
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        let outcome = state.withLock {
          $0.register(continuation, key: key, entryID: entryID, waiterID: waiterID)
        }
        if let outcome { continuation.resume(with: outcome) }
      }
    } onCancel: {
      leave(key, entryID, waiterID)
    }
  }

  private func start(
    _ key: Key, _ entryID: UInt64, _ operation: @escaping @Sendable () async throws -> Value
  ) {
    let registration = bag.launch { [state] in
      let result: Result<Value, any Error>
      do {
        result = .success(try await operation())
      } catch {
        result = .failure(error)
      }
      let waiters = state.withLock { $0.complete(key, entryID, with: result) }
      for waiter in waiters { waiter.resume(with: result) }
    }
    let abandoned = state.withLock { $0.setRegistration(registration, key: key, entryID: entryID) }
    if abandoned { registration.cancel(reason: .ownerGone) }
  }

  private func leave(_ key: Key, _ entryID: UInt64, _ waiterID: UInt64) {
    let (waiter, abandoned) = state.withLock { $0.leave(key, entryID, waiterID) }
    waiter?.resume(throwing: CancellationError())
    abandoned?.cancel(reason: .ownerGone)
  }
}

extension SharedRequests {
  typealias Waiter = CheckedContinuation<Value, any Error>

  /// One request and the callers interested in it.
  struct Entry: Sendable {
    let id: UInt64
    /// Callers interested: waiting, or joined and about to wait.
    var sharers = 1
    var waiters: [UInt64: Waiter] = [:]
    /// Callers that left before they started waiting.
    var leftEarly: Set<UInt64> = []
    var registration: CancelRegistration?
    /// Kept until every joined caller has collected it.
    var result: Result<Value, any Error>?
  }

  struct State: Sendable {
    var entries: [Key: Entry] = [:]
    var nextID: UInt64 = 1

    /// Joins the request for `key`, or makes one; `starts` says the caller must start it.
    mutating func join(_ key: Key) -> (entryID: UInt64, waiterID: UInt64, starts: Bool) {
      let waiterID = nextID
      nextID += 1
      if var entry = entries[key] {
        entry.sharers += 1
        entries[key] = entry
        return (entry.id, waiterID, false)
      }
      entries[key] = Entry(id: waiterID)
      return (waiterID, waiterID, true)
    }

    /// Starts waiting; returns the outcome at once if the caller left or the result is in.
    mutating func register(
      _ waiter: Waiter, key: Key, entryID: UInt64, waiterID: UInt64
    ) -> Result<Value, any Error>? {
      guard var entry = entries[key], entry.id == entryID else {
        return .failure(CancellationError())  // it left, and the request was abandoned
      }
      if entry.leftEarly.remove(waiterID) != nil {
        entries[key] = entry
        return .failure(CancellationError())
      }
      if let result = entry.result {
        entry.sharers -= 1
        entries[key] = entry.sharers == 0 ? nil : entry
        return result
      }
      entry.waiters[waiterID] = waiter
      entries[key] = entry
      return nil
    }

    /// A caller's task was cancelled: it stops waiting; the request is abandoned (returned,
    /// to cancel) if nobody else is interested.
    mutating func leave(
      _ key: Key, _ entryID: UInt64, _ waiterID: UInt64
    ) -> (waiter: Waiter?, abandoned: CancelRegistration?) {
      guard var entry = entries[key], entry.id == entryID else { return (nil, nil) }
      let waiter = entry.waiters.removeValue(forKey: waiterID)
      if waiter == nil {
        if entry.result != nil { return (nil, nil) }  // it collects the result itself
        entry.leftEarly.insert(waiterID)
      }
      entry.sharers -= 1
      guard entry.sharers == 0 else {
        entries[key] = entry
        return (waiter, nil)
      }
      entries[key] = nil
      return (waiter, entry.result == nil ? entry.registration : nil)
    }

    /// Records the registration of the request's task; true if everyone left already.
    mutating func setRegistration(
      _ registration: CancelRegistration, key: Key, entryID: UInt64
    ) -> Bool {
      guard var entry = entries[key], entry.id == entryID else { return true }
      entry.registration = registration
      entries[key] = entry
      return false
    }

    /// The request completed: returns the callers to resume; keeps the result for callers
    /// that joined but do not wait yet.
    mutating func complete(
      _ key: Key, _ entryID: UInt64, with result: Result<Value, any Error>
    ) -> [Waiter] {
      guard var entry = entries[key], entry.id == entryID else { return [] }
      let waiters = Array(entry.waiters.values)
      entry.waiters = [:]
      entry.sharers -= waiters.count
      entry.result = result
      entries[key] = entry.sharers == 0 ? nil : entry
      return waiters
    }
  }
}

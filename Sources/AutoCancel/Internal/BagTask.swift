/// A task a bag launches: its cancellation, its registration and, under a key, its turn.
///
/// Made before the task exists (`CancelBag.prepareTask`), so that the task can end its own
/// registration, and captured by the task's operation, whose body is `run` (launches without
/// a policy) or `runIfStarted` (launches with one). An operation that throws an error other
/// than a cancellation ends the registration as failed, so that observers hear of it.
///
/// Usable from inline code, with its members, for the inlinable launchers, which are
/// specialized for each caller's task type.
@usableFromInline
struct BagTask: Sendable {
  /// What the bag cancels, and what tells the task the bag's reason.
  @usableFromInline let cancellation: TaskCancellation
  /// The task's registration; inactive if the bag had ended.
  @usableFromInline let registration: CancelRegistration
  /// The task's place under its key; nil for a task without a key.
  @usableFromInline let turn: KeyTurn?

  @usableFromInline
  init(cancellation: TaskCancellation, registration: CancelRegistration, turn: KeyTurn?) {
    self.cancellation = cancellation
    self.registration = registration
    self.turn = turn
  }

  /// The body of a task launched without a policy: runs `operation` on `isolation`, even when
  /// the task was cancelled first (it then starts cancelled), and ends the task's run.
  @inlinable
  func run<Success: Sendable>(
    isolation: isolated (any Actor)?, _ operation: @isolated(any) () async throws -> Success
  ) async rethrows -> Success {
    cancellation.begin()
    return try await runToTheEnd(isolation: isolation, operation)
  }

  /// The body of a task launched with a policy: waits for the task's turn, runs `operation` on
  /// `isolation` only if the task was let through and is not cancelled, else throws
  /// `CancellationError`, and ends the task's run.
  @inlinable
  func runIfStarted<Success: Sendable>(
    isolation: isolated (any Actor)?, _ operation: @isolated(any) () async throws -> Success
  ) async throws -> Success {
    guard await starts(isolation: isolation) else {
      returned()
      throw CancellationError()
    }
    return try await runToTheEnd(isolation: isolation, operation)
  }

  /// Runs `operation` and ends the task's run with what it did: returned, or threw (a failure
  /// unless it is a cancellation).
  @inlinable
  func runToTheEnd<Success: Sendable>(
    isolation: isolated (any Actor)?, _ operation: @isolated(any) () async throws -> Success
  ) async rethrows -> Success {
    let value: Success
    do {
      value = try await operation()
    } catch {
      returned(throwing: error)
      throw error
    }
    returned()
    return value
  }

  /// Waits for the task's turn under its key, then says whether its operation may start: it was
  /// let through and nobody cancelled it meanwhile. Begins the task's run when it was let
  /// through.
  ///
  /// Isolated to the caller's isolation, so that a task let through at once starts its
  /// operation without leaving the caller's executor (an immediate task runs it inline).
  @inlinable
  func starts(isolation: isolated (any Actor)?) async -> Bool {
    if let turn {
      var admitted = registration.core.admission(of: turn)
      if admitted == nil {
        admitted = await registration.core.awaitTurn(turn, ticket: registration.ticket)
      }
      guard admitted == true else { return false }
    }
    cancellation.begin()
    return !Task.isCancelled
  }

  /// The task's run is over: withdraws the bag's reason from it, finishes its registration, and
  /// gives its key back, in one trip to the bag's lock.
  @inlinable
  func returned() {
    registration.core.taskEnded(
      registration.ticket, cancellation: cancellation, turn: turn, failure: nil)
  }

  /// The task's run is over because its operation threw `error`: as ``returned()``, but a
  /// registration still in flight ends as failed, unless `error` is a cancellation.
  ///
  /// Not inlinable: only the throwing path pays for it, and the error's check.
  @usableFromInline
  func returned(throwing error: any Error) {
    registration.core.taskEnded(
      registration.ticket, cancellation: cancellation, turn: turn,
      failure: error.isCancellation ? nil : error)
  }

  /// The name of a task launched under a key (SE-0469): `label [key]`, or `[key]`.
  static func name(label: String?, key: any Hashable & Sendable) -> String {
    let key = "[\(String(describing: key))]"
    return label.map { "\($0) \(key)" } ?? key
  }
}

/// What a bag holds for a task it launched: the task (once it exists), where the task is in
/// its run, and the reason the bag cancelled it (once it did).
///
/// The bag registers this before the task exists, so that the task can finish its own
/// registration; a cancel that arrives in between is kept and applied by `attach`.
///
/// ``CancellationReason/current`` finds the reason by the identity of the task that asks, in
/// a table that holds only bag tasks that their bag cancelled and that are still running. A
/// task-local would be found without a table, but binding one costs every launch (a copy
/// into the new task, or an async frame around the operation) and is inherited by every
/// task made inside, which must not read the reason; the table costs only cancelled tasks.
///
/// Usable from inline code, with `init`, `attach`, `begin`, `end` and the cancel methods, for
/// the inlinable `CancelBag.launch`, which is specialized for each caller's task type.
@usableFromInline
final class TaskCancellation: ReasonAwareCancellable, WrappingWork, StopReporting {
  /// Stored as it is, flagged for the watch of overdue work: its task can tell that it
  /// stopped. Its own witness, as the class default cannot know.
  @usableFromInline
  static func _add(_ work: TaskCancellation, to insertion: _BagInsertion) -> CancelRegistration {
    insertion.addWatchable(work)
  }

  /// Where the bag task is in its run.
  enum Run: Sendable {
    /// `begin` has not run yet.
    case notStarted
    /// Between `begin` and `end`. `identity` is the hash of the task's `UnsafeCurrentTask`;
    /// `published` says that the bag's reason is in `cancelledTasks` under it.
    case running(identity: Int, published: Bool)
    /// `end` has run: the task may be gone, and its identity reused by a newer task.
    case ended
  }

  struct State: Sendable {
    /// The task once it exists, and the reason once the bag cancelled it.
    var latch = CancelLatch<any CancellableTask, CancellationReason>()
    var run = Run.notStarted
    /// The task was cancelled through its handle before the bag cancelled it: the bag's
    /// reason is not why it stopped, and is never published.
    var cancelledElsewhere = false

    var reason: CancellationReason? { latch.cancellationReason }

    /// Makes `reason` what ``CancellationReason/current`` answers in the task, if it runs.
    ///
    /// Takes the table's lock inside the cancellation's: that is the only order in which the
    /// two are ever nested, and neither runs other code while held.
    mutating func publish(_ reason: CancellationReason) {
      guard case .running(let identity, published: false) = run else { return }
      TaskCancellation.cancelledTasks.withLock { $0[identity] = reason }
      run = .running(identity: identity, published: true)
    }
  }

  /// The bag's reason for each running bag task that its bag cancelled, by task identity.
  ///
  /// An entry lives from the bag's cancel (or the task's `begin`, when the cancel came
  /// first) to the task's `end`, both under the task's cancellation lock, so the task it
  /// names is alive and no other task has its identity. Process-wide because
  /// `CancellationReason.current` is asked from inside the task, which knows only itself
  /// (`withUnsafeCurrentTask`), not its bag; a task-local box would cost every launch a
  /// `withValue` binding (BENCHMARKS.md), where the table costs only the tasks cancelled.
  private static let cancelledTasks = Locked<[Int: CancellationReason]>([:])

  private let locked = Locked(State())

  /// A cancellation with no task yet: `attach` gives it one.
  @usableFromInline
  init() {}

  private func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
    try locked.withLock(body)
  }

  /// Gives the task to cancel; cancels it at once if a cancel came first.
  @usableFromInline
  func attach(_ task: some CancellableTask) {
    switch withLock({ $0.latch.attach(task) }) {
    case .proceed: break
    case .cancel(let task, _): task.cancel()
    }
  }

  /// Called by the bag task before its operation: records which task it is, and cancels it
  /// if a cancel came first (so that the operation never starts uncancelled on an ended bag;
  /// `attach` alone may run after the operation started).
  @usableFromInline
  func begin() {
    withUnsafeCurrentTask { task in
      guard let task else { return }
      let cancelledFirst = withLock { state -> Bool in
        state.run = .running(identity: task.hashValue, published: false)
        guard let reason = state.reason else { return false }
        if !state.cancelledElsewhere { state.publish(reason) }
        return true
      }
      if cancelledFirst { task.cancel() }
    }
  }

  /// Called by the bag task after its operation, before it finishes its registration.
  @usableFromInline
  func end() {
    withLock { state in
      if case .running(let identity, published: true) = state.run {
        TaskCancellation.cancelledTasks.withLock { $0[identity] = nil }
      }
      state.run = .ended
    }
  }

  /// Why its bag cancelled the bag task running now; nil in any other task, and in a bag
  /// task that was cancelled through its handle first or not at all.
  static func reasonForCurrentTask() -> CancellationReason? {
    guard let identity = withUnsafeCurrentTask(body: { $0?.hashValue }) else { return nil }
    return cancelledTasks.withLock { $0[identity] }
  }

  /// Cancels with ``CancellationReason/explicit``.
  @usableFromInline
  func cancel() { cancel(reason: .explicit) }

  /// Records `reason` and cancels the task, or keeps the reason for `attach` when the task
  /// does not exist yet. A task already cancelled through its handle is left as it is, and
  /// ``CancellationReason/current`` stays nil in it.
  @usableFromInline
  func cancel(reason: CancellationReason) {
    let task = withLock { state -> (any CancellableTask)? in
      let task: (any CancellableTask)?
      switch state.latch.cancel(reason) {
      case .none: return nil
      case .cancelWhenAttached: task = nil
      case .cancel(let attached):
        // Only its handle can cancel the task between `attach` and now (the launcher returns
        // the handle after `attach`, and the bag cancels through this method): if it is
        // cancelled already, the bag's reason is not why it stopped. Deciding this under the
        // lock that records the reason orders it with a handle cancel racing with this one.
        if attached.isCancelled {
          state.cancelledElsewhere = true
          return nil
        }
        task = attached
      }
      // Published before the task is cancelled, so that the task finds the reason as soon
      // as it sees the cancellation.
      state.publish(reason)
      return task
    }
    task?.cancel()
  }

  var reason: CancellationReason? { withLock { $0.reason } }

  /// Whether the bag task's run is over (`end` ran), for the watch of overdue work.
  var hasStopped: Bool {
    withLock { state in
      if case .ended = state.run { return true }
      return false
    }
  }

  var wrappedTypeName: String {
    withLock { $0.latch.attachedWork.map { String(describing: type(of: $0)) } } ?? "Task"
  }
}

/// A task handle a `TaskCancellation` can cancel and ask whether it was cancelled.
///
/// Usable from inline code, for the inlinable `CancelBag.launch`.
@usableFromInline
protocol CancellableTask: AutoCancellable {
  var isCancelled: Bool { get }
}

extension Task: CancellableTask {}

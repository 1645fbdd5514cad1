/// What a bag holds for a task it launched: the task (once it exists) and the reason it
/// was cancelled (once it is).
///
/// The bag registers this before the task exists, so that the task can finish its own
/// registration; a cancel that arrives in between is kept and applied by `attach`.
final class TaskCancellation: ReasonAwareCancellable, WrappingWork {
  struct State: Sendable {
    /// The task once it exists, and the reason once the bag cancelled it.
    var latch = CancelLatch<any CancellableTask, CancellationReason>()
    /// The hash of the running bag task's `UnsafeCurrentTask`, while its operation runs: the
    /// one task whose cancellation this records. Other tasks that inherit `current` (an
    /// unstructured `Task {}` made inside, a child task) compare unequal.
    var runningTask: Int?
    /// The task was cancelled through its handle before the bag cancelled it: the bag's
    /// reason is not why it stopped.
    var cancelledElsewhere = false

    var reason: CancellationReason? { latch.cancellationReason }
  }

  /// The cancellation of the bag task running now, if any.
  @TaskLocal static var current: TaskCancellation?

  private let locked = Locked(State())

  private func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
    try locked.withLock(body)
  }

  /// Gives the task to cancel; cancels it at once if a cancel came first.
  func attach(_ task: some CancellableTask) {
    switch withLock({ $0.latch.attach(task) }) {
    case .proceed: break
    case .cancel(let task, _): task.cancel()
    }
  }

  /// Called by the bag task first: records which task it is, and cancels it if a cancel came
  /// before `attach` (so that the operation never starts uncancelled; `attach` alone may run
  /// after the operation started).
  ///
  /// The task then runs its operation with ``current`` bound to this cancellation, inside the
  /// task rather than around its creation: a new task copies its creator's task-locals, which
  /// would cost every launch an allocation and a set of keys.
  func begin() {
    withUnsafeCurrentTask { task in
      let identity = task?.hashValue
      let cancelledFirst = withLock { state in
        state.runningTask = identity
        return state.reason != nil
      }
      if cancelledFirst { task?.cancel() }
    }
  }

  /// Called by the bag task last: other tasks that inherited ``current`` may outlive it, and
  /// a task made later may reuse its identity.
  func end() {
    withLock { $0.runningTask = nil }
  }

  /// Why the bag cancelled the task running now, if this is the bag's task and the bag
  /// cancelled it.
  func reasonForCurrentTask() -> CancellationReason? {
    let identity = withUnsafeCurrentTask { $0?.hashValue }
    return withLock { state in
      guard !state.cancelledElsewhere, let identity, state.runningTask == identity else {
        return nil
      }
      return state.reason
    }
  }

  func cancel() { cancel(reason: .explicit) }

  func cancel(reason: CancellationReason) {
    let task = withLock { state -> (any CancellableTask)? in
      guard case .cancel(let task) = state.latch.cancel(reason) else { return nil }
      // Only its handle can cancel the task between `attach` and now (the launcher returns the
      // handle after `attach`, and the bag cancels through this method): if it is cancelled
      // already, the bag's reason is not why it stopped. Deciding this under the lock that
      // records the reason orders it with a handle cancel that races with this one.
      if task.isCancelled {
        state.cancelledElsewhere = true
        return nil
      }
      return task
    }
    task?.cancel()
  }

  var reason: CancellationReason? { withLock { $0.reason } }

  var wrappedTypeName: String {
    withLock { $0.latch.attachedWork.map { String(describing: type(of: $0)) } } ?? "Task"
  }
}

/// A task handle a `TaskCancellation` can cancel and ask whether it was cancelled.
protocol CancellableTask: AutoCancellable {
  var isCancelled: Bool { get }
}

extension Task: CancellableTask {}

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
/// Its state is guarded by its bag's lock rather than a lock of its own: a launch then makes one
/// object fewer, and the end of the task's run and the end of its registration are one trip to
/// the lock (`BagCore.taskEnded`).
///
/// Usable from inline code, with `init`, `attach`, `begin` and the cancel methods, for the
/// inlinable `CancelBag.launch`, which is specialized for each caller's task type.
@usableFromInline
final class TaskCancellation: ReasonAwareCancellable, WrappingWork, StopReporting,
  @unchecked Sendable
{
  // Safety: `state` is touched only under the lock of `core`, its bag's; `core` never changes.
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
    /// Between `begin` and `end`. `published` is the task's identity (the hash of its
    /// handle) once the bag's reason is in `cancelledTasks` under it.
    case running(published: Int?)
    /// `end` has run: the task may be gone, and its identity reused by a newer task.
    case ended
  }

  struct State: Sendable {
    /// The task once it exists, and the reason once the bag cancelled it.
    var latch = CancelLatch<TaskHandle, CancellationReason>()
    var run = Run.notStarted
    /// The task was cancelled through its handle before the bag cancelled it: the bag's
    /// reason is not why it stopped, and is never published.
    var cancelledElsewhere = false

    var reason: CancellationReason? { latch.cancellationReason }

    /// Makes `reason` what ``CancellationReason/current`` answers in the task, which is
    /// `identity`, if it runs and nothing was published for it yet.
    ///
    /// Takes the table's lock inside the cancellation's: that is the only order in which the
    /// two are ever nested, and neither runs other code while held.
    mutating func publish(_ reason: CancellationReason, identity: @autoclosure () -> Int) {
      guard case .running(published: nil) = run, !cancelledElsewhere else { return }
      let identity = identity()
      TaskCancellation.cancelledTasks.withLock { $0[identity] = reason }
      run = .running(published: identity)
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

  /// The bag's core, whose lock guards `state`.
  @usableFromInline let core: BagCore
  /// Unchecked by the runtime: the lock of `core` orders every access, and each of the three
  /// accesses of a launch (`attach`, `begin`, the end of its run) cost a dynamic exclusivity
  /// check, about 75 instructions each (callgrind, release).
  @exclusivity(unchecked) private var state = State()

  /// A cancellation with no task yet, for a task of the bag of `core`: `attach` gives it one.
  @usableFromInline
  init(core: BagCore) {
    self.core = core
  }

  private func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
    try core.withLock { _ in try body(&state) }
  }

  /// Gives the task to cancel; cancels it at once if a cancel came first.
  @inlinable
  func attach<Success, Failure>(_ task: Task<Success, Failure>) {
    attach(TaskHandle(task))
  }

  /// Gives the task to cancel, as its handle; cancels it at once, with the bag's reason
  /// published, if a cancel came first.
  @usableFromInline
  func attach(_ handle: TaskHandle) {
    let action = withLock { state in
      let action = state.latch.attach(handle)
      if case .cancel(let task, let reason) = action {
        state.publish(reason, identity: task.identity)
      }
      return action
    }
    if case .cancel(let task, _) = action { task.cancel() }
  }

  /// Called by the bag task before its operation: notes that it runs, and cancels it if a
  /// cancel came first (so that the operation never starts uncancelled on an ended bag;
  /// `attach` alone may run after the operation started).
  ///
  /// The task's identity is taken only then: hashing it costs more than the rest of `begin`,
  /// and a task that is never cancelled never needs it.
  @usableFromInline
  func begin() {
    let cancelledFirst = withLock { state -> Bool in
      state.run = .running(published: nil)
      return state.reason != nil
    }
    guard cancelledFirst else { return }
    withUnsafeCurrentTask { task in
      guard let task else { return }
      withLock { state in
        if let reason = state.reason { state.publish(reason, identity: task.hashValue) }
      }
      task.cancel()
    }
  }

  /// The bag task's run is over: withdraws the bag's reason from it. Called under the bag's
  /// lock, by `BagCore.taskEnded`, as the task's registration ends.
  func endUnderLock() {
    if case .running(published: let identity?) = state.run {
      TaskCancellation.cancelledTasks.withLock { $0[identity] = nil }
    }
    state.run = .ended
  }

  /// ``endUnderLock()``, taking the lock: for a run that ends apart from its registration.
  func end() {
    core.withLock { _ in endUnderLock() }
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
    let task = withLock { state -> TaskHandle? in
      switch state.latch.cancel(reason) {
      case .none, .cancelWhenAttached:
        // Without a task yet, `attach` cancels it and publishes the reason.
        return nil
      case .cancel(let attached):
        // Only its handle can cancel the task between `attach` and now (the launcher returns
        // the handle after `attach`, and the bag cancels through this method): if it is
        // cancelled already, the bag's reason is not why it stopped. Deciding this under the
        // lock that records the reason orders it with a handle cancel racing with this one.
        if attached.isCancelled {
          state.cancelledElsewhere = true
          return nil
        }
        // Published before the task is cancelled, so that the task finds the reason as soon
        // as it sees the cancellation.
        state.publish(reason, identity: attached.identity)
        return attached
      }
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
    withLock { $0.latch.attachedWork.map { String(describing: $0.type) } } ?? "Task"
  }
}

/// A bag task's handle, whatever its `Success` and `Failure`: what a `TaskCancellation`
/// cancels, asks whether it was cancelled, and names.
///
/// Held as a `Task<Never, Never>`: a `Task` is a frozen struct of one reference to the
/// runtime's task, the same for every `Success` and `Failure`, and `cancel()`, `isCancelled`
/// and the hash do not depend on them. Kept as an existential instead, every copy went
/// through the value witnesses of the task's type: about 900 instructions per launch
/// (callgrind, release).
@usableFromInline
struct TaskHandle: Sendable {
  /// The task, its type erased.
  @usableFromInline let task: Task<Never, Never>
  /// The task's own type, for its description.
  @usableFromInline let type: Any.Type

  @inlinable
  init<Success, Failure>(_ task: Task<Success, Failure>) {
    // Same layout, whatever the generic arguments (see above).
    self.task = unsafeBitCast(task, to: Task<Never, Never>.self)
    type = Task<Success, Failure>.self
  }

  func cancel() { task.cancel() }

  var isCancelled: Bool { task.isCancelled }

  /// What ``CancellationReason/current`` finds the task by: the hash of its handle, which is
  /// that of `UnsafeCurrentTask` inside it.
  var identity: Int { task.hashValue }
}

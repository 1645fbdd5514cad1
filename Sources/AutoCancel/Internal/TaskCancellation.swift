/// What a bag holds for a task it launched: the task (once it exists) and the reason it
/// was cancelled (once it is).
///
/// The bag registers this before the task exists, so that the task can finish its own
/// registration; a cancel that arrives in between is kept and applied by `attach`.
final class TaskCancellation: ReasonAwareCancellable, WrappingWork {
  struct State: Sendable {
    /// The task once it exists, and the reason once the bag cancelled it.
    var latch = CancelLatch<any AutoCancellable, CancellationReason>()
    /// The hash of the running bag task's `UnsafeCurrentTask`, while its operation runs: the
    /// one task whose cancellation this records. Other tasks that inherit `current` (an
    /// unstructured `Task {}` made inside, a child task) compare unequal.
    var runningTask: Int?
    /// The task was cancelled by someone other than the bag (through its handle) before the
    /// bag cancelled it: the bag's later reason is not why it stopped.
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
  func attach(_ task: some AutoCancellable) {
    switch withLock({ $0.latch.attach(task) }) {
    case .proceed: break
    case .cancel(let task, _): task.cancel()
    }
  }

  /// Runs the bag task's operation: records which task it is, cancels it first if a cancel
  /// came before `attach` (so that the operation never starts uncancelled; `attach` alone may
  /// run after the operation started), and notices a cancel that did not come from the bag.
  func run<Success>(
    _ operation: () async throws -> Success
  ) async rethrows -> Success {
    let cancelledFirst = withUnsafeCurrentTask { task -> Bool in
      let identity = task?.hashValue
      return withLock { state in
        state.runningTask = identity
        return state.reason != nil
      }
    }
    if cancelledFirst { withUnsafeCurrentTask { $0?.cancel() } }
    defer { withLock { $0.runningTask = nil } }
    return try await withTaskCancellationHandler {
      try await operation()
    } onCancel: {
      // The bag records its reason before it cancels the task, so no reason yet means the
      // task was cancelled through its handle.
      withLock { state in
        if state.reason == nil { state.cancelledElsewhere = true }
      }
    }
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
    if case .cancel(let task) = withLock({ $0.latch.cancel(reason) }) { task.cancel() }
  }

  var reason: CancellationReason? { withLock { $0.reason } }

  var wrappedTypeName: String {
    withLock { $0.latch.attachedWork.map { String(describing: type(of: $0)) } } ?? "Task"
  }
}

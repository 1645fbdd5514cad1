/// What a bag holds for a task it launched: the task (once it exists) and the reason it
/// was cancelled (once it is).
///
/// The bag registers this before the task exists, so that the task can finish its own
/// registration; a cancel that arrives in between is kept and applied by `attach`.
final class TaskCancellation: Locked<CancelLatch<any AutoCancellable, CancellationReason>>,
  AutoCancellable, WrappingWork, @unchecked Sendable
{
  // Safety: all state is in the latch, touched only inside `withLock`.

  /// The cancellation of the bag task running now, if any.
  @TaskLocal static var current: TaskCancellation?

  init() {
    super.init(state: CancelLatch())
  }

  /// Gives the task to cancel; cancels it at once if a cancel came first.
  func attach(_ task: some AutoCancellable) {
    switch withLock({ $0.attach(task) }) {
    case .proceed: break
    case .cancel(let task, _): task.cancel()
    }
  }

  /// Called first thing inside the task: if a cancel came before `attach` (the bag had
  /// ended, or ended meanwhile), cancels the running task now, so that the operation never
  /// starts uncancelled; `attach` alone may run after the operation started.
  func cancelCurrentTaskIfCancelled() {
    if reason != nil { withUnsafeCurrentTask { $0?.cancel() } }
  }

  func cancel() { cancel(reason: .explicit) }

  func cancel(reason: CancellationReason) {
    if case .cancel(let task) = withLock({ $0.cancel(reason) }) { task.cancel() }
  }

  var reason: CancellationReason? { withLock { $0.cancellationReason } }

  var wrappedTypeName: String {
    withLock { $0.attachedWork.map { String(describing: type(of: $0)) } } ?? "Task"
  }
}

extension CancellationReason {
  /// Why the bag task running now was cancelled; nil if it was not, or if it is not running
  /// in a task launched by a bag (an unstructured `Task` made inside one included).
  ///
  /// Child tasks (`async let`, task groups) see the reason of the bag task they run in.
  /// Read it in the task's own code, once it sees the cancellation: a
  /// `withTaskCancellationHandler` handler runs on the thread that cancels, where the task's
  /// values are not in scope.
  ///
  /// ```swift
  /// cancelBag.task(key: "search") {
  ///   do {
  ///     return try await api.search(text)
  ///   } catch is CancellationError where CancellationReason.current == .replaced {
  ///     return nil  // a newer search took over
  ///   }
  /// }
  /// ```
  public static var current: CancellationReason? {
    // A task made inside a bag task copies its task-locals; unless it was cancelled too, the
    // outer task's reason is not its own.
    guard Task.isCancelled else { return nil }
    return TaskCancellation.current?.reason
  }
}

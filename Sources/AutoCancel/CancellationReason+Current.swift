extension CancellationReason {
  /// Why the bag cancelled the bag task running now; nil everywhere else.
  ///
  /// Answers in the code of a task launched by ``CancelBag/task(key:label:priority:file:line:operation:)->Task<Success,Error>``
  /// (or ``AutoCancelOwner/autoCancelTask(key:policy:label:priority:file:line:_:then:)``) once its bag cancelled
  /// it: the bag cancelled all, ended, was deinitialized with its owner, gave the key to newer
  /// work, or its deadline passed.
  ///
  /// It is nil:
  /// - while the task is not cancelled, and when it was cancelled through its `Task` handle
  ///   before the bag cancelled it (the bag did not cause it);
  /// - in other tasks, even those made inside the bag task: an unstructured `Task {}` is never
  ///   cancelled by its creator, and a child task (`async let`, a task group) can be
  ///   cancelled on its own (`group.cancelAll()`), and no public API tells either from the
  ///   bag task. Let children's errors reach the bag task's code, and read it there.
  ///
  /// Read it in the task's own code, once it sees the cancellation: a
  /// `withTaskCancellationHandler` handler runs on the thread that cancels, outside the task.
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
    guard Task.isCancelled else { return nil }
    return TaskCancellation.reasonForCurrentTask()
  }
}

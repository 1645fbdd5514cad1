import Dispatch

/// Work as a bag stores it: one reference and one witness table (16 bytes).
///
/// Classes are stored as they are; value types and closures are boxed once, at `add`.
///
/// Usable from inline code: the inlinable `CancelBag.add(_:key:label:)` hands its work to
/// the core as this type.
@usableFromInline
typealias StoredWork = any AutoCancellable & AnyObject

/// Work that wraps other work, and names the wrapped type in snapshots and events.
package protocol WrappingWork {
  var wrappedTypeName: String { get }
}

/// A value type (a `Task`, a struct of the user's) boxed once so the bag can store it in 16
/// bytes, next to class work stored as it is.
final class BoxedWork<Work: AutoCancellable>: ReasonAwareCancellable, WrappingWork {
  let work: Work

  init(_ work: Work) { self.work = work }

  func cancel() { work.cancel() }
  func cancel(reason: CancellationReason) { work._cancel(for: _BagCancellation(reason)) }
  var wrappedTypeName: String { String(describing: Work.self) }
}

/// A `Task` bound with `add`, boxed once, and kept by the watcher that awaits it: alive exactly
/// as long as the task runs, so that the watch of overdue work, which holds it weakly, knows
/// it stopped once it is gone.
final class WatchedTask<Success: Sendable, Failure: Error>: AutoCancellable, WrappingWork,
  StopReporting
{
  let task: Task<Success, Failure>

  init(_ task: Task<Success, Failure>) { self.task = task }

  func cancel() { task.cancel() }
  var wrappedTypeName: String { String(describing: Task<Success, Failure>.self) }
  /// Still alive: the watcher holds it until the task returns.
  var hasStopped: Bool { false }
}

/// A closure run once, when the registration is cancelled.
final class ClosureWork: ReasonAwareCancellable, WrappingWork {
  let onCancel: @Sendable (CancellationReason) -> Void

  init(_ onCancel: @escaping @Sendable (CancellationReason) -> Void) { self.onCancel = onCancel }

  func cancel() { onCancel(.explicit) }
  func cancel(reason: CancellationReason) { onCancel(reason) }
  var wrappedTypeName: String { "closure" }
}

/// A `DispatchWorkItem`, which Dispatch does not declare `Sendable` on every platform.
final class DispatchWorkItemWork: AutoCancellable, WrappingWork, @unchecked Sendable {
  // Safety: `DispatchWorkItem.cancel()` is thread-safe (an atomic flag in libdispatch), and
  // it is the only member used; the reference itself never changes.
  let item: DispatchWorkItem

  init(_ item: DispatchWorkItem) { self.item = item }

  func cancel() { item.cancel() }
  var wrappedTypeName: String { "DispatchWorkItem" }
}

/// A value type that reports `isFinished`, boxed once, answering for it.
final class BoxedFinishReporting<Work: FinishReporting>: FinishReporting,
  ReasonAwareCancellable, WrappingWork
{
  let work: Work

  init(_ work: Work) { self.work = work }

  func cancel() { work.cancel() }
  func cancel(reason: CancellationReason) { work._cancel(for: _BagCancellation(reason)) }
  var isFinished: Bool { work.isFinished }
  var wrappedTypeName: String { String(describing: Work.self) }
}

/// Work that is not `Sendable`, with the closure that cancels it.
final class UncheckedWork<Work>: AutoCancellable, WrappingWork, @unchecked Sendable {
  // Safety: not checked, by contract. `add(unchecked:cancel:)` documents that `cancel` runs
  // on whichever thread ends the work, and its caller vouches that this is safe. The bag
  // touches `work` only through `cancel`, at most once.
  let work: Work
  let cancelWork: (Work) -> Void

  init(_ work: Work, cancel: @escaping (Work) -> Void) {
    self.work = work
    self.cancelWork = cancel
  }

  func cancel() { cancelWork(work) }
  var wrappedTypeName: String { String(describing: Work.self) }
}

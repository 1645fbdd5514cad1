/// Work that can be cancelled: the only thing AutoCancel needs to know about it.
///
/// Conforming types write one method, ``cancel()``. Work that wants to know why it was
/// cancelled conforms to ``ReasonAwareCancellable`` instead, and work that can say it is done
/// to ``FinishReporting``, so that it leaves its bag by itself.
///
/// `Task` conforms already; `AutoCancelNetworking` adds `URLSessionTask` and `Operation`. A
/// `DispatchWorkItem` (not `Sendable` in every Dispatch) goes in through
/// ``CancelBag/add(_:key:label:file:line:)-(DispatchWorkItem,_,_,_,_)``, a closure through
/// ``CancelBag/add(key:label:file:line:onCancel:)``. Your own request types conform in one line:
///
/// ```swift
/// final class ImageRequest: AutoCancellable {
///   func cancel() { connection.close() }
/// }
/// cancelBag.add(request)
/// ```
///
/// Work the compiler cannot prove `Sendable` (most Objective-C request classes, non-final
/// classes) joins through ``CancelBag/add(unchecked:key:label:file:line:cancel:)``, which names the
/// risk; a cancel method that returns a value (Alamofire's `Request.cancel() -> Self`) through
/// the closure form, `cancelBag.add { _ in request.cancel() }`.
///
/// ## Contract for implementers
///
/// - `cancel()` may be called from any thread, including the thread that releases the
///   owner, which is why conformers are `Sendable`.
/// - A bag calls it at most once per registration, never while holding a lock of its own,
///   so it may call back into the bag (add, cancel, finish, count).
/// - It should be idempotent and return promptly: the caller is often tearing down a screen.
///   Hand slow clean-up to another queue.
/// - Implement ``cancel()`` only. The underscored members are the library's: their
///   implementations are chosen for you when your type conforms (see <doc:Contracts>).
public protocol AutoCancellable: Sendable {
  /// Stops the work. Called at most once per registration, from any thread.
  func cancel()

  /// The bag's way to cancel: hands the reason to work that takes one. The library's; do not
  /// implement it. Only a bag can make the ``_BagCancellation`` it takes, so nothing else can
  /// call it.
  ///
  /// A requirement rather than a cast, so that the choice is made once, when the type
  /// conforms: a protocol cast costs more than a whole add and finish.
  func _cancel(for cancellation: _BagCancellation)

  /// The bag's way to take this kind of work in: as it is or boxed, and how it leaves by
  /// itself (a `Task` awaited, ``FinishReporting`` work asked). The library's; do not
  /// implement it.
  ///
  /// Chosen when the type conforms, so that every add of the work behaves the same whether
  /// the call site knows its type, is generic over it or holds an existential.
  static func _add(_ work: Self, to insertion: _BagInsertion) -> CancelRegistration
}

extension AutoCancellable {
  /// Cancels with ``cancel()``: this work does not take a reason.
  public func _cancel(for cancellation: _BagCancellation) {
    cancel()
  }

  /// Boxes the value once, so that the bag stores it as it stores a class; work whose
  /// ``FinishReporting`` conformance was declared apart is boxed as such.
  public static func _add(_ work: Self, to insertion: _BagInsertion) -> CancelRegistration {
    insertion.addPlain(work, boxed: BoxedWork(work))
  }
}

extension AutoCancellable where Self: AnyObject {
  /// Stores the work as it is: one reference, no allocation. Work whose ``FinishReporting``
  /// conformance was declared apart (in a subclass, conditionally, in another module) is
  /// stored as such, and leaves by itself.
  @inlinable
  public static func _add(_ work: Self, to insertion: _BagInsertion) -> CancelRegistration {
    insertion.addPlain(work)
  }
}

/// A `Task` is cancelled through `Task.cancel()`, and leaves its bag by itself once it
/// returns; prefer ``CancelBag/task(key:label:priority:file:line:operation:)->Task<Success,Error>``, which
/// starts the task already bound.
extension Task: AutoCancellable {
  /// Stores the task with a watcher that finishes its registration when the task returns.
  public static func _add(_ task: Self, to insertion: _BagInsertion) -> CancelRegistration {
    insertion.addWatched(task)
  }
}

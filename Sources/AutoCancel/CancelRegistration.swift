/// One piece of work in a bag: what ``CancelBag/add(_:key:label:file:line:)-(Work,_,_,_,_)`` returns.
///
/// A registration ends exactly once, in one of two ways:
///
/// - ``finish()``: the work completed, forget it without cancelling (O(1)).
/// - ``cancel()``: cancel this work now, and forget it.
///
/// Or the bag ends it: ``CancelBag/cancelAll(reason:)``, ``CancelBag/end(reason:)``, the bag's
/// `deinit`, a newer item under the same key, a timeout.
///
/// ```swift
/// let registration = cancelBag.add(request)
/// request.start { result in
///   registration.finish()   // done: the bag forgets it
///   show(result)
/// }
/// ```
///
/// Launchers (``CancelBag/task(key:label:priority:file:line:operation:)->Task<Success,Error>`` and the
/// URLSession helpers) finish their registrations themselves.
///
/// ## Contract
///
/// - A small value (24 bytes), `Sendable`, usable from any thread; copies name the same work.
/// - All methods are idempotent: after the registration ended, they do nothing. Finishing a
///   registration whose slot was reused by newer work never touches that newer work.
/// - It keeps the bag's storage alive, but never the bag's owner: after the bag ended, the
///   registration is inert.
/// - A registration is itself ``AutoCancellable``, so one bag's item can be put in another.
/// - Two registrations are equal when they name the same work in the same bag.
public struct CancelRegistration: ReasonAwareCancellable, Hashable {
  // The stored parts and the initializer are usable from inline code for the inlinable
  // `finish()` and `CancelBag.add(_:key:label:)`: inlined together, the optimizer sees a
  // registration that is discarded and drops its retain of the core.

  /// The storage of the bag the work is in.
  @usableFromInline let core: BagCore
  /// Where the work is in that storage.
  @usableFromInline let ticket: Ticket

  /// A registration of the work of `ticket` in `core`.
  @usableFromInline
  init(core: BagCore, ticket: Ticket) {
    self.core = core
    self.ticket = ticket
  }

  /// The work completed: the bag forgets it without cancelling it.
  ///
  /// O(1). Does nothing if the registration already ended (finished, cancelled, or its bag
  /// ended). Call it from the work's completion, on any thread.
  @inlinable
  public func finish() {
    core.finish(ticket)
  }

  /// Cancels this work alone, for `reason`; ``cancel()`` does it with reason
  /// ``CancellationReason/explicit``.
  ///
  /// The work's `cancel(reason:)` (or `cancel()`) runs on the calling thread before this
  /// returns. Does nothing if the registration already ended.
  public func cancel(reason: CancellationReason) {
    core.cancel(ticket, reason: reason, trigger: .registration)
  }

  /// Tells the bag's instrument, if it has one, that this work moved `sent` and `received`
  /// bytes so far (a `URLSessionTask`'s counts): the end of its signpost interval carries
  /// them. Does nothing if the registration already ended or the bag has no instrument.
  package func noteTransfer(sent: Int64, received: Int64) {
    core.noteTransfer(ticket, sent: sent, received: received)
  }

  /// Whether the work is still in flight in its bag: not finished, not cancelled.
  ///
  /// A snapshot: another thread may end the registration right after it is read.
  public var isActive: Bool {
    core.isActive(ticket)
  }
}

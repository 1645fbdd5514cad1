/// Work on its way into a bag: the bag's storage and the item's label and key. The library's;
/// not for apps.
///
/// ``CancelBag/add(_:key:label:file:line:)-(Work,_,_,_,_)`` hands one to the work's ``AutoCancellable/_add(_:to:)``,
/// whose implementation was chosen when the work's type conformed; it stores the work the way
/// its kind needs, once.
public struct _BagInsertion {
  /// The storage of the bag the work goes into.
  @usableFromInline let core: BagCore
  /// The item's label, key and the time it was added, if it has a label or a key.
  @usableFromInline let details: ItemDetails?

  @usableFromInline
  init(core: BagCore, details: ItemDetails?) {
    self.core = core
    self.details = details
  }

  /// Stores class work as it is; it stays until its registration ends.
  @inlinable
  package func add(_ work: some AutoCancellable & AnyObject) -> CancelRegistration {
    CancelRegistration(core: core, ticket: core.addTicket(work, details: details))
  }

  /// Stores work that reports `isFinished`: it leaves by itself soon after it finished.
  @inlinable
  package func addReportingFinish(_ work: any FinishReporting & AnyObject) -> CancelRegistration {
    CancelRegistration(core: core, ticket: core.addReportingFinish(work, details: details))
  }

  /// Stores `work` as it is, flagged for the watch of overdue work: it can tell that it
  /// stopped (``StopReporting``).
  func addWatchable(_ work: some StopReporting & AutoCancellable) -> CancelRegistration {
    CancelRegistration(core: core, ticket: core.addTicket(work, flags: .watched, details: details))
  }

  /// Stores a task, and awaits it in a watcher that finishes its registration, or fails it
  /// when the task threw an error other than a cancellation.
  package func addWatched<Success, Failure>(_ task: Task<Success, Failure>) -> CancelRegistration {
    let box = WatchedTask(task)
    let registration = CancelRegistration(
      core: core, ticket: core.addTicket(box, flags: .watched, details: details))
    if registration.ticket != .inactive {
      // The watcher holds the box until the task returns (see `WatchedTask`).
      Task<Void, Never>.detached(priority: Self.watcherPriority) {
        if case .failure(let error) = await box.task.result, !error.isCancellation {
          registration.core.fail(registration.ticket, error: error)
        } else {
          registration.finish()
        }
      }
    }
    return registration
  }

  /// The priority of a watcher made now: utility, or the caller's if lower.
  ///
  /// Awaiting a task raises it to the watcher's priority, so the watcher runs low: a task
  /// inherits its maker's priority, and code at utility or above, which makes most tasks,
  /// raises none. Never background unless the caller runs there: background work may wait
  /// for as long as the machine is busy (Apple documents that it may not run at all in Low
  /// Power Mode), and a watcher that does not run keeps its finished task, and what the task
  /// holds, in the bag. Measured on Linux with both CPUs busy: 20,000 watchers ran in 311 ms
  /// at background, 84 ms at utility and 75 ms at medium; and a backlog of watchers at
  /// background delays FoundationNetworking's URL cache lookups, made on the same queue.
  private static var watcherPriority: TaskPriority { min(Task.currentPriority, .utility) }

  /// Stores class work that came through the plain witness of `_add` as it is, or, if its
  /// ``FinishReporting`` conformance was declared apart from its `AutoCancellable` one (on a
  /// subclass, conditionally on a generic wrapper, in another module), as finish-reporting
  /// work, so that it leaves by itself as the rest does (see `BagCore.addPlainTicket`).
  @inlinable
  func addPlain(_ work: some AutoCancellable & AnyObject) -> CancelRegistration {
    CancelRegistration(core: core, ticket: core.addPlainTicket(work, details: details))
  }

  /// Stores value work that came through the plain witness of `_add` in `box`, as
  /// ``addPlain(_:)`` stores class work.
  func addPlain<Work: AutoCancellable>(
    _ work: Work, boxed box: BoxedWork<Work>
  ) -> CancelRegistration {
    if WorkTypes.reportsFinish(Work.self) { return addReportingFinish(declaredApart: work) }
    return CancelRegistration(core: core, ticket: core.addTicket(box, details: details))
  }

  /// Stores work whose ``FinishReporting`` conformance was declared apart, as such.
  @usableFromInline
  func addReportingFinish(declaredApart work: some AutoCancellable) -> CancelRegistration {
    func add<Reporting: FinishReporting>(_ reporting: Reporting) -> CancelRegistration {
      if let object = reporting as? any FinishReporting & AnyObject {
        return CancelRegistration(
          core: core, ticket: core.addReportingFinish(object, details: details))
      }
      return CancelRegistration(
        core: core,
        ticket: core.addReportingFinish(BoxedFinishReporting(reporting), details: details))
    }
    // The caller checked that the work's type is `FinishReporting`.
    let reporting = work as! any FinishReporting
    return add(reporting)
  }
}

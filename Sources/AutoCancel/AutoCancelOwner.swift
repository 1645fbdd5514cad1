import Dispatch

/// A class whose work is cancelled when it goes away: it stores a ``CancelBag``.
///
/// Conforming takes one stored property; in return the owner gets the one-liner
/// ``autoCancel(_:key:label:)-3ttkj``, the Swift form of the Objective-C
/// `autoCancelRequestOnDealloc:`, and task launchers bound to its lifetime.
///
/// ```swift
/// final class ProfileScreen: AutoCancelOwner {
///   let cancelBag = CancelBag()
///
///   func load() {
///     let task = session.dataTask(with: url) { data, _, _ in ... }
///     autoCancel(task)
///     task.resume()
///   }
/// }
/// ```
///
/// The bag must be a stored `let`: it is the owner's stored property that ties the bag's
/// `deinit` to the owner's. On Linux there is no Objective-C runtime to hide it in, and on
/// every platform a stored property is deterministic and costs one line.
public protocol AutoCancelOwner: AnyObject {
  /// The bag that holds this owner's work in flight. Store it: `let cancelBag = CancelBag()`.
  var cancelBag: CancelBag { get }
}

extension AutoCancelOwner {
  /// Binds `work` to this owner: it is cancelled when the owner goes away, unless it
  /// finishes first.
  ///
  /// The same as `cancelBag.add(work, key: key, label: label)`; see ``CancelBag``.
  ///
  /// ```swift
  /// autoCancel(request)   // [self autoCancelRequestOnDealloc:request];
  /// ```
  @discardableResult
  public func autoCancel<Work: AutoCancellable & AnyObject>(
    _ work: Work, key: (any Hashable & Sendable)? = nil, label: String? = nil
  ) -> CancelRegistration {
    cancelBag.add(work, key: key, label: label)
  }

  /// Binds value-type work to this owner.
  ///
  /// ```swift
  /// autoCancel(request)
  /// ```
  @discardableResult
  public func autoCancel<Work: AutoCancellable>(
    _ work: Work, key: (any Hashable & Sendable)? = nil, label: String? = nil
  ) -> CancelRegistration {
    cancelBag.add(work, key: key, label: label)
  }

  /// Binds work that reports when it is finished to this owner; it leaves by itself once
  /// it is.
  ///
  /// The same as `cancelBag.add(work, key: key, label: label)`; see ``FinishReporting``.
  ///
  /// ```swift
  /// autoCancel(operation)
  /// ```
  @discardableResult
  public func autoCancel<Work: FinishReporting & AnyObject>(
    _ work: Work, key: (any Hashable & Sendable)? = nil, label: String? = nil
  ) -> CancelRegistration {
    cancelBag.add(work, key: key, label: label)
  }

  /// Binds a value type that reports when it is finished to this owner.
  @discardableResult
  public func autoCancel<Work: FinishReporting>(
    _ work: Work, key: (any Hashable & Sendable)? = nil, label: String? = nil
  ) -> CancelRegistration {
    cancelBag.add(work, key: key, label: label)
  }

  /// Binds a task to this owner: cancelled when the owner goes away, gone from the bag once
  /// it returns.
  ///
  /// The task must not capture the owner strongly: an owner kept alive by its own task is
  /// never deinitialized while the task runs, and nothing is cancelled.
  ///
  /// ```swift
  /// func startUpload(_ file: File) {
  ///   autoCancel(Task { [uploader] in try await uploader.upload(file) })
  /// }
  /// ```
  @discardableResult
  public func autoCancel<Success: Sendable, Failure: Error>(
    _ task: Task<Success, Failure>, key: (any Hashable & Sendable)? = nil, label: String? = nil
  ) -> CancelRegistration {
    cancelBag.add(task, key: key, label: label)
  }

  /// Binds a `DispatchWorkItem` to this owner.
  ///
  /// ```swift
  /// autoCancel(pendingSave)
  /// ```
  @discardableResult
  public func autoCancel(
    _ item: DispatchWorkItem, key: (any Hashable & Sendable)? = nil, label: String? = nil
  ) -> CancelRegistration {
    cancelBag.add(item, key: key, label: label)
  }

  /// Starts a task bound to this owner's lifetime, handing the result back to the owner if it
  /// is still there.
  ///
  /// The right capture made easy: `load` does not get the owner, and `deliver` gets it as an
  /// argument, held weakly while `load` runs, so neither needs to capture `self`. A task that
  /// captured `self` strongly would keep the owner alive until it ended, and the owner's
  /// `deinit` (and so the cancellation) would never come first.
  ///
  /// `deliver` runs on the caller's actor, once, unless the owner went away first; it receives
  /// the value, or the error (a `CancellationError` when the bag cancelled the task).
  ///
  /// ```swift
  /// @MainActor final class FeedScreen: AutoCancelOwner {
  ///   let cancelBag = CancelBag()
  ///   func reload(api: API) {
  ///     autoCancelTask {
  ///       try await api.feed()
  ///     } then: { screen, result in
  ///       screen.render(result)
  ///     }
  ///   }
  /// }
  /// ```
  @discardableResult
  public func autoCancelTask<Value: Sendable>(
    key: (any Hashable & Sendable)? = nil,
    label: String? = nil,
    priority: TaskPriority? = nil,
    @_inheritActorContext _ load: sending @escaping @isolated(any) () async throws -> Value,
    // `@Sendable`, not `sending`: with `sending`, Swift 6.3's region-based isolation checker
    // rejects a main-actor owner calling this with inherited-isolation closures ("pattern
    // that the region-based isolation checker does not understand").
    @_inheritActorContext then deliver:
      @Sendable @escaping @isolated(any) (
        Self, Result<Value, any Error>
      ) -> Void
  ) -> Task<Void, Never> where Self: Sendable {
    cancelBag.task(key: key, label: label, priority: priority) { [weak self] in
      let result: Result<Value, any Error>
      do {
        result = .success(try await load())
      } catch {
        result = .failure(error)
      }
      guard let self else { return }
      await deliver(self, result)
    }
  }
}

/// A class whose work is cancelled when it goes away: it stores a ``CancelBag``.
///
/// Conforming takes one stored property; in return the owner gets the one-liner
/// ``autoCancel(_:key:label:file:line:)``, the Swift form of the Objective-C
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
  /// Keeps its call site (see <doc:Contracts#Call-sites>).
  ///
  /// The Swift form of the Objective-C `[self autoCancelRequestOnDealloc:request]`, and the
  /// same as `cancelBag.add(work, key: key, label: label)`: a `Task`, an `Operation`, a
  /// `URLSessionTask` (with `AutoCancelNetworking`) and ``FinishReporting`` work leave by
  /// themselves once done, however the call site typed them; see
  /// ``CancelBag/add(_:key:label:file:line:)-(Work,_,_,_,_)``.
  ///
  /// ```swift
  /// autoCancel(request)   // [self autoCancelRequestOnDealloc:request];
  /// ```
  ///
  /// A task must not capture the owner strongly: an owner kept alive by its own task is never
  /// deinitialized while the task runs, and nothing is cancelled.
  ///
  /// ```swift
  /// func startUpload(_ file: File) {
  ///   autoCancel(Task { [uploader] in try await uploader.upload(file) })
  /// }
  /// ```
  @inlinable @discardableResult
  public func autoCancel<Work: AutoCancellable>(
    _ work: Work, key: (any Hashable & Sendable)? = nil, label: String? = nil,
    file: StaticString = #fileID, line: UInt = #line
  ) -> CancelRegistration {
    cancelBag.add(work, key: key, label: label, file: file, line: line)
  }

  /// Starts a task bound to this owner's lifetime, handing the result back to the owner if it
  /// is still there.
  ///
  /// Keeps its call site (see <doc:Contracts#Call-sites>).
  ///
  /// The right capture made easy: `load` does not get the owner, and `deliver` gets it as an
  /// argument, held weakly while `load` runs, so neither needs to capture `self`. A task that
  /// captured `self` strongly would keep the owner alive until it ended, and the owner's
  /// `deinit` (and so the cancellation) would never come first.
  ///
  /// `deliver` runs on the caller's actor, once, unless the owner went away first; it receives
  /// the value, or the error (a `CancellationError` when the bag cancelled the task, and when
  /// it was cancelled before it started: `load` then never runs). Both closures are `sending`:
  /// they may capture values that are not `Sendable`, which then belong to the task.
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
  ///
  /// Under a `key`, the launch follows `policy`, as
  /// ``CancelBag/task(key:policy:label:priority:file:line:operation:)`` launches: it returns
  /// `nil` when the policy refuses it (neither closure runs), and the key runs until `deliver`
  /// returns, so that with ``KeyPolicy/enqueue`` each result is delivered before the next load
  /// starts. Without a key, or with ``KeyPolicy/replace``, it is never refused.
  ///
  /// ```swift
  /// @MainActor final class EditorScreen: AutoCancelOwner {
  ///   let cancelBag = CancelBag()
  ///   func saveTapped(_ draft: Draft, api: API) {
  ///     autoCancelTask(key: "save", policy: .ignoreNew) {
  ///       try await api.save(draft)
  ///     } then: { screen, result in
  ///       screen.showSaved(result)
  ///     }
  ///   }
  /// }
  /// ```
  @discardableResult
  public func autoCancelTask<Value: Sendable>(
    key: (any Hashable & Sendable)? = nil, policy: KeyPolicy = .replace, label: String? = nil,
    priority: TaskPriority? = nil, file: StaticString = #fileID, line: UInt = #line,
    @_inheritActorContext _ load: sending @escaping @isolated(any) () async throws -> Value,
    // Async, though most callers pass a synchronous closure: Swift 6.3's region-based isolation
    // checker rejects a synchronous `sending @isolated(any)` closure that inherits the caller's
    // actor ("pattern that the region-based isolation checker does not understand"); an
    // asynchronous one is checked.
    @_inheritActorContext then deliver:
      sending @escaping @isolated(any) (Self, Result<Value, any Error>) async -> Void
  ) -> Task<Void, Never>? where Self: Sendable {
    cancelBag.launched(
      key: key, label: label, policy: policy, file: file, line: line, (load, deliver)
    ) { launch, name, operation in
      let (load, deliver) = operation
      return Task.named(name, priority: priority) { [weak self] in
        defer { launch.returned() }
        let result: Result<Value, any Error>
        if await launch.starts(isolation: nil) {
          do {
            result = .success(try await load())
          } catch {
            result = .failure(error)
          }
        } else {
          result = .failure(CancellationError())
        }
        guard let self else { return }
        await deliver(self, result)
      }
    }
  }
}

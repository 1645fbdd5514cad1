import AutoCancel
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// One URLSession task bound to a bag: decides, under its lock, who delivers the single
/// completion (URLSession or a cancellation) and cancels the task safely.
///
/// Lifecycle: `init` → ``start(in:label:make:)`` registers in the bag, creates the task and
/// attaches it. A cancel that comes before the task exists is kept and applied on attach
/// (before `resume()`, which is always safe). The first of "URLSession completed" and
/// "cancelled" wins; the other is ignored. Completion finishes the bag registration.
final class BoundRequest<Value: Sendable>: ReasonAwareCancellable, @unchecked Sendable {
  // Safety: `state` is only touched under `lock`; `completion` and `deliveryQueue` are
  // immutable.

  typealias Completion = @Sendable (Result<Value, any Error>) -> Void

  private struct State {
    var task: URLSessionTask?
    var waitForLookup = false
    var cancelQueue: DispatchQueue?
    var registration: CancelRegistration?
    var cancelReason: CancellationReason?
    var delivered = false
  }

  private let lock = NSLock()
  private var state = State()
  private let completion: Completion
  private let deliveryQueue: OperationQueue?
  private let discard: (@Sendable (Value) -> Void)?

  /// - Parameters:
  ///   - deliveryQueue: where a cancellation is reported; nil reports it on the cancelling
  ///     thread (fine for resuming a continuation).
  ///   - completion: called exactly once.
  ///   - discard: cleans up a result that arrives after a cancellation won (a downloaded
  ///     file nobody will read).
  init(
    deliveryQueue: OperationQueue?, discard: (@Sendable (Value) -> Void)? = nil,
    completion: @escaping Completion
  ) {
    self.deliveryQueue = deliveryQueue
    self.discard = discard
    self.completion = completion
  }

  /// Registers in `bag`, then creates the task with `make` (handing it the completion to
  /// install) and attaches it.
  func start<Task: URLSessionTask>(
    in bag: CancelBag, label: String?, route: CancelSafeRoute,
    make: (@escaping @Sendable (Result<Value, any Error>) -> Void) -> Task
  ) -> Task {
    let registration = bag.add(self, label: label)
    lock.withLock { state.registration = registration }
    let task = make { [self] result in self.urlSessionCompleted(result) }
    let cancelNow = lock.withLock {
      state.task = task
      state.waitForLookup = route.waitForLookup
      state.cancelQueue = route.cancelQueue
      return state.cancelReason != nil
    }
    if cancelNow {
      // Never resumed yet: cancel now, on the caller's thread (no lock of ours is held, no
      // lookup can be pending), so that the caller's resume() finds it cancelled and nothing
      // is sent.
      task.cancel()
    }
    return task
  }

  /// Resumes `task` unless the request was cancelled already (it then never starts).
  func resumeUnlessCancelled(_ task: URLSessionTask) {
    if lock.withLock({ state.cancelReason == nil }) { task.resume() }
  }

  /// The bag (or the awaiting Swift task) cancels: report `CancelledError(reason)` at once
  /// and cancel the URLSession task from the canceller's queue.
  func cancel(reason: CancellationReason) {
    cancel(reason: reason, reporting: CancelledError(reason: reason))
  }

  /// Cancels, reporting `error` to the completion if the cancel wins.
  func cancel(reason: CancellationReason, reporting error: any Error) {
    let decided: State? = lock.withLock {
      guard !state.delivered else { return nil }
      state.delivered = true
      state.cancelReason = reason
      return state
    }
    guard let snapshot = decided else { return }
    snapshot.registration?.finish()  // no-op when the bag itself is cancelling it
    if let task = snapshot.task, let queue = snapshot.cancelQueue {
      TaskCanceller.cancel(task, waitForLookup: snapshot.waitForLookup, on: queue)
    }
    deliver(.failure(error))
  }

  func cancel() { cancel(reason: .explicit) }

  /// URLSession's completion handler ran.
  private func urlSessionCompleted(_ result: Result<Value, any Error>) {
    let registration: CancelRegistration?? = lock.withLock {
      guard !state.delivered else { return .none }
      state.delivered = true
      return .some(state.registration)
    }
    guard case .some(let registration) = registration else {
      if case .success(let value) = result { discard?(value) }
      return
    }
    registration?.finish()
    completion(result)
  }

  private func deliver(_ result: Result<Value, any Error>) {
    if let deliveryQueue {
      let completion = self.completion
      deliveryQueue.addOperation { completion(result) }
    } else {
      completion(result)
    }
  }
}

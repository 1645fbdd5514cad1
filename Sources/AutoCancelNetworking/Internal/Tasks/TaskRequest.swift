import AutoCancel
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// One completion-handler URLSession task bound to a bag and, for the async calls, to the
/// awaiting Swift task: decides who delivers the single completion (URLSession or a cancel)
/// and cancels the task without blocking.
///
/// Its state is a ``CancelLatch`` over the task: the request registers in its bag before the
/// task exists, so a cancel may come first; the latch keeps it and cancels the task when it
/// is attached, before it was ever resumed. The first of "URLSession completed" and
/// "cancelled" wins; the other is ignored. Either way the registration is finished: the
/// request leaves its bag.
final class TaskRequest<Value: Sendable>: AutoCancellable, Sendable {
  typealias Completion = @Sendable (Result<Value, any Error>) -> Void

  private struct State: Sendable {
    var latch = CancelLatch<URLSessionTask, Void>()
    /// The request's place in its bag, once `add` returned; nil without a bag.
    var registration: CancelRegistration?
  }

  private let state = Locked(State())
  private let route: TaskRoute
  private let cancellationError: any Error
  private let deliveryQueue: OperationQueue?
  private let discard: (@Sendable (Value) -> Void)?
  private let completion: Completion

  /// - Parameters:
  ///   - route: where the task runs and how it is cancelled.
  ///   - cancellationError: what the completion receives when a cancel wins.
  ///   - deliveryQueue: where a cancellation is reported; nil reports it on the cancelling
  ///     thread (fine for resuming a continuation).
  ///   - discard: cleans up a result that arrives after a cancel won (a downloaded file
  ///     nobody will read).
  ///   - completion: called exactly once.
  init(
    route: TaskRoute, cancellationError: any Error, deliveryQueue: OperationQueue?,
    discard: (@Sendable (Value) -> Void)?, completion: @escaping Completion
  ) {
    self.route = route
    self.cancellationError = cancellationError
    self.deliveryQueue = deliveryQueue
    self.discard = discard
    self.completion = completion
  }

  /// Registers in `bag` (if any), creates the task with `make` (handing it the completion to
  /// install) and attaches it. A task cancelled before this returns is never started.
  func start<Task: URLSessionTask>(
    in bag: CancelBag?, label: String?,
    make: (URLSession, @escaping @Sendable (Result<Value, any Error>) -> Void) -> Task
  ) -> Task {
    if let bag {
      let registration = bag.add(self, label: label)
      let cancelledMeanwhile = state.withLock { state in
        state.registration = registration
        return state.latch.cancellationReason != nil
      }
      // A cancel that came while `add` ran found no registration to finish.
      if cancelledMeanwhile { registration.finish() }
    }
    let task = make(route.session) { [self] result in self.urlSessionCompleted(result) }
    switch state.withLock({ $0.latch.attach(task) }) {
    case .proceed:
      break
    case .cancel(let task, _):
      // Never resumed: cancelled on the caller's thread (no lock of ours held, no lookup
      // pending), so that a later `resume()` finds it cancelled and nothing is sent.
      task.cancel()
    }
    return task
  }

  /// Resumes `task` unless the request was cancelled already (it then never starts).
  func resumeUnlessCancelled(_ task: URLSessionTask) {
    if state.withLock({ $0.latch.attachedWork != nil }) { task.resume() }
  }

  /// Cancels: reports the cancellation at once and cancels the URLSession task from the
  /// route's queue. Idempotent; does nothing once URLSession completed.
  func cancel() {
    let (action, registration) = state.withLock { state in
      (state.latch.cancel(()), state.registration)
    }
    switch action {
    case .none:
      return
    case .cancelWhenAttached:
      break
    case .cancel(let task):
      TaskCanceller.cancel(task, waitForLookup: route.waitForLookup, on: route.cancelQueue)
    }
    registration?.finish()  // no-op when the bag itself is cancelling
    deliver(.failure(cancellationError))
  }

  /// URLSession's completion handler ran.
  private func urlSessionCompleted(_ result: Result<Value, any Error>) {
    let (won, registration) = state.withLock { state in
      (state.latch.complete(), state.registration)
    }
    guard won else {
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

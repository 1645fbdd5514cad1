import AutoCancelTestSupport
import AutoCancel

/// The request type of the samples: it has `start()` and `cancel()`, as most request types do.
final class ImageRequest: AutoCancellable, Sendable {
  private let state = Protected((started: false, cancels: 0))

  func start() { state.withLock { $0.started = true } }
  func cancel() { state.withLock { $0.cancels += 1 } }

  var isStarted: Bool { state.withLock { $0.started } }
  var cancelCount: Int { state.withLock { $0.cancels } }
}

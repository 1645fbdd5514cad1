import AutoCancelTestSupport
import AutoCancel

/// Work that records every cancel it receives, with its reason, thread-safely.
///
/// `onCancel` runs after the record is taken, on the cancelling thread, so a test can make the
/// work call back into its bag from inside `cancel`.
final class Probe: AutoCancellable, Sendable {
  let name: String
  private let state = Protected<[CancellationReason]>([])
  private let onCancel: (@Sendable (Probe, CancellationReason) -> Void)?

  init(
    _ name: String = "probe",
    onCancel: (@Sendable (Probe, CancellationReason) -> Void)? = nil
  ) {
    self.name = name
    self.onCancel = onCancel
  }

  func cancel() {
    cancel(reason: .explicit)
  }

  func cancel(reason: CancellationReason) {
    state.withLock { $0.append(reason) }
    onCancel?(self, reason)
  }

  /// How many times the work was cancelled.
  var cancelCount: Int { state.withLock { $0.count } }

  /// The reasons of every cancel, in order.
  var reasons: [CancellationReason] { state.current }

  var wasCancelled: Bool { cancelCount > 0 }
}

/// Work that implements only `cancel()`, relying on the default `cancel(reason:)`.
final class PlainWork: AutoCancellable, Sendable {
  private let cancels = Protected(0)

  func cancel() {
    cancels.withLock { $0 += 1 }
  }

  var cancelCount: Int { cancels.current }
}

/// Value-type work: `add` boxes it.
struct ValueWork: AutoCancellable {
  let probe: Probe

  func cancel(reason: CancellationReason) {
    probe.cancel(reason: reason)
  }

  func cancel() {
    probe.cancel()
  }
}

/// A log shared by several probes, to check the order in which a bag cancels them.
final class CancelOrderLog: Sendable {
  private let entries = Protected<[String]>([])

  func probe(_ name: String) -> Probe {
    Probe(name) { [entries] probe, _ in entries.withLock { $0.append(probe.name) } }
  }

  var order: [String] { entries.current }
}

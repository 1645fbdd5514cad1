import AutoCancelTestSupport

/// A log shared by several recording works, to check the order in which a bag cancels them.
final class CancelOrderLog: Sendable {
  private let entries = Protected<[String]>([])

  /// Work named `name` that logs its name when it is cancelled.
  func probe(_ name: String) -> RecordingWork {
    RecordingWork(name) { [entries] work, _ in entries.withLock { $0.append(work.name) } }
  }

  var order: [String] { entries.current }
}

import AutoCancelTestSupport
import Testing

/// The service the articles' samples call: `api.search(text)`.
///
/// A search returns `[text]` at once, unless a test called ``holdSearches(for:)`` with its
/// text: then it runs until it is cancelled, and ``wait(for:until:sourceLocation:)`` lets the
/// test wait for it to start and to be cancelled. Each test uses texts of its own.
final class SampleAPI: Sendable {
  private struct State {
    var held: Set<String> = []
    var started: [String: Int] = [:]
    var cancelled: [String: Int] = [:]
  }

  private let state = Protected(State())

  func search(_ text: String) async throws -> [String] {
    guard state.withLock({ $0.held.contains(text) }) else { return [text] }
    state.withLock { $0.started[text, default: 0] += 1 }
    await suspendUntilCancelled()
    state.withLock { $0.cancelled[text, default: 0] += 1 }
    throw CancellationError()
  }

  /// Makes searches for `text` run until they are cancelled.
  func holdSearches(for text: String) {
    state.withLock { _ = $0.held.insert(text) }
  }

  /// Held searches for `text` started and cancelled so far.
  func counts(for text: String) -> (started: Int, cancelled: Int) {
    state.withLock { ($0.started[text] ?? 0, $0.cancelled[text] ?? 0) }
  }

  /// Returns once `predicate(started, cancelled)` holds for `text`; a bounded wait
  /// (``waitUntil(_:timeout:sourceLocation:_:)``) that fails the test if it never does.
  func wait(
    for text: String, sourceLocation: SourceLocation = #_sourceLocation,
    until predicate: @Sendable (_ started: Int, _ cancelled: Int) -> Bool
  ) async {
    await waitUntil(
      "the searches for \"\(text)\" reach the expected state", sourceLocation: sourceLocation
    ) {
      let (started, cancelled) = counts(for: text)
      return predicate(started, cancelled)
    }
  }
}

/// The service, as the samples name it.
let api = SampleAPI()

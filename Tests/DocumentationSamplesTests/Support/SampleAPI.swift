import AutoCancelTestSupport
import Testing

/// A draft the samples save.
struct Draft: Sendable {
  var text: String
}

/// An edit the samples send.
struct Edit: Sendable {
  var id: Int
}

/// The service the articles' samples call: `api.search(text)`, `api.save(draft)`,
/// `api.apply(edit)`, `api.thumbnail(id)`.
///
/// A call returns at once, unless a test called ``holdSearches(for:)`` with its text (a
/// search's text, a draft's text, `"thumbnail <id>"`): then it runs until it is cancelled or
/// ``release(_:)``d, and ``wait(for:until:sourceLocation:)`` lets the test wait for it to start
/// and to be cancelled. Edits are applied with a pause, and recorded in ``applied``. Each test
/// uses texts of its own.
final class SampleAPI: Sendable {
  private struct State {
    /// The held names, each with the gate that ``release(_:)`` opens.
    var held: [String: Gate] = [:]
    var started: [String: Int] = [:]
    var cancelled: [String: Int] = [:]
    var applied: [Int] = []
    var applying = 0
    var mostApplyingAtOnce = 0
  }

  private let state = Protected(State())

  func search(_ text: String) async throws -> [String] {
    try await call(text)
    return [text]
  }

  func save(_ draft: Draft) async throws {
    try await call(draft.text)
  }

  func thumbnail(_ id: Int) async throws -> [UInt8] {
    try await call("thumbnail \(id)")
    return [UInt8(truncatingIfNeeded: id)]
  }

  func apply(_ edit: Edit) async throws {
    state.withLock { state in
      state.applying += 1
      state.mostApplyingAtOnce = max(state.mostApplyingAtOnce, state.applying)
    }
    for _ in 0..<3 { await Task.yield() }
    state.withLock { state in
      state.applying -= 1
      state.applied.append(edit.id)
    }
  }

  /// Edits applied so far, in order, and the most applied at once.
  var applied: (ids: [Int], mostAtOnce: Int) {
    state.withLock { ($0.applied, $0.mostApplyingAtOnce) }
  }

  /// A call named `name`: at once, or, if held, once released or cancelled (then it throws).
  /// A held call suspends in its name's gate, which the release opens and a cancel leaves.
  private func call(_ name: String) async throws {
    let release: Gate? = state.withLock { state in
      guard let gate = state.held[name] else { return nil }
      state.started[name, default: 0] += 1
      return gate
    }
    guard let release else { return }
    await release.wait("\(name) is released or cancelled")
    guard Task.isCancelled else { return }
    state.withLock { $0.cancelled[name, default: 0] += 1 }
    throw CancellationError()
  }

  /// Makes calls named `text` run until they are cancelled or released.
  func holdSearches(for text: String) {
    state.withLock { state in
      if state.held[text] == nil { state.held[text] = Gate() }
    }
  }

  /// Lets held calls named `text` return.
  func release(_ text: String) {
    state.withLock { $0.held[text] }?.open()
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

extension SampleAPI {
  /// Holds the calls named `text`, runs `start`, waits until one of them started, runs `stop`,
  /// and waits until that call was cancelled: how the samples check that an owner cancels its
  /// work. Runs on the caller's actor, as the closures do.
  ///
  /// ```swift
  /// let model = SearchViewModel()
  /// await api.expectCancellation(of: "query") {
  ///   model.search("query")
  /// } cancelledBy: {
  ///   model.pageDidDisappear()
  /// }
  /// ```
  func expectCancellation(
    of text: String, isolation: isolated (any Actor)? = #isolation,
    sourceLocation: SourceLocation = #_sourceLocation,
    startedBy start: () -> Void, cancelledBy stop: () -> Void
  ) async {
    holdSearches(for: text)
    start()
    await wait(for: text, sourceLocation: sourceLocation) { started, _ in started == 1 }
    stop()
    await wait(for: text, sourceLocation: sourceLocation) { _, cancelled in cancelled == 1 }
  }
}

/// The service, as the samples name it.
let api = SampleAPI()

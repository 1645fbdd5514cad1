import AutoCancelTestSupport
import SeededRandom
@testable import AutoCancel
@_spi(Testing) @testable import AutoCancelNetworking
import Testing

@Suite("Shared requests", timeLimit(minutes: 1))
struct SharedRequestsTests {
  /// A request that the test completes, fails, or sees cancelled.
  final class Request: Sendable {
    private let state = Protected<State>(State())
    struct State: Sendable {
      var starts = 0
      var outcome: Result<Int, any Error>?
      var waiter: CheckedContinuation<Int, any Error>?
      /// A cancel that came before the operation started waiting.
      var cancelledEarly = false
      var cancelledWith: [CancellationReason?] = []
    }

    var starts: Int { state.withLock { $0.starts } }
    var cancellations: [CancellationReason?] { state.withLock { $0.cancelledWith } }

    /// The operation to share: waits until the test completes it, or it is cancelled.
    func run() async throws -> Int {
      state.withLock { $0.starts += 1 }
      do {
        return try await withTaskCancellationHandler {
          try await withCheckedThrowingContinuation { continuation in
            let ready: Result<Int, any Error>? = state.withLock { state in
              if let outcome = state.outcome { return outcome }
              if state.cancelledEarly { return .failure(CancellationError()) }
              state.waiter = continuation
              return nil
            }
            if let ready { continuation.resume(with: ready) }
          }
        } onCancel: {
          let waiter = state.withLock { state in
            defer { state.waiter = nil }
            if state.waiter == nil { state.cancelledEarly = true }
            return state.waiter
          }
          waiter?.resume(throwing: CancellationError())
        }
      } catch is CancellationError {
        // The reason is read in the task; a cancellation handler runs on the canceller's side.
        let reason = CancellationReason.current
        state.withLock { $0.cancelledWith.append(reason) }
        throw CancellationError()
      }
    }

    func complete(with result: Result<Int, any Error>) {
      let waiter = state.withLock { state in
        state.outcome = result
        defer { state.waiter = nil }
        return state.waiter
      }
      waiter?.resume(with: result)
    }

    /// Starts `count` callers of `key` on `shared`, each sharing this request, and returns
    /// them once the request has started and every one of them has joined it: a caller whose
    /// task has not run yet would start a request of its own if the first one had ended.
    func callers<Key>(
      _ count: Int, of key: Key, on shared: SharedRequests<Key, Int>,
      sourceLocation: SourceLocation = #_sourceLocation
    ) async -> [Task<Int, any Error>] {
      let callers = (0..<count).map { _ in
        Task { try await shared.value(for: key, operation: run) }
      }
      await started(sourceLocation: sourceLocation)
      await waitUntil("all \(count) callers share the request", sourceLocation: sourceLocation) {
        shared.callerCount(for: key) == count
      }
      return callers
    }

    func started(sourceLocation: SourceLocation = #_sourceLocation) async {
      await waitUntil("the request starts", sourceLocation: sourceLocation) { starts > 0 }
    }

    func cancelled(sourceLocation: SourceLocation = #_sourceLocation) async {
      await waitUntil("the request is cancelled", sourceLocation: sourceLocation) {
        !cancellations.isEmpty
      }
    }
  }

  struct Failure: Error, Equatable {}

  @Test("run once for callers that ask for the same key at the same time")
  func runsOnce() async throws {
    let shared = SharedRequests<String, Int>()
    let request = Request()
    let callers = await request.callers(5, of: "a", on: shared)
    #expect(shared.count == 1)
    #expect(shared.callerCount(for: "a") == 5)
    #expect(shared.callerCount(for: "b") == 0)
    request.complete(with: .success(42))
    for caller in callers { #expect(try await caller.value == 42) }
    #expect(request.starts == 1)
    #expect(shared.count == 0)
  }

  @Test("run separately for different keys")
  func separateKeys() async throws {
    let shared = SharedRequests<String, Int>()
    async let a = shared.value(for: "a") { 1 }
    async let b = shared.value(for: "b") { 2 }
    #expect(try await (a, b) == (1, 2))
  }

  @Test("let one caller leave without failing the others")
  func oneCallerLeaves() async throws {
    let shared = SharedRequests<String, Int>()
    let request = Request()
    let leaving = Task { try await shared.value(for: "a", operation: request.run) }
    let staying = Task { try await shared.value(for: "a", operation: request.run) }
    await request.started()
    leaving.cancel()
    await #expect(throws: CancellationError.self) { try await leaving.value }
    #expect(request.cancellations.isEmpty)
    request.complete(with: .success(7))
    #expect(try await staying.value == 7)
  }

  @Test("cancel the request, with reason ownerGone, when the last caller leaves")
  func lastCallerLeaves() async {
    let shared = SharedRequests<String, Int>()
    let request = Request()
    let callers = await request.callers(3, of: "a", on: shared)
    for caller in callers { caller.cancel() }
    await request.cancelled()
    #expect(request.cancellations == [.ownerGone])
    for caller in callers {
      await #expect(throws: CancellationError.self) { try await caller.value }
    }
    #expect(shared.count == 0)
  }

  @Test("share the result with a caller that joins while the request runs")
  func lateJoiner() async throws {
    let shared = SharedRequests<String, Int>()
    let request = Request()
    let first = Task { try await shared.value(for: "a", operation: request.run) }
    await request.started()
    let late = Task {
      try await shared.value(for: "a") {
        Issue.record("ran twice"); return 0
      }
    }
    // Completing before the late caller joined would make it start a request of its own.
    await waitUntil("the late caller joined the running request") {
      shared.callerCount(for: "a") == 2
    }
    request.complete(with: .success(5))
    #expect(try await first.value == 5)
    #expect(try await late.value == 5)
  }

  @Test("start a new request for a key once the previous one completed")
  func freshAfterCompletion() async throws {
    let shared = SharedRequests<String, Int>()
    #expect(try await shared.value(for: "a") { 1 } == 1)
    #expect(try await shared.value(for: "a") { 2 } == 2)
  }

  @Test("give every caller the request's error")
  func failurePropagates() async {
    let shared = SharedRequests<String, Int>()
    let request = Request()
    let callers = await request.callers(3, of: "a", on: shared)
    request.complete(with: .failure(Failure()))
    for caller in callers {
      await #expect(throws: Failure.self) { try await caller.value }
    }
  }

  @Test("stop waiting at once for a caller already cancelled, and run nothing for it alone")
  func alreadyCancelledCaller() async {
    let shared = SharedRequests<String, Int>()
    let request = Request()
    let caller = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      return try await shared.value(for: "a", operation: request.run)
    }
    await #expect(throws: CancellationError.self) { try await caller.value }
    #expect(shared.count == 0)
  }

  @Test(
    "end every caller exactly once when the last leaves as the result arrives",
    arguments: TestSeed.seeds((0..<200).map { 0x5EED_0000 + $0 }))
  func lastLeavesWhileResultArrives(seed: UInt64) async {
    var random = SeededGenerator(seed: seed)
    let result = Int(truncatingIfNeeded: seed)
    let shared = SharedRequests<Int, Int>()
    let request = Request()
    let callers = await request.callers(Int(random.next() % 4 + 1), of: 1, on: shared)
    let cancelFirst = random.next() % 2 == 0
    if cancelFirst {
      for caller in callers { caller.cancel() }
      request.complete(with: .success(result))
    } else {
      request.complete(with: .success(result))
      for caller in callers { caller.cancel() }
    }
    for caller in callers {
      switch await caller.result {
      case .success(let value): #expect(value == result, "\(TestSeed.describe(seed))")
      case .failure(let error): #expect(error is CancellationError, "\(TestSeed.describe(seed))")
      }
    }
    #expect(request.starts == 1, "\(TestSeed.describe(seed))")
    #expect(shared.count == 0, "\(TestSeed.describe(seed))")
  }
}

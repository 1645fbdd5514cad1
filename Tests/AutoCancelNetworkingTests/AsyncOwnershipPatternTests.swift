import AutoCancel
import AutoCancelNetworking
import AutoCancelTestSupport
import Dispatch
import Foundation
import LoopbackHTTPServer
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A screen model written as the "Cancelling URLSession work" article shows it, one method
/// per documented pattern.
@MainActor
final class ProfileModel: AutoCancelOwner {
  let cancelBag = CancelBag()
  private(set) var shown: Data?

  func show(_ data: Data) { shown = data }

  /// A bag task: the request follows the task, the task follows the bag.
  func load(_ url: URL) {
    cancelBag.task { [weak self] in
      let (data, _) = try await URLSession.shared.data(from: url, in: nil)
      self?.show(data)
    }
  }

  /// The owner's one-liner for a task that hands its result back.
  func reload(_ url: URL) {
    autoCancelTask {
      try await URLSession.shared.data(from: url, in: nil).0
    } then: { model, result in
      if case .success(let data) = result { model.show(data) }
    }
  }

  /// A plain task holding the owner weakly: the request reaches the owner through its bag.
  func loadInTask(_ url: URL) {
    Task { [weak self] in
      let (data, _) = try await URLSession.shared.data(from: url, in: self?.cancelBag)
      self?.show(data)
    }
  }

  /// The same, downloading to a file.
  func downloadInTask(_ url: URL) {
    Task { [weak self] in
      let (file, _) = try await URLSession.shared.download(from: url, in: self?.cancelBag)
      try? FileManager.default.removeItem(at: file)
    }
  }

  /// The same, streaming the body.
  func streamInTask(_ url: URL) {
    Task { [weak self] in
      let (body, _) = try await URLSession.shared.stream(
        for: URLRequest(url: url), in: self?.cancelBag)
      for try await chunk in body { self?.show(chunk) }
    }
  }

  /// A method awaited by someone else's task (SwiftUI's `.task {}`, a caller's `Task`).
  func refresh(_ url: URL) async throws -> Data {
    let (data, _) = try await URLSession.shared.data(from: url, in: cancelBag)
    return data
  }
}

/// Each documented async pattern, written as the docs show it, against a server that says
/// whether the client went away. The latency printed is from the trigger to the moment the
/// server saw the connection close; it is reported, never asserted.
@Suite(
  "An async URLSession call in a documented pattern", timeLimit(minutes: 1))
@MainActor
struct AsyncOwnershipPatternTests {

  /// A body that takes minutes in full: only a cancellation ends it early.
  func slowURL(on server: LoopbackHTTPServer, id: String) -> URL {
    server.url("/slow?size=100000000&chunk=16384&interval_ms=10&id=\(id)")
  }

  /// Waits until the request `id` is mid-body, runs `trigger`, and returns the server's
  /// record once the client went away (nil if it never did within the bound).
  func disconnect(
    on server: LoopbackHTTPServer, id: String, pattern: String, trigger: () -> Void
  ) async -> RequestRecord? {
    await server.expectRecord(id: id) { $0.bytesSent >= 65_536 }
    let triggeredAt = DispatchTime.now()
    trigger()
    let record = await server.expectRecord(id: id) { $0.clientWentAway }
    if let gone = record?.clientWentAwayAt {
      let ms = Double(gone.uptimeNanoseconds &- triggeredAt.uptimeNanoseconds) / 1e6
      print("disconnect latency, \(pattern): \(String(format: "%.2f", ms)) ms")
    }
    return record
  }

  /// Returns once `bag` holds nothing (the task left it), or fails after the bound.
  nonisolated static func waitUntilEmpty(
    _ bag: CancelBag, sourceLocation: SourceLocation = #_sourceLocation
  ) async {
    await waitUntil("the bag is empty", sourceLocation: sourceLocation) { bag.count == 0 }
  }

  @Test("closes at the server when made in a bag task whose owner goes away")
  func bagTaskOwnerGone() async throws {
    try await withServer { server in
      var model: ProfileModel? = ProfileModel()
      model?.load(slowURL(on: server, id: "a-owner"))
      let record = await disconnect(on: server, id: "a-owner", pattern: "bag task, owner gone") {
        model = nil
      }
      #expect(record?.clientWentAway == true)
      #expect(record?.completed == false)
    }
  }

  @Test("closes at the server when made in a bag task whose bag cancels all its work")
  func bagTaskCancelAll() async throws {
    try await withServer { server in
      let model = ProfileModel()
      model.load(slowURL(on: server, id: "a-all"))
      let record = await disconnect(on: server, id: "a-all", pattern: "bag task, cancelAll") {
        model.cancelBag.cancelAll()
      }
      #expect(record?.clientWentAway == true)
      #expect(model.shown == nil)
      await Self.waitUntilEmpty(model.cancelBag)
    }
  }

  @Test("closes at the server when made in autoCancelTask and the owner goes away")
  func autoCancelTaskOwnerGone() async throws {
    try await withServer { server in
      var model: ProfileModel? = ProfileModel()
      model?.reload(slowURL(on: server, id: "b-owner"))
      let record = await disconnect(
        on: server, id: "b-owner", pattern: "autoCancelTask, owner gone"
      ) {
        model = nil
      }
      #expect(record?.clientWentAway == true)
    }
  }

  @Test(
    "closes at the server when made in an awaited owner method whose awaiting task is cancelled")
  func awaitedMethodTaskCancelled() async throws {
    try await withServer { server in
      let model = ProfileModel()
      let url = slowURL(on: server, id: "c-task")
      let view = Task { try await model.refresh(url) }  // what SwiftUI's .task {} runs
      let record = await disconnect(
        on: server, id: "c-task", pattern: "awaited method, task cancelled"
      ) {
        view.cancel()
      }
      #expect(record?.clientWentAway == true)
      await #expect(throws: CancellationError.self) { _ = try await view.value }
      #expect(model.cancelBag.count == 0)
    }
  }

  @Test("closes at the server when made in an awaited owner method whose bag cancels all")
  func awaitedMethodCancelAll() async throws {
    try await withServer { server in
      let model = ProfileModel()
      let url = slowURL(on: server, id: "c-all")
      let view = Task { try await model.refresh(url) }
      let record = await disconnect(on: server, id: "c-all", pattern: "awaited method, cancelAll") {
        model.cancelBag.cancelAll()
      }
      #expect(record?.clientWentAway == true)
      await #expect(throws: CancellationError.self) { _ = try await view.value }
    }
  }

  @Test("hands a completed body to the owner and leaves nothing in the bag")
  func completedRequestDelivers() async throws {
    try await withServer { server in
      let model = ProfileModel()
      model.load(server.url("/bytes?size=4096&id=a-done"))
      // The task shows the body before it leaves the bag.
      await Self.waitUntilEmpty(model.cancelBag)
      #expect(model.shown?.count == 4096)
    }
  }

  /// The async calls that take a bag, each reached through `self?.cancelBag` from a plain task.
  enum Helper: String, TestArgument {
    case data, download, stream

    /// Has `model` load `url` through this helper, in a plain task.
    @MainActor func load(_ url: URL, in model: ProfileModel?) {
      switch self {
      case .data: model?.loadInTask(url)
      case .download: model?.downloadInTask(url)
      case .stream: model?.streamInTask(url)
      }
    }
  }

  @Test(
    "closes at the server when made in a plain task with in: self?.cancelBag and the owner goes",
    arguments: Helper.allCases)
  func weakSelfBagOwnerGone(helper: Helper) async throws {
    try await withServer { server in
      var model: ProfileModel? = ProfileModel()
      let id = "d-\(helper.rawValue)"
      helper.load(slowURL(on: server, id: id), in: model)
      let record = await disconnect(on: server, id: id, pattern: "plain task, in: self?.cancelBag")
      {
        model = nil
      }
      #expect(record?.clientWentAway == true)
      #expect(record?.completed == false)
    }
  }
}

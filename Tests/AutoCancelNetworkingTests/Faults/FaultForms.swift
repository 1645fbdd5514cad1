import AutoCancel
import AutoCancelNetworking
import AutoCancelTestSupport
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// What each caller of a cell received, in order of arrival: a completion handler that ran
/// twice shows as two outcomes.
final class CellOutcomes: Sendable {
  private let received: Protected<[[CellOutcome]]>

  init(callers: Int) { received = Protected(Array(repeating: [], count: callers)) }

  func record(_ caller: Int, _ outcome: CellOutcome) {
    received.withLock { $0[caller].append(outcome) }
  }

  var all: [[CellOutcome]] { received.current }

  var everyCallerAnswered: Bool { received.current.allSatisfy { !$0.isEmpty } }
}

/// Starts requests in each of the forms users write, reporting how each ended.
enum FaultForms {
  /// Starts `form`'s request for `owners` (one request per owner; one shared request for all
  /// of them in the `shared` form), and returns the request's own cancel (see
  /// ``EndingTrigger/cancelled``). The owners are borrowed, never captured.
  static func start(
    _ form: RequestForm, _ request: URLRequest, on session: URLSession, owners: [Owner],
    sharedRequests: SharedURLRequests, outcomes: CellOutcomes
  ) -> @Sendable () -> Void {
    let cancels = owners.enumerated().map { caller, owner in
      startOne(form, request, on: session, for: owner, sharedRequests: sharedRequests) {
        outcomes.record(caller, $0)
      }
    }
    return { for cancel in cancels { cancel() } }
  }

  private static func startOne(
    _ form: RequestForm, _ request: URLRequest, on session: URLSession, for owner: Owner,
    sharedRequests: SharedURLRequests, report: @escaping @Sendable (CellOutcome) -> Void
  ) -> @Sendable () -> Void {
    let bag = owner.cancelBag
    let body = FaultRequests.uploadBody
    switch form {
    case .dataTask:
      let task = session.dataTask(with: request, in: bag) { data, _, error in
        report(ending(data?.count, error))
      }
      task.resume()
      return { task.cancel() }
    case .uploadTask:
      let task = session.uploadTask(with: request, from: body, in: bag) { data, _, error in
        report(ending(data?.count, error))
      }
      task.resume()
      return { task.cancel() }
    case .downloadTask:
      let task = session.downloadTask(with: request, in: bag) { file, _, error in
        report(ending(file.map(size(of:)), error))
      }
      task.resume()
      return { task.cancel() }
    case .rawTask:
      let task = session.dataTask(with: request) { data, _, error in
        report(ending(data?.count, error))
      }
      let registration = owner.autoCancel(task)
      task.resume()
      return { registration.cancel() }
    case .asyncData:
      return launch(in: bag, report: report) {
        try await session.data(for: request, in: nil).0.count
      }
    case .asyncUpload:
      return launch(in: bag, report: report) {
        try await session.upload(for: request, from: body, in: nil).0.count
      }
    case .asyncDownload:
      return launch(in: bag, report: report) {
        let (file, _) = try await session.download(for: request, in: nil)
        defer { try? FileManager.default.removeItem(at: file) }
        return size(of: file)
      }
    case .stream:
      return launch(in: bag, report: report) {
        let (chunks, _) = try await session.stream(for: request, in: nil)
        var count = 0
        for try await chunk in chunks { count += chunk.count }
        return count
      }
    case .shared:
      return launch(in: bag, report: report) {
        try await sharedRequests.data(for: request, session: session).data.count
      }
    }
  }

  /// Runs `load` in a task of `bag`, as the documented pattern does, and reports its end.
  private static func launch(
    in bag: CancelBag, report: @escaping @Sendable (CellOutcome) -> Void,
    _ load: @escaping @Sendable () async throws -> Int
  ) -> @Sendable () -> Void {
    let task = bag.task {
      do {
        report(.body(try await load()))
      } catch {
        report(CellOutcome(error))
      }
    }
    return { task.cancel() }
  }

  private static func ending(_ count: Int?, _ error: (any Error)?) -> CellOutcome {
    if let error { return CellOutcome(error) }
    return .body(count ?? 0)
  }

  private static func size(of file: URL) -> Int {
    let attributes = try? FileManager.default.attributesOfItem(atPath: file.path)
    return (attributes?[.size] as? NSNumber)?.intValue ?? -1
  }
}

import AutoCancel
import AutoCancelNetworking
import Dispatch
import Foundation
import LoopbackHTTPServer

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

// For each session kind and each way of binding a request, `rounds` requests one at a time:
// the server holds each response head for 3 s; 100 ms after the server saw the request, the
// owner (a bag) goes away; the figure is the time from the owner going to the server seeing
// the connection close. A close that waits for the head shows as about 2,900 ms.
//
// Usage: close-latency [rounds]   (default 20)

/// An owner with a bag and nothing else.
final class Owner: AutoCancelOwner {
  let cancelBag = CancelBag()
}

enum SessionKind: String, CaseIterable {
  case shared, `default`, ephemeral

  func make() -> URLSession {
    switch self {
    case .shared: .shared
    case .default: URLSession(configuration: .default)
    case .ephemeral: URLSession(configuration: .ephemeral)
    }
  }
}

enum Binding: String, CaseIterable {
  /// `session.dataTask(with:in:completionHandler:)`
  case helper
  /// `session.data(from:in:)` awaited in a task of the owner's bag
  case async
  /// `autoCancel(session.dataTask(with:))`, the raw task bound with the one-liner
  case rawTask
}

func milliseconds(from start: DispatchTime, to end: DispatchTime) -> Double {
  Double(Int64(end.uptimeNanoseconds) - Int64(start.uptimeNanoseconds)) / 1_000_000
}

func measure(
  _ kind: SessionKind, _ binding: Binding, rounds: Int, server: LoopbackHTTPServer
)
  async -> (latencies: [Double], missed: Int)
{
  let session = kind.make()
  defer { if kind != .shared { session.finishTasksAndInvalidate() } }
  var latencies: [Double] = []
  var missed = 0
  for round in 0..<rounds {
    let id = "\(kind)-\(binding)-\(round)"
    let url = server.url("/delay?ms=3000&size=1000&id=\(id)")
    var owner: Owner? = Owner()
    switch binding {
    case .helper:
      session.dataTask(with: url, in: owner!.cancelBag) { _, _, _ in }.resume()
    case .async:
      owner!.cancelBag.task { _ = try? await session.data(from: url, in: nil) }
    case .rawTask:
      let task = session.dataTask(with: url) { _, _, _ in }
      owner!.autoCancel(task)
      task.resume()
    }
    guard await server.waitForRecord(id: id, timeout: 10, where: { _ in true }) != nil else {
      missed += 1
      continue
    }
    try? await Task.sleep(nanoseconds: 100_000_000)
    let gone = DispatchTime.now()
    owner = nil
    guard
      let record = await server.waitForRecord(id: id, timeout: 10, where: { $0.isFinished }),
      let closed = record.clientWentAwayAt
    else {
      missed += 1
      continue
    }
    latencies.append(milliseconds(from: gone, to: closed))
  }
  return (latencies, missed)
}

func percentile(_ values: [Double], _ fraction: Double) -> Double {
  let sorted = values.sorted()
  guard !sorted.isEmpty else { return .nan }
  return sorted[
    min(sorted.count - 1, max(0, Int((fraction * Double(sorted.count)).rounded(.up)) - 1))]
}

func format(_ value: Double) -> String { String(format: "%8.1f", value) }

let rounds = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 20
let server = LoopbackHTTPServer()
try server.start()
print("owner gone → server sees the close; head held 3 s; \(rounds) requests each (ms)")
print("session    binding    median      p90      max   missed")
for kind in SessionKind.allCases {
  for binding in Binding.allCases {
    let (latencies, missed) = await measure(kind, binding, rounds: rounds, server: server)
    print(
      kind.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0) + " "
        + binding.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)
        + format(percentile(latencies, 0.5)) + " " + format(percentile(latencies, 0.9)) + " "
        + format(latencies.max() ?? .nan) + "   \(missed)")
  }
}
exit(0)

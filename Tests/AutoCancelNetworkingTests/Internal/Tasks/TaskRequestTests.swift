import AutoCancel
import AutoCancelTestSupport
import Foundation
import Testing

@testable import AutoCancelNetworking

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite("A helper's request", timeLimit(minutes: 1))
struct TaskRequestTests {
  /// A request whose task is made but never resumed; its `transferEnded` stands for the end
  /// URLSession reports.
  func makeRequest(
    in bag: CancelBag, handler: @escaping TaskRequest<Data>.Handler
  ) async -> (URLSessionTask, TaskRequest<Data>) {
    let session = URLSession(configuration: .ephemeral)
    let request = TaskRequest<Data>(
      .data(URLRequest(url: URL(string: "http://127.0.0.1:9/")!)),
      delivery: .handler(handler, queue: .init(operationQueue: session.delegateQueue)))
    let registration = request.register(in: bag, label: nil, file: #fileID, line: #line)
    // Made on the calling thread, as the helpers make it: off the cooperative pool.
    let task = await onNewThread { request.taskForCaller(on: session, registration: registration) }
    session.finishTasksAndInvalidate()
    return (task, request)
  }

  @Test("hands its handler URLSession's triple as it is: body and response come with an error")
  func passesTheTriple() async {
    let url = URL(string: "http://127.0.0.1:9/")!
    let response = HTTPURLResponse(url: url, statusCode: 503, httpVersion: nil, headerFields: nil)
    let (received, deliver) = AsyncStream<(Data?, URLResponse?, (any Error)?)>.makeStream()
    let bag = CancelBag()
    let (task, request) = await makeRequest(in: bag) { deliver.yield(($0, $1, $2)) }
    request.transferEnded(.data(Data([1, 2, 3])), response, URLError(.networkConnectionLost))
    var iterator = received.makeAsyncIterator()
    let triple = await iterator.next()
    #expect(triple?.0 == Data([1, 2, 3]))
    #expect((triple?.1 as? HTTPURLResponse)?.statusCode == 503)
    #expect((triple?.2 as? URLError)?.code == .networkConnectionLost)
    #expect(bag.count == 0)
    await onNewThread { task.cancel() }  // never resumed: lets the session go
  }

  @Test("reports a cancel once, as URLError(.cancelled), and ignores URLSession's later word")
  func cancelWinsOnce() async {
    let bag = CancelBag()
    let calls = Protected(0)
    let (received, deliver) = AsyncStream<(any Error)?>.makeStream()
    let (task, request) = await makeRequest(in: bag) { _, _, error in
      calls.withLock { $0 += 1 }
      deliver.yield(error)
    }
    bag.cancelAll()
    request.transferEnded(.data(Data()), nil, nil)  // URLSession's end, after the cancel won
    var iterator = received.makeAsyncIterator()
    let error = await iterator.next() ?? nil
    #expect((error as? URLError)?.code == .cancelled)
    await waitUntil("the task completed") { task.state == .completed }
    #expect(calls.current == 1)
    #expect(bag.count == 0)
  }
}

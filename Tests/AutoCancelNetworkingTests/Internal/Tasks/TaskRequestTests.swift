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
  /// A request whose task is made but never resumed, with the completion URLSession would call.
  func makeRequest(
    in bag: CancelBag?, handler: @escaping TaskRequest<Data>.Handler
  ) -> (URLSessionTask, complete: TaskRequest<Data>.Handler) {
    let session = URLSession(configuration: .ephemeral)
    let request = TaskRequest<Data>(
      kind: .data, delivery: .handler(handler, queue: .init(operationQueue: session.delegateQueue)))
    request.register(in: bag, label: nil, file: #fileID, line: #line)
    let complete = Protected<TaskRequest<Data>.Handler?>(nil)
    let task = request.taskForCaller(for: session) { runner, completion in
      complete.withLock { $0 = completion }
      return runner.dataTask(with: URL(string: "http://127.0.0.1:9/")!)
    }
    session.finishTasksAndInvalidate()
    return (task, complete.current!)
  }

  @Test("hands its handler URLSession's triple as it is: body and response come with an error")
  func passesTheTriple() async {
    let url = URL(string: "http://127.0.0.1:9/")!
    let response = HTTPURLResponse(url: url, statusCode: 503, httpVersion: nil, headerFields: nil)
    let (received, deliver) = AsyncStream<(Data?, URLResponse?, (any Error)?)>.makeStream()
    let bag = CancelBag()
    let (task, complete) = makeRequest(in: bag) { deliver.yield(($0, $1, $2)) }
    complete(Data([1, 2, 3]), response, URLError(.networkConnectionLost))
    var iterator = received.makeAsyncIterator()
    let triple = await iterator.next()
    #expect(triple?.0 == Data([1, 2, 3]))
    #expect((triple?.1 as? HTTPURLResponse)?.statusCode == 503)
    #expect((triple?.2 as? URLError)?.code == .networkConnectionLost)
    #expect(bag.count == 0)
    task.cancel()  // never resumed: lets the session go
  }

  @Test("reports a cancel once, as URLError(.cancelled), and ignores URLSession's later word")
  func cancelWinsOnce() async {
    let bag = CancelBag()
    let calls = Protected(0)
    let (received, deliver) = AsyncStream<(any Error)?>.makeStream()
    let (task, complete) = makeRequest(in: bag) { _, _, error in
      calls.withLock { $0 += 1 }
      deliver.yield(error)
    }
    bag.cancelAll()
    complete(Data(), nil, nil)  // URLSession's completion, after the cancel won
    var iterator = received.makeAsyncIterator()
    let error = await iterator.next() ?? nil
    #expect((error as? URLError)?.code == .cancelled)
    await waitUntil("the task completed") { task.state == .completed }
    #expect(calls.current == 1)
    #expect(bag.count == 0)
  }
}

import AutoCancel
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Forwards a streaming session's delegate calls to the ``StreamRequest`` of each task.
final class StreamDelegate: NSObject, URLSessionDataDelegate, Sendable {
  private let requests = Locked<[Int: StreamRequest]>([:])

  func register(_ request: StreamRequest, for task: URLSessionTask) {
    requests.withLock { $0[task.taskIdentifier] = request }
  }

  private func request(for task: URLSessionTask, removing: Bool = false) -> StreamRequest? {
    requests.withLock {
      removing ? $0.removeValue(forKey: task.taskIdentifier) : $0[task.taskIdentifier]
    }
  }

  func urlSession(
    _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
  ) {
    request(for: dataTask)?.received(response)
    completionHandler(.allow)
  }

  func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
    request(for: dataTask)?.received(data)
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?
  ) {
    request(for: task, removing: true)?.completed(error)
  }
}

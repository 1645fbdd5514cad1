import AutoCancel
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A URLSession request made by the library and bound to a bag, if any: a completion-handler
/// or async task (``TaskRequest``) or a stream (``StreamRequest``). Its task lives in its
/// ``Transfer``, on ``TaskQueue``; what it keeps under its lock is who hears its one outcome.
///
/// Its transfer tells it what the task delivers. On Linux every call comes from
/// ``TaskQueue``, where the twin's delegate hears the task. On Apple platforms
/// ``transferEnded(_:_:_:)`` comes from the task's completion handler, and a stream's head and
/// chunks from its task delegate, on the session's delegate queue.
protocol BoundRequest: AutoCancellable, WrappingWork, Sendable {
  var transfer: Transfer { get }

  /// The response head came (streams).
  func transferReceivedHead(_ response: URLResponse)
  /// Body bytes came (streams).
  func transferReceived(_ data: Data)
  /// The task ended, or the library answered for it (a 401 whose challenge went unanswered):
  /// its body (a task's whole body, or a download's file, valid until this returns; nothing
  /// for a stream), response and error, as a completion handler receives them.
  func transferEnded(_ body: TransferBody, _ response: URLResponse?, _ error: (any Error)?)
}

extension BoundRequest {
  var wrappedTypeName: String { transfer.spec.typeName }

  /// Joins `bag`, if any, and lets go of it: a request never keeps its bag alive, so an owner
  /// that goes while the request runs still ends its bag (a bag that had ended cancels the
  /// request at once). Returns the registration, for the request's next step to keep.
  func register(
    in bag: consuming CancelBag?, label: String?, file: StaticString, line: UInt
  ) -> CancelRegistration? {
    guard let bag else { return nil }
    return bag.add(self, label: label, file: file, line: line)
  }

  /// Starts the task from ``TaskQueue``, resumed by the library: never on the caller's thread.
  func start(on session: URLSession) {
    let transfer = transfer
    TaskQueue.async { transfer.start(on: session) }
  }

  /// Cancels the task on ``TaskQueue``, or, not made yet, as it is made.
  func cancelTransfer() {
    let transfer = transfer
    TaskQueue.async { transfer.cancel() }
  }
}

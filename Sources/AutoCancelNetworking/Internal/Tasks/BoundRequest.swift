import AutoCancel
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A URLSession request made by the library and bound to a bag, if any: a completion-handler
/// or async task (``TaskRequest``) or a stream (``StreamRequest``). Its task lives in its
/// ``Transfer``, on ``TaskQueue``; what it keeps under its lock is who hears its one outcome.
protocol BoundRequest: AutoCancellable, WrappingWork, TransferClient {
  var transfer: Transfer { get }
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

  /// Starts the task on ``TaskQueue``, resumed by the library: never on the caller's thread.
  func start(on session: URLSession) {
    let transfer = transfer
    TaskQueue.async { transfer.start(on: session, resumes: true) }
  }

  /// Cancels the task on ``TaskQueue``, or, not made yet, as it is made.
  func cancelTransfer() {
    let transfer = transfer
    TaskQueue.async { transfer.cancel() }
  }
}

import AutoCancel
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The process-wide account of ``URLSessionSavings``, and by port for the tests: one lock,
/// taken only when the library cancels a request or a caller joins a shared download.
///
/// Reads a task's properties before it takes the lock: Foundation takes its own locks to
/// answer them.
enum SavingsAccount {
  struct Ledger: Sendable {
    var total = URLSessionSavings()
    /// The same counts by the port of the request's URL; a handful of entries in an app.
    var byPort: [Int?: URLSessionSavings] = [:]
  }

  private static let ledger = Locked(Ledger())

  static var total: URLSessionSavings { ledger.withLock { $0.total } }

  /// The account of the requests to `port` alone (`nil`: URLs without one): for the tests,
  /// which must not count the traffic of the tests that run beside them.
  static func account(port: Int?) -> URLSessionSavings {
    ledger.withLock { $0.byPort[port] } ?? URLSessionSavings()
  }

  /// Counts a request the library cancelled in `phase`.
  static func count(_ phase: CancelPhase, url: URL?) {
    let port = url?.port
    ledger.withLock { ledger in
      ledger.total.count(phase)
      ledger.byPort[port, default: URLSessionSavings()].count(phase)
    }
  }

  /// Counts a request that the library cancelled while it was running, from what `task`
  /// tells once the cancel has stopped its transfer.
  static func countCancel(of task: URLSessionTask, bodyBytes: Int64? = nil) {
    count(CancelPhase(afterCancelOf: task, bodyBytes: bodyBytes), url: task.originalRequest?.url)
  }

  /// Counts a caller that joined the shared download of `url`.
  static func countJoin(url: URL?) {
    let port = url?.port
    ledger.withLock { ledger in
      ledger.total.joinedSharedRequests += 1
      ledger.byPort[port, default: URLSessionSavings()].joinedSharedRequests += 1
    }
  }
}

/// Where a request stood when the library's cancel stopped it.
enum CancelPhase: Sendable, Equatable {
  /// Never sent: cancelled before its task was resumed, or before it existed.
  case notSent
  /// Started, no response head yet.
  case awaitingResponse
  /// The head came; `received` body bytes (nil: not counted by Foundation) of `expected`
  /// (nil: unknown length).
  case receivingBody(received: Int64?, expected: Int64?)

  /// Reads the phase of `task`, which the library cancelled: a suspended task without a
  /// response was never sent (or, for a raw task suspended again by its app, is taken as
  /// such).
  ///
  /// The head came when the task has a response or expects a length: FoundationNetworking
  /// gives a completion-handler task no `response` until it completes, but sets
  /// `countOfBytesExpectedToReceive` from the head. It never counts a data task's received
  /// bytes (`countOfBytesReceived` stays 0, 6.3.1), so there a body's bytes are unknown,
  /// unless the library saw them come itself (`bodyBytes`: a stream's chunks).
  init(afterCancelOf task: URLSessionTask, wasSuspended: Bool = false, bodyBytes: Int64? = nil) {
    let expectedByTask = task.countOfBytesExpectedToReceive
    guard task.response != nil || expectedByTask != 0 || (bodyBytes ?? 0) > 0 else {
      self = wasSuspended ? .notSent : .awaitingResponse
      return
    }
    let expected =
      expectedByTask > 0 ? expectedByTask : task.response?.expectedContentLength ?? -1
    let counted = max(task.countOfBytesReceived, bodyBytes ?? 0)
    #if canImport(FoundationNetworking)
      let received: Int64? = counted == 0 && bodyBytes == nil ? nil : counted
    #else
      let received: Int64? = counted
    #endif
    self = .receivingBody(received: received, expected: expected >= 0 ? expected : nil)
  }
}

extension URLSessionSavings {
  mutating func count(_ phase: CancelPhase) {
    switch phase {
    case .notSent:
      cancelledBeforeSent += 1
    case .awaitingResponse:
      cancelledAwaitingResponse += 1
    case .receivingBody(let received, let expected):
      cancelledReceivingBody += 1
      guard let received else {
        cancelledWithUnknownRemainder += 1
        return
      }
      bytesReceivedBeforeCancel += received
      if let expected {
        bytesAvoided += max(0, expected - received)
      } else {
        cancelledWithUnknownRemainder += 1
      }
    }
  }
}

/// What a bound request's cancel leaves to count, carried by its latch's cancelled state.
enum PendingSaving: Sendable {
  /// Cancelled before its task was attached: counted where the cancel meets the request next
  /// (its task made and cancelled before resume, or never made: not sent; made and resumed:
  /// at its completion, which the attach then awaits).
  case beforeTask
  /// The task was running: counted from its byte counts when its completion reports the
  /// cancel.
  case atCompletion(URLSessionTask)
  /// Counted, or nothing left to count; the task let go.
  case settled
}

import AutoCancel
import Foundation

/// The account behind ``URLSessionSavings``: a request instrument that counts the requests
/// the library cancelled, and the shared joins, in total and by port (for the tests, which
/// must not count the traffic of the tests that run beside them).
///
/// One lock, taken only when a cancelled request ends or a caller joins a shared download.
final class SavingsAccount: RequestInstrument {
  static let shared = SavingsAccount()

  struct Ledger: Sendable {
    var total = URLSessionSavings()
    /// The same counts by the port of the request's URL; a handful of entries in an app.
    var byPort: [Int?: URLSessionSavings] = [:]

    mutating func update(port: Int?, _ change: (inout URLSessionSavings) -> Void) {
      change(&total)
      change(&byPort[port, default: URLSessionSavings()])
    }
  }

  private let ledger = Locked(Ledger())

  var total: URLSessionSavings { ledger.withLock { $0.total } }

  /// The account of the requests to `port` alone (`nil`: URLs without one).
  func account(port: Int?) -> URLSessionSavings {
    ledger.withLock { $0.byPort[port] } ?? URLSessionSavings()
  }

  func requestEnded(_ end: RequestEnd) {
    guard end.outcome == .cancelled else { return }
    ledger.withLock { $0.update(port: end.url?.port) { $0.count(end) } }
  }

  func sharedRequestJoined(url: URL?) {
    ledger.withLock { $0.update(port: url?.port) { $0.joinedSharedRequests += 1 } }
  }
}

extension URLSessionSavings {
  /// Counts a request the library cancelled.
  mutating func count(_ end: RequestEnd) {
    switch end.phase {
    case .notSent:
      cancelledBeforeSent += 1
    case .awaitingResponse:
      cancelledAwaitingResponse += 1
    case .receivingBody:
      cancelledReceivingBody += 1
      guard let received = end.bytesReceived else {
        cancelledWithUnknownRemainder += 1
        return
      }
      bytesReceivedBeforeCancel += received
      if let expected = end.expectedLength {
        bytesAvoided += max(0, expected - received)
      } else {
        cancelledWithUnknownRemainder += 1
      }
    }
  }
}

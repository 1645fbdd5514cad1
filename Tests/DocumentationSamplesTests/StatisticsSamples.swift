// The samples of the article "Seeing What AutoCancel Saves", exactly as it shows them.

import AutoCancel
import AutoCancelDiagnostics
import AutoCancelNetworking

// MARK: Turning the account on

func startDiagnostics() {
  let missed = AutoCancelDiagnostics.enable()
  if missed > 0 { print("AutoCancel: \(missed) bags made before the diagnostics go uncounted") }
}

// MARK: Reading the account

func printFeedAccount() {
  let feed = CancelBagStatistics.current(label: "FeedViewModel")
  print("\(feed.cancelled) of \(feed.registered) feed requests were cancelled")
  print("\(feed.cancelledByReason[.ownerGone, default: 0]) because the screen closed")
}

// MARK: Counters with dimensions

@MainActor
final class CancelBagMetrics {
  private var reported: [String?: CancelBagStatistics] = [:]

  /// Call now and then: on a timer, or when the app goes to the background.
  func report() {
    let now = CancelBagStatistics.byLabel
    for (label, account) in now {
      let new = account.since(reported[label] ?? CancelBagStatistics())
      let bag = ("bag", label ?? "unlabelled")
      Counter(label: "autocancel_finished", dimensions: [bag]).increment(by: new.finished)
      Counter(label: "autocancel_failed", dimensions: [bag]).increment(by: new.failed)
      for (reason, count) in new.cancelledByReason {
        Counter(label: "autocancel_cancelled", dimensions: [bag, ("reason", "\(reason)")])
          .increment(by: count)
      }
    }
    reported = now
  }
}

// MARK: One event per session

@MainActor
final class SessionReport {
  private let start = CancelBagStatistics.current
  private let networkStart = URLSessionSavings.current

  func sessionEnded() {
    let session = CancelBagStatistics.current.since(start)
    let network = URLSessionSavings.current.since(networkStart)
    analytics.track(
      "autocancel_session",
      properties: [
        "registered": session.registered,
        "cancelled": session.cancelled,
        "failed": session.failed,
        "cancelled_owner_gone": session.cancelledByReason[.ownerGone, default: 0],
        "cancelled_replaced": session.cancelledByReason[.replaced, default: 0],
        "requests_cancelled": network.cancelled,
        "requests_never_sent": network.cancelledBeforeSent,
        "bytes_avoided": Int(network.bytesAvoided),
      ])
  }
}

// MARK: Each piece of work in Instruments

func applicationDidFinishLaunching() {
  AutoCancelSignposts.enableIfRequested()  // on when AUTOCANCEL_SIGNPOSTS=1
}

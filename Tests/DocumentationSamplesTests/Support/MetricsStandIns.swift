import AutoCancelTestSupport

// Stand-ins for what apps feed the account of bags' work into: a counter shaped like
// swift-metrics' `Counter`, and an analytics client. Both record what they were given, so that
// the tests read what the samples reported.

/// A stand-in for swift-metrics' `Counter`: a named counter with dimensions.
struct Counter {
  /// Every counter's total, by its label and dimensions.
  static let totals = Protected<[String: Int]>([:])

  let key: String

  init(label: String, dimensions: [(String, String)] = []) {
    key = ([label] + dimensions.map { "\($0.0)=\($0.1)" }).joined(separator: " ")
  }

  func increment(by amount: Int) {
    Counter.totals.withLock { $0[key, default: 0] += amount }
  }

  /// The total of the counter `label` with `dimensions`.
  static func total(_ label: String, _ dimensions: [(String, String)]) -> Int {
    let key = Counter(label: label, dimensions: dimensions).key
    return totals.withLock { $0[key, default: 0] }
  }
}

/// A stand-in for an analytics client: it keeps the events it is given.
final class Analytics: Sendable {
  let events = Protected<[(name: String, properties: [String: Int])]>([])

  func track(_ name: String, properties: [String: Int]) {
    events.withLock { $0.append((name, properties)) }
  }
}

let analytics = Analytics()

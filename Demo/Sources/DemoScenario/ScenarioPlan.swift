import SeededRandom

/// A reproducible browsing session: people visiting screens that start requests.
///
/// The same plan is run twice, without binding and with AutoCancel, so any difference in
/// what the server did comes from the binding alone.
///
/// ```swift
/// let plan = ScenarioPlan.random(screens: 24, requestsPerScreen: 6, seed: 42)
/// print(plan.requestCount)  // 144
/// ```
package struct ScenarioPlan: Sendable, Hashable {
  /// Every screen, each tagged with the person who opens it.
  package var screens: [ScreenPlan]
  /// How many people browse at once.
  package var people: Int
  /// Milliseconds between one person starting and the next (so they do not all start at once).
  package var personStaggerMilliseconds: Int

  package init(screens: [ScreenPlan], people: Int, personStaggerMilliseconds: Int = 0) {
    self.screens = screens
    self.people = people
    self.personStaggerMilliseconds = personStaggerMilliseconds
  }

  /// Every request of every screen.
  package var requests: [RequestPlan] { screens.flatMap(\.requests) }

  /// The number of requests the app starts.
  package var requestCount: Int { screens.reduce(0) { $0 + $1.requests.count } }

  /// The screens person `person` visits, in order.
  package func screens(of person: Int) -> [ScreenPlan] {
    screens.filter { $0.person == person }
  }

  /// The body bytes the plan asks for in total.
  package var plannedBytes: Int { requests.reduce(0) { $0 + $1.bodyBytes } }

  /// A plan drawn from `seed`: the same arguments always give the same plan.
  ///
  /// Four people (fewer if there are fewer screens) take turns through the screens. Each
  /// screen starts a feed (delayed headers, a few KB), images (48-240 KB streamed at about
  /// 0.8 MB/s) and, with two or more requests, ends with a download (1.5-3.5 MB at about
  /// 1.6 MB/s). Three screens in four are left early, 100-900 ms after opening; the rest
  /// are kept until everything has loaded.
  package static func random(screens: Int, requestsPerScreen: Int, seed: UInt64) -> ScenarioPlan {
    var random = SeededGenerator(seed: seed)
    let people = max(1, min(4, screens))
    let planned = (0..<screens).map { index in
      let screenID = "s\(index)"
      let requests = (0..<requestsPerScreen).map { position in
        let id = "\(screenID)-r\(position)"
        if position == 0 {
          return RequestPlan(
            id: id, kind: .feed, bodyBytes: Int.random(in: 2_000...12_000, using: &random),
            delayMilliseconds: Int.random(in: 60...250, using: &random))
        }
        if position == requestsPerScreen - 1 {
          return RequestPlan(
            id: id, kind: .download,
            bodyBytes: Int.random(in: 1_500_000...3_500_000, using: &random))
        }
        return RequestPlan(
          id: id, kind: .image, bodyBytes: Int.random(in: 48_000...240_000, using: &random))
      }
      let departure: ScreenDeparture =
        Double.random(in: 0..<1, using: &random) < 0.25
        ? .stayUntilLoaded
        : .leaveAfter(milliseconds: Int.random(in: 100...900, using: &random))
      return ScreenPlan(
        id: screenID, person: index % people, requests: requests, departure: departure)
    }
    return ScenarioPlan(screens: planned, people: people, personStaggerMilliseconds: 150)
  }
}

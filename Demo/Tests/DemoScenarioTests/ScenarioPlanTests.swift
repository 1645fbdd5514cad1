import DemoScenario
import Testing

@Suite("A scenario plan")
struct ScenarioPlanTests {
  @Test("is the same for the same seed, and another for another seed")
  func theSameSeedGivesTheSamePlan() {
    let first = ScenarioPlan.random(screens: 24, requestsPerScreen: 6, seed: 7)
    let second = ScenarioPlan.random(screens: 24, requestsPerScreen: 6, seed: 7)
    #expect(first == second)
    #expect(first != ScenarioPlan.random(screens: 24, requestsPerScreen: 6, seed: 8))
  }

  @Test("gives every screen its requests, a feed first and a download last")
  func everyScreenHasItsRequestsAFeedFirstAndADownloadLast() {
    let plan = ScenarioPlan.random(screens: 10, requestsPerScreen: 4, seed: 1)
    #expect(plan.screens.count == 10)
    #expect(plan.requestCount == 40)
    #expect(Set(plan.requests.map(\.id)).count == 40)
    for screen in plan.screens {
      #expect(screen.requests.map(\.kind) == [.feed, .image, .image, .download])
    }
    #expect(Set(plan.screens.map(\.person)) == Set(0..<plan.people))
  }

  @Test("makes each request carry its id to the server")
  func requestsCarryTheirIDToTheServer() {
    let request = RequestPlan(id: "s1-r2", kind: .image, bodyBytes: 5_000)
    #expect(request.pathAndQuery.hasPrefix("/slow?size=5000&"))
    #expect(request.pathAndQuery.hasSuffix("&id=s1-r2"))
  }
}

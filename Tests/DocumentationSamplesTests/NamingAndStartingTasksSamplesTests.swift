import AutoCancel
import AutoCancelTestSupport
import Testing

@Suite("The Naming and Starting Bag Tasks article's models", timeLimit(minutes: 1))
@MainActor
struct NamingAndStartingTasksSamplesTests {
  @Test("FeedModel's reload of a feed replaces the one still running, and shows the feed")
  func reloadShowsTheFeed() async {
    let text = "feed 7"
    api.holdSearches(for: text)
    let model = FeedModel()
    model.reload(7)
    await api.wait(for: text) { started, _ in started == 1 }
    model.reload(7)
    await api.wait(for: text) { started, cancelled in started == 2 && cancelled == 1 }
    api.release(text)
    await waitUntilOnMainActor("the feed is shown") { model.items == ["feed 7"] }
  }

  #if compiler(>=6.2)
    @Test("RefreshModel's first change is made before refreshTapped() returns")
    func refreshStartsAtOnce() async {
      guard #available(iOS 26, macOS 26, tvOS 26, watchOS 26, visionOS 26, *) else { return }
      let model = RefreshModel()
      model.refreshTapped()
      #expect(model.phase == "refreshing")
      await waitUntilOnMainActor("the refresh ends") { model.phase == "idle" }
    }
  #endif
}

import AutoCancel
import AutoCancelTestSupport
import Testing

@Suite("The UIKit article's view controllers", timeLimit(minutes: 1))
@MainActor
struct UIKitSamplesTests {
  @Test("SearchViewController cancels its search in viewDidDisappear, and stays usable")
  func viewDidDisappearCancels() async {
    let text = "uikit-disappear"
    api.holdSearches(for: text)
    let controller = SearchViewController()
    controller.search(text)
    await api.wait(for: text) { started, _ in started == 1 }
    controller.viewDidDisappear(false)
    await api.wait(for: text) { _, cancelled in cancelled == 1 }
    #expect(!controller.cancelBag.hasEnded)
  }

  @Test("SearchViewController's search is cancelled when the controller is deallocated")
  func deinitCancels() async {
    let text = "uikit-release"
    api.holdSearches(for: text)
    var controller: SearchViewController? = SearchViewController()
    controller!.search(text)
    await api.wait(for: text) { started, _ in started == 1 }
    controller = nil
    await api.wait(for: text) { _, cancelled in cancelled == 1 }
  }

  @Test("FeedViewController's feed load is cancelled when the controller disappears")
  func feedLoadIsCancelledOnDisappear() async {
    api.holdSearches(for: "feed")
    let controller = FeedViewController()
    controller.viewWillAppear(false)
    await api.wait(for: "feed") { started, _ in started == 1 }
    controller.viewDidDisappear(false)
    await api.wait(for: "feed") { _, cancelled in cancelled == 1 }
  }
}

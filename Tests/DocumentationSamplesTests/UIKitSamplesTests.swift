import AutoCancel
import AutoCancelTestSupport
import Testing

@Suite("The UIKit article's view controllers", timeLimit(minutes: 1))
@MainActor
struct UIKitSamplesTests {
  @Test("SearchViewController cancels its search in viewDidDisappear, and stays usable")
  func viewDidDisappearCancels() async {
    let controller = SearchViewController()
    await api.expectCancellation(of: "uikit-disappear") {
      controller.search("uikit-disappear")
    } cancelledBy: {
      controller.viewDidDisappear(false)
    }
    #expect(!controller.cancelBag.hasEnded)
  }

  @Test("SearchViewController's search is cancelled when the controller is deallocated")
  func deinitCancels() async {
    var controller: SearchViewController? = SearchViewController()
    await api.expectCancellation(of: "uikit-release") {
      controller!.search("uikit-release")
    } cancelledBy: {
      controller = nil
    }
  }

  @Test("FeedViewController's feed load is cancelled when the controller disappears")
  func feedLoadIsCancelledOnDisappear() async {
    let controller = FeedViewController()
    await api.expectCancellation(of: "feed") {
      controller.viewWillAppear(false)
    } cancelledBy: {
      controller.viewDidDisappear(false)
    }
  }
}

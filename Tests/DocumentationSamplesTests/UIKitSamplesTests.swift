import AutoCancel
import AutoCancelTestSupport
import Testing

@Suite("The UIKit article's view controllers", timeLimit(minutes: 1))
@MainActor
struct UIKitSamplesTests {
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

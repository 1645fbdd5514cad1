import AutoCancel
import AutoCancelTestSupport
import Testing

@Suite("The SwiftUI article's models", timeLimit(minutes: 1))
@MainActor
struct SwiftUISamplesTests {
  @Test("SearchViewModel cancels its search when the page disappears, and stays usable")
  func observableObjectCancelsOnDisappear() async {
    let model = SearchViewModel()
    await api.expectCancellation(of: "swiftui-disappear") {
      model.search("swiftui-disappear")
    } cancelledBy: {
      model.pageDidDisappear()
    }
    #expect(!model.cancelBag.hasEnded)
  }

  @Test("SearchViewModel's search is cancelled when the model goes away")
  func observableObjectCancelsWhenReleased() async {
    var model: SearchViewModel? = SearchViewModel()
    await api.expectCancellation(of: "swiftui-release") {
      model!.search("swiftui-release")
    } cancelledBy: {
      model = nil  // the task holds the model weakly: nothing else keeps it
    }
  }

  #if canImport(Observation)
    @Test("SearchModel's search is cancelled when the model goes away")
    func observableModelCancelsWhenReleased() async {
      guard #available(iOS 17, macOS 14, tvOS 17, watchOS 10, *) else { return }
      var model: SearchModel? = SearchModel()
      await api.expectCancellation(of: "observable-release") {
        model!.search("observable-release")
      } cancelledBy: {
        model = nil
      }
    }
  #endif
}

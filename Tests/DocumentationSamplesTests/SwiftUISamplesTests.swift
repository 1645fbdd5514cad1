import AutoCancel
import AutoCancelTestSupport
import Testing

@Suite("The SwiftUI article's models", timeLimit(minutes: 1))
@MainActor
struct SwiftUISamplesTests {
  @Test("SearchViewModel cancels its search when the page disappears, and stays usable")
  func observableObjectCancelsOnDisappear() async {
    let text = "swiftui-disappear"
    api.holdSearches(for: text)
    let model = SearchViewModel()
    model.search(text)
    await api.wait(for: text) { started, _ in started == 1 }
    model.pageDidDisappear()
    await api.wait(for: text) { _, cancelled in cancelled == 1 }
    #expect(!model.cancelBag.hasEnded)
  }

  @Test("SearchViewModel's search is cancelled when the model goes away")
  func observableObjectCancelsWhenReleased() async {
    let text = "swiftui-release"
    api.holdSearches(for: text)
    var model: SearchViewModel? = SearchViewModel()
    model!.search(text)
    await api.wait(for: text) { started, _ in started == 1 }
    model = nil  // the task holds the model weakly: nothing else keeps it
    await api.wait(for: text) { _, cancelled in cancelled == 1 }
  }

  #if canImport(Observation)
    @Test("SearchModel's search is cancelled when the model goes away")
    func observableModelCancelsWhenReleased() async {
      guard #available(iOS 17, macOS 14, tvOS 17, watchOS 10, *) else { return }
      let text = "observable-release"
      api.holdSearches(for: text)
      var model: SearchModel? = SearchModel()
      model!.search(text)
      await api.wait(for: text) { started, _ in started == 1 }
      model = nil
      await api.wait(for: text) { _, cancelled in cancelled == 1 }
    }
  #endif
}

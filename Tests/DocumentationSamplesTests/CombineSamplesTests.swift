import AutoCancel
import AutoCancelTestSupport
import Testing

@Suite("The Combine and RxSwift article's models", timeLimit(minutes: 1))
@MainActor
struct CombineSamplesTests {
  @Test("name AutoCancel's bag by its qualified name and by the typealias")
  func qualifiedNamesReachAutoCancel() {
    let bags: [AutoCancel.CancelBag] = [ProfileModel().cancelBag, SettingsModel().cancelBag]
    #expect(bags.allSatisfy { !$0.hasEnded })
  }

  @Test("let a task whose registration was dropped run on, and cancel it with its owner")
  func droppedRegistrationDoesNotCancel() async {
    api.holdSearches(for: "download")
    var model: DownloadModel? = DownloadModel()
    model!.start()
    await api.wait(for: "download") { started, _ in started == 1 }
    #expect(api.counts(for: "download").cancelled == 0)
    #expect(model!.cancelBag.count == 1)
    model = nil
    await api.wait(for: "download") { _, cancelled in cancelled == 1 }
  }

  @Test("let a kept registration cancel its one piece of work alone")
  func keptRegistrationCancelsAlone() async {
    api.holdSearches(for: "upload")
    let model = DownloadModel()
    model.startUpload()
    await api.wait(for: "upload") { started, _ in started == 1 }
    model.cancelUpload()
    await api.wait(for: "upload") { _, cancelled in cancelled == 1 }
    #expect(model.cancelBag.count == 0)
  }
}

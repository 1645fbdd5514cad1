import AutoCancel
import AutoCancelTestSupport
import Testing

@Suite("The Keys and Policies article's models", timeLimit(minutes: 1))
@MainActor
struct KeysAndPoliciesSamplesTests {
  @Test("EditorModel saves once when Save is tapped twice, and isSaving follows the save")
  func saveTappedTwiceSavesOnce() async {
    let draft = Draft(text: "keys-save-twice")
    api.holdSearches(for: draft.text)
    let model = EditorModel()
    model.save(draft)
    model.save(draft)  // while the first runs: ignored
    await api.wait(for: draft.text) { started, _ in started == 1 }
    await waitUntilOnMainActor("the model shows the save") { model.isSaving }
    api.release(draft.text)
    await waitUntilOnMainActor("the model shows the save ended") { !model.isSaving }
    #expect(api.counts(for: draft.text) == (started: 1, cancelled: 0))
  }

  @Test("EditorModel applies edits one at a time, in the order they were made")
  func editsAreAppliedInOrder() async {
    let model = EditorModel()
    for id in 1...5 { model.send(Edit(id: 1000 + id)) }
    await waitUntilOnMainActor("the edits are applied") {
      !model.cancelBag.isRunning(key: "edits")
    }
    let applied = api.applied
    #expect(applied.ids.filter { $0 > 1000 && $0 <= 1005 } == [1001, 1002, 1003, 1004, 1005])
    #expect(applied.mostAtOnce == 1)
  }

  @Test("EditorModel prefetches side by side, and cancels every prefetch when the list goes")
  func prefetchesRunBesideAndGoTogether() async {
    let ids = [9001, 9002, 9003]
    for id in ids { api.holdSearches(for: "thumbnail \(id)") }
    let model = EditorModel()
    model.prefetch(ids)
    for id in ids { await api.wait(for: "thumbnail \(id)") { started, _ in started == 1 } }
    model.listScrolledAway()
    for id in ids { await api.wait(for: "thumbnail \(id)") { _, cancelled in cancelled == 1 } }
  }

  @Test("EditorModel's following task keeps neither the model nor its bag alive")
  func followingEndsWithTheModel() async {
    var model: EditorModel? = EditorModel()
    weak var released: EditorModel?
    weak var releasedBag: CancelBag?
    released = model
    releasedBag = model?.cancelBag
    #expect(model?.cancelBag.count == 1)  // the task that follows the saves
    model = nil
    #expect(released == nil)
    #expect(releasedBag == nil)
  }

  #if canImport(Observation)
    @Test("DraftModel shows its save while it runs, and ignores a second tap")
    func observableModelShowsItsSave() async {
      guard #available(iOS 17, macOS 14, tvOS 17, watchOS 10, *) else { return }
      let draft = Draft(text: "keys-observable-save")
      api.holdSearches(for: draft.text)
      let model = DraftModel()
      model.save(draft)
      model.save(draft)
      await waitUntilOnMainActor("the model shows the save") { model.isSaving }
      api.release(draft.text)
      await waitUntilOnMainActor("the model shows the save ended") { !model.isSaving }
      #expect(api.counts(for: draft.text) == (started: 1, cancelled: 0))
    }
  #endif
}

// The samples of the article "Keys and Policies", exactly as it shows them. The view builds
// with SwiftUI, or with the stand-ins where it is missing; the models are tested everywhere.

import AutoCancel

#if canImport(Combine)
  import Combine
#endif
#if canImport(Observation)
  import Observation  // availability-ok: only declarations marked @available(iOS 17, ...) use it
#endif
#if canImport(SwiftUI)
  import SwiftUI
#endif

// MARK: Choosing a policy

@MainActor
final class EditorModel: ObservableObject {
  @Published private(set) var isSaving = false
  let cancelBag = CancelBag()

  init() {
    // Follows whether a save runs, for as long as the model lives.
    let saves = cancelBag.runningUpdates(key: "save")
    cancelBag.task { [weak self] in
      for await running in saves { self?.isSaving = running }
    }
  }

  func save(_ draft: Draft) {
    // Tapped again while a save runs: ignored.
    cancelBag.task(key: "save", policy: .ignoreNew) {
      try await api.save(draft)
    }
  }

  func send(_ edit: Edit) {
    // One at a time, in the order they were made.
    cancelBag.task(key: "edits", policy: .enqueue) {
      try await api.apply(edit)
    }
  }

  func prefetch(_ ids: [Int]) {
    for id in ids {
      cancelBag.task(key: "thumbnails", policy: .runConcurrently) {
        try await api.thumbnail(id)
      }
    }
  }

  func listScrolledAway() {
    cancelBag.cancel(key: "thumbnails")  // all of them, and nothing else
  }
}

// MARK: Showing it

struct EditorScreen: View {
  @StateObject private var model = EditorModel()
  let draft: Draft

  var body: some View {
    Button("Save") { model.save(draft) }
      .disabled(model.isSaving)
  }
}

#if canImport(Observation)
  @available(iOS 17, macOS 14, tvOS 17, watchOS 10, *)
  @MainActor
  @Observable
  final class DraftModel {
    private(set) var isSaving = false
    let cancelBag = CancelBag()

    init() {
      let saves = cancelBag.runningUpdates(key: "save")
      cancelBag.task { [weak self] in
        for await running in saves { self?.isSaving = running }
      }
    }

    func save(_ draft: Draft) {
      cancelBag.task(key: "save", policy: .ignoreNew) {
        try await api.save(draft)
      }
    }
  }
#endif

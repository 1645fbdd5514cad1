// The samples of the article "Using AutoCancel with SwiftUI", exactly as it shows them.
// The views need SwiftUI; the models compile and are tested on every platform.

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

// MARK: When `.task {}` is enough

#if canImport(SwiftUI)
  struct SearchView: View {
    @State private var query = ""
    @State private var results: [String] = []

    var body: some View {
      List(results, id: \.self) { Text($0) }
        .searchable(text: $query)
        .task(id: query) {
          // SwiftUI cancels this task when the query changes and when the view goes away.
          results = (try? await api.search(query)) ?? []
        }
    }
  }
#endif

// MARK: A model that owns the work

@MainActor
final class SearchViewModel: ObservableObject {
  @Published private(set) var results: [String] = []
  let cancelBag = CancelBag()

  func search(_ text: String) {
    cancelBag.task(key: "search") { [weak self] in
      let found = try await api.search(text)
      self?.results = found
    }
  }

  func pageDidDisappear() {
    cancelBag.cancelAll()
  }
}

#if canImport(SwiftUI)
  struct SearchScreen: View {
    @StateObject private var model = SearchViewModel()
    @State private var query = ""

    var body: some View {
      List(model.results, id: \.self) { Text($0) }
        .searchable(text: $query)
        .onSubmit(of: .search) { model.search(query) }
        .onDisappear { model.pageDidDisappear() }
    }
  }
#endif

// MARK: From iOS 17, an @Observable model

#if canImport(Observation)
  @available(iOS 17, macOS 14, tvOS 17, watchOS 10, *)
  @MainActor
  @Observable
  final class SearchModel {
    private(set) var results: [String] = []
    let cancelBag = CancelBag()

    func search(_ text: String) {
      cancelBag.task(key: "search") { [weak self] in
        let found = try await api.search(text)
        self?.results = found
      }
    }
  }
#endif

#if canImport(SwiftUI) && canImport(Observation)
  @available(iOS 17, macOS 14, tvOS 17, watchOS 10, *)
  struct ObservableSearchScreen: View {
    @State private var model = SearchModel()
    @State private var query = ""

    var body: some View {
      List(model.results, id: \.self) { Text($0) }
        .searchable(text: $query)
        .onSubmit(of: .search) { model.search(query) }
        .onDisappear { model.cancelBag.cancelAll() }
    }
  }
#endif

// The samples of the article "Naming and Starting Bag Tasks", exactly as it shows them.

import AutoCancel

@MainActor
final class FeedModel: AutoCancelOwner {
  let cancelBag = CancelBag()
  private(set) var items: [String] = []

  func reload(_ feedID: Int) {
    cancelBag.task(key: feedID, label: "feed") { [weak self] in
      // The task's name: "feed [42]" for feed 42.
      let items = try await api.search("feed \(feedID)")
      self?.show(items)
    }
  }

  private func show(_ items: [String]) {
    self.items = items
  }
}

#if compiler(>=6.2)
  @MainActor
  final class RefreshModel: AutoCancelOwner {
    let cancelBag = CancelBag()
    private(set) var phase = "idle"

    func refreshTapped() {
      cancelBag.immediateTask(key: "refresh") { [weak self] in
        self?.phase = "refreshing"  // before refreshTapped() returns, from iOS 26 / macOS 26
        _ = try await api.search("refresh")
        self?.phase = "idle"
      }
    }
  }
#endif

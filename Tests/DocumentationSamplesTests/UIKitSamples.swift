// The samples of the article "Using AutoCancel with UIKit", exactly as it shows them. Where
// UIKit has no view controllers (Linux, macOS, watchOS), `UIViewController` is a stand-in
// with the same lifecycle calls.

import AutoCancel

#if canImport(UIKit) && !os(watchOS)
  import UIKit
#endif

final class SearchViewController: UIViewController, AutoCancelOwner {
  let cancelBag = CancelBag()
  private(set) var results: [String] = []

  func search(_ text: String) {
    cancelBag.task(key: "search") { [weak self] in
      let found = try await api.search(text)
      self?.show(found)
    }
  }

  override func viewDidDisappear(_ animated: Bool) {
    super.viewDidDisappear(animated)
    cancelBag.cancelAll()  // the page was left: its work goes, the controller stays
  }

  private func show(_ found: [String]) {
    results = found
  }
}

final class FeedViewController: UIViewController, AutoCancelOwner {
  let cancelBag = CancelBag()
  private(set) var items: [String] = []

  override func viewWillAppear(_ animated: Bool) {
    super.viewWillAppear(animated)
    autoCancelTask {
      try await api.search("feed")
    } then: { controller, result in
      controller.items = (try? result.get()) ?? []
    }
  }

  override func viewDidDisappear(_ animated: Bool) {
    super.viewDidDisappear(animated)
    cancelBag.cancelAll()
  }
}

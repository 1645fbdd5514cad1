// The samples of the article "Coming from Combine or RxSwift", exactly as it shows them.

import AutoCancel

/// The hand-written Combine helper that many apps have, under the same name as AutoCancel's
/// bag: in its presence, only the qualified name below reaches AutoCancel's.
private final class CancelBag {
  var subscriptions: [Any] = []
}

// MARK: Qualifying the name

final class ProfileModel: AutoCancelOwner {
  let cancelBag = AutoCancel.CancelBag()
}

typealias TaskBag = AutoCancel.CancelBag

final class SettingsModel: AutoCancelOwner {
  let cancelBag = TaskBag()
}

// MARK: A registration that is dropped does not cancel

@MainActor
final class DownloadModel: AutoCancelOwner {
  let cancelBag = AutoCancel.CancelBag()
  private var upload: CancelRegistration?

  func start() {
    // Dropping the registration is fine: the bag holds the task until it ends.
    cancelBag.task { [weak self] in
      _ = try await api.search("download")
      self?.didFinish()
    }
  }

  func startUpload() {
    // Keep the registration only to cancel this one piece of work alone.
    upload = cancelBag.add(Task { try await api.search("upload") })
  }

  func cancelUpload() {
    upload?.cancel()
  }

  private func didFinish() {}
}

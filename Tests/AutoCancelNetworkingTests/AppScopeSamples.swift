// The samples of the article "Work That Outlives Its Owner", exactly as it shows them
// (DocumentationSamplesTests checks them line for line), tested at the loopback server by
// AppScopePatternTests.

import AutoCancel
import AutoCancelNetworking
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Owns the work that must finish even when the screen that started it is gone: uploads,
/// saves, sync. It lives as long as the app.
final class AppScope: AutoCancelOwner, Sendable {
  let cancelBag = CancelBag(label: "app")
  let session = URLSession(configuration: .ephemeral)  // uploads and saves: nothing to cache

  /// The user signed out: nothing of theirs goes on.
  func signOut() {
    cancelBag.cancelAll(reason: .custom("signed out"))
  }
}

@MainActor
final class ComposeScreen: AutoCancelOwner {
  let cancelBag = CancelBag()  // this screen's own work: cancelled when it goes
  let app: AppScope
  private(set) var lastReply: Data?

  init(app: AppScope) {
    self.app = app
  }

  func send(_ post: Data, to url: URL) {
    var request = URLRequest(url: url)
    request.httpMethod = "POST"
    // The app's bag, not the screen's: closing the screen does not stop the upload.
    app.cancelBag.task(key: "outbox", policy: .enqueue, label: "post") {
      [weak self, session = app.session, request] in
      let (reply, _) = try await session.upload(for: request, from: post, in: nil)
      self?.lastReply = reply  // only if the screen is still there
    }
  }
}

@available(iOS 16, macOS 13, tvOS 16, watchOS 9, *)
extension ComposeScreen {
  func saveDraft(_ draft: Data, to url: URL, within limit: Duration) {
    var request = URLRequest(url: url)
    request.httpMethod = "PUT"
    // Outlives the screen, but not the limit: then it is cancelled, with reason timedOut.
    app.cancelBag.task(label: "draft", timeout: limit) { [session = app.session, request] in
      _ = try await session.upload(for: request, from: draft, in: nil)
    }
  }
}

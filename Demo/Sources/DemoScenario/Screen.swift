import AutoCancel
import AutoCancelNetworking
import Foundation
import LoopbackHTTPServer

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A screen of the simulated app: it owns a `CancelBag` and starts its requests as it opens.
///
/// The runner holds the only strong reference; completion handlers hold it weakly, as an app
/// would. Without binding, the screen going away changes nothing for its requests. With
/// AutoCancel, its requests are bound to its bag with AutoCancelNetworking's
/// `dataTask(with:in:label:completionHandler:)`, so the screen going away (its `deinit`, which
/// ends the bag) cancels what is still in flight, and completed requests leave the bag.
package final class Screen: AutoCancelOwner, Sendable {
  package let cancelBag: CancelBag
  package let plan: ScreenPlan

  package init(plan: ScreenPlan) {
    self.plan = plan
    cancelBag = CancelBag(label: plan.id)
  }

  /// Starts every request of the screen on `session` against `server`.
  func open(
    _ mode: BindingMode, session: URLSession, server: LoopbackHTTPServer, state: RunState
  ) {
    for request in plan.requests {
      let id = request.id
      let completion: @Sendable (Data?, URLResponse?, (any Error)?) -> Void = {
        [weak self] _, _, error in
        state.requestEnded(id, screenStillThere: self != nil, failed: error != nil)
      }
      let urlRequest = URLRequest(url: server.url(request.pathAndQuery))
      let task =
        switch mode {
        case .withoutBinding:
          session.dataTask(with: urlRequest, completionHandler: completion)
        case .withAutoCancel:
          session.dataTask(
            with: urlRequest, in: cancelBag, label: id, completionHandler: completion)
        }
      state.requestStarted(id)
      task.resume()
    }
  }
}

import AutoCancelNetworking
import LoopbackHTTPServer

/// Everything one run recorded: what the app did and what the server saw.
///
/// Raw material for ``RunMeasurement``.
package struct RunResult: Sendable {
  /// Which run.
  package var mode: BindingMode
  /// The plan that was run.
  package var plan: ScenarioPlan
  /// The ids of the requests the app started, in the order it started them.
  package var startedRequestIDs: [String]
  /// Every screen's exit, in the order people left them.
  package var exits: [ScreenExit]
  /// The server's record of every request that reached it, in arrival order; all finished.
  package var records: [RequestRecord]
  /// Responses delivered (no error) to completion handlers after their screen had gone:
  /// wasted work on the device too.
  package var responsesAfterScreenLeft: Int
  /// Completion handlers that got an error (with AutoCancel: mostly cancellations).
  package var requestsFailed: Int
  /// Wall-clock seconds the run took, until the server had finished every request.
  package var durationSeconds: Double
  /// With AutoCancel: the library's own account of what its cancels saved during the run
  /// (`URLSessionSavings.current.since` a reading taken as the run began); nil without.
  package var library: URLSessionSavings?

  package init(
    mode: BindingMode, plan: ScenarioPlan, startedRequestIDs: [String], exits: [ScreenExit],
    records: [RequestRecord], responsesAfterScreenLeft: Int, requestsFailed: Int,
    durationSeconds: Double, library: URLSessionSavings? = nil
  ) {
    self.mode = mode
    self.plan = plan
    self.startedRequestIDs = startedRequestIDs
    self.exits = exits
    self.records = records
    self.responsesAfterScreenLeft = responsesAfterScreenLeft
    self.requestsFailed = requestsFailed
    self.durationSeconds = durationSeconds
    self.library = library
  }
}

import Dispatch

/// The moment a person left a screen, and what the server had done for it by then.
package struct ScreenExit: Sendable {
  /// The screen's id.
  package var screenID: String
  /// The ids of the screen's requests.
  package var requestIDs: [String]
  /// When the screen went away (taken just before the last reference to it was dropped).
  package var exitAt: DispatchTime
  /// Per request id, the body bytes the server had sent by then (absent: no record yet).
  package var bytesSentAtExit: [String: Int]
  /// The ids of the requests already over by then: finished at the server, or their
  /// response already delivered to the app. Nothing they sent counts as wasted.
  package var finishedAtExit: Set<String>

  package init(
    screenID: String, requestIDs: [String], exitAt: DispatchTime, bytesSentAtExit: [String: Int],
    finishedAtExit: Set<String>
  ) {
    self.screenID = screenID
    self.requestIDs = requestIDs
    self.exitAt = exitAt
    self.bytesSentAtExit = bytesSentAtExit
    self.finishedAtExit = finishedAtExit
  }
}

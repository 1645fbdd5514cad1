import Foundation

/// How one request ended, as a ``RequestInstrument`` hears it: told once per request, by the
/// one place that sees the end (a library request's ``Transfer``; for a raw task, the
/// library's cancel of it).
struct RequestEnd: Sendable, Equatable {
  /// How the request ended.
  enum Outcome: Sendable, Equatable {
    /// URLSession delivered its response (or the library delivered a 401 whose challenge
    /// went unanswered).
    case completed
    /// URLSession reported an error, the app's own cancel included.
    case failed
    /// The library cancelled it: a bag, an awaiting task, a consumer gone.
    case cancelled
  }

  /// Where the request stood: when the library's cancel reached it, or when it ended.
  enum Phase: Sendable, Equatable {
    /// Never sent: cancelled before its task was resumed, or before it existed.
    case notSent
    /// Started, no response head yet.
    case awaitingResponse
    /// The response head came.
    case receivingBody
  }

  var outcome: Outcome
  var phase: Phase
  /// Body bytes received; nil where nobody counted them (a raw data task on Linux, whose
  /// bytes FoundationNetworking does not count).
  var bytesReceived: Int64?
  /// The body's length announced by the response head; nil without a head or a length.
  var expectedLength: Int64?
  /// The request's URL.
  var url: URL?
}

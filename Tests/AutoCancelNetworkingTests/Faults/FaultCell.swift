import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A way the network misbehaves, as the loopback server plays it.
enum NetworkFault: String, CaseIterable, Codable, Sendable {
  /// The server resets the connection mid-body (RST).
  case reset
  /// The server closes the connection mid-body (FIN), short of `Content-Length`.
  case close
  /// The server reads the request and closes the connection without answering.
  case hangUp
  /// The server reads the request and never answers.
  case silence
  /// The server stops sending mid-body, for ever.
  case stall
  /// The server breaks its chunked framing mid-body.
  case badChunk
  /// The server redirects the request to itself, for ever.
  case loop
  /// One redirect hop to a good body: not a fault, but the moment streams are most fragile.
  case redirect
  /// One redirect hop to a body that stalls.
  case redirectToStall
  /// Nobody listens on the port.
  case refused
  /// The whole server is stopped while it is in the middle of the body.
  case serverKilled

  /// What Foundation reports when the fault, and nothing else, ends a request of `form`.
  ///
  /// A body cut short and broken chunked framing come out of FoundationNetworking as
  /// `URLError.unknown`: it maps libcurl's "transfer closed with N bytes remaining to read" and
  /// "Illegal or missing hexadecimal sequence" to no specific code. A hang-up is libcurl's
  /// "empty reply from server", `.badServerResponse`.
  ///
  /// The Apple sets have never been recorded on an Apple platform: they hold every code that
  /// Apple documents for the event. `.networkConnectionLost` is "a client or server connection
  /// was severed in the middle of an in-progress load", which is what CFNetwork reports for a
  /// cut body and for a server that closes without answering; `.badServerResponse` ("received
  /// bad data from the server") and `.cannotParseResponse` ("a response could not be parsed")
  /// are the codes for a reply that is there but broken.
  ///
  /// A hang-up on a kept-alive connection makes libcurl retry the request on a new one; an
  /// upload's body is not sent again there (FoundationNetworking cannot rewind it), so the
  /// upload waits for its timeout. Plain Foundation does the same.
  func ownEnding(for form: RequestForm) -> Set<CellOutcome> {
    switch self {
    case .reset: [.failure(.networkConnectionLost)]
    case .close, .serverKilled: [.failure(Self.truncatedBody)]
    case .badChunk: Self.brokenFraming
    case .hangUp: form.uploads ? Self.hungUp.union([.failure(.timedOut)]) : Self.hungUp
    case .silence, .stall, .redirectToStall: [.failure(.timedOut)]
    case .loop: [.failure(.httpTooManyRedirects)]
    case .redirect: [.body(FaultRequests.bodySize)]
    case .refused: [.failure(.cannotConnectToHost)]
    }
  }

  #if canImport(FoundationNetworking)
    private static let truncatedBody = URLError.Code.unknown
    private static let brokenFraming: Set<CellOutcome> = [.failure(.unknown)]
    private static let hungUp: Set<CellOutcome> = [.failure(.badServerResponse)]
  #else
    private static let truncatedBody = URLError.Code.networkConnectionLost
    private static let brokenFraming: Set<CellOutcome> = [
      .failure(.cannotParseResponse), .failure(.networkConnectionLost),
      .failure(.badServerResponse),
    ]
    private static let hungUp: Set<CellOutcome> = [
      .failure(.networkConnectionLost), .failure(.badServerResponse),
    ]
  #endif

  /// Whether the server holds the request open in the fault (silence, a stall; a killed
  /// server stalls until it is killed), so that a cancel made then certainly comes first.
  var holdsTheRequest: Bool {
    switch self {
    case .silence, .stall, .redirectToStall, .serverKilled: true
    default: false
    }
  }

  /// Whether the request is redirected on its way.
  var redirects: Bool { self == .loop || self == .redirect || self == .redirectToStall }
}

/// A way to make a request with AutoCancelNetworking, as users write it.
enum RequestForm: String, CaseIterable, Codable, Sendable {
  /// `session.dataTask(with:in:completionHandler:)`.
  case dataTask
  /// `session.uploadTask(with:from:in:completionHandler:)`.
  case uploadTask
  /// `session.downloadTask(with:in:completionHandler:)`.
  case downloadTask
  /// `session.data(for:in: nil)` in a bag task.
  case asyncData
  /// `session.upload(for:from:in: nil)` in a bag task.
  case asyncUpload
  /// `session.download(for:in: nil)` in a bag task.
  case asyncDownload
  /// `session.stream(for:in: nil)` in a bag task, iterating the body.
  case stream
  /// A raw `session.dataTask(with:completionHandler:)` bound with `autoCancel(task)`.
  case rawTask
  /// `SharedURLRequests.data(for:session:)` in the bag tasks of several owners.
  case shared

  /// How many owners make the request.
  var owners: Int { self == .shared ? 3 : 1 }

  /// Whether the form sends a body (`POST /upload`).
  var uploads: Bool { self == .uploadTask || self == .asyncUpload }

  /// How the form reports a cancellation: completion handlers get `URLError(.cancelled)`,
  /// async calls throw `CancellationError`.
  var cancellation: CellOutcome {
    switch self {
    case .dataTask, .uploadTask, .downloadTask, .rawTask: .urlCancelled
    case .asyncData, .asyncUpload, .asyncDownload, .stream, .shared: .cancellationError
    }
  }

  /// Whether each request reports through a completion handler, which must run exactly once.
  var hasCompletionHandler: Bool { cancellation == .urlCancelled }
}

/// The session a request runs on.
enum SessionKind: String, CaseIterable, Codable, Sendable {
  /// `URLSessionConfiguration.ephemeral` (an in-memory cache).
  case ephemeral
  /// `URLSessionConfiguration.default` (`URLCache.shared`).
  case cached
  /// `URLSession.shared`.
  case shared
}

/// What ends the request.
enum EndingTrigger: String, CaseIterable, Codable, Sendable {
  /// Nothing but the fault.
  case fault
  /// Every owner is released.
  case ownerReleased
  /// Every owner's bag cancels its work and stays usable.
  case cancelAll
  /// The request's own cancel: the bag task's for async calls and shared requests, the
  /// registration's for a raw task (`autoCancel(task).cancel()`), and for the
  /// completion-handler helpers the end of a bag made for the request alone, a child of its
  /// owner's. (`URLSessionTask.cancel()` called directly is Foundation's own, which on Linux
  /// can trap on a session with a URL cache: the networking article says to avoid it.)
  case cancelled
}

/// One cell of the matrix: a fault, met by a form of request on a kind of session, and ended
/// by a trigger.
struct FaultCell: Hashable, Codable, Sendable, CustomStringConvertible {
  var fault: NetworkFault
  var form: RequestForm
  var session: SessionKind
  var trigger: EndingTrigger

  var description: String {
    "\(fault.rawValue) × \(form.rawValue) × \(session.rawValue) × \(trigger.rawValue)"
  }

  /// What the cell's requests must end with; the one place outcomes are decided.
  ///
  /// - Parameter cancelCameLate: whether the cancel (or the kill of a killed server) was made
  ///   half the request timeout or more after the server began holding the request, or after
  ///   the request started: the client's own timeout may then have come first (the runner was
  ///   starved, as under a sanitizer on a loaded machine).
  func expectation(cancelCameLate: Bool = false) -> CellExpectation {
    let own = fault.ownEnding(for: form)
    if trigger == .fault {
      // A killed server holds the request until the runner kills it: late, the timeout wins.
      let allowed =
        fault == .serverKilled && cancelCameLate ? own.union([.failure(.timedOut)]) : own
      return CellExpectation(allowed: allowed, serverSeesTheClientLeave: false)
    }
    if fault.holdsTheRequest {
      // Made while the server holds the request, the cancel comes first; made late, it may
      // lose to the client's own timeout, the one thing that ends a held request (a killed
      // server's stall included: only the fault trigger kills it).
      return CellExpectation(
        allowed: cancelCameLate ? [.failure(.timedOut), form.cancellation] : [form.cancellation],
        serverSeesTheClientLeave: true)
    }
    // The cancel races the fault: either may come first, nothing else may come.
    return CellExpectation(
      allowed: own.union([form.cancellation]), serverSeesTheClientLeave: false)
  }

  /// Whether the cell runs in a child process of its own.
  ///
  /// FoundationNetworking traps (`HTTPURLProtocol.swift:705`) when a task of a session with a
  /// delegate is cancelled while its redirect waits for the delegate's decision, and streams
  /// run on such a session. The library must keep its streams out of that trap; should it
  /// ever fail to, a cell that cancels a stream on a redirecting route ends one child process
  /// and fails alone, instead of ending the whole test run.
  var runsInChildProcess: Bool { form == .stream && fault.redirects && trigger != .fault }
}

/// How a request may end, its cancellation or its fault.
enum CellOutcome: Hashable, Sendable, CustomStringConvertible {
  /// The whole body arrived: this many bytes.
  case body(Int)
  /// A `URLError` other than `.cancelled`.
  case failure(URLError.Code)
  /// `CancellationError`.
  case cancellationError
  /// `URLError(.cancelled)`.
  case urlCancelled
  /// Another error.
  case unexpected(String)

  init(_ error: any Error) {
    if error is CancellationError {
      self = .cancellationError
    } else if let error = error as? URLError {
      self = error.code == .cancelled ? .urlCancelled : .failure(error.code)
    } else {
      self = .unexpected("\(type(of: error)): \(error)")
    }
  }

  var description: String {
    switch self {
    case .body(let count): "body(\(count))"
    case .failure(let code): "URLError(\(code.rawValue))"
    case .cancellationError: "CancellationError"
    case .urlCancelled: "URLError(.cancelled)"
    case .unexpected(let text): text
    }
  }
}

/// What a cell's requests must end with.
struct CellExpectation: Sendable, CustomStringConvertible {
  /// The outcomes a caller may get.
  var allowed: Set<CellOutcome>
  /// Whether the server must see the client leave (a cancel made while it holds the request).
  var serverSeesTheClientLeave: Bool

  func allows(_ outcome: CellOutcome) -> Bool { allowed.contains(outcome) }

  var description: String {
    let outcomes = allowed.map(\.description).sorted().joined(separator: " or ")
    return serverSeesTheClientLeave ? "\(outcomes), seen leaving" : outcomes
  }
}

import AutoCancel
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// An account of what the library's cancels saved on URLSession work, process-wide: requests
/// cancelled before they were sent, before their response came or in the middle of their
/// body, the body bytes received before each cancel and those never sent, and the requests
/// that joined a shared download instead of starting their own.
///
/// Off until you turn it on, at launch, with ``enable()``; read it with ``current``, and
/// compare two readings with ``since(_:)``.
///
/// ```swift
/// URLSessionSavings.enable()  // at launch
/// let start = URLSessionSavings.current
/// // … later:
/// let saved = URLSessionSavings.current.since(start)
/// print("\(saved.cancelled) requests cancelled, \(saved.bytesAvoided) body bytes not downloaded")
/// ```
///
/// ## Contract
///
/// - Counted: each request the library cancelled (a bag ending or cancelling its work, the
///   Swift task awaiting an async call or a stream, a stream's consumer gone, the last caller
///   of a shared download gone), once, as it ended, by where the cancel found it. Not counted:
///   requests that completed first, failed, or that the app cancelled itself.
/// - The helpers' requests, async calls, streams and shared downloads are counted when
///   URLSession reports their end, with the body bytes they received: counted by the library
///   as they arrive on Linux, read from the task on Apple platforms. A request cancelled
///   before its task was resumed, or made, counts as never sent.
/// - Raw tasks bound with `autoCancel(task)` or `cancelBag.add(task)` are counted as the
///   library's cancel returns, from the task's own counts; FoundationNetworking counts no data
///   task's bytes, so there a raw task cut mid-body has an unknown remainder.
/// - Only requests the library started after ``enable()`` are counted. Reading is safe from
///   any thread; every count only grows.
public struct URLSessionSavings: Sendable, Hashable, CustomStringConvertible {
  /// Requests cancelled before they were sent: cancelled before their task was resumed, or
  /// before it existed (a bag that had ended, a Swift task already cancelled). The server
  /// saw nothing of them.
  ///
  /// ```swift
  /// print("\(saved.cancelledBeforeSent) requests never went out")
  /// ```
  public internal(set) var cancelledBeforeSent: Int

  /// Requests cancelled after they started and before their response head came: waiting for
  /// the server, or, if the cancel came very early, still connecting or (on Linux) asking the
  /// session's URL cache, so that some of them may never have reached the server.
  ///
  /// ```swift
  /// print("\(saved.cancelledAwaitingResponse) requests cancelled while the server thought")
  /// ```
  public internal(set) var cancelledAwaitingResponse: Int

  /// Requests cancelled once their response head had come, while their body arrived.
  ///
  /// ```swift
  /// print("\(saved.cancelledReceivingBody) downloads cut short")
  /// ```
  public internal(set) var cancelledReceivingBody: Int

  /// Body bytes received by the requests cancelled while receiving their body, until their
  /// transfer stopped (see the type's contract for how they are counted).
  ///
  /// ```swift
  /// print("\(saved.bytesReceivedBeforeCancel) bytes downloaded for nothing")
  /// ```
  public internal(set) var bytesReceivedBeforeCancel: Int64

  /// Body bytes never downloaded, by the requests cancelled while receiving a body of known
  /// length: that length, from the response head, minus the bytes received.
  ///
  /// Requests cancelled before their response came, and those counted in
  /// ``cancelledWithUnknownRemainder``, add nothing here: what they would have cost is not
  /// known.
  ///
  /// ```swift
  /// let megabytes = Double(saved.bytesAvoided) / 1_000_000
  /// ```
  public internal(set) var bytesAvoided: Int64

  /// Of the requests cancelled while receiving their body, those whose avoided bytes are not
  /// known: the body's length was not announced (a chunked body, or one without
  /// `Content-Length`), or nobody counted the bytes received (a raw data task on Linux). They
  /// add nothing to ``bytesAvoided``.
  ///
  /// ```swift
  /// print("and \(saved.cancelledWithUnknownRemainder) bodies whose rest is not known")
  /// ```
  public internal(set) var cancelledWithUnknownRemainder: Int

  /// Calls of `SharedURLRequests`' `data(for:session:)` that joined the download already
  /// running for their request instead of starting one: downloads not made. Counted as the
  /// caller joins, however the download then ends.
  ///
  /// ```swift
  /// print("\(saved.joinedSharedRequests) downloads shared")
  /// ```
  public internal(set) var joinedSharedRequests: Int

  /// An account of nothing: every count zero.
  ///
  /// ```swift
  /// let nothing = URLSessionSavings()
  /// assert(nothing.cancelled == 0)
  /// ```
  public init() {
    cancelledBeforeSent = 0
    cancelledAwaitingResponse = 0
    cancelledReceivingBody = 0
    bytesReceivedBeforeCancel = 0
    bytesAvoided = 0
    cancelledWithUnknownRemainder = 0
    joinedSharedRequests = 0
  }

  /// Everything counted in this process so far: nothing until ``enable()`` was called.
  ///
  /// Any thread; one reading is the count of one moment.
  ///
  /// ```swift
  /// print(URLSessionSavings.current)
  /// ```
  public static var current: URLSessionSavings {
    SavingsAccount.shared.total
  }

  /// Turns the account on for every request the library starts from now on. Call it at
  /// launch, before the first request; a second call does nothing. Any thread: it waits for
  /// the library's queue of requests, which never waits for URLSession.
  ///
  /// While it is on, a request the library cancelled takes one short lock more when it ends;
  /// requests that complete cost nothing more.
  ///
  /// ```swift
  /// let missed = URLSessionSavings.enable()
  /// assert(missed == 0, "\(missed) requests were started before the account was turned on")
  /// ```
  ///
  /// - Returns: How many requests the library started before the account was turned on,
  ///   which go uncounted: 0 when the first call came before the first request, as it should.
  @discardableResult
  public static func enable() -> Int {
    RequestInstruments.shared.install(SavingsAccount.shared)
  }

  /// Whether ``enable()`` was called. Any thread: it waits for the library's queue, as
  /// ``enable()`` does.
  ///
  /// ```swift
  /// URLSessionSavings.enable()
  /// print(URLSessionSavings.isEnabled)  // true
  /// ```
  public static var isEnabled: Bool {
    RequestInstruments.shared.isInstalled(SavingsAccount.shared)
  }

  /// Requests the library cancelled: the sum of ``cancelledBeforeSent``,
  /// ``cancelledAwaitingResponse`` and ``cancelledReceivingBody``.
  ///
  /// ```swift
  /// let reachedServer = saved.cancelled - saved.cancelledBeforeSent
  /// ```
  public var cancelled: Int {
    cancelledBeforeSent + cancelledAwaitingResponse + cancelledReceivingBody
  }

  /// What was counted after `earlier`, a reading taken before this one: each count minus the
  /// earlier one.
  ///
  /// ```swift
  /// let start = URLSessionSavings.current
  /// // … a session later:
  /// let session = URLSessionSavings.current.since(start)
  /// analytics.track("autocancel_network", properties: ["bytes_avoided": session.bytesAvoided])
  /// ```
  public func since(_ earlier: URLSessionSavings) -> URLSessionSavings {
    var difference = self
    difference.cancelledBeforeSent -= earlier.cancelledBeforeSent
    difference.cancelledAwaitingResponse -= earlier.cancelledAwaitingResponse
    difference.cancelledReceivingBody -= earlier.cancelledReceivingBody
    difference.bytesReceivedBeforeCancel -= earlier.bytesReceivedBeforeCancel
    difference.bytesAvoided -= earlier.bytesAvoided
    difference.cancelledWithUnknownRemainder -= earlier.cancelledWithUnknownRemainder
    difference.joinedSharedRequests -= earlier.joinedSharedRequests
    return difference
  }

  /// One line: `cancelled 5 (before sent 1, awaiting response 1, receiving body 3), bytes
  /// received 81920, bytes avoided 4915200 (1 unknown), shared joins 2`.
  ///
  /// ```swift
  /// print(URLSessionSavings.current)
  /// ```
  public var description: String {
    "cancelled \(cancelled) (before sent \(cancelledBeforeSent), awaiting response "
      + "\(cancelledAwaitingResponse), receiving body \(cancelledReceivingBody)), "
      + "bytes received \(bytesReceivedBeforeCancel), bytes avoided \(bytesAvoided) "
      + "(\(cancelledWithUnknownRemainder) unknown), shared joins \(joinedSharedRequests)"
  }
}

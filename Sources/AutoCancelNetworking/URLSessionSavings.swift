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
/// Read it with ``current``; compare two readings with ``since(_:)``.
///
/// ```swift
/// let start = URLSessionSavings.current
/// // … later:
/// let saved = URLSessionSavings.current.since(start)
/// print("\(saved.cancelled) requests cancelled, \(saved.bytesAvoided) body bytes not downloaded")
/// ```
///
/// ## Contract
///
/// - Only cancels the library makes are counted: a bag that ends or cancels its work (its
///   owner going away, `cancelAll`, a key, a deadline), the cancelled Swift task awaiting an
///   async call or a stream, a stream whose consumer stopped iterating, the last caller of a
///   shared download going away. A task the app cancels itself, a server's fault, a timeout
///   and any other error are not counted: nothing here counts errors.
/// - A request whose transfer completed before the cancel reached it saved nothing, and is
///   not counted.
/// - Requests made by the helpers (`dataTask(with:in:label:completionHandler:)` and its kin,
///   the async `data(for:in:label:)` and its kin, `stream(for:in:label:)`, shared requests)
///   are counted when URLSession reports the cancel to the library, once the transfer has
///   stopped: their byte counts are final. A request cancelled before its task was resumed,
///   or before it existed, is counted at once, as not sent.
/// - Raw tasks bound with `autoCancel(task)` or `cancelBag.add(task)` are counted where the
///   library cancels them, on its private queue, right after it called
///   `URLSessionTask.cancel()`: the library never sees their completion. On Linux that cancel
///   stops the transfer before it returns, so their counts are final; on Apple platforms it
///   returns before the transfer stops, and bytes that still arrive are not seen. A raw task
///   that completed, or that the app cancelled, before the library's cancel reached it is not
///   counted; one whose completion handler has run but that URLSession has not yet marked
///   completed is still running to the library, and is counted if its bag ends in that
///   moment. Nor, as a rule, is a raw task added to a bag that had already ended: it is
///   cancelled before `add` returns, so that it never starts, and the library's queued cancel
///   then finds it cancelled; it is counted, as not sent, only when that cancel comes first.
/// - Counting costs the requests that complete nothing: an account is kept only for cancels and
///   joins, under one lock that nothing else takes.
/// - Reading is safe from any thread. Every count only grows.
public struct URLSessionSavings: Sendable, Hashable, CustomStringConvertible {
  /// Requests cancelled before they were sent: cancelled before their task was resumed, or
  /// before it existed (a bag that had ended, a Swift task already cancelled). The server
  /// saw nothing of them.
  ///
  /// A raw task counts here when it is suspended, without a response, as the library cancels
  /// it.
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
  /// On Linux the head shows, to the library, as the task's expected length, which
  /// FoundationNetworking sets from the head (a helper's task has no `response` there until
  /// it completes).
  ///
  /// ```swift
  /// print("\(saved.cancelledReceivingBody) downloads cut short")
  /// ```
  public internal(set) var cancelledReceivingBody: Int

  /// Body bytes received before the cancel, by the requests cancelled while receiving their
  /// body: the task's `countOfBytesReceived` (see the type's contract for when it is read),
  /// or for a stream the bytes of the chunks that came before the cancel, which pass through
  /// the library.
  ///
  /// FoundationNetworking on Linux does not count a data task's received bytes (its
  /// `countOfBytesReceived` stays 0): there, the cancel of a body that is not a stream is
  /// counted in ``cancelledWithUnknownRemainder`` and adds nothing here.
  ///
  /// ```swift
  /// print("\(saved.bytesReceivedBeforeCancel) bytes downloaded for nothing")
  /// ```
  public internal(set) var bytesReceivedBeforeCancel: Int64

  /// Body bytes never downloaded, by the requests cancelled while receiving a body of known
  /// length: that length (`countOfBytesExpectedToReceive`, or the response's
  /// `expectedContentLength`) minus the bytes received.
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
  /// `Content-Length`), or Foundation did not count the bytes received (FoundationNetworking
  /// on Linux, for data tasks other than streams). They add nothing to ``bytesAvoided``.
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

  /// Everything counted in this process so far.
  ///
  /// Any thread; one reading is the count of one moment.
  ///
  /// ```swift
  /// print(URLSessionSavings.current)
  /// ```
  public static var current: URLSessionSavings {
    SavingsAccount.total
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

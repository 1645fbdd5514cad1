import Foundation

/// What hears how the library's requests end: installed for the whole process, at launch, as
/// the core's bag instruments are (``RequestInstruments/install(_:)``).
///
/// Called on ``TaskQueue``, after the request's outcome was delivered, never under a lock of
/// ours: an instrument must return quickly and must not wait for URLSession.
protocol RequestInstrument: AnyObject, Sendable {
  /// A request ended.
  func requestEnded(_ end: RequestEnd)
  /// A caller of `SharedURLRequests.data(for:session:)` joined the download already running
  /// for its request, for `url`.
  func sharedRequestJoined(url: URL?)
}

/// The process's request instruments: installed once, at launch; each request takes them as
/// the library starts it, on ``TaskQueue``, so that no request takes a process-wide lock to
/// find them.
///
/// Process-wide because an instrument is installed by one line at the app's launch, for every
/// request of every module, and a request is made where no one could hand it one.
final class RequestInstruments: @unchecked Sendable {
  // Safety: every stored property is read and written on `TaskQueue.queue` alone.

  /// The one set of the process.
  static let shared = RequestInstruments()

  private var installed: [any RequestInstrument] = []
  private var requestsStarted = 0
  /// How many requests had started when each instrument was installed.
  private var startedBefore: [ObjectIdentifier: Int] = [:]

  /// Installs `instrument` for every request started from now on; installing it again does
  /// nothing. Any thread; waits for ``TaskQueue``, where the instruments are read, until the
  /// calls queued before it were made.
  ///
  /// - Returns: How many requests the library started before its first install: they go on
  ///   without it.
  func install(_ instrument: any RequestInstrument) -> Int {
    TaskQueue.sync {
      let id = ObjectIdentifier(instrument)
      if let before = startedBefore[id] { return before }
      startedBefore[id] = requestsStarted
      installed.append(instrument)
      return requestsStarted
    }
  }

  /// Whether `instrument` is installed. Any thread; waits for ``TaskQueue``.
  func isInstalled(_ instrument: any RequestInstrument) -> Bool {
    TaskQueue.sync { startedBefore[ObjectIdentifier(instrument)] != nil }
  }

  /// The instruments of a request the library starts now; counts it. On ``TaskQueue``.
  func ofNewRequest() -> [any RequestInstrument] {
    dispatchPrecondition(condition: .onQueue(TaskQueue.queue))
    requestsStarted &+= 1
    return installed
  }

  /// The instruments installed now, for an event outside a request (a raw task's cancel, a
  /// shared join). On ``TaskQueue``.
  var current: [any RequestInstrument] {
    dispatchPrecondition(condition: .onQueue(TaskQueue.queue))
    return installed
  }
}

import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A library request's task, from its making to its end, on ``TaskQueue`` alone: makes and
/// resumes it, cancels it, answers its redirects, and is the one place that sees it end, where
/// it tells the request instruments how (``RequestEnd``).
///
/// On Linux it also hears the task's events from its twin's delegate (``TwinDelegate``): it
/// counts the body's bytes as they arrive, keeps a task's body until its end, and holds back a
/// 401 while its challenge is decided. A redirect decision that comes after the library's
/// cancel is dropped: both run on the queue, so a decision either reaches the task before the
/// cancel or never (FoundationNetworking stops the process on a decision that comes after a
/// cancel).
final class Transfer: @unchecked Sendable {
  // Safety: every stored `var` is read and written on `TaskQueue.queue` alone (checked by
  // `dispatchPrecondition` at each entry), except `client`, set once by the request's
  // initializer before the transfer is shared.

  /// Where the task stands.
  private enum Stage {
    /// Not made yet.
    case notMade
    /// The library cancelled the request before its task was made.
    case cancelledBeforeMade
    /// Being made, on its lane of ``TaskQueue``.
    case making
    /// The library cancelled the request while its task was being made: it is cancelled as it
    /// comes, never resumed.
    case cancelledWhileMaking
    /// Made (and resumed, or handed to its caller to resume).
    case running(URLSessionTask)
    /// The library cancelled it, in `phase`; its end comes.
    case cancelled(URLSessionTask, phase: RequestEnd.Phase)
    /// The library delivered a 401 for it and cancelled what remains; its end comes.
    case answered(URLSessionTask)
    /// Ended, and reported.
    case ended
  }

  let spec: TaskSpec
  /// The request; let go once the transfer ended. Set once, by the request's initializer,
  /// before the transfer is shared.
  private var client: (any BoundRequest)?
  private var stage = Stage.notMade
  private var instruments: [any RequestInstrument] = []
  /// Whether the library resumes the task (its caller does for the completion-handler
  /// helpers): a task the library resumes is sent even if cancelled while its resume waits.
  private var libraryResumes = false

  #if canImport(FoundationNetworking)
    /// The twin the task is made on.
    private var twin: TwinSessions.Twin?
    /// The head of the response being delivered.
    private var head: URLResponse?
    /// Body bytes received so far, all responses of the task included.
    private var received: Int64 = 0
    /// A task's body (not a stream's), and a download's file.
    private var body = Data()
    private var file: URL?
    /// A 401 held back while its challenge is decided, with its body.
    private var challenged: (response: URLResponse, body: Data)?
  #endif

  init(_ spec: TaskSpec) {
    self.spec = spec
  }

  /// Where the task's URLSession calls are made, in order.
  var calls: DispatchQueue { TaskQueue.calls(for: self) }

  /// Sets the request that hears the task: called once, by the request's initializer.
  func setClient(_ client: any BoundRequest) {
    self.client = client
  }

  /// Starts the task, resumed by the library: made and resumed on its lane of ``TaskQueue``,
  /// never on the caller's thread. A request cancelled first is reported never sent, and
  /// nothing is made.
  func start(on session: URLSession) {
    dispatchPrecondition(condition: .onQueue(TaskQueue.queue))
    instruments = RequestInstruments.shared.ofNewRequest()
    libraryResumes = true
    switch stage {
    case .notMade:
      stage = .making
    case .cancelledBeforeMade:
      stage = .ended
      client = nil
      return report(.cancelled, phase: .notSent, bytes: 0, expected: nil)
    default:
      preconditionFailure("Invalid state: a transfer started twice")
    }
    let make = maker(for: session)
    // The caller's session lives until its twin's task is made and resumed: the twin of a
    // session that is gone is invalidated, and FoundationNetworking stops the process when a
    // task is made on an invalidated session.
    calls.async { [self] in
      let task = withExtendedLifetime(session) { make() }
      TaskQueue.async { self.made(task, keeping: session) }
    }
  }

  /// The task ``start(on:)`` had made: resumed on its lane of ``TaskQueue``, unless the
  /// library cancelled the request meanwhile.
  private func made(_ task: URLSessionTask, keeping session: URLSession) {
    dispatchPrecondition(condition: .onQueue(TaskQueue.queue))
    route(task)
    switch stage {
    case .making:
      stage = .running(task)
      calls.async { withExtendedLifetime(session) { task.resume() } }
    case .cancelledWhileMaking:
      // Never resumed: its cancel sends nothing, and its end reports it never sent.
      stage = .cancelled(task, phase: .notSent)
      calls.async { task.cancel() }
    default:
      preconditionFailure("Invalid state: a transfer's task made twice")
    }
  }

  /// Takes the task its caller resumes, made with ``maker(for:)`` on the caller's thread.
  /// Returns whether the library cancelled the request first: the caller then cancels the task
  /// before it returns it, so that its `resume()` does nothing.
  func adopt(_ task: URLSessionTask) -> Bool {
    dispatchPrecondition(condition: .onQueue(TaskQueue.queue))
    instruments = RequestInstruments.shared.ofNewRequest()
    route(task)
    switch stage {
    case .notMade:
      stage = .running(task)
      return false
    case .cancelledBeforeMade:
      stage = .cancelled(task, phase: .notSent)
      return true
    default:
      preconditionFailure("Invalid state: a transfer started twice")
    }
  }

  /// The library cancels the request: its task now, on its lane of ``TaskQueue``, or, not made
  /// yet, as it is made.
  ///
  /// A redirect decision that comes after this is dropped (``answerRedirect(_:_:)``), and one
  /// that came before has reached the task before the task's `cancel()` is made.
  func cancel() {
    dispatchPrecondition(condition: .onQueue(TaskQueue.queue))
    switch stage {
    case .notMade:
      stage = .cancelledBeforeMade
    case .making:
      stage = .cancelledWhileMaking
    case .running(let task):
      stage = .cancelled(task, phase: phase(of: task))
      calls.async { task.cancel() }
    case .cancelledBeforeMade, .cancelledWhileMaking, .cancelled, .answered, .ended:
      break
    }
  }

  /// Where the request stands: never sent while its task waits for its caller's first
  /// `resume()`.
  private func phase(of task: URLSessionTask) -> RequestEnd.Phase {
    guard libraryResumes || task.state != .suspended else { return .notSent }
    #if canImport(FoundationNetworking)
      // A data task's head reaches its delegate first; a download's only the task.
      let seenHere = head != nil || challenged != nil
    #else
      let seenHere = false
    #endif
    let headCame = seenHere || task.response != nil || task.countOfBytesExpectedToReceive != 0
    return headCame ? .receivingBody : .awaitingResponse
  }

  /// The task ended with `error`: tells the instruments how.
  private func ended(_ task: URLSessionTask, error: (any Error)?) {
    dispatchPrecondition(condition: .onQueue(TaskQueue.queue))
    let outcome: RequestEnd.Outcome
    let phase: RequestEnd.Phase
    switch stage {
    case .cancelled(_, let cancelledIn) where (error as? URLError)?.code == .cancelled:
      (outcome, phase) = (.cancelled, cancelledIn)
    case .ended:
      return
    case .answered:
      (outcome, phase) = (.completed, .receivingBody)
    default:
      (outcome, phase) = (error == nil ? .completed : .failed, self.phase(of: task))
    }
    stage = .ended
    #if canImport(FoundationNetworking)
      let (response, bytes) = (head ?? task.response, received)
    #else
      let (response, bytes) = (task.response, task.countOfBytesReceived)
    #endif
    let expected =
      task.countOfBytesExpectedToReceive > 0
      ? task.countOfBytesExpectedToReceive : response?.expectedContentLength
    report(outcome, phase: phase, bytes: bytes, expected: expected)
  }

  private func report(
    _ outcome: RequestEnd.Outcome, phase: RequestEnd.Phase, bytes: Int64, expected: Int64?
  ) {
    guard !instruments.isEmpty else { return }
    let end = RequestEnd(
      outcome: outcome, phase: phase, bytesReceived: bytes,
      expectedLength: expected.flatMap { $0 >= 0 ? $0 : nil }, url: spec.url)
    for instrument in instruments { instrument.requestEnded(end) }
  }

  /// Hands a redirect decision to the task, unless the library cancelled it meanwhile.
  func answerRedirect(
    _ decision: URLRequest?, _ answer: @escaping @Sendable (URLRequest?) -> Void
  ) {
    dispatchPrecondition(condition: .onQueue(TaskQueue.queue))
    guard case .running = stage else { return }
    answer(decision)
  }

  #if canImport(FoundationNetworking)
    /// What makes the task, on any thread: a task of the twin of `session`, made here if
    /// needed.
    func maker(for session: URLSession) -> @Sendable () -> URLSessionTask {
      dispatchPrecondition(condition: .onQueue(TaskQueue.queue))
      let twin = TwinSessions.shared.twin(for: session)
      self.twin = twin
      let spec = spec
      return { spec.makeTask(on: twin.session) }
    }

    /// Hands the task's events to this transfer, before it is resumed.
    private func route(_ task: URLSessionTask) {
      twin?.delegate.route(task, to: self)
    }

    /// Whether the task's response head goes to the caller's delegate too (a stream, a data
    /// task driven by its delegate, as Foundation would tell it).
    var forwardsResponse: Bool {
      if case .stream = spec { return true }
      return false
    }

    func received(_ response: URLResponse) {
      dispatchPrecondition(condition: .onQueue(TaskQueue.queue))
      // FoundationNetworking delivers a 401's head and body before it asks about the
      // challenge it carries (`URLSessionTask.swift:1102-1136` at 6.3.1).
      if let http = response as? HTTPURLResponse, http.statusCode == 401,
        http.value(forHTTPHeaderField: "WWW-Authenticate") != nil
      {
        challenged = (response, Data())
        return
      }
      challenged = nil
      head = response
      body = Data()
      guard case .running = stage else { return }
      client?.transferReceivedHead(response)
    }

    func received(_ data: Data) {
      dispatchPrecondition(condition: .onQueue(TaskQueue.queue))
      received += Int64(data.count)
      if challenged != nil {
        challenged?.body.append(data)
      } else if case .stream = spec {
        guard case .running = stage else { return }
        client?.transferReceived(data)
      } else {
        body.append(data)
      }
    }

    /// A download task wrote `count` more bytes to its file.
    func wrote(_ count: Int64) {
      dispatchPrecondition(condition: .onQueue(TaskQueue.queue))
      received += count
    }

    func finishedDownloading(to location: URL) {
      dispatchPrecondition(condition: .onQueue(TaskQueue.queue))
      file = location
    }

    /// The caller decided the challenge about a 401: FoundationNetworking retries with a
    /// credential, cancels on a refusal, and otherwise leaves the task waiting forever; then
    /// the 401 and its body are the answer, as on Apple platforms, and the task is cancelled
    /// behind them. Returns whether to hand the decision to the task.
    func challengeDecided(retries: Bool, refused: Bool) -> Bool {
      dispatchPrecondition(condition: .onQueue(TaskQueue.queue))
      guard case .running(let task) = stage else { return false }
      guard !retries && !refused, let (response, heldBody) = challenged else { return true }
      challenged = nil
      stage = .answered(task)
      switch spec {
      case .stream:
        client?.transferReceivedHead(response)
        if !heldBody.isEmpty { client?.transferReceived(heldBody) }
        client?.transferEnded(.data(nil), response, nil)
      case .download:
        client?.transferEnded(.file(nil), response, URLError(.userAuthenticationRequired))
      case .data, .upload, .uploadFile:
        client?.transferEnded(.data(heldBody), response, nil)
      }
      client = nil
      calls.async { task.cancel() }
      return false
    }

    /// The task completed (`didCompleteWithError`).
    func completed(_ task: URLSessionTask, error: (any Error)?) {
      dispatchPrecondition(condition: .onQueue(TaskQueue.queue))
      if case .answered = stage {
        return ended(task, error: error)
      }
      let delivered: TransferBody
      switch spec {
      case .stream: delivered = .data(nil)
      case .download: delivered = .file(error == nil ? file : nil)
      case .data, .upload, .uploadFile: delivered = .data(error == nil ? body : nil)
      }
      // A download's head reaches only the task.
      let response = head ?? task.response
      ended(task, error: error)
      client?.transferEnded(delivered, response, error)
      client = nil
      body = Data()
    }
  #else
    /// What makes the task, on any thread: a task of `session`, whose completion handler or
    /// delegate holds the request until it ends.
    func maker(for session: URLSession) -> @Sendable () -> URLSessionTask {
      dispatchPrecondition(condition: .onQueue(TaskQueue.queue))
      guard let client else { preconditionFailure("Invalid state: a transfer without a request") }
      let spec = spec
      if case .stream = spec {
        return { [self] in
          let task = spec.makeTask(on: session)
          task.delegate = StreamDelegate(transfer: self, client: client)
          return task
        }
      }
      return { [self] in
        spec.makeTask(on: session) { body, response, error in
          // Inline: a download's file is valid only until this returns.
          client.transferEnded(body, response, error)
          taskEnded(error: error)
        }
      }
    }

    /// On Apple platforms a task's events reach its request without the transfer.
    private func route(_ task: URLSessionTask) {}

    /// The task completed, as its completion handler or its delegate heard (on the session's
    /// delegate queue): the end is told from the queue.
    func taskEnded(error: (any Error)?) {
      TaskQueue.async { [self] in
        client = nil
        switch stage {
        case .running(let task), .cancelled(let task, _): ended(task, error: error)
        case .notMade, .cancelledBeforeMade, .making, .cancelledWhileMaking, .answered, .ended:
          break
        }
      }
    }
  #endif
}

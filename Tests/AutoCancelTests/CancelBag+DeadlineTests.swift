@testable import AutoCancel
import AutoCancelTestSupport
import Testing

/// The task running the caller, nil outside a task; equal for the same task.
private func currentTask() -> Int? { withUnsafeCurrentTask { $0?.hashValue } }

/// A manual clock that notes the task of each sleeper: a timer's task.
@available(macOS 13.0, iOS 16.0, tvOS 16.0, watchOS 9.0, *)
private struct TaskNotingClock: Clock {
  let base = ManualClock()
  let sleepingTasks = Protected<[Int?]>([])

  var now: ManualClock.Instant { base.now }
  var minimumResolution: Duration { base.minimumResolution }

  func sleep(until deadline: ManualClock.Instant, tolerance: Duration?) async throws {
    sleepingTasks.withLock { $0.append(currentTask()) }
    try await base.sleep(until: deadline, tolerance: tolerance)
  }
}

/// Work that notes the task that cancels it (nil outside a task).
private final class TaskNotingWork: AutoCancellable, Sendable {
  private let tasks = Protected<[Int?]>([])
  func cancel() { tasks.withLock { $0.append(currentTask()) } }
  var cancellingTasks: [Int?] { tasks.current }
}

/// Work in a bag whose timeout of 10 s on a manual clock has started: its timer sleeps.
@available(macOS 13.0, iOS 16.0, tvOS 16.0, watchOS 9.0, *)
private struct TimingOutWork {
  let clock = ManualClock()
  let bag = CancelBag()
  let work = RecordingWork()
  let registration: CancelRegistration

  private init() {
    registration = bag.add(work)
    registration.cancel(after: .seconds(10), clock: clock)
  }

  static func started() async -> TimingOutWork {
    let timing = TimingOutWork()
    await timing.clock.waitForSleepers(1)
    return timing
  }
}

/// A bag holding `works`, whose deadline `after` from now on a manual clock has started.
@available(macOS 13.0, iOS 16.0, tvOS 16.0, watchOS 9.0, *)
private func bagWithDeadline(
  after deadline: Duration, holding works: [RecordingWork] = []
) async -> (clock: ManualClock, bag: CancelBag) {
  let clock = ManualClock()
  let bag = CancelBag()
  for work in works { bag.add(work) }
  bag.setDeadline(after: deadline, clock: clock)
  await clock.waitForSleepers(1)
  return (clock, bag)
}

@Suite("Deadlines", timeLimit(minutes: 1))
struct DeadlineTests {
  /// How work ends before its timeout.
  enum EarlyEnd: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case finished, cancelled
    var testDescription: String { rawValue }
  }

  @available(macOS 13.0, iOS 16.0, tvOS 16.0, watchOS 9.0, *)
  @Test("cancel work still in flight at its timeout, with reason timedOut")
  func itemTimeout() async {
    let timing = await TimingOutWork.started()
    timing.clock.advance(by: .seconds(9))
    #expect(timing.work.reasons.isEmpty)
    timing.clock.advance(by: .seconds(1))
    #expect(await timing.work.cancellation() == .timedOut)
    #expect(timing.bag.count == 0)
  }

  @Test(
    "stop their timer when the work is finished or cancelled first", arguments: EarlyEnd.allCases)
  @available(macOS 13.0, iOS 16.0, tvOS 16.0, watchOS 9.0, *)
  func earlyEndStopsTimer(end: EarlyEnd) async {
    let timing = await TimingOutWork.started()
    switch end {
    case .finished: timing.registration.finish()
    case .cancelled: timing.bag.cancelAll()
    }
    let stopped = await timing.clock.waitForSleepers(0)
    #expect(stopped, "the timer still sleeps after the work was \(end)")
    timing.clock.advance(by: .seconds(60))
    #expect(timing.work.reasons == (end == .cancelled ? [.explicit] : []))
  }

  @available(macOS 13.0, iOS 16.0, tvOS 16.0, watchOS 9.0, *)
  @Test("end the bag with reason timedOut at the bag's deadline, and cancel later work")
  func bagDeadline() async {
    let work = RecordingWork()
    let (clock, bag) = await bagWithDeadline(after: .seconds(30), holding: [work])
    clock.advance(by: .seconds(30))
    #expect(await work.cancellation() == .timedOut)
    #expect(bag.endReason == .timedOut)
    let late = RecordingWork()
    bag.add(late)
    #expect(late.reasons == [.timedOut])
  }

  @available(macOS 13.0, iOS 16.0, tvOS 16.0, watchOS 9.0, *)
  @Test("of a bag stop when the bag ends first, and a new deadline replaces the old")
  func bagDeadlineStops() async {
    let (clock, bag) = await bagWithDeadline(after: .seconds(30))
    bag.setDeadline(after: .seconds(60), clock: clock)
    await clock.waitForSleepers(1)
    clock.advance(by: .seconds(30))
    #expect(!bag.hasEnded)
    bag.end()
    await clock.waitForSleepers(0)
    #expect(bag.endReason == .explicit)
  }

  @available(macOS 13.0, iOS 16.0, tvOS 16.0, watchOS 9.0, *)
  @Test("racing the bag's end leave every item cancelled exactly once", arguments: 0..<20)
  func deadlineRacesEnd(round: Int) async {
    let works = (0..<50).map { _ in RecordingWork() }
    let (clock, bag) = await bagWithDeadline(after: .seconds(1), holding: works)
    async let fire: Void = clock.advance(by: .seconds(1))
    async let end: Void = bag.end(reason: .custom("closed"))
    _ = await (fire, end)
    let reason = bag.endReason
    #expect(reason == .timedOut || reason == .custom("closed"))
    // The call that lost returns at once, while the winner may still be cancelling the items
    // on its own thread.
    await waitUntil("every item was cancelled") { works.allSatisfy { !$0.reasons.isEmpty } }
    #expect(works.allSatisfy { $0.reasons == [reason!] })
  }

  @available(macOS 13.0, iOS 16.0, tvOS 16.0, watchOS 9.0, *)
  @Test("of a bag task cancel it with reason timedOut, visible inside the task")
  func taskTimeout() async {
    let bag = CancelBag()
    let reason = await bag.task(timeout: .milliseconds(1)) { () async -> CancellationReason? in
      try? await Task.sleep(for: .seconds(3600))  // the work, cut short by the timeout
      return CancellationReason.current
    }.value
    #expect(reason == .timedOut)
    #expect(bag.count == 0)
  }

  @Test(
    "cancel from the task of their timer, for an item's timeout or the bag's deadline",
    arguments: [false, true])
  @available(macOS 13.0, iOS 16.0, tvOS 16.0, watchOS 9.0, *)
  func cancelFromTheTimersTask(bagDeadline: Bool) async {
    let clock = TaskNotingClock()
    let bag = CancelBag()
    let work = TaskNotingWork()
    if bagDeadline {
      bag.add(work)
      bag.setDeadline(after: .seconds(10), clock: clock)
    } else {
      bag.add(work).cancel(after: .seconds(10), clock: clock)
    }
    await clock.base.waitForSleepers(1)
    clock.base.advance(by: .seconds(10))
    await waitUntil("the timer cancels the work") { !work.cancellingTasks.isEmpty }
    let timers = clock.sleepingTasks.current
    #expect(timers.count == 1 && timers[0] != nil && timers[0] != currentTask())
    #expect(work.cancellingTasks == timers)
  }
}

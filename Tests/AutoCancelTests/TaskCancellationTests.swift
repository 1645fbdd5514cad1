import AutoCancelTestSupport
import Testing

@testable import AutoCancel

@Suite("A bag task's cancellation", timeLimit(minutes: 1))
struct TaskCancellationTests {
  /// A new cancellation for each test, of a bag task not yet begun nor attached.
  let cancellation = TaskCancellation(core: BagCore())

  @Test("publishes the bag's reason to the running task, and withdraws it when the task ends")
  func withdrawsTheReasonAtTheEnd() async {
    let (begun, cancelled) = (Gate(), Gate())
    let task = Task { () -> (CancellationReason?, CancellationReason?) in
      cancellation.begin()
      begun.open()
      await cancelled.wait()
      let during = TaskCancellation.reasonForCurrentTask()
      cancellation.end()
      // Still the same task, so the same identity: only the withdrawal makes this nil.
      return (during, TaskCancellation.reasonForCurrentTask())
    }
    cancellation.attach(task)
    await begun.wait()
    cancellation.cancel(reason: .custom("left"))
    cancelled.open()
    let (during, after) = await task.value
    #expect(during == .custom("left"))
    #expect(after == nil)
  }

  @Test("cancels the task as it begins, with the reason, when the bag cancelled it first")
  func publishesFromBeginWhenCancelledFirst() async {
    cancellation.cancel(reason: .replaced)
    let (cancelled, reason) = await Task { () -> (Bool, CancellationReason?) in
      cancellation.begin()
      defer { cancellation.end() }
      return (Task.isCancelled, CancellationReason.current)
    }.value
    #expect(cancelled)
    #expect(reason == .replaced)
  }

  @Test("publishes the reason as it is attached, when the bag cancelled a running task first")
  func publishesFromAttachWhenCancelledBeforeIt() async {
    let (begun, attached) = (Gate(), Gate())
    let task = Task { () -> (Bool, CancellationReason?) in
      cancellation.begin()
      defer { cancellation.end() }
      begun.open()
      await attached.wait()
      return (Task.isCancelled, CancellationReason.current)
    }
    await begun.wait()
    cancellation.cancel(reason: .timedOut)
    cancellation.attach(task)
    attached.open()
    let (cancelled, reason) = await task.value
    #expect(cancelled)
    #expect(reason == .timedOut)
  }

  @Test("publishes nothing for a task whose handle cancelled it before the bag did")
  func publishesNothingAfterAHandleCancel() async {
    let (begun, cancelled) = (Gate(), Gate())
    let task = Task { () -> CancellationReason? in
      cancellation.begin()
      defer { cancellation.end() }
      begun.open()
      await cancelled.wait()
      return TaskCancellation.reasonForCurrentTask()
    }
    cancellation.attach(task)
    await begun.wait()
    task.cancel()
    cancellation.cancel(reason: .ownerGone)
    cancelled.open()
    #expect(await task.value == nil)
    #expect(cancellation.reason == .ownerGone)
  }

  @Test("names the task by its own type")
  func namesTheTaskByItsType() async {
    let gate = Gate()
    let task = Task { () -> Int in
      await gate.wait()
      return 1
    }
    cancellation.attach(task)
    #expect(cancellation.wrappedTypeName == "Task<Int, Never>")
    gate.open()
    _ = await task.value
  }
}

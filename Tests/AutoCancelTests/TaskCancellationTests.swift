import AutoCancelTestSupport
import Testing

@testable import AutoCancel

@Suite("A bag task's cancellation", timeLimit(minutes: 1))
struct TaskCancellationTests {
  @Test("publishes the bag's reason to the running task, and withdraws it when the task ends")
  func withdrawsTheReasonAtTheEnd() async {
    let cancellation = TaskCancellation()
    let (during, after) = await Task { () -> (CancellationReason?, CancellationReason?) in
      cancellation.begin()
      cancellation.cancel(reason: .custom("left"))
      let during = TaskCancellation.reasonForCurrentTask()
      cancellation.end()
      // Still the same task, so the same identity: only the withdrawal makes this nil.
      return (during, TaskCancellation.reasonForCurrentTask())
    }.value
    #expect(during == .custom("left"))
    #expect(after == nil)
  }

  @Test("cancels the task as it begins, with the reason, when the bag cancelled it first")
  func publishesFromBeginWhenCancelledFirst() async {
    let cancellation = TaskCancellation()
    cancellation.cancel(reason: .replaced)
    let (cancelled, reason) = await Task { () -> (Bool, CancellationReason?) in
      cancellation.begin()
      defer { cancellation.end() }
      return (Task.isCancelled, CancellationReason.current)
    }.value
    #expect(cancelled)
    #expect(reason == .replaced)
  }

  @Test("publishes nothing for a task whose handle cancelled it before the bag did")
  func publishesNothingAfterAHandleCancel() async {
    let cancellation = TaskCancellation()
    let reason = await Task { () -> CancellationReason? in
      cancellation.begin()
      defer { cancellation.end() }
      cancellation.attach(HandleCancelledFirst())
      cancellation.cancel(reason: .ownerGone)
      return TaskCancellation.reasonForCurrentTask()
    }.value
    #expect(reason == nil)
    #expect(cancellation.reason == .ownerGone)
  }
}

/// A task handle through which the task was cancelled already.
private struct HandleCancelledFirst: CancellableTask {
  var isCancelled: Bool { true }
  func cancel() {}
}

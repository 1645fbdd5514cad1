import AutoCancelTestSupport
import Testing

@testable import AutoCancel

@Suite("Asking an error whether it is a cancellation")
struct ErrorIsCancellationTests {
  struct Failure: Error {}

  struct Representing: CancellationRepresenting {
    var representsCancellation: Bool
  }

  @Test("answers true for the standard CancellationError")
  func cancellationErrorIsACancellation() {
    let error: any Error = CancellationError()
    #expect(error.isCancellation)
  }

  @Test("answers false for any other error")
  func otherErrorsAreNot() {
    let error: any Error = Failure()
    #expect(!error.isCancellation)
  }

  @Test("answers what an error type of a sibling module says of each value")
  func representingErrorsAnswerForThemselves() {
    let cancelled: any Error = Representing(representsCancellation: true)
    let failed: any Error = Representing(representsCancellation: false)
    #expect(cancelled.isCancellation)
    #expect(!failed.isCancellation)
  }

  @Test("answers true for what a bag task throws when the bag cancels it")
  func bagTaskCancellationIsACancellation() async {
    let bag = CancelBag()
    let started = Gate()
    let task = bag.task {
      started.open()
      try await Task.sleep(nanoseconds: 3_600_000_000_000)
    }
    await started.wait()
    bag.cancelAll()
    let result = await task.result
    #expect(result.isFailure { $0.isCancellation })
  }
}

extension Result {
  fileprivate func isFailure(where predicate: (Failure) -> Bool) -> Bool {
    if case .failure(let error) = self { return predicate(error) }
    return false
  }
}

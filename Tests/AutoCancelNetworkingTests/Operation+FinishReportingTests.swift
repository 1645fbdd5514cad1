import AutoCancel
import AutoCancelNetworking
import AutoCancelTestSupport
import Foundation
import Testing

/// Holds an operation without keeping it alive.
final class WeakOperation {
  weak var operation: Operation?
  init(_ operation: Operation) { self.operation = operation }
}

final class Resizer: AutoCancelOwner, Sendable {
  let cancelBag = CancelBag()
}

@Suite("Operations in a bag")
struct OperationFinishReportingTests {
  @Test("are cancelled when their bag ends")
  func operationCancelled() {
    let bag = CancelBag()
    let operation = BlockOperation {}
    bag.add(operation)
    bag.end(reason: .ownerGone)
    #expect(operation.isCancelled)
  }

  @Test(
    "bound 100,000 times to a long-lived owner, leave it holding a few and free the finished ones")
  func hundredThousandOperations() {
    let count = 100_000
    let owner = Resizer()
    var watched: [WeakOperation] = []
    watched.reserveCapacity(count)
    for _ in 0..<count {
      withAutoreleasePool {
        let operation = BlockOperation {}
        owner.autoCancel(operation)
        operation.start()  // runs and finishes on this thread
        watched.append(WeakOperation(operation))
      }
    }
    let held = owner.cancelBag.count
    let alive = watched.filter { $0.operation != nil }.count
    print("100,000 operations through the one-liner: \(held) held, \(alive) alive")
    #expect(held <= 64, "the bag keeps finished operations: \(held) of \(count)")
    #expect(alive <= held)
  }

  @Test("are cancelled when their owner goes while they still run")
  func runningOperationCancelled() {
    var owner: Resizer? = Resizer()
    let operation = BlockOperation {}
    owner?.autoCancel(operation)
    owner = nil
    #expect(operation.isCancelled)
  }
}

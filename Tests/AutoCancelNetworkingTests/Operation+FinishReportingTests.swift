import AutoCancel
import AutoCancelNetworking
import AutoCancelTestSupport
import Foundation
import AutoCancelTestSupport
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
  func hundredThousandOperations() async {
    let count = 100_000
    // Seconds of CPU under a sanitizer: on a thread of its own, not the cooperative pool's.
    let (held, alive) = await onNewThread {
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
      return (owner.cancelBag.count, watched.filter { $0.operation != nil }.count)
    }
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

  @Test("leave their bag soon after a burst of 5,000 that all finished, with no later add")
  func burstLeaves() async {
    let owner = Resizer()
    let queue = OperationQueue()
    var first: WeakOperation?
    for index in 0..<5_000 {
      withAutoreleasePool {
        let operation = BlockOperation {}
        if index == 0 { first = WeakOperation(operation) }
        owner.autoCancel(operation)
        queue.addOperation(operation)
      }
    }
    await waitUntil("the operations ran") { queue.operationCount == 0 }
    await waitUntil("the finished burst left the bag") { owner.cancelBag.count == 0 }
    await waitUntil("the first operation is freed") { first?.operation == nil }
  }

  @Test(
    "bound through a generic helper or as an existential, leave by themselves as well",
    arguments: ["generic", "existential"])
  func callSiteDoesNotDecide(site: String) async {
    let owner = Resizer()
    let queue = OperationQueue()
    for _ in 0..<5_000 {
      withAutoreleasePool {
        let operation = BlockOperation {}
        if site == "generic" {
          bind(operation, to: owner)
        } else {
          let work: any AutoCancellable = operation
          owner.cancelBag.add(work)
        }
        queue.addOperation(operation)
      }
    }
    await waitUntil("the operations ran") { queue.operationCount == 0 }
    await waitUntil("the finished operations left the bag") { owner.cancelBag.count == 0 }
  }

  @Test("are cancelled when their owner goes, if started by hand and held by nobody else")
  func startedByHandCancelled() async {
    var owner: Resizer? = Resizer()
    let started = Gate()
    let cancelled = Gate()
    let operation = BlockOperation()
    operation.addExecutionBlock { [unowned operation] in
      started.open()
      while !operation.isCancelled { Thread.sleep(forTimeInterval: 0.001) }
      cancelled.open()
    }
    owner?.autoCancel(operation)
    // Started on a thread of its own; from here on only that thread and the bag hold it.
    Thread.detachNewThread { [operation] in operation.start() }
    await started.wait()
    owner = nil
    await cancelled.wait()
  }

  @Test("are cancelled when their owner goes, if asynchronous and held by nobody else")
  func asynchronousOperationCancelled() async {
    var owner: Resizer? = Resizer()
    let cancelled = Gate()
    var operation: AsynchronousOperation? = AsynchronousOperation { cancelled.open() }
    owner?.autoCancel(operation!)
    operation!.start()  // returns at once; the operation runs until it is cancelled
    operation = nil  // the caller lets go, as with a fire-and-forget request
    owner = nil
    await cancelled.wait()
  }
}

/// A user's generic helper around the one-liner.
private func bind<Work: AutoCancellable & AnyObject>(_ work: Work, to owner: some AutoCancelOwner) {
  owner.autoCancel(work)
}

/// An asynchronous operation: `start()` returns at once, and the operation is executing until
/// it is cancelled (then it reports `onCancel` and finishes).
private final class AsynchronousOperation: Operation, @unchecked Sendable {
  // Safety: `state` is only touched under its lock; `onCancel` is set in `init`.
  private let state = Protected((executing: false, finished: false))
  private let onCancel: @Sendable () -> Void

  init(onCancel: @escaping @Sendable () -> Void) {
    self.onCancel = onCancel
  }

  override var isAsynchronous: Bool { true }
  override var isExecuting: Bool { state.current.executing }
  override var isFinished: Bool { state.current.finished }

  override func start() {
    state.withLock { $0.executing = true }
  }

  override func cancel() {
    super.cancel()
    state.withLock { $0 = (executing: false, finished: true) }
    onCancel()
  }
}

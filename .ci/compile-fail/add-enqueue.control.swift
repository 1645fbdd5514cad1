// The control of add-enqueue.swift: the same add with a policy an add takes type-checks, so
// that the other fails for its policy alone.
import AutoCancel

final class Work: AutoCancellable {
  func cancel() {}
}

let bag = CancelBag()
bag.add(Work(), key: "k", policy: .runConcurrently)
bag.task(key: "k", policy: .enqueue) {}

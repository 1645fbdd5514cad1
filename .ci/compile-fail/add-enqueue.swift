// Must not type-check: work given to `add` already runs and cannot wait for its turn, so an
// add's policy has no `enqueue`.
// expect: type 'AddPolicy' has no member 'enqueue'
import AutoCancel

final class Work: AutoCancellable {
  func cancel() {}
}

let bag = CancelBag()
bag.add(Work(), key: "k", policy: .enqueue)

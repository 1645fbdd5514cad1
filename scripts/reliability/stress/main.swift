// The valgrind stress executable: the model-based runs of the test suite, plus owner churn,
// with a synchronous `main` (the test runner's async main exits the main thread inside
// libdispatch, which valgrind 3.19 cannot follow). Built and run by valgrind.sh together with
// Tests/AutoCancelTests/Reliability/Support/*.swift and the test-support kit.

import AutoCancel
import AutoCancelTestSupport
import Dispatch
import Foundation

let operations = ReliabilityConfig.totalOperations
let seeds = TestSeed.fresh(count: 1_000)
print("valgrind stress: base seed 0x\(String(TestSeed.base, radix: 16)), \(operations) operations")

do {
  // 30% single-threaded model runs, compared with the model after every operation.
  var singleThreaded = 0
  var seedIndex = 0
  while singleThreaded < operations * 3 / 10 {
    var run = SingleThreadedRun(seed: seeds[seedIndex % seeds.count], operations: 10_000)
    seedIndex += 1
    try run.run()
    singleThreaded += run.operations
  }
  // 70% multi-threaded model runs: 4 threads on one bag.
  var multiThreaded = 0
  while multiThreaded < operations * 7 / 10 {
    let run = ConcurrentRun(
      seed: seeds[seedIndex % seeds.count], threads: 4, operationsPerThread: 2_500)
    seedIndex += 1
    _ = try run.run()
    multiThreaded += 10_000
  }
  // Owner churn: owners come and go with work of every form in flight, some finished, some
  // replaced, some cancelled, some added after the end.
  var churned = 0
  for round in 0..<2_000 {
    var owner: ModelOwner? = ModelOwner()
    for index in 0..<16 {
      let record = ItemRecord(id: index)
      let kind = WorkKind.allCases[(round + index) % WorkKind.allCases.count]
      let (registration, _) = owner!.cancelBag.add(
        kind, record: record, key: index % 3 == 0 ? index % 2 : nil,
        label: index % 4 == 0 ? "r\(round)" : nil)
      if index % 5 == 0 { registration.finish() }
      if index % 7 == 0 { registration.cancel() }
    }
    if round % 3 == 0 { owner!.cancelBag.end() }
    if round % 3 == 1 { owner!.cancelBag.cancelAll() }
    owner = nil
    churned += 16
  }
  if ProcessInfo.processInfo.environment["AUTOCANCEL_VALGRIND_SELFTEST"] != nil {
    // Proves the harness can fail: one object whose last reference is dropped unreleased.
    final class Leaked {}
    _ = Unmanaged.passRetained(Leaked())
    print("valgrind stress: leaked one object on purpose (self-test)")
  }
  print(
    "valgrind stress: \(singleThreaded) single-threaded + \(multiThreaded) multi-threaded "
      + "operations, \(churned) churned items, \(seedIndex) runs, failures: 0")
} catch {
  print("valgrind stress FAILED: \(error)")
  exit(1)
}

import AutoCancel
import Testing

/// The model-based randomized tests of issue 7: the real bag against a reference model.
///
/// Sizes: `AUTOCANCEL_RELIABILITY_OPS` operations in all (default 1,000,000; 50,000 under
/// ThreadSanitizer, 100,000 under AddressSanitizer), 40% in single-threaded runs and 60% in
/// multi-threaded ones.
/// `AUTOCANCEL_SEED=<seed>` replays the run whose failure printed that seed.
@Suite(
  "A bag does what its reference model says, under random operations", .timeLimit(.minutes(1)))
struct ModelBasedTests {
  static let singleThreadedOperationsPerRun = 10_000
  static let threads = 4
  static let operationsPerThread = 2_500

  @Test("single-threaded random operations leave the bag in the model's state after each one")
  func singleThreadedRunsMatchTheModel() throws {
    let total = ReliabilityConfig.totalOperations * 4 / 10
    let runs = max(1, total / Self.singleThreadedOperationsPerRun)
    let seeds = ReliabilityConfig.seeds(count: runs)
    print(
      "single-threaded model runs: base seed \(ReliabilityConfig.baseSeed), \(seeds.count) runs, "
        + "instrumentation: \(ReliabilityConfig.instrumentation)")
    var operations = 0
    var bags = 0
    var cancellations = 0
    for seed in seeds {
      var run = SingleThreadedRun(seed: seed, operations: Self.singleThreadedOperationsPerRun)
      try run.run()
      operations += run.operations
      bags += run.bags
      cancellations += run.cancellations
    }
    print(
      "single-threaded model runs: \(seeds.count) runs, \(operations) operations, \(bags) bags, "
        + "\(cancellations) cancellations checked, failures: 0")
    #expect(operations >= total)
  }

  @Test("multi-threaded random operations end every item exactly once, for a reason they allow")
  func multiThreadedRunsEndEveryItemExactlyOnce() async throws {
    let total = ReliabilityConfig.totalOperations * 6 / 10
    let perRun = Self.threads * Self.operationsPerThread
    let runs = max(1, total / perRun)
    let seeds = ReliabilityConfig.seeds(count: runs)
    print(
      "multi-threaded model runs: base seed \(ReliabilityConfig.baseSeed), \(seeds.count) runs, "
        + "instrumentation: \(ReliabilityConfig.instrumentation)")
    var outcome = ConcurrentRun.Outcome()
    for seed in seeds {
      let run = ConcurrentRun(
        seed: seed, threads: Self.threads, operationsPerThread: Self.operationsPerThread)
      let result = try await run.run()
      outcome.items += result.items
      outcome.finished += result.finished
      outcome.cancelled += result.cancelled
      outcome.rejected += result.rejected
    }
    print(
      "multi-threaded model runs: \(seeds.count) runs × \(Self.threads) threads, "
        + "\(seeds.count * perRun) operations, \(outcome.items) items: \(outcome.finished) "
        + "finished, \(outcome.cancelled) cancelled, \(outcome.rejected) rejected, failures: 0")
    #expect(outcome.items > 0)
    #expect(outcome.finished + outcome.cancelled + outcome.rejected == outcome.items)
  }
}

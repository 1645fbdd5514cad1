import AutoCancel
import AutoCancelTestSupport
import Testing

/// Model-based randomized tests: the real bag against a reference model.
///
/// Sizes: `AUTOCANCEL_RELIABILITY_OPS` operations in all (default 1,000,000; 50,000 under
/// ThreadSanitizer, 100,000 under AddressSanitizer), 30% in single-threaded runs and 70% in
/// multi-threaded ones, spread over `shares` test cases that run one after the other (so that
/// each one's time limit measures its own work), each on threads of its own (never on the
/// cooperative pool); and a twentieth of that number again in launch runs, whose steps each
/// wait for tasks (from threads of their own, blocked while the tasks run on the pool). `AUTOCANCEL_SEED=<seed>` replays the one run whose failure printed that
/// seed (``TestSeed``), in the first share alone (the others are not run).
@Suite(
  "A bag does what its reference model says, under random operations", .serialized,
  timeLimit(minutes: 1))
struct ModelBasedTests {
  static let singleThreadedOperationsPerRun = 10_000
  static let launchStepsPerRun = 1_000
  static let threads = 4
  static let operationsPerThread = 2_500
  static let shares = 8

  /// The shares to run: all of them, or the first alone when one seed is replayed.
  static let shareArguments = TestSeed.replayed == nil ? Array(0..<shares) : [0]

  /// How many runs of how many operations make `total`: at least one run per share, so that
  /// no share is left with nothing to check (small totals, as under a sanitizer, make shorter
  /// runs instead of fewer), and runs of at most `operationsPerRun`.
  static func plan(total: Int, operationsPerRun: Int) -> (runs: Int, operationsPerRun: Int) {
    let runs = max(shares, total / operationsPerRun)
    return (runs, max(threads, min(operationsPerRun, total / runs)))
  }

  /// The seeds of share `share` of `runs` runs (the replayed seed goes to share 0 alone).
  static func seeds(share: Int, runs: Int) -> [UInt64] {
    let all = TestSeed.fresh(count: runs)
    return stride(from: share, to: all.count, by: shares).map { all[$0] }
  }

  /// Runs the runs of share `share`, when `total` operations go in runs of at most
  /// `operationsPerRun` (``plan(total:operationsPerRun:)``), one after the other on a thread of
  /// their own: they take seconds of CPU, and block their thread while their threads work or
  /// the bag's tasks run, never the cooperative pool that other tests share. `runOne` runs the
  /// run of a seed, with the operations of each run, and adds what it checked to its first
  /// argument, which starts as `start`; the first run that throws fails the share, as does a
  /// share without runs. Prints the share's
  /// base seed first, so that a run that crashes can be replayed. Returns what the runs
  /// checked, how many ran, of how many in all shares, and the operations of each.
  static func runShare<Checked: Sendable>(
    _ what: String, share: Int, total: Int, operationsPerRun: Int, from start: Checked,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ runOne: @escaping @Sendable (inout Checked, _ seed: UInt64, _ operations: Int) throws -> Void
  ) async throws -> (checked: Checked, runsHere: Int, runs: Int, operationsPerRun: Int) {
    let (runs, perRun) = plan(total: total, operationsPerRun: operationsPerRun)
    let seeds = seeds(share: share, runs: runs)
    try #require(!seeds.isEmpty, "share \(share) has no run", sourceLocation: sourceLocation)
    print(
      "\(what), share \(share): base seed 0x\(String(TestSeed.base, radix: 16)), "
        + "\(seeds.count) of \(runs) runs, instrumentation: \(ReliabilityConfig.instrumentation)")
    let checked = try await onNewThread { () -> Result<Checked, ReliabilityFailure> in
      var checked = start
      for seed in seeds {
        do { try runOne(&checked, seed, perRun) } catch {
          return .failure(ReliabilityFailure(error))
        }
      }
      return .success(checked)
    }.get()
    return (checked, seeds.count, runs, perRun)
  }

  @Test(
    "single-threaded random operations leave the bag in the model's state after each one",
    arguments: shareArguments)
  func singleThreadedRunsMatchTheModel(share: Int) async throws {
    let (checked, runsHere, _, _) = try await Self.runShare(
      "single-threaded model runs", share: share,
      total: ReliabilityConfig.totalOperations * 3 / 10,
      operationsPerRun: Self.singleThreadedOperationsPerRun, from: (0, 0, 0)
    ) { checked, seed, operations in
      var run = SingleThreadedRun(seed: seed, operations: operations)
      try run.run()
      checked.0 += run.operations
      checked.1 += run.bags
      checked.2 += run.cancellations
    }
    let (operations, bags, cancellations) = checked
    print(
      "single-threaded model runs, share \(share): \(runsHere) runs, \(operations) "
        + "operations, \(bags) bags, \(cancellations) cancellations checked, failures: 0")
    // Each run throws on its first disagreement with the model; these say the runs did
    // something worth checking.
    #expect(operations > 0 && bags > 0)
    #expect(cancellations > 0, "no run cancelled anything: the model checked no cancel")
  }

  @Test(
    "random launches and adds under keys start, wait, are refused and end as the model says",
    arguments: shareArguments)
  func launchRunsMatchTheModel(share: Int) async throws {
    let (outcome, runsHere, runs, steps) = try await Self.runShare(
      "launch runs", share: share, total: ReliabilityConfig.totalOperations / 20,
      operationsPerRun: Self.launchStepsPerRun, from: LaunchRun.Outcome()
    ) { outcome, seed, steps in
      var run = LaunchRun(seed: seed, operations: steps)
      try run.run()
      outcome.launches += run.outcome.launches
      outcome.refused += run.outcome.refused
      outcome.queued += run.outcome.queued
      outcome.neverStarted += run.outcome.neverStarted
    }
    print(
      "launch runs, share \(share): \(runsHere) of \(runs) runs × \(steps) steps, "
        + "\(outcome.launches) launches: \(outcome.refused) refused, \(outcome.queued) waited, "
        + "\(outcome.neverStarted) never started, failures: 0")
    // Each run throws on its first disagreement with the model; these say the runs went
    // through every kind of launch worth checking.
    #expect(outcome.launches > 0 && outcome.refused > 0)
    #expect(outcome.queued > 0 && outcome.neverStarted > 0)
  }

  @Test(
    "multi-threaded random operations end every item exactly once, for a reason they allow",
    arguments: shareArguments)
  func multiThreadedRunsEndEveryItemExactlyOnce(share: Int) async throws {
    let (outcome, runsHere, _, operationsPerRun) = try await Self.runShare(
      "multi-threaded model runs", share: share,
      total: ReliabilityConfig.totalOperations * 7 / 10,
      operationsPerRun: Self.threads * Self.operationsPerThread, from: ConcurrentRun.Outcome()
    ) { outcome, seed, operations in
      let result = try ConcurrentRun(
        seed: seed, threads: Self.threads, operationsPerThread: operations / Self.threads
      ).run()
      outcome.items += result.items
      outcome.finished += result.finished
      outcome.cancelled += result.cancelled
      outcome.rejected += result.rejected
    }
    let perRun = operationsPerRun / Self.threads * Self.threads
    print(
      "multi-threaded model runs, share \(share): \(runsHere) runs × \(Self.threads) "
        + "threads, \(runsHere * perRun) operations, \(outcome.items) items: "
        + "\(outcome.finished) finished, \(outcome.cancelled) cancelled, \(outcome.rejected) "
        + "rejected, failures: 0")
    #expect(outcome.items > 0)
    #expect(outcome.finished + outcome.cancelled + outcome.rejected == outcome.items)
  }
}

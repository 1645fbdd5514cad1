import Dispatch

/// `--count-allocations`: runs one operation of one implementation a given number of times
/// and nothing else, for an allocation counter outside the process.
///
/// The process's own allocations (runtime start-up, metadata, the warm-up) do not depend on
/// the count, so `scripts/bench-allocations.sh` runs each operation under valgrind's DHAT at
/// two counts and divides the difference in allocated blocks by the difference in counts:
/// exact allocations per operation, whatever the process does besides.
enum AllocationCount {
  /// What is repeated.
  enum Operation: String, CaseIterable {
    /// Create an empty bag and release it.
    case emptyBag = "empty-bag"
    /// Create a bag, add one live item, end the bag.
    case bagWithOne = "bag-with-one"
    /// Create a bag, add ten live items, end the bag (S2-10).
    case bagOfTen = "bag-of-10"
    /// Add a fresh item to one long-lived bag and finish it (S1).
    case addFinish = "add-finish"
    /// Bind completing work with the one-liner on a long-lived owner (S8; AutoCancel and
    /// origin-port only).
    case oneLiner = "oneliner"
    /// Launch a task and await it (S6; AutoCancel, which is `bag.task { }`, and Task only).
    case taskLaunch = "task-launch"
    /// Launch a task with a label and a key, and await it (AutoCancel only): what a named,
    /// keyed launch costs beyond `task-launch`.
    case taskLaunchKeyed = "task-launch-keyed"
  }

  /// Implementations the mode can run.
  static var implementations: [Implementation] {
    [.autoCancel, .naive, .plain, .floor, .originPort, .originPortQuirk]
  }

  /// Runs `operation` of the implementation `name` a few times as a warm-up, then `count`
  /// times. Returns false when the pair does not exist.
  static func run(_ operation: Operation, implementation name: String, count: Int) -> Bool {
    if operation == .taskLaunch || operation == .taskLaunchKeyed {
      return runTaskLaunches(operation, implementation: name, count: count)
    }
    guard let impl = implementations.first(where: { $0.name == name }) else { return false }
    let body: (Int) -> Double
    switch operation {
    case .emptyBag: body = { impl.addLiveThenEnd(0, $0) }
    case .bagWithOne: body = { impl.addLiveThenEnd(1, $0) }
    case .bagOfTen: body = { impl.addLiveThenEnd(10, $0) }
    case .addFinish: body = { impl.addThenFinish($0, 0) }
    case .taskLaunch, .taskLaunchKeyed:
      return false
    case .oneLiner:
      switch name {
      case "AutoCancel": body = { OneLinerBodies.bindThenComplete(cycles: $0) }
      case OriginPortBag.name: body = { impl.addThenFinish($0, 0) }
      default: return false
      }
    }
    _ = body(16)
    _ = body(count)
    return true
  }

  /// S6's launches, from a task the calling thread waits for. The wait keeps the process's
  /// top-level code from awaiting: valgrind 3.19 stops with an internal error in this
  /// process once it has, and counting under valgrind is what this mode is for.
  private static func runTaskLaunches(
    _ operation: Operation, implementation name: String, count: Int
  ) -> Bool {
    let launches: @Sendable (Int) async -> Double
    switch (name, operation) {
    case ("AutoCancel", .taskLaunch): launches = { await TaskBodies.bagTask(count: $0) }
    case ("AutoCancel", .taskLaunchKeyed): launches = { await TaskBodies.keyedBagTask(count: $0) }
    case ("Task", .taskLaunch): launches = { await TaskBodies.bareTask(count: $0) }
    default: return false
    }
    let done = DispatchSemaphore(value: 0)
    Task.detached {
      _ = await launches(16)
      _ = await launches(count)
      done.signal()
    }
    done.wait()
    return true
  }
}

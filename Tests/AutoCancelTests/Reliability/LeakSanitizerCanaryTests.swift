import AutoCancel
import AutoCancelTestSupport
import Testing

/// Proof that LeakSanitizer still sees the package's own leaks under the suppressions CI runs
/// it with (`.ci/lsan.supp`): were they to hide everything, this test would fail.
///
/// Runs only under AddressSanitizer (`swift test --sanitize=address`), whose LeakSanitizer
/// checks a process for leaks as it exits: a child process leaks bags on purpose, and must
/// exit reporting them.
@Suite("LeakSanitizer, with the suppressions in force", timeLimit(minutes: 2))
struct LeakSanitizerCanaryTests {
  #if compiler(>=6.2) && os(Linux)
    @Test(
      "reports bags that keep themselves alive through their own work, in a child process",
      .enabled(if: Sanitizers.address, "under AddressSanitizer"))
    func reportsALeakedCycleOfBags() async {
      let result = await offThePool {
        await #expect(
          processExitsWith: .failure, observing: [\.standardErrorContent],
          "a child process that leaked bags exited as if it had not"
        ) {
          closeInheritedSockets()
          LeakCanary.leakCyclesOfBags()
          Sanitizers.checkForLeaksNow()
        }
      }
      let report = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
      #expect(
        report.contains("ERROR: LeakSanitizer: detected memory leaks"), "\(report.suffix(500))")
      // The leak reported is of the package's own type: `CancelBag`'s initializer made it
      // (`$s10AutoCancel0B3BagC5labelACSSSg_tcfC`, mangled).
      #expect(report.contains("s10AutoCancel0B3BagC5label"), "\(report.suffix(2000))")
    }
  #endif
}

/// What the canary's child process runs.
enum LeakCanary {
  /// Leaks 64 bags, each holding work that holds the bag: no owner ever ends them, so none is
  /// ever freed. Many, and made in a function of their own, so that no stale pointer left on
  /// a stack can make them all look reachable.
  @inline(never)
  static func leakCyclesOfBags() {
    for _ in 0..<64 { leakOneCycle() }
  }

  @inline(never)
  private static func leakOneCycle() {
    let bag = CancelBag()
    bag.add { _ in _ = bag }
  }
}

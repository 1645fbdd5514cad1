import AutoCancelTestSupport
import Testing

/// The control for the streams of the fault matrix: Foundation alone, on a session with a
/// delegate, is not safe to cancel during redirects, so the library must be.
@Suite("Plain Foundation, on a session with a delegate", timeLimit(minutes: 2))
struct RedirectCancelControlTests {
  // The exit test passes its seed through a capture list (Swift Testing 6.3).
  #if compiler(>=6.3) && canImport(FoundationNetworking) && (os(Linux) || os(Windows))
    @Test(
      "ends the process when tasks to a redirect loop are cancelled 0–10 ms after their start, 64 at a time, in at most 16 rounds",
      arguments: TestSeed.fresh(count: 2))
    func cancelDuringRedirectsEndsTheProcess(seed: UInt64) async {
      print("redirect control: \(TestSeed.describe(seed))")
      let result = await offThePool {
        await #expect(
          processExitsWith: .failure, observing: [\.standardErrorContent],
          "plain Foundation survived cancels during redirects, \(TestSeed.describe(seed))"
        ) { [seed = seed as UInt64] in
          closeInheritedSockets()
          try await RedirectCancelControl.run(seed: seed, count: 64, rounds: 16)
        }
      }
      let words = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
      #expect(
        words.contains("HTTPURLProtocol.swift:705"),
        "the control ended otherwise: \(words.suffix(300)), \(TestSeed.describe(seed))")
    }
  #endif
}

import AutoCancel
import AutoCancelDiagnostics
import AutoCancelTestSupport
import Dispatch
import SeededRandom
import Testing

@Suite("Counting live bags by label")
struct CancelBagLiveCountTests {
  init() { AutoCancelDiagnostics.enable() }

  @Test("is turned on once: a second enable answers as the first")
  func enableIsIdempotent() {
    let first = AutoCancelDiagnostics.enable()
    _ = CancelBag()
    #expect(AutoCancelDiagnostics.enable() == first)
    #expect(AutoCancelDiagnostics.isEnabled)
  }

  @Test("counts bags with a label until they are deinitialized")
  func countsUntilDeinit() {
    let label = "live-count-basic"
    var first: CancelBag? = CancelBag(label: label)
    var second: CancelBag? = CancelBag(label: label)
    #expect(CancelBag.liveCount(label: label) == 2)
    #expect(CancelBag.liveCountsByLabel[label] == 2)
    first = nil
    #expect(CancelBag.liveCount(label: label) == 1)
    withExtendedLifetime(second) {}
    second = nil
    #expect(CancelBag.liveCount(label: label) == 0)
    #expect(CancelBag.liveCountsByLabel[label] == nil)
    _ = (first, second)
  }

  @Test("counts a bag that ended until it is deinitialized, and child bags by their own label")
  func endedAndChildBags() {
    let parentLabel = "live-count-parent"
    let childLabel = "live-count-child"
    do {
      let parent = CancelBag(label: parentLabel)
      let child = CancelBag(parent: parent, label: childLabel)
      parent.end()
      #expect(child.hasEnded)
      #expect(CancelBag.liveCount(label: parentLabel) == 1)
      #expect(CancelBag.liveCount(label: childLabel) == 1)
    }
    #expect(CancelBag.liveCount(label: parentLabel) == 0)
    #expect(CancelBag.liveCount(label: childLabel) == 0)
  }

  @Test("ends at zero after bags are made and released on many threads")
  func concurrentBags() {
    let seed = TestSeed.fresh()
    var generator = SeededGenerator(seed: seed)
    let labels = (0..<5).map { "live-count-race-\($0)" }
    let plan = (0..<400).map { _ in labels[generator.below(labels.count)] }
    let alive = Protected<[CancelBag]>([])
    DispatchQueue.concurrentPerform(iterations: plan.count) { index in
      let bag = CancelBag(label: plan[index])
      alive.withLock { $0.append(bag) }
    }
    for label in labels {
      #expect(
        CancelBag.liveCount(label: label) == plan.filter { $0 == label }.count,
        "\(TestSeed.describe(seed))")
    }
    DispatchQueue.concurrentPerform(iterations: plan.count) { _ in
      _ = alive.withLock { $0.popLast() }
    }
    for label in labels {
      #expect(CancelBag.liveCount(label: label) == 0, "\(TestSeed.describe(seed))")
    }
  }
}

/// Runs `body` with ``CancelBag/pilingUpHandler`` set to `handler` and, if `limit` is given,
/// with that limit of live bags for `label`, then restores both. The handler is process-wide:
/// the suite below is the only one that sets it, one test at a time.
private func withPileUpHandler(
  _ handler: @escaping @Sendable (PilingUpBags) -> Void, limit: Int? = nil, label: String,
  _ body: () throws -> Void
) rethrows {
  let old = CancelBag.pilingUpHandler
  CancelBag.pilingUpHandler = handler
  defer { CancelBag.pilingUpHandler = old }
  if let limit { CancelBag.setLiveCountLimit(limit, label: label) }
  defer { if limit != nil { CancelBag.setLiveCountLimit(nil, label: label) } }
  try body()
}

/// Runs `body` with ``CancelBag/pilingUpHandler`` recording the reports of labels starting
/// with `prefix`, and with a limit of `limit` live bags labelled `prefix` if one is given.
private func withPileUpReports(
  prefix: String, limit: Int? = nil, _ body: (Protected<[PilingUpBags]>) throws -> Void
) rethrows {
  let reports = Protected<[PilingUpBags]>([])
  let record: @Sendable (PilingUpBags) -> Void = { report in
    guard report.label.hasPrefix(prefix) else { return }
    reports.withLock { $0.append(report) }
  }
  try withPileUpHandler(record, limit: limit, label: prefix) { try body(reports) }
}

extension ReportHandlerSuites {
  @Suite("Owners piling up over their label's limit", .serialized)
  struct CancelBagPilingUpTests {
    init() { AutoCancelDiagnostics.enable() }

    @Test("are reported once, when making a bag takes the label over its limit")
    func reportedOnceOverLimit() throws {
      let label = "piling-up-once"
      try withPileUpReports(prefix: label, limit: 2) { reports in
        var bags = [CancelBag(label: label), CancelBag(label: label)]
        #expect(reports.current.isEmpty)
        bags.append(CancelBag(label: label))
        #expect(
          reports.current.map { [$0.label, "\($0.liveCount)", "\($0.limit)"] } == [
            [label, "3", "2"]
          ])
        // Still over: the same pile-up, not reported again.
        bags.append(CancelBag(label: label))
        #expect(reports.current.count == 1)
        let report = try #require(reports.current.first)
        print(report)
        #expect(
          report.description
            == "AutoCancel: 3 bags labelled piling-up-once are alive, over their limit of 2: "
            + "are their owners kept alive by a strong capture?")
        withExtendedLifetime(bags) {}
      }
    }

    @Test("are reported again after the count came back under the limit")
    func rearmedUnderLimit() {
      let label = "piling-up-rearmed"
      withPileUpReports(prefix: label, limit: 1) { reports in
        let first = CancelBag(label: label)
        var second: CancelBag? = CancelBag(label: label)
        #expect(reports.current.count == 1)
        second = nil
        second = CancelBag(label: label)
        #expect(reports.current.map(\.liveCount) == [2, 2])
        withExtendedLifetime((first, second)) {}
      }
    }

    @Test("are not reported without a limit, nor for other labels, nor after it is removed")
    func noLimitNoReport() {
      let label = "piling-up-none"
      withPileUpReports(prefix: "piling-up-none") { reports in
        CancelBag.setLiveCountLimit(0, label: label + "-other")
        defer { CancelBag.setLiveCountLimit(nil, label: label + "-other") }
        #expect(CancelBag.liveCountLimit(label: label + "-other") == 0)
        let unlimited = (0..<5).map { _ in CancelBag(label: label) }
        CancelBag.setLiveCountLimit(nil, label: label + "-other")
        #expect(CancelBag.liveCountLimit(label: label + "-other") == nil)
        let removed = CancelBag(label: label + "-other")
        #expect(reports.current.isEmpty)
        withExtendedLifetime((unlimited, removed)) {}
      }
    }

    @Test("reach a handler that makes bags of the same label without deadlock")
    func handlerMayMakeBags() {
      let label = "piling-up-reentrant"
      let made = Protected<[CancelBag]>([])
      let makeOne: @Sendable (PilingUpBags) -> Void = { report in
        guard report.label == label else { return }
        made.withLock { $0.append(CancelBag(label: label)) }
      }
      withPileUpHandler(makeOne, limit: 0, label: label) {
        let bag = CancelBag(label: label)
        #expect(made.current.count == 1)
        #expect(CancelBag.liveCount(label: label) == 2)
        withExtendedLifetime(bag) {}
      }
    }
  }
}

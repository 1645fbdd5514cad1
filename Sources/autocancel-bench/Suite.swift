/// Sizes and repetitions of one run.
struct RunPlan {
  var repetitions: Int
  var s1Cycles = 1_000_000
  var s1bOthers = 1_000
  /// origin-port sweeps every live box on each add: S1b at 1,000,000 cycles would take
  /// seconds per repetition, so it runs fewer cycles (per-cycle cost does not depend on it).
  var originS1bCycles = 2_000
  /// (label, items per bag, bags, origin-port items, origin-port bags)
  var s2: [(label: String, items: Int, bags: Int, originItems: Int, originBags: Int)] = [
    ("10", 10, 20_000, 10, 20_000),
    ("1000", 1_000, 200, 1_000, 10),
    ("100000", 100_000, 2, 3_000, 1),
  ]
  var s3Small = 10_000
  var s3Big = 100_000
  /// How many fresh bags the small size of S3 is averaged over (at most big / small).
  var s3SmallRounds = 10
  /// origin-port's live form is quadratic: its growth is measured from 1,000 to 10,000.
  var originS3LiveSmall = 300
  var originS3LiveBig = 3_000
  var s4PerThread = 500_000
  var s5Live = 1_000_000
  var originS5Live = 10_000
  var s6Launches = 20_000
  /// Requests whose owner goes away mid-transfer, for S7 (at least 200, so that its p99 means something).
  var s7Requests = 300
  /// Heap figures barely move between repetitions: S5 runs at most this many.
  var heapRepetitions = 3

  init(options: Options) {
    repetitions = options.repetitions ?? (options.quick ? 3 : 9)
    if options.quick {
      s1Cycles = 100_000
      originS1bCycles = 300
      s2[0].bags = 2_000
      s2[1].bags = 20
      s2[1].originBags = 2
      s2[2].bags = 1
      s2[2].originItems = 1_000
      originS3LiveSmall = 100
      originS3LiveBig = 1_000
      s4PerThread = 50_000
      s3SmallRounds = 3
      originS5Live = 3_000
      s6Launches = 5_000
      s7Requests = 50
      heapRepetitions = 1
    }
  }
}

/// Runs the scenarios, interleaving implementations within every repetition.
struct Suite {
  let plan: RunPlan
  /// Implementation names to run (`--implementations`), or nil for all.
  let implementations: Set<String>?
  let log: (String) -> Void

  private func selected(_ impls: [Implementation]) -> [Implementation] {
    guard let implementations else { return impls }
    return impls.filter { implementations.contains($0.name) }
  }

  /// Runs `bodies` once each as a discarded warm-up, then `plan.repetitions` rounds of
  /// A, B, C, ... Returns the samples of each body, in order.
  func interleave(
    _ bodies: [() -> Double], repetitions: Int? = nil, warmUp: Bool = true
  ) -> [[Double]] {
    if warmUp {
      for body in bodies { _ = body() }
    }
    var samples = [[Double]](repeating: [], count: bodies.count)
    for _ in 0..<(repetitions ?? plan.repetitions) {
      for (index, body) in bodies.enumerated() { samples[index].append(body()) }
    }
    return samples
  }

  func interleave(_ bodies: [() async -> Double]) async -> [[Double]] {
    for body in bodies { _ = await body() }
    var samples = [[Double]](repeating: [], count: bodies.count)
    for _ in 0..<plan.repetitions {
      for (index, body) in bodies.enumerated() { samples[index].append(await body()) }
    }
    return samples
  }

  // MARK: - Scenarios

  func s1() -> ScenarioReport {
    log("S1: add then finish, \(plan.s1Cycles) cycles")
    let impls = selected([.autoCancel, .naive, .floor, .originPort, .originPortQuirk])
    let cycles = plan.s1Cycles
    let samples = interleave(
      impls.map { impl in { impl.addThenFinish(cycles, 0) / Double(cycles) } })
    var report = ScenarioReport(
      name: "S1", title: "add then finish, \(grouped(cycles)) cycles on one bag (ns per cycle)",
      references: ["floor", "naive"],
      results: zip(impls, samples).map {
        Figure(scenario: "S1", implementation: $0.name, unit: "ns", samples: $1)
      })
    report.notes.append(quirkNote())
    report.target = { report in
      let floorRatio = report.ratio("AutoCancel", "floor")
      let naiveRatio = report.ratio("AutoCancel", "naive")
      return TargetVerdict(
        pass: floorRatio <= 1.5 && naiveRatio <= 0.9,
        detail: "≤ 1.5× floor (\(fixed(floorRatio, 2))×), ≤ 0.9× naive (\(fixed(naiveRatio, 2))×)")
    }
    return report
  }

  /// What the index-0 quirk leaves behind, observed on real bags.
  private func quirkNote() -> String {
    func boxesAfterCycles(_ add: (Work) -> Work, _ count: () -> Int) -> Int {
      for _ in 0..<1_000 { _ = add(Work()) }
      return count()
    }
    let faithful = OriginPortBag()
    let quirk = OriginPortQuirkBag()
    let faithfulBoxes = boxesAfterCycles(faithful.add, { faithful.boxCount })
    let quirkBoxes = boxesAfterCycles(quirk.add, { quirk.boxCount })
    return "origin-port-quirk keeps the original sweep `for (i = count - 1; i > 0; i--)`: "
      + "after 1,000 add+finish cycles its array holds \(quirkBoxes) boxes (the dead box at "
      + "index 0 is never removed, with its weak side table) vs \(faithfulBoxes) for origin-port; "
      + "one extra box examined per add, one dead box kept per bag for its whole life."
  }

  func s1b() -> ScenarioReport {
    let others = plan.s1bOthers
    log("S1b: add then finish with \(others) live")
    let impls = selected([.autoCancel, .naive, .floor, .originPort, .originPortQuirk])
    let cycles = plan.s1Cycles
    let originCycles = plan.originS1bCycles
    let samples = interleave(
      impls.map { impl in
        let count = impl.isOrigin ? originCycles : cycles
        return { impl.addThenFinish(count, others) / Double(count) }
      })
    var report = ScenarioReport(
      name: "S1b",
      title: "add then finish, \(grouped(cycles)) cycles, \(grouped(others)) other items live "
        + "(ns per cycle)",
      references: ["floor", "naive"],
      results: zip(impls, samples).map { impl, samples in
        var result = Figure(
          scenario: "S1b", implementation: impl.name, unit: "ns", samples: samples)
        if impl.isOrigin { result.sizeNote = "\(grouped(originCycles)) cycles" }
        return result
      })
    report.notes.append(
      "origin-port sweeps all \(grouped(others)) live boxes on every add: it runs "
        + "\(grouped(originCycles)) cycles (cost per cycle does not depend on the count).")
    report.target = { report in
      let ratio = report.ratio("AutoCancel", "floor")
      return TargetVerdict(pass: ratio <= 1.6, detail: "≤ 1.6× floor (\(fixed(ratio, 2))×)")
    }
    return report
  }

  func s2() -> [ScenarioReport] {
    let impls = selected([.autoCancel, .naive, .floor, .originPort])
    return plan.s2.map { size in
      log("S2-\(size.label): add \(size.items) live, end the bag")
      let samples = interleave(
        impls.map { impl in
          let items = impl.isOrigin ? size.originItems : size.items
          let bags = impl.isOrigin ? size.originBags : size.bags
          return { impl.addLiveThenEnd(items, bags) / Double(items * bags) }
        })
      let name = "S2-\(size.label)"
      var report = ScenarioReport(
        name: name,
        title: "add \(grouped(size.items)) live items then end the bag, \(grouped(size.bags)) "
          + "bag(s) per repetition (ns per item, bag creation and release included)",
        references: ["floor", "naive"],
        results: zip(impls, samples).map { impl, samples in
          var result = Figure(
            scenario: name, implementation: impl.name, unit: "ns", samples: samples)
          if impl.isOrigin && (size.originItems != size.items || size.originBags != size.bags) {
            result.sizeNote = "\(grouped(size.originItems)) items × \(size.originBags) bag(s)"
          }
          return result
        })
      if size.originItems != size.items {
        report.notes.append(
          "origin-port sweeps every live box on each add (quadratic): it runs "
            + "\(grouped(size.originItems)) items per bag; at \(grouped(size.items)) its cost "
            + "per item would be about \(size.items / size.originItems)× the figure shown.")
      }
      let limit: Double? =
        switch size.items {
        case 1_000: 60
        case 100_000: 100
        default: nil
        }
      if let limit {
        report.target = { report in
          let median = report.result("AutoCancel")?.median ?? .nan
          return TargetVerdict(
            pass: median <= limit, detail: "≤ \(Int(limit)) ns per item (\(fixed(median, 1)))")
        }
      }
      return report
    }
  }

  func s3() -> [ScenarioReport] {
    let impls = selected([.autoCancel, .naive, .floor, .originPort, .originPortQuirk])
    let small = plan.s3Small
    let big = plan.s3Big
    log("S3: long-lived bag, \(small) and \(big) items, finished and live")
    var bodies: [() -> Double] = []
    // The small size runs big/small times on fresh bags (averaged), so that both halves of a
    // ratio take about as long and a burst of load on the machine hits both alike.
    let rounds = max(1, min(plan.s3SmallRounds, big / small))
    for impl in impls {
      bodies.append {
        (0..<rounds).reduce(0.0) { total, _ in total + impl.addThenFinish(small, 0) }
          / Double(rounds)
      }
      bodies.append { impl.addThenFinish(big, 0) }
    }
    let finished = interleave(bodies)
    bodies = []
    let liveImpls = impls.filter { $0.name != "origin-port-quirk" }
    for impl in liveImpls {
      let smallLive = impl.isOrigin ? plan.originS3LiveSmall : small
      let bigLive = impl.isOrigin ? plan.originS3LiveBig : big
      let liveRounds = max(1, min(plan.s3SmallRounds, bigLive / smallLive))
      bodies.append { impl.addLiveThenEnd(smallLive, liveRounds) / Double(liveRounds) }
      bodies.append { impl.addLiveThenEnd(bigLive, 1) }
    }
    let live = interleave(bodies)

    func growth(_ samples: [[Double]], _ index: Int) -> [Double] {
      zip(samples[2 * index], samples[2 * index + 1]).map { $1 / $0 }
    }
    func perItem(_ samples: [Double], _ count: Int) -> String {
      fixed(Figure.median(samples) / Double(count), 1)
    }
    var finishedReport = ScenarioReport(
      name: "S3-growth",
      title: "long-lived bag, \(grouped(small)) vs \(grouped(big)) items added and finished one "
        + "after another (time ratio; 10 = linear; the small size averaged over "
        + "\(rounds) bags)",
      references: [],
      results: impls.indices.map {
        Figure(
          scenario: "S3-growth", implementation: impls[$0].name, unit: "ratio",
          samples: growth(finished, $0))
      })
    finishedReport.notes = impls.indices.map {
      "\(impls[$0].name): \(perItem(finished[2 * $0], small)) ns per item at \(grouped(small)), "
        + "\(perItem(finished[2 * $0 + 1], big)) at \(grouped(big))"
    }
    finishedReport.target = growthTarget
    var liveReport = ScenarioReport(
      name: "S3-live-growth",
      title: "long-lived bag, \(grouped(small)) vs \(grouped(big)) items added and staying "
        + "live, then the bag ends (time ratio; 10 = linear; the small size averaged over "
        + "\(rounds) bags)",
      references: [],
      results: liveImpls.indices.map { index in
        var result = Figure(
          scenario: "S3-live-growth", implementation: liveImpls[index].name, unit: "ratio",
          samples: growth(live, index))
        if liveImpls[index].isOrigin {
          result.sizeNote =
            "\(grouped(plan.originS3LiveSmall)) vs \(grouped(plan.originS3LiveBig)) items"
        }
        return result
      })
    liveReport.notes = liveImpls.indices.map { index in
      let impl = liveImpls[index]
      let smallLive = impl.isOrigin ? plan.originS3LiveSmall : small
      let bigLive = impl.isOrigin ? plan.originS3LiveBig : big
      return "\(impl.name): \(perItem(live[2 * index], smallLive)) ns per item at "
        + "\(grouped(smallLive)), \(perItem(live[2 * index + 1], bigLive)) at \(grouped(bigLive))"
    }
    liveReport.notes.append(
      "origin-port's live form is quadratic (every add sweeps every live box): it is measured "
        + "from \(grouped(plan.originS3LiveSmall)) to \(grouped(plan.originS3LiveBig)) items, "
        + "the same 10× step.")
    liveReport.target = growthTarget
    return [finishedReport, liveReport]
  }

  private func growthTarget(_ report: ScenarioReport) -> TargetVerdict {
    let median = report.result("AutoCancel")?.median ?? .nan
    return TargetVerdict(pass: median <= 12, detail: "growth ≤ 12× (\(fixed(median, 2))×)")
  }

  func s4() -> ScenarioReport {
    let perThread = plan.s4PerThread
    log("S4: 2 threads × \(perThread) add+finish on one bag")
    let impls = selected([.autoCancel, .naive, .floor, .originPort])
    let samples = interleave(
      impls.map { impl in { impl.twoThreads(perThread) / Double(2 * perThread) } })
    var report = ScenarioReport(
      name: "S4",
      title: "2 threads × \(grouped(perThread)) add+finish cycles on one bag (ns per cycle: "
        + "wall time / all cycles)",
      references: ["floor", "naive"],
      results: zip(impls, samples).map {
        Figure(scenario: "S4", implementation: $0.name, unit: "ns", samples: $1)
      })
    report.target = { report in
      let ratio = report.ratio("AutoCancel", "naive")
      return TargetVerdict(pass: ratio <= 0.8, detail: "≤ 0.8× naive (\(fixed(ratio, 2))×)")
    }
    return report
  }

  func s5() -> ScenarioReport {
    let live = plan.s5Live
    let originLive = plan.originS5Live
    log("S5: heap per live registration, \(live) live")
    let impls = selected([.floor, .autoCancel, .naive, .originPort])
    let samples = interleave(
      impls.map { impl in { impl.heapPerLiveItem(impl.isOrigin ? originLive : live) } },
      repetitions: min(plan.repetitions, plan.heapRepetitions), warmUp: false)
    let floorSamples = zip(impls, samples).first { $0.0.name == "floor" }?.1
    var results: [Figure] = []
    for (impl, implSamples) in zip(impls, samples) {
      var result = Figure(
        scenario: "S5", implementation: impl.name, unit: "bytes",
        samples: impl.name == "floor" || floorSamples == nil
          ? implSamples : zip(implSamples, floorSamples!).map { $0 - $1 })
      if impl.isOrigin { result.sizeNote = "\(grouped(originLive)) live" }
      results.append(result)
    }
    var report = ScenarioReport(
      name: "S5",
      title: "heap bytes per live registration with \(grouped(live)) live, beyond the work "
        + "item (mallinfo2 delta; the floor row is the work item itself)",
      references: [], results: results)
    report.notes.append(
      "every row but floor is (heap delta per item) − (floor's per item, same repetition).")
    report.notes.append(
      "origin-port is measured at \(grouped(originLive)) live (each add sweeps every live box).")
    report.target = { report in
      let median = report.result("AutoCancel")?.median ?? .nan
      return TargetVerdict(pass: median <= 48, detail: "≤ 48 bytes (\(fixed(median, 1)))")
    }
    return report
  }

  func s6() async -> ScenarioReport {
    let launches = plan.s6Launches
    log("S6: \(launches) task launches, awaited")
    var names: [String] = []
    var bodies: [() async -> Double] = []
    if implementations?.contains("AutoCancel") ?? true {
      names.append("AutoCancel")
      bodies.append { await TaskScenarios.bagTask(count: launches) / Double(launches) }
    }
    if implementations?.contains("Task") ?? true {
      names.append("Task")
      bodies.append { await TaskScenarios.bareTask(count: launches) / Double(launches) }
    }
    let samples = await interleave(bodies)
    var report = ScenarioReport(
      name: "S6",
      title: "launch a task and await its completion, \(grouped(launches)) times (ns per task)",
      references: ["Task"],
      results: zip(names, samples).map {
        Figure(scenario: "S6", implementation: $0, unit: "ns", samples: $1)
      })
    report.notes.append("AutoCancel is `bag.task { }`; Task is a bare `Task { }`.")
    report.target = { report in
      let ratio = report.ratio("AutoCancel", "Task")
      return TargetVerdict(pass: ratio <= 1.3, detail: "≤ 1.3× Task (\(fixed(ratio, 2))×)")
    }
    return report
  }
}

extension ScenarioReport {
  /// Paired median ratio of two implementations' samples (nan if one is missing).
  func ratio(_ implementation: String, _ reference: String) -> Double {
    guard let figure = result(implementation), let other = result(reference) else { return .nan }
    return figure.ratio(to: other)
  }
}

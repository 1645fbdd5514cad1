/// S3, growth: a long-lived bag at two sizes ten times apart, with items finished one after
/// another and with items staying live until the bag ends. A time ratio near 10 is linear.
struct GrowthScenario: Scenario {
  let id = "S3"

  func run(in suite: Suite) async -> [ScenarioReport] {
    let plan = suite.plan
    let impls = suite.selected([
      .autoCancel, .naive, .plain, .floor, .originPort, .originPortQuirk,
    ])
    let small = plan.s3Small
    let big = plan.s3Big
    suite.log("S3: long-lived bag, \(small) and \(big) items, finished and live")
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
    let finished = suite.interleave(bodies)
    bodies = []
    let liveImpls = impls.filter { $0.name != OriginPortQuirkBag.name }
    for impl in liveImpls {
      let smallLive = impl.isOrigin ? plan.originS3LiveSmall : small
      let bigLive = impl.isOrigin ? plan.originS3LiveBig : big
      let liveRounds = max(1, min(plan.s3SmallRounds, bigLive / smallLive))
      bodies.append { impl.addLiveThenEnd(smallLive, liveRounds) / Double(liveRounds) }
      bodies.append { impl.addLiveThenEnd(bigLive, 1) }
    }
    let live = suite.interleave(bodies)

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
    finishedReport.target = Self.growthTarget
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
    liveReport.target = Self.growthTarget
    return [finishedReport, liveReport]
  }

  /// Linear growth, with room for noise: at most 12× for 10× the items.
  private static func growthTarget(_ report: ScenarioReport) -> TargetVerdict {
    let median = report.result("AutoCancel")?.median ?? .nan
    return TargetVerdict(pass: median <= 12, detail: "growth ≤ 12× (\(fixed(median, 2))×)")
  }
}

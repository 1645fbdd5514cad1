/// How many items and bags one repetition of a bag scenario runs.
struct BagSize {
  var items: Int
  var bags: Int
}

/// One size of the small-bag scenario (S2): the size every design runs, and the reduced size
/// origin-port runs where its quadratic sweep would take too long.
struct SmallBagRun {
  /// The suffix of the scenario id ("10" for S2-10).
  let label: String
  var size: BagSize
  var originSize: BagSize
}

/// Sizes and repetitions of one run.
struct RunPlan {
  var repetitions: Int
  var s1Cycles = 1_000_000
  var s1bOthers = 1_000
  /// origin-port sweeps every live box on each add: S1b at 1,000,000 cycles would take
  /// seconds per repetition, so it runs fewer cycles (per-cycle cost does not depend on it).
  var originS1bCycles = 2_000
  var smallBags: [SmallBagRun] = [
    SmallBagRun(
      label: "10", size: BagSize(items: 10, bags: 20_000),
      originSize: BagSize(items: 10, bags: 20_000)),
    SmallBagRun(
      label: "1000", size: BagSize(items: 1_000, bags: 200),
      originSize: BagSize(items: 1_000, bags: 10)),
    SmallBagRun(
      label: "100000", size: BagSize(items: 100_000, bags: 2),
      originSize: BagSize(items: 3_000, bags: 1)),
  ]
  /// Bags created and released per repetition of the bag-lifecycle scenario.
  var lifecycleBags = 200_000
  var s3Small = 10_000
  var s3Big = 100_000
  /// How many fresh bags the small size of S3 is averaged over (at most big / small).
  var s3SmallRounds = 10
  /// origin-port's live form is quadratic: its growth is measured from 1,000 to 10,000.
  var originS3LiveSmall = 300
  var originS3LiveBig = 3_000
  /// S4 runs short rounds, many times: a round long enough to span many scheduler quanta,
  /// and enough paired rounds that the median ratio does not depend on a few unlucky ones.
  var s4PerThread = 200_000
  var s4Repetitions = 25
  var s5Live = 1_000_000
  var originS5Live = 10_000
  var s6Launches = 20_000
  /// Requests whose owner goes away mid-transfer, for S7.
  var s7Requests = 300
  /// Bind+complete cycles on one long-lived owner, for S8.
  var s8Cycles = 1_000_000
  /// Completed items after which S8 reads the heap the owner holds.
  var s8HeldItems = 100_000
  var s8TaskLaunches = 20_000
  /// Heap figures barely move between repetitions: S5 and S8's heap rows run at most this many.
  var heapRepetitions = 3

  init(options: Options) {
    repetitions = options.repetitions ?? (options.quick ? 3 : 9)
    if let repetitions = options.repetitions { s4Repetitions = repetitions }
    if options.quick {
      s1Cycles = 100_000
      originS1bCycles = 300
      smallBags[0].size.bags = 2_000
      smallBags[0].originSize.bags = 2_000
      smallBags[1].size.bags = 20
      smallBags[1].originSize.bags = 2
      smallBags[2].size.bags = 1
      smallBags[2].originSize.items = 1_000
      lifecycleBags = 20_000
      originS3LiveSmall = 100
      originS3LiveBig = 1_000
      s4PerThread = 20_000
      s4Repetitions = options.repetitions ?? 5
      s3SmallRounds = 3
      originS5Live = 3_000
      s6Launches = 5_000
      s7Requests = 50
      s8Cycles = 100_000
      s8HeldItems = 10_000
      s8TaskLaunches = 5_000
      heapRepetitions = 1
    }
  }
}

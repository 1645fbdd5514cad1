import Dispatch

/// The measured bodies, generic over the bag design so every design runs the same code.
/// Each returns one repetition's raw figure (total nanoseconds, or bytes per item).
enum Bodies {
  /// S1, S1b, S3, S8: `cycles` times add a fresh work item and finish it at once, on one bag
  /// that already holds `othersLive` live items. Returns the nanoseconds of the cycles only.
  static func addThenFinish<B: BenchBag>(_: B.Type, cycles: Int, othersLive: Int) -> Double {
    let bag = B()
    var others: [B.Token] = []
    if othersLive > 0 {
      others.reserveCapacity(othersLive)
      for _ in 0..<othersLive {
        let token = bag.add(Work())
        if B.tokenOwnsWork { others.append(token) }
      }
    }
    let watch = Stopwatch()
    for _ in 0..<cycles {
      let token = bag.add(Work())
      bag.finish(token)
    }
    let elapsed = watch.elapsedNanoseconds
    blackHole(bag)
    withExtendedLifetime(others) {}
    return elapsed
  }

  /// S2, S2-bag, S3 live: `bags` times create a bag, add `items` work items that stay live, then end
  /// the bag (release it: its deinit cancels them all). Bag creation, adds, cancels and the
  /// release of every item are all measured. Returns total nanoseconds.
  ///
  /// Where the token is what keeps the work alive (origin-port, floor), the tokens are held
  /// in an array reserved up front, as the network layer would hold its requests.
  static func addLiveThenEnd<B: BenchBag>(_: B.Type, items: Int, bags: Int) -> Double {
    var tokens: [B.Token] = []
    if B.tokenOwnsWork { tokens.reserveCapacity(items) }
    let watch = Stopwatch()
    for _ in 0..<bags {
      do {
        let bag = B()
        for _ in 0..<items {
          let token = bag.add(Work())
          if B.tokenOwnsWork { tokens.append(token) }
        }
        blackHole(bag)
      }
      if B.tokenOwnsWork { tokens.removeAll(keepingCapacity: true) }
    }
    return watch.elapsedNanoseconds
  }

  /// S4: two threads each run `perThread` add-then-finish cycles on one shared bag. Both
  /// wait at a start line; the clock starts when the second arrives. Returns the wall-clock
  /// nanoseconds from then until both are done.
  static func twoThreads<B: BenchBag>(_: B.Type, perThread: Int) -> Double {
    let bag = B()
    let line = StartLine(parties: 2)
    DispatchQueue.concurrentPerform(iterations: 2) { _ in
      line.arriveAndWait()
      for _ in 0..<perThread {
        let token = bag.add(Work())
        bag.finish(token)
      }
    }
    let elapsed = line.elapsedNanoseconds
    blackHole(bag)
    return elapsed
  }

  /// S5: heap bytes per live item with `live` items in one bag (work items included; the
  /// caller subtracts `floor`, which measures the work items alone the same way). Token
  /// storage is reserved before the first reading, so it is not counted.
  static func heapPerLiveItem<B: BenchBag>(_: B.Type, live: Int) -> Double {
    var tokens: [B.Token] = []
    if B.tokenOwnsWork { tokens.reserveCapacity(live) }
    var bag: B? = B()
    guard let before = heapBytesInUse() else { return .nan }
    for _ in 0..<live {
      let token = bag!.add(Work())
      if B.tokenOwnsWork { tokens.append(token) }
    }
    let after = heapBytesInUse() ?? before
    blackHole(bag)
    bag = nil
    tokens.removeAll()
    return Double(after - before) / Double(live)
  }
}

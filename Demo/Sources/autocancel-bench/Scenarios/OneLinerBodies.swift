import AutoCancel

/// The measured bodies of S8: work bound with the one-liner, `owner.autoCancel(work)`, on an
/// owner that lives through the whole repetition, then completed with no `finish()` call.
enum OneLinerBodies {
  /// A long-lived owner: a bag and nothing else.
  final class Owner: AutoCancelOwner {
    let cancelBag = CancelBag()
  }

  /// `cycles` times: bind a fresh `CompletingWork` with the one-liner and complete it; the
  /// caller's reference goes at the end of each cycle, as a completion handler's does.
  /// Returns the nanoseconds of the cycles only (the owner's creation and release are not
  /// timed).
  static func bindThenComplete(cycles: Int) -> Double {
    let owner = Owner()
    let watch = Stopwatch()
    for _ in 0..<cycles {
      let work = CompletingWork()
      owner.autoCancel(work)
      work.complete()
    }
    let elapsed = watch.elapsedNanoseconds
    blackHole(owner)
    return elapsed
  }

  /// Heap bytes the owner holds after `count` bind+complete cycles (mallinfo2 delta, the
  /// owner still alive). Work that leaves once finished keeps this a small constant.
  static func heldAfterBindThenComplete(count: Int) -> Double {
    var owner: Owner? = Owner()
    guard let before = heapBytesInUse() else { return .nan }
    for _ in 0..<count {
      let work = CompletingWork()
      owner!.autoCancel(work)
      work.complete()
    }
    let after = heapBytesInUse() ?? before
    blackHole(owner)
    owner = nil
    return Double(after - before)
  }

  /// The origin port's equivalent: each request bound, then released by its network layer
  /// (the weak box turns nil and the next add sweeps it). Heap bytes held after `count`.
  static func originHeldAfterBindThenRelease(count: Int) -> Double {
    var bag: OriginPortBag? = OriginPortBag()
    guard let before = heapBytesInUse() else { return .nan }
    for _ in 0..<count { _ = bag!.add(Work()) }
    let after = heapBytesInUse() ?? before
    blackHole(bag)
    bag = nil
    return Double(after - before)
  }

  /// `count` times: launch a bare `Task { }`, bind it with the one-liner, await it. Returns
  /// the nanoseconds of the launches.
  static func bindTask(count: Int) async -> Double {
    let owner = Owner()
    let watch = Stopwatch()
    for _ in 0..<count {
      let task = Task {}
      owner.autoCancel(task)
      await task.value
    }
    let elapsed = watch.elapsedNanoseconds
    blackHole(owner)
    return elapsed
  }

  /// Heap bytes the owner holds after `count` tasks bound with the one-liner have completed.
  static func heldAfterTasks(count: Int) async -> Double {
    var owner: Owner? = Owner()
    guard let before = heapBytesInUse() else { return .nan }
    for _ in 0..<count {
      let task = Task {}
      owner!.autoCancel(task)
      await task.value
    }
    let after = heapBytesInUse() ?? before
    blackHole(owner)
    owner = nil
    return Double(after - before)
  }
}

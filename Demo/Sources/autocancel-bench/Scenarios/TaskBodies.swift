import AutoCancel

/// S6: launch a task and await its completion, `count` times; total nanoseconds.
enum TaskBodies {
  /// `bag.task { }` then `await value`: the launcher registers and finishes by itself.
  static func bagTask(count: Int) async -> Double {
    let bag = CancelBag()
    let watch = Stopwatch()
    for _ in 0..<count {
      await bag.task {}.value
    }
    let elapsed = watch.elapsedNanoseconds
    blackHole(bag)
    return elapsed
  }

  /// `bag.task(key:label:) { }` then `await value`: a launch that names its task and takes
  /// its key.
  static func keyedBagTask(count: Int) async -> Double {
    let bag = CancelBag()
    let watch = Stopwatch()
    for _ in 0..<count {
      await bag.task(key: "refresh", label: "load") {}.value
    }
    let elapsed = watch.elapsedNanoseconds
    blackHole(bag)
    return elapsed
  }

  /// A bare `Task { }` then `await value`, from the same (nonisolated) context.
  static func bareTask(count: Int) async -> Double {
    let watch = Stopwatch()
    for _ in 0..<count {
      await Task {}.value
    }
    return watch.elapsedNanoseconds
  }
}

import AutoCancel

/// The real `CancelBag`: `add` returns a `CancelRegistration`, `finish()` forgets it, the
/// bag's deinit cancels the rest. A struct around the bag, so it adds no allocation.
struct AutoCancelBag: BenchBag {
  static let name = "AutoCancel"
  static let tokenOwnsWork = false

  let bag = CancelBag()

  init() {}

  @inline(__always)
  func add(_ work: Work) -> CancelRegistration { bag.add(work) }

  @inline(__always)
  func finish(_ token: CancelRegistration) { token.finish() }
}

/// No bag at all: allocating and releasing the work item alone, the cost nothing can beat.
/// The token is the work itself; `finish` hands it to an opaque sink so the allocation
/// cannot be optimized away.
struct FloorBag: BenchBag {
  static let name = "floor"
  static let tokenOwnsWork = true

  init() {}

  @inline(__always)
  func add(_ work: Work) -> Work { work }

  @inline(__always)
  func finish(_ token: Work) { blackHole(token) }
}

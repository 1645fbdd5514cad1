/// The origin port with its index-0 off-by-one kept (see `OriginPortBag`): the sweep never
/// examines index 0, so the first dead box there is never removed.
struct OriginPortQuirkBag: BenchBag {
  static let name = "origin-port-quirk"
  static let tokenOwnsWork = true

  let base = OriginPortBag(skipsIndexZero: true)

  init() {}

  /// Boxes in the array, dead or alive.
  var boxCount: Int { base.boxCount }

  @inline(__always)
  func add(_ work: Work) -> Work { base.add(work) }

  @inline(__always)
  func finish(_ token: Work) {}
}

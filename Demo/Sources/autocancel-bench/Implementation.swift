/// One bag design with its scenario bodies specialized for it (closures built from a
/// concrete type, so the generic scenario code is compiled for each design).
struct Implementation {
  let name: String
  /// origin-port rows run quadratic scenarios at reduced sizes.
  let isOrigin: Bool
  let addThenFinish: (_ cycles: Int, _ othersLive: Int) -> Double
  let addLiveThenEnd: (_ items: Int, _ bags: Int) -> Double
  let twoThreads: (_ perThread: Int) -> Double
  let heapPerLiveItem: (_ live: Int) -> Double

  static func of<B: BenchBag>(_: B.Type, isOrigin: Bool = false) -> Implementation {
    Implementation(
      name: B.name,
      isOrigin: isOrigin,
      addThenFinish: { Bodies.addThenFinish(B.self, cycles: $0, othersLive: $1) },
      addLiveThenEnd: { Bodies.addLiveThenEnd(B.self, items: $0, bags: $1) },
      twoThreads: { Bodies.twoThreads(B.self, perThread: $0) },
      heapPerLiveItem: { Bodies.heapPerLiveItem(B.self, live: $0) }
    )
  }

  static var autoCancel: Implementation { of(AutoCancelBag.self) }
  static var naive: Implementation { of(NaiveBag.self) }
  static var plain: Implementation { of(PlainBag.self) }
  static var floor: Implementation { of(FloorBag.self) }
  static var originPort: Implementation { of(OriginPortBag.self, isOrigin: true) }
  static var originPortQuirk: Implementation { of(OriginPortQuirkBag.self, isOrigin: true) }
}

/// One bag design as the harness drives it: the same scenario code runs every design.
///
/// A bag ends when its last copy is released (deinit cancels what is still live), which is
/// the moment an owner goes away.
protocol BenchBag: Sendable {
  /// What `add` hands back and `finish` takes.
  associatedtype Token

  /// The implementation's name in the output (`AutoCancel`, `naive`, ...).
  static var name: String { get }

  /// True when the token itself keeps the work alive (the weak-reference origin design,
  /// where the network layer holds the request; and `floor`): the harness must then hold
  /// the tokens of live items, outside any measured memory.
  static var tokenOwnsWork: Bool { get }

  init()

  /// Registers `work` with the bag.
  func add(_ work: Work) -> Token

  /// The work completed normally: forget it without cancelling it.
  func finish(_ token: Token)
}

/// When the person leaves a screen.
package enum ScreenDeparture: Sendable, Hashable {
  /// Leaves this many milliseconds after opening it (switches tab, goes back), whether or
  /// not its requests are done.
  case leaveAfter(milliseconds: Int)
  /// Stays until every request of the screen has completed, then moves on.
  case stayUntilLoaded
}

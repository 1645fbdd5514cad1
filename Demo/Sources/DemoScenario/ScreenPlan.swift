/// One screen a person opens: the requests it starts and when the person leaves it.
package struct ScreenPlan: Sendable, Hashable {
  /// Unique within a run, e.g. `"s7"`.
  package var id: String
  /// Which simulated person opens it (0-based); each person visits their screens in order.
  package var person: Int
  /// The requests the screen starts as it opens.
  package var requests: [RequestPlan]
  /// When the person leaves it.
  package var departure: ScreenDeparture

  package init(id: String, person: Int, requests: [RequestPlan], departure: ScreenDeparture) {
    self.id = id
    self.person = person
    self.requests = requests
    self.departure = departure
  }
}

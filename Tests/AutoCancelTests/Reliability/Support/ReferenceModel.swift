import AutoCancel

/// What one bag must hold, by its contract, written as plainly as possible: a list of what is
/// in flight (oldest first), a dictionary of keys (latest wins), and the reason it ended.
///
/// The list also holds the bag's links to child and linked bags (negative ids), in the order
/// they were made: they are not work (`count` leaves them out), `cancelAll` keeps them, and
/// `end` reaches them in their place among the items. The run that owns the models expands
/// them into the other bag's cancellations.
struct ReferenceModel {
  typealias Cancellation = (id: Int, reason: CancellationReason)

  private(set) var live: [Int] = []
  private(set) var itemCount = 0
  private(set) var endReason: CancellationReason?
  private var keys: [AnyHashable: Int] = [:]
  private var keyOf: [Int: AnyHashable] = [:]

  /// The items in flight, oldest first (links left out).
  var items: [Int] { live.filter { $0 >= 0 } }

  /// Adds item `id`: rejected (cancelled at once) if the bag ended, else in flight, replacing
  /// the item under the same key.
  mutating func add(_ id: Int, key: AnyHashable?) -> [Cancellation] {
    if let endReason { return [(id, endReason)] }
    live.append(id)
    itemCount += 1
    guard let key else { return [] }
    keyOf[id] = key
    guard let previous = keys.updateValue(id, forKey: key) else { return [] }
    _ = remove(previous)
    return [(previous, .replaced)]
  }

  /// The registration was added to an ended bag (not in flight).
  func isRejected(_ cancellations: [Cancellation], _ id: Int) -> Bool {
    endReason != nil && cancellations.first?.id == id
  }

  /// Links another bag (negative `id`); false if this bag has ended.
  mutating func addLink(_ id: Int) -> Bool {
    guard endReason == nil else { return false }
    live.append(id)
    return true
  }

  /// The linked bag ended by itself: its link leaves the list.
  mutating func removeLink(_ id: Int) {
    live.removeAll { $0 == id }
  }

  /// Finishes item `id`; true if it was in flight.
  mutating func finish(_ id: Int) -> Bool {
    remove(id)
  }

  /// Cancels item `id` alone.
  mutating func cancel(_ id: Int, reason: CancellationReason) -> [Cancellation] {
    remove(id) ? [(id, reason)] : []
  }

  /// Cancels every item in flight, oldest first, and returns the links it keeps (the run
  /// passes the sweep on to child bags); the bag stays open.
  mutating func cancelAll(
    reason: CancellationReason
  ) -> (
    cancellations: [Cancellation], links: [Int]
  ) {
    let cancellations = items.map { ($0, reason) }
    live.removeAll { $0 >= 0 }
    itemCount = 0
    keys = [:]
    keyOf = [:]
    return (cancellations, live)
  }

  /// Ends the bag: the first call takes everything out, items and links, oldest first (nil
  /// if it had ended already).
  mutating func end(reason: CancellationReason) -> [Int]? {
    guard endReason == nil else { return nil }
    endReason = reason
    defer {
      live = []
      itemCount = 0
      keys = [:]
      keyOf = [:]
    }
    return live
  }

  private mutating func remove(_ id: Int) -> Bool {
    guard let index = live.firstIndex(of: id) else { return false }
    live.remove(at: index)
    itemCount -= 1
    if let key = keyOf.removeValue(forKey: id), keys[key] == id {
      keys[key] = nil
    }
    return true
  }
}

import AutoCancel

/// What a bag must hold, by its contract, written as plainly as possible: a list of the items
/// in flight (oldest first), a dictionary of keys (latest wins), and the reason it ended.
///
/// Every operation returns the cancellations it must cause, in the order they must happen.
struct ReferenceModel {
  typealias Cancellation = (id: Int, reason: CancellationReason)

  private(set) var live: [Int] = []
  private(set) var endReason: CancellationReason?
  private var keys: [AnyHashable: Int] = [:]
  private var keyOf: [Int: AnyHashable] = [:]

  /// Adds item `id`: rejected (cancelled at once) if the bag ended, else in flight, replacing
  /// the item under the same key.
  mutating func add(_ id: Int, key: AnyHashable?) -> [Cancellation] {
    if let endReason { return [(id, endReason)] }
    live.append(id)
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

  /// Finishes item `id`; true if it was in flight.
  mutating func finish(_ id: Int) -> Bool {
    remove(id)
  }

  /// Cancels item `id` alone.
  mutating func cancel(_ id: Int, reason: CancellationReason) -> [Cancellation] {
    remove(id) ? [(id, reason)] : []
  }

  /// Cancels everything in flight, oldest first; the bag stays open.
  mutating func cancelAll(reason: CancellationReason) -> [Cancellation] {
    defer {
      live = []
      keys = [:]
      keyOf = [:]
    }
    return live.map { ($0, reason) }
  }

  /// Ends the bag: the first call cancels everything; later calls do nothing.
  mutating func end(reason: CancellationReason) -> [Cancellation] {
    guard endReason == nil else { return [] }
    endReason = reason
    return cancelAll(reason: reason)
  }

  func isLive(_ id: Int) -> Bool { live.contains(id) }

  private mutating func remove(_ id: Int) -> Bool {
    guard let index = live.firstIndex(of: id) else { return false }
    live.remove(at: index)
    if let key = keyOf.removeValue(forKey: id), keys[key] == id {
      keys[key] = nil
    }
    return true
  }
}

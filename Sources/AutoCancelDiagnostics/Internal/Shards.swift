import AutoCancel

/// A process-wide table split over a few locks, so that bags of different screens, made and
/// ended on different threads, seldom wait for each other: the live counts and the account
/// each keep one.
struct Shards<Value: Sendable>: Sendable {
  /// Every shard, in order: read one at a time, the sum of moments, not one moment.
  let all: [Locked<Value>]

  init(_ empty: Value) {
    all = (0..<8).map { _ in Locked(empty) }
  }

  /// The shard of `label`, by its hash.
  func shard(of label: String) -> Locked<Value> {
    all[Int(UInt(bitPattern: label.hashValue) % UInt(all.count))]
  }

  /// The shard of `bag`, by its address, past the bits that allocation alignment keeps zero.
  func shard(of bag: ObjectIdentifier) -> Locked<Value> {
    all[Int((UInt(bitPattern: bag) >> 5) % UInt(all.count))]
  }
}

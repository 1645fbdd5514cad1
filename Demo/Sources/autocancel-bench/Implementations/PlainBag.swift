#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The simplest fast design: a final class holding a heap `pthread_mutex_t` directly (no
/// wrapper object) around a `[Int: AnyObject]` keyed by an incrementing id. Work is stored as
/// a bare object reference, not an existential; the bag knows its one work type and
/// `unsafeDowncast`s back to it to cancel. Released and cancelled outside the lock.
///
/// Safety: `nextID` and `items` are only touched with `mutex` held (or in deinit, alone).
final class PlainBag: BenchBag, @unchecked Sendable {
  static let name = "plain"
  static let tokenOwnsWork = false

  private let mutex: UnsafeMutablePointer<pthread_mutex_t>
  private var nextID = 0
  private var items: [Int: AnyObject] = [:]

  init() {
    mutex = .allocate(capacity: 1)
    mutex.initialize(to: pthread_mutex_t())
    pthread_mutex_init(mutex, nil)
  }

  deinit {
    for object in items.values { unsafeDowncast(object, to: Work.self).cancel() }
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
  }

  func add(_ work: Work) -> Int {
    pthread_mutex_lock(mutex)
    let id = nextID
    nextID &+= 1
    items[id] = work
    pthread_mutex_unlock(mutex)
    return id
  }

  func finish(_ token: Int) {
    pthread_mutex_lock(mutex)
    let removed = items.removeValue(forKey: token)
    pthread_mutex_unlock(mutex)
    _ = removed  // released after unlocking
  }
}

/// A reader's hold on a key's observer: reads pull from it, and letting go of the stream takes
/// it out of the bag.
final class KeyFollowing: Sendable {
  let observer: KeyObserver
  let key: BagKey
  let core: BagCore

  init(observer: KeyObserver, key: BagKey, core: BagCore) {
    (self.observer, self.key, self.core) = (observer, key, core)
  }

  func next() async -> Bool? {
    let value = await observer.next()
    if value == nil { stop() }
    return value
  }

  /// The reader stopped: nothing more is handed, and the bag forgets the observer.
  func stop() {
    observer.stop()
    core.removeObserver(key: key, id: observer.id)
  }

  deinit {
    stop()
  }
}

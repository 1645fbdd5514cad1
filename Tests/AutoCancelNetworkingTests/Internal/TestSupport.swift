import AutoCancel
import AutoCancelNetworking
import LoopbackHTTPServer
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A thread-safe tally of completion-handler calls per request.
final class CallCounter: @unchecked Sendable {
  // Safety: `calls` is only touched under `lock`.
  private let lock = NSLock()
  private var calls: [Int: Int] = [:]

  func record(_ request: Int) { lock.withLock { calls[request, default: 0] += 1 } }
  var counts: [Int: Int] { lock.withLock { calls } }
}

/// Something that stores a bag, like a screen; releasing it ends the bag (`ownerGone`).
final class Owner: AutoCancelOwner {
  let cancelBag = CancelBag()
}

/// A session with its own in-memory cache, as apps make them.
func makeCachingSession() -> URLSession {
  let configuration = URLSessionConfiguration.default
  configuration.urlCache = URLCache(memoryCapacity: 4 << 20, diskCapacity: 0, diskPath: nil)
  return URLSession(configuration: configuration)
}

/// The number of open file descriptors of this process.
func openFileDescriptorCount() -> Int {
  (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
}

/// Runs `start`, handing it a completion handler, and returns what that handler received.
func completion<First: Sendable>(
  _ start: (@escaping @Sendable (First?, URLResponse?, (any Error)?) -> Void) -> Void
) async -> (First?, URLResponse?, (any Error)?) {
  await withCheckedContinuation { continuation in
    start { first, response, error in continuation.resume(returning: (first, response, error)) }
  }
}

/// A small deterministic generator for the stress tests (SplitMix64).
struct SeededGenerator: RandomNumberGenerator {
  var state: UInt64
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

/// A lock-protected slot, to hand an owner to another task and release it there.
final class Slot<Value>: @unchecked Sendable {
  // Safety: `value` is only touched under `lock`.
  private let lock = NSLock()
  private var value: Value?

  init(_ value: Value?) { self.value = value }

  func put(_ newValue: Value) { lock.withLock { value = newValue } }
  func take() -> Value? {
    lock.withLock {
      defer { value = nil }; return value
    }
  }
  func peek<Result>(_ body: (Value?) -> Result) -> Result { lock.withLock { body(value) } }
}

/// Waits until `count` values came out of `stream`, or `seconds` passed (a watchdog against
/// hangs, not a measurement). Returns how many came.
func collect(_ count: Int, from stream: AsyncStream<Int>, watchdog seconds: Double) async -> Int {
  await withTaskGroup(of: Int?.self) { group in
    group.addTask {
      var seen = 0
      for await _ in stream {
        seen += 1
        if seen == count { break }
      }
      return seen
    }
    group.addTask {
      try? await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
      return nil
    }
    var result = 0
    for await value in group {
      if let value {
        result = value
        break
      }
      // The watchdog fired first.
      break
    }
    group.cancelAll()
    return result
  }
}

/// The loopback server the tests talk to.
typealias TestServer = LoopbackHTTPServer

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
      try? await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
      return nil
    }
    var result = 0
    // The first to finish decides: the count, or nil when the watchdog fired first.
    if let first = await group.next(), let value = first { result = value }
    group.cancelAll()
    return result
  }
}

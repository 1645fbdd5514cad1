#if canImport(ObjectiveC)
  import ObjectiveC
#endif

/// Runs `body` in an autorelease pool of its own on Apple platforms, and plainly elsewhere:
/// the body of a loop that makes Objective-C objects by the thousand.
///
/// On Apple platforms, Foundation may autorelease what one pass of such a loop makes (an
/// `Operation`, a `URLSessionTask`, the objects behind them), and a pool drained only when the
/// test returns keeps every one of them alive until then: memory grows with the loop, and a
/// check that finished work was freed sees it alive. A pool per pass frees them as the pass
/// ends, as they are freed on Linux, where nothing is autoreleased. `body` is synchronous, as a
/// pool belongs to one thread: in an async loop, wrap the part that makes the objects.
///
/// ```swift
/// for _ in 0..<100_000 {
///   withAutoreleasePool {
///     let operation = BlockOperation {}
///     owner.autoCancel(operation)
///     operation.start()
///   }
/// }
/// ```
package func withAutoreleasePool<Result>(_ body: () throws -> Result) rethrows -> Result {
  #if canImport(ObjectiveC)
    try autoreleasepool(invoking: body)
  #else
    try body()
  #endif
}

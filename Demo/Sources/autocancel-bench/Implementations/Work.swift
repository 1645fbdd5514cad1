import AutoCancel

/// The work item every scenario registers: a class with a trivial `cancel()`, the
/// smallest stand-in for a request object (16-byte Swift object, one malloc chunk).
final class Work: AutoCancellable {
  init() {}

  func cancel() {}
}

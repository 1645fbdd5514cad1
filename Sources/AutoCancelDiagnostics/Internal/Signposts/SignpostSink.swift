/// Where the signposts go: `OSSignposter` on Apple platforms, a recording in tests.
///
/// Names are `StaticString`, as `OSSignposter` needs them; `id` is the interval's signpost ID,
/// the same at its begin and its end, never 0 nor one of the reserved IDs.
package protocol SignpostSink: Sendable {
  /// Whether anything records the signposts now: when false, no message is made.
  var isRecording: Bool { get }
  func beginInterval(_ name: StaticString, id: UInt64, _ message: String)
  func endInterval(_ name: StaticString, id: UInt64, _ message: String)
  func emitEvent(_ name: StaticString, _ message: String)
}

/// The platform's sink.
enum SignpostSinks {
  /// The `OSSignposter` sink, or nil where there is no `os` framework.
  static var system: (any SignpostSink)? {
    #if canImport(os)
      return OSSignpostSink()
    #else
      return nil
    #endif
  }
}

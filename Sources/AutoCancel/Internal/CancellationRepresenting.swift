/// An error type some of whose values stand for a cancellation, such as `URLError` with
/// code `.cancelled`.
///
/// The core has no Foundation, so sibling modules conform the error types they produce;
/// ``Swift/Error/isCancellation`` then answers true for those values.
package protocol CancellationRepresenting: Error {
  /// Whether this value reports a cancellation.
  var representsCancellation: Bool { get }
}

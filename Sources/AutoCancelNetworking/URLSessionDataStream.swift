import Foundation

/// The body of a streamed response, chunk by chunk, as URLSession receives it.
///
/// Returned by `URLSession.stream(for:in:label:file:line:)`, the streaming call
/// that FoundationNetworking lacks on Linux (it has no `bytes(for:)`). Iterate it once; it
/// ends when the body is complete, throws `CancellationError` when the bag ends or the
/// iterating task is cancelled, and URLSession's error when the transfer fails.
///
/// ```swift
/// let (body, response) = try await session.stream(for: request, in: cancelBag)
/// for try await chunk in body {
///   parser.feed(chunk)
/// }
/// ```
///
/// ## Contract
///
/// - Single consumer. Chunks are buffered without limit until they are read.
/// - Stopping early (leaving the loop, or dropping a stream never iterated) cancels the
///   transfer, and the request leaves its bag.
/// - A cancelled iterating task ends the loop with `CancellationError`, never with a body that
///   looks complete but is not.
public struct URLSessionDataStream: AsyncSequence, Sendable {
  /// A chunk of the body.
  public typealias Element = Data

  let chunks: AsyncThrowingStream<Data, any Error>
  let consumerGone: @Sendable () -> Void

  /// Makes the iterator; call once.
  public func makeAsyncIterator() -> Iterator {
    Iterator(base: chunks.makeAsyncIterator(), presence: ConsumerPresence(gone: consumerGone))
  }

  /// Reads the chunks in order.
  public struct Iterator: AsyncIteratorProtocol {
    var base: AsyncThrowingStream<Data, any Error>.AsyncIterator
    /// Tells the request when the loop is left: the iterator's end is the consumer's.
    let presence: ConsumerPresence

    /// The next chunk, or nil at the end of the body.
    ///
    /// - Throws: `CancellationError` when cancelled, or URLSession's error.
    public mutating func next() async throws -> Data? {
      guard let chunk = try await base.next() else {
        // A stream ends with nil, too, when its consumer's task is cancelled.
        try Task.checkCancellation()
        return nil
      }
      return chunk
    }
  }
}

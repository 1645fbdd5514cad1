import AutoCancel

/// Value-type work, which a bag boxes: it passes every cancel on to a ``RecordingWork``.
///
/// ```swift
/// let record = RecordingWork()
/// bag.add(RecordingValueWork(record))
/// bag.end()
/// #expect(record.reasons == [.explicit])
/// ```
package struct RecordingValueWork: ReasonAwareCancellable {
  /// The work that records the cancels.
  package let record: RecordingWork

  /// Value work that records into `record`.
  package init(_ record: RecordingWork) {
    self.record = record
  }

  package func cancel() {
    record.cancel()
  }

  package func cancel(reason: CancellationReason) {
    record.cancel(reason: reason)
  }
}

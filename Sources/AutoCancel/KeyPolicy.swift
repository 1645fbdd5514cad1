/// What a launch under a key does when work under that key is already running.
///
/// Given where work is launched: ``CancelBag/task(key:policy:label:priority:file:line:operation:)``
/// and ``AutoCancelOwner/autoCancelTask(key:policy:label:priority:file:line:_:then:)``; work that
/// already runs is added with an ``AddPolicy`` instead. A key is *running* while anything
/// launched or added under it has not ended: see ``CancelBag/isRunning(key:)``.
///
/// | Policy | Something runs under the key | Nothing runs under the key |
/// |---|---|---|
/// | ``replace`` | Everything under the key is cancelled (``CancellationReason/replaced``); the new work starts | Starts |
/// | ``ignoreNew`` | The new launch is refused: it returns `nil`, and its operation never runs | Starts |
/// | ``enqueue`` | Waits; starts once everything before it under the key has returned, in launch order | Starts |
/// | ``runConcurrently`` | Starts beside it | Starts |
///
/// ```swift
/// func saveTapped() {
///   // A second tap while the save runs does nothing.
///   cancelBag.task(key: "save", policy: .ignoreNew) { [document] in
///     try await api.save(document)
///   }
/// }
/// ```
///
/// Policies apply per launch, so one key may see several: a ``replace`` cancels whatever the
/// others left running or waiting, an ``ignoreNew`` is refused while anything runs or waits,
/// and an ``enqueue`` waits for all of it. See <doc:KeysAndPolicies>.
public enum KeyPolicy: Sendable, Hashable {
  /// Latest wins: the work under the key is cancelled, with reason
  /// ``CancellationReason/replaced``, and the new work starts. The default of every `key:`.
  ///
  /// Cancelled tasks still count as running until their operation returns, so a later
  /// ``enqueue`` waits for them too.
  case replace

  /// Keep what runs, drop the new: while anything runs or waits under the key, a launch is
  /// refused and returns `nil`, and its operation never runs.
  ///
  /// For a save button tapped twice. Work added with ``AddPolicy/ignoreNew`` is cancelled at
  /// once instead, with reason ``CancellationReason/duplicate``: it already runs.
  case ignoreNew

  /// Wait your turn: the new launch starts once everything launched or added under the key
  /// before it has returned, one at a time, in the order of the launches.
  ///
  /// A waiting launch is registered: it can be cancelled alone, and `cancelAll`, `end` or a
  /// ``replace`` under its key cancel it; a launch cancelled before its turn never runs its
  /// operation. Only for launches: work given to `add` already runs, and cannot wait
  /// (``AddPolicy`` has no `enqueue`).
  case enqueue

  /// No deduplication: the new work starts beside what runs under the key.
  ///
  /// The key still groups the work: ``CancelBag/cancel(key:reason:)``, a later ``replace``
  /// under the key, `cancelAll` and `end` cancel all of it, and
  /// ``CancelBag/isRunning(key:)`` is true while any of it runs.
  case runConcurrently
}

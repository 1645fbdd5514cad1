/// Keys: policies for work that already runs, cancelling by key, and whether a key runs.
extension CancelBag {
  /// Adds work under `key`, by `policy`: replacing what runs under the key, beside it, or not
  /// at all.
  ///
  /// Keeps its call site (see <doc:Contracts#Call-sites>).
  ///
  /// ``add(_:key:label:file:line:)-(Work,_,_,_,_)`` with a policy. The work already runs, so it cannot wait
  /// for its turn:
  ///
  /// - ``AddPolicy/replace`` (what `add(_:key:label:)` does): everything under the key is
  ///   cancelled, with reason ``CancellationReason/replaced``.
  /// - ``AddPolicy/runConcurrently``: the work joins what runs under the key; all of it goes
  ///   with a later replace, ``cancel(key:reason:)``, `cancelAll` or `end`.
  /// - ``AddPolicy/ignoreNew``: if anything runs or waits under the key, the new work is
  ///   cancelled at once, with reason ``CancellationReason/duplicate``, and the registration
  ///   returned is inactive, as on an ended bag.
  ///
  /// There is no `.enqueue` for added work, and `policy: .enqueue` does not compile: launch a
  /// task with it instead, ``task(key:policy:label:priority:file:line:operation:)``.
  ///
  /// Added work holds its key while it is registered: until its registration is finished or
  /// cancelled, or, for work that leaves by itself, until the bag sees it finished.
  ///
  /// ```swift
  /// let prefetch = session.dataTask(with: thumbnailURL)
  /// cancelBag.add(prefetch, key: "prefetch", policy: .runConcurrently)
  /// prefetch.resume()
  /// // Later, the list scrolled away:
  /// cancelBag.cancel(key: "prefetch")
  /// ```
  @inlinable @discardableResult
  public func add<Work: AutoCancellable>(
    _ work: Work, key: any Hashable & Sendable, policy: AddPolicy, label: String? = nil,
    file: StaticString = #fileID, line: UInt = #line
  ) -> CancelRegistration {
    withCore { core in
      Work._add(
        work,
        to: _BagInsertion(
          core: core,
          details: .make(
            label: label, key: key, policy: policy.keyPolicy,
            callSite: keepsCallSites ? ItemCallSite(fileID: file, line: line) : nil)))
    }
  }

  /// Cancels all work under `key`: registered, running or waiting for its turn, oldest first.
  ///
  /// On the calling thread, before this returns, never under the bag's lock. Work added or
  /// launched under the key later is not affected; tasks cancelled earlier are not cancelled
  /// again. Does nothing if nothing is registered under the key.
  ///
  /// ```swift
  /// func listScrolledAway() { cancelBag.cancel(key: "prefetch") }
  /// ```
  public func cancel(key: any Hashable & Sendable, reason: CancellationReason = .explicit) {
    madeCore?.cancel(key: BagKey(key), reason: reason)
  }

  /// Whether work runs under `key`: launched and not returned, waiting for its turn, or added
  /// and not ended.
  ///
  /// *Running* is what the work does, not what the bag holds:
  ///
  /// - a task launched under the key runs from its launch until its operation returns, even
  ///   once it was cancelled (a cancelled task is still winding down), and a launch waiting
  ///   for its turn (``KeyPolicy/enqueue``) counts from its launch;
  /// - work given to `add` runs while it is registered: the bag cannot see it return.
  ///
  /// So the key runs until the last of these stops, including after the bag ended. A snapshot:
  /// to follow it, use ``runningUpdates(key:)``.
  ///
  /// ```swift
  /// saveButton.isEnabled = !cancelBag.isRunning(key: "save")
  /// ```
  public func isRunning(key: any Hashable & Sendable) -> Bool {
    madeCore?.isRunning(BagKey(key)) ?? false
  }

  /// Whether work runs under `key`, now and at every change, as an asynchronous sequence.
  ///
  /// The sequence yields the state of ``isRunning(key:)`` at once, then each change, with
  /// equal values never yielded twice in a row, however slowly the consumer reads: each read
  /// yields the key's state as it is then, once it differs from the value read before, so the
  /// last value it yields is always the key's state after its last change. It ends when the
  /// consumer stops iterating (its task is cancelled, or it lets go of the sequence), or once
  /// the bag has ended and nothing runs under the key any more. Works on every OS the package
  /// supports; the sequence does not keep the bag alive (it holds the bag's storage, as a
  /// registration does, not the bag).
  ///
  /// ```swift
  /// struct SaveButton: View {
  ///   let model: EditorModel
  ///   @State private var isSaving = false
  ///
  ///   var body: some View {
  ///     Button("Save") { model.save() }
  ///       .disabled(isSaving)
  ///       .task {
  ///         for await running in model.cancelBag.runningUpdates(key: "save") {
  ///           isSaving = running
  ///         }
  ///       }
  ///   }
  /// }
  /// ```
  public func runningUpdates(key: any Hashable & Sendable) -> AsyncStream<Bool> {
    let key = BagKey(key)
    let start = core.observe(key: key)
    start.observer.offer(isRunning: start.isRunning, version: start.version, ends: start.ends)
    // The stream holds the bag's storage (not the bag) until it is released, as a registration
    // does; the bag holds the observer until then. Either side ending lets go: the reader
    // stopping, or dropping the stream, takes the observer out, and the bag's end ends it.
    let following = KeyFollowing(observer: start.observer, key: key, core: core)
    return AsyncStream(unfolding: { await following.next() }, onCancel: { following.stop() })
  }
}

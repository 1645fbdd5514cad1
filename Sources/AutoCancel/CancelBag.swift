import CAutoCancelAtomics
import Dispatch

/// Holds an owner's work in flight, and cancels it when the owner goes away.
///
/// An owner (a screen, a view model, a download manager) stores one bag and adds the work
/// it starts. When the owner is deallocated, the bag's `deinit` cancels everything still in
/// flight, with reason ``CancellationReason/ownerGone``. Work that completes normally leaves
/// the bag in O(1), so a bag that lives as long as the app stays as small as its work in
/// flight.
///
/// ```swift
/// final class FeedViewModel {
///   let cancelBag = CancelBag()
///
///   func reload() {
///     cancelBag.task { [weak self] in
///       let feed = try await api.feed()
///       await self?.show(feed)
///     }
///   }
/// }
/// ```
///
/// ## Contract
///
/// - Thread-safe: every method may be called from any thread, at any time, concurrently.
/// - A bag never retains its owner, and nothing it hands out (registrations, tasks) retains
///   the bag itself: only the owner's stored property keeps it, so its `deinit` runs with the
///   owner's.
/// - Every registered item ends exactly once: finished, or cancelled.
/// - Work is cancelled on the thread that caused it (the one that released the owner, called
///   ``cancelAll(reason:)`` or ``end(reason:)``), never while the bag's lock is held: `cancel`
///   may call back into the bag.
/// - ``cancelAll(reason:)`` and ``end(reason:)`` cancel in the order work was added, oldest
///   first.
/// - A bag that has *ended* (``end(reason:)`` was called, its parent or a link source ended,
///   or its deadline passed) cancels work added to it before `add` returns.
public final class CancelBag: Sendable, CustomDebugStringConvertible {
  /// The bag's core (its state and lock) once made, as the word of its storage, which the bag
  /// holds one reference to; 0 until then. A bag makes its core on first use, so that a bag
  /// never given work costs one allocation, and its release no lock.
  ///
  /// Declared first: it is the first of the bag's stored properties, at the address
  /// `coreWordAddress` reads it from, as swift-atomics' `ManagedAtomic` keeps its value.
  // Safety: read and set only atomically, through `coreWordAddress` (`CAutoCancelAtomics`),
  // never as a property, once the initializer made it 0.
  private nonisolated(unsafe) var coreWord: UInt = 0

  /// The name given at creation, if any.
  public let label: String?

  /// Whether adds keep their call site, as the switches said when the bag was
  /// made.
  ///
  /// Usable from inline code, so that the inlinable `add(_:key:label:file:line:)` reads it
  /// with one load.
  @usableFromInline let keepsCallSites: Bool

  /// Whether an instrument was attached when the bag was made, to hear of its release.
  private let isInstrumented: Bool

  /// Makes an empty bag.
  ///
  /// - Parameter label: A name shown in ``debugDescription``, such as `"FeedViewModel"`, under
  ///   which AutoCancelDiagnostics counts the bag while it lives (`liveCount(label:)`) and its
  ///   work once it ends (`CancelBagStatistics.current(label:)`).
  ///
  /// The bag takes the process's diagnostic switches as they are when it is made: an
  /// instrument such as `AutoCancelSignposts.enable()` or `AutoCancelDiagnostics.enable()`
  /// installs serves the bags made after it, and the install says how many came before.
  public init(label: String? = nil) {
    self.label = label
    keepsCallSites = ProcessSwitches.keepsCallSites
    let instrument = ProcessSwitches.instrumentOfNewBag()
    isInstrumented = instrument != nil
    assert(withUnsafeMutablePointer(to: &coreWord) { $0 } == coreWordAddress)
    if let instrument { core.attach(instrument, label: label) }
  }

  /// Makes an empty bag with diagnostic switches of its own, whatever the process's are: for
  /// tests, which share one process with bags made by others.
  package init(label: String?, switches: DiagnosticSwitches) {
    self.label = label
    keepsCallSites = switches.keepsCallSites
    isInstrumented = switches.instrument != nil
    if let instrument = switches.instrument { core.attach(instrument, label: label) }
  }

  deinit {
    // A bag never given work has no core: nothing to cancel, and no one to tell.
    guard let core = madeCore else { return }
    core.end(reason: .ownerGone, trigger: .bagReleased)
    if isInstrumented { core.released() }
    // The bag's own reference to its core, taken by `makeCore()`.
    BagCore.release(word: autocancel_word_load(coreWordAddress))
  }

  /// The bag's core, made now if it was not: the state and lock that its registrations and
  /// tasks share, and hold instead of the bag. A reference of the caller's own; the adds use
  /// ``withCore(_:)``.
  var core: BagCore { withCore { $0 } }

  /// Runs `body` with the bag's core, made now if it was not, without a reference of its own:
  /// the bag keeps its core while it lives, and the caller holds the bag.
  ///
  /// Usable from inline code, so that the inlinable adds reach the core with one atomic load
  /// and no retain: taking a reference (``core``) costs a retain and a release per add, both
  /// atomic.
  @inlinable
  func withCore<Result>(_ body: (BagCore) throws -> Result) rethrows -> Result {
    let word = autocancel_word_load(coreWordAddress)
    guard word != 0 else { return try body(makeCore()) }
    return try BagCore.withUnretainedWord(word, body)
  }

  /// The bag's core if it was made: for what reads the bag without changing it.
  var madeCore: BagCore? {
    let word = autocancel_word_load(coreWordAddress)
    return word != 0 ? BagCore.withUnretainedWord(word) { $0 } : nil
  }

  /// The address of ``coreWord``: the start of the bag's stored properties.
  @inlinable
  var coreWordAddress: UnsafeMutablePointer<UInt> {
    _getUnsafePointerToStoredProperties(self).assumingMemoryBound(to: UInt.self)
  }

  /// Makes the bag's core, unless another thread makes it first, and returns the one the bag
  /// keeps.
  @usableFromInline @inline(never)
  func makeCore() -> BagCore {
    let made = BagCore()
    let word = made.retainedWord()
    if autocancel_word_compare_exchange(coreWordAddress, 0, word) { return made }
    BagCore.release(word: word)
    return BagCore.withUnretainedWord(autocancel_word_load(coreWordAddress)) { $0 }
  }

  // MARK: Adding work

  /// Adds work to cancel when the bag ends, unless it finishes first.
  ///
  /// O(1). If the bag has ended, the work is cancelled before this returns, and the
  /// registration returned is inactive.
  ///
  /// ```swift
  /// let task = session.dataTask(with: url) { data, response, error in ... }
  /// cancelBag.add(task)
  /// task.resume()
  /// ```
  ///
  /// How the work is held, and whether it leaves by itself, depends on what it is, never on
  /// how the call site typed it (concretely, through a generic parameter or as
  /// `any AutoCancellable`):
  ///
  /// - A class is stored as it is, with no allocation; a value type (a struct of yours) is
  ///   boxed once.
  /// - A `Task` leaves once it returns: a watcher task awaits it.
  /// - ``FinishReporting`` work (`Operation`, `URLSessionTask` with `AutoCancelNetworking`)
  ///   leaves soon after it finished: the bag asks it every few dozen such adds, and the
  ///   library's reaper asks it twice a second while the bag holds any.
  /// - Other work stays until its registration is finished, a newer item takes its key, or
  ///   the bag cancels it.
  ///
  /// Adding the same work twice makes two registrations; each ends once, so the work may be
  /// cancelled twice. See <doc:Contracts>.
  ///
  /// - Parameters:
  ///   - work: The work. The bag keeps a strong reference until the work ends.
  ///   - key: Latest wins: work already in the bag under an equal key is cancelled, with
  ///     reason ``CancellationReason/replaced``, when this work is added. Keys compare as
  ///     `AnyHashable` does (`3` and `UInt8(3)` are the same key).
  ///   - label: A name shown in `snapshot()`, events and ``debugDescription``.
  ///   - file: The call's `#fileID`, kept as its call site (see
  ///     <doc:Contracts#Call-sites>): leave the default.
  ///   - line: The call's `#line`: leave the default.
  /// - Returns: The registration: finish it when the work completes, or cancel it alone.
  @inlinable @discardableResult
  public func add<Work: AutoCancellable>(
    _ work: Work, key: (any Hashable & Sendable)? = nil, label: String? = nil,
    file: StaticString = #fileID, line: UInt = #line
  ) -> CancelRegistration {
    // Inlinable, with the class witness of `_add` and `finish()`, so that for a class the
    // optimizer sees a discarded registration and drops its retain of the core.
    // Plain work on a bag that keeps no call sites takes a path of its own, with details a
    // constant nil, as the common add did before call sites: merged with the other, the add
    // cost 2% more (callgrind, release).
    if label == nil, key == nil, !keepsCallSites {
      return withCore { Work._add(work, to: _BagInsertion(core: $0, details: nil)) }
    }
    return withCore {
      Work._add(work, to: _BagInsertion(core: $0, details: details(label, key, file, line)))
    }
  }

  /// Adds a `DispatchWorkItem`; cancelling it stops it from running if it has not started.
  ///
  /// Keeps its call site (see <doc:Contracts#Call-sites>).
  ///
  /// A work item cannot say that it ran, so it stays in the bag until its registration is
  /// finished or the bag cancels it (cancelling an item that already ran is harmless). Add
  /// repeated items under a key, so that each new one replaces the last:
  /// `cancelBag.add(save, key: "save")`.
  ///
  /// ```swift
  /// let save = DispatchWorkItem { store.save() }
  /// cancelBag.add(save)
  /// queue.asyncAfter(deadline: .now() + 2, execute: save)
  /// ```
  @discardableResult
  public func add(
    _ item: DispatchWorkItem, key: (any Hashable & Sendable)? = nil, label: String? = nil,
    file: StaticString = #fileID, line: UInt = #line
  ) -> CancelRegistration {
    core.add(DispatchWorkItemWork(item), details: details(label, key, file, line))
  }

  /// Adds work that is not `Sendable`, such as an Objective-C request class, taking on the
  /// risk that Swift cannot check: `cancel` runs on whichever thread ends the work.
  ///
  /// Keeps its call site (see <doc:Contracts#Call-sites>).
  ///
  /// `AutoCancellable` refines `Sendable`, because a bag cancels from the thread that
  /// releases the owner. Work that the compiler cannot prove thread-safe joins here instead,
  /// with the check left to you: use it only for work whose cancel method is thread-safe
  /// (as `URLSessionTask.cancel()` and most request classes' are). `cancel` also adapts a
  /// cancel method that returns a value:
  ///
  /// ```swift
  /// cancelBag.add(unchecked: legacyRequest) { $0.cancel() }
  /// ```
  ///
  /// The bag keeps `work` until it ends or the registration is finished, as with the other
  /// forms.
  @discardableResult
  public func add<Work>(
    unchecked work: Work, key: (any Hashable & Sendable)? = nil, label: String? = nil,
    file: StaticString = #fileID, line: UInt = #line, cancel: @escaping (Work) -> Void
  ) -> CancelRegistration {
    core.add(UncheckedWork(work, cancel: cancel), details: details(label, key, file, line))
  }

  /// Adds a closure to run once, with the reason, if the registration is cancelled.
  ///
  /// Keeps its call site (see <doc:Contracts#Call-sites>).
  ///
  /// The closure does not run when the registration is finished. It is also the adapter for
  /// `Sendable` work whose cancel method returns a value, such as Alamofire's `Request`:
  ///
  /// ```swift
  /// let registration = cancelBag.add { _ in request.cancel() }
  /// request.response { response in
  ///   registration.finish()  // done: the bag forgets it
  /// }
  /// ```
  ///
  /// ```swift
  /// let registration = cancelBag.add { reason in
  ///   socket.close()
  ///   log("closed: \(reason)")
  /// }
  /// ```
  @discardableResult
  public func add(
    key: (any Hashable & Sendable)? = nil, label: String? = nil,
    file: StaticString = #fileID, line: UInt = #line,
    onCancel: @escaping @Sendable (CancellationReason) -> Void
  ) -> CancelRegistration {
    core.add(ClosureWork(onCancel), details: details(label, key, file, line))
  }

  /// The details of an item added at `file`:`line` with `label` and `key`: nil for plain
  /// work on a bag that keeps no call sites.
  ///
  /// Usable from inline code, and inlined, so that such an add costs one load of
  /// `keepsCallSites` and a constant nil.
  @inlinable @inline(__always)
  func details(
    _ label: String?, _ key: (any Hashable & Sendable)?, _ file: StaticString, _ line: UInt
  ) -> ItemDetails? {
    .make(label: label, key: key, file: file, line: line, keepsCallSite: keepsCallSites)
  }

  // MARK: Cancelling

  /// Cancels all work in flight; the bag stays usable.
  ///
  /// For "the page was left", "the tab was switched": the owner stays, its work goes. Work
  /// is cancelled oldest first, on the calling thread, before this returns. Child bags
  /// (``CancelBag/init(parent:label:)``) cancel their work too and stay usable; linked bags are not
  /// affected. Work added during or after the call is kept. Idempotent.
  ///
  /// ```swift
  /// func viewDidDisappear() { cancelBag.cancelAll() }
  /// ```
  public func cancelAll(reason: CancellationReason = .explicit) {
    // A bag without a core holds nothing to cancel.
    madeCore?.cancelAll(reason: reason)
  }

  /// Ends the bag for good: cancels all work in flight, and any work added later.
  ///
  /// What `deinit` does, with a reason of your choice, for an owner that outlives its purpose
  /// (a finished download manager, a closed connection). Children and linked bags end too.
  /// The first call decides the reason; later calls do nothing.
  ///
  /// ```swift
  /// connection.onClose { cancelBag.end(reason: .custom("connection closed")) }
  /// ```
  public func end(reason: CancellationReason = .explicit) {
    core.end(reason: reason, trigger: .end)
  }

  // MARK: Reading

  /// The number of work items in flight.
  ///
  /// A snapshot: other threads may change it right after it is read.
  public var count: Int { madeCore?.count ?? 0 }

  /// Whether the bag has ended: work added now is cancelled at once.
  public var hasEnded: Bool { madeCore?.endReason != nil }

  /// Why the bag ended, or nil while it is open.
  public var endReason: CancellationReason? { madeCore?.endReason }

  /// A readable summary: the label, whether it ended, and the work in flight.
  public var debugDescription: String {
    let items = itemSnapshots()
    var text = "CancelBag"
    if let label { text += "(\(label))" }
    if let reason = endReason { text += " ended (\(reason))" }
    text += ": \(items.count) in flight"
    for item in items { text += "\n  \(item)" }
    return text
  }
}

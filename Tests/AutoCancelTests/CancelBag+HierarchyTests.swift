import AutoCancelTestSupport
@testable import AutoCancel
import Foundation
import Testing

/// Work that notes the threads that cancel it.
private final class ThreadNotingWork: AutoCancellable, Sendable {
  private let threads = Protected<[ObjectIdentifier]>([])
  func cancel() { threads.withLock { $0.append(ObjectIdentifier(Thread.current)) } }
  var cancellingThreads: [ObjectIdentifier] { threads.current }
}

extension BagEnding {
  /// Applies this to the bag in `source` on a new thread, and returns that thread and the
  /// threads that had cancelled `work` when it returned, both taken on that thread (alive
  /// throughout, so no other thread can share its identity).
  fileprivate func apply(
    to source: Protected<CancelBag?>, watching work: ThreadNotingWork
  ) async -> (thread: ObjectIdentifier, cancels: [ObjectIdentifier]) {
    await onNewThread {
      apply(to: source)
      return (ObjectIdentifier(Thread.current), work.cancellingThreads)
    }
  }
}

@Suite("A child bag", timeLimit(minutes: 1))
struct ChildBagTests {
  @Test("ends with reason parentEnded when its parent ends")
  func endsWithParent() {
    let parent = CancelBag()
    let (child, work, _) = bagHoldingWork(CancelBag(parent: parent))
    parent.end(reason: .custom("signed out"))
    #expect(work.reasons == [.parentEnded])
    #expect(child.endReason == .parentEnded)
  }

  @Test("ends with reason parentEnded when its parent is deinitialized")
  func endsWhenParentGoes() {
    var parent: CancelBag? = CancelBag()
    let (child, work, _) = bagHoldingWork(CancelBag(parent: parent!))
    parent = nil
    #expect(work.reasons == [.parentEnded])
    #expect(child.hasEnded)
  }

  @Test("cancels its work with the parent's reason when the parent cancels all, and stays usable")
  func followsCancelAll() {
    let parent = CancelBag()
    let (child, first, _) = bagHoldingWork(CancelBag(parent: parent))
    parent.cancelAll(reason: .custom("tab switched"))
    #expect(first.reasons == [.custom("tab switched")])
    #expect(!child.hasEnded)
    let second = RecordingWork()
    child.add(second)
    #expect(second.reasons.isEmpty)
    #expect(child.count == 1)
    parent.cancelAll()
    #expect(second.reasons == [.explicit])
  }

  @Test("never touches its parent or siblings when it cancels or ends")
  func isolatedFromParentAndSiblings() {
    let (parent, parentWork, _) = bagHoldingWork()
    let child = CancelBag(parent: parent)
    let (sibling, siblingWork, _) = bagHoldingWork(CancelBag(parent: parent))
    child.add(RecordingWork())
    child.cancelAll()
    child.end()
    #expect(parentWork.reasons.isEmpty)
    #expect(siblingWork.reasons.isEmpty)
    #expect(parent.count == 1 && sibling.count == 1)
    #expect(!parent.hasEnded && !sibling.hasEnded)
  }

  @Test("leaves its parent as soon as it goes away, so a long-lived parent stays small")
  func detachesOnDeinit() async {
    let parent = CancelBag()
    // On a thread of its own, not the cooperative pool's: a long loop under a sanitizer.
    let linkCounts = await onNewThread {
      var linkCounts: Set<Int> = []  // the parent's links while each child lives
      for _ in 0..<10_000 {
        let child = CancelBag(parent: parent)
        child.add(RecordingWork())
        linkCounts.insert(parent.linkCount)
      }
      return linkCounts
    }
    #expect(linkCounts == [1])
    #expect(parent.linkCount == 0)
    #expect(parent.slotCount <= 64)
  }

  @Test(
    "has its work cancelled on the thread that cancels, ends or releases its parent, before that returns",
    arguments: BagEnding.allCases)
  func followsOnTheParentsThread(cause: BagEnding) async {
    let parent = Protected<CancelBag?>(CancelBag())
    let child = CancelBag(parent: parent.withLock { $0! })
    let work = ThreadNotingWork()
    child.add(work)
    let (thread, cancels) = await cause.apply(to: parent, watching: work)
    #expect(cancels == [thread])
  }

  @Test("is not kept alive by its parent")
  func notRetainedByParent() {
    let parent = CancelBag()
    weak var weakChild: CancelBag?
    do {
      let child = CancelBag(parent: parent)
      weakChild = child
    }
    #expect(weakChild == nil)
    withExtendedLifetime(parent) {}
  }

  @Test("made from a parent that has ended has ended, and cancels what is added")
  func childOfEndedParent() {
    let parent = CancelBag()
    parent.end()
    let child = CancelBag(parent: parent)
    #expect(child.endReason == .parentEnded)
    let work = RecordingWork()
    child.add(work)
    #expect(work.reasons == [.parentEnded])
  }

  @Test("of a child ends with its grandparent")
  func grandchildren() {
    let root = CancelBag()
    let child = CancelBag(parent: root)
    let (grandchild, work, _) = bagHoldingWork(CancelBag(parent: child))
    root.cancelAll(reason: .custom("refresh"))
    #expect(work.reasons == [.custom("refresh")])
    let later = RecordingWork()
    grandchild.add(later)
    root.end()
    #expect(later.reasons == [.parentEnded])
  }
}

@Suite("A linked bag", timeLimit(minutes: 1))
struct LinkedBagTests {
  @Test("ends with reason linkEnded when any of its sources ends")
  func endsWhenAnySourceEnds() {
    let (document, session) = (CancelBag(), CancelBag())
    let (upload, work, _) = bagHoldingWork(CancelBag(linkedTo: [document, session]))
    session.end()
    #expect(work.reasons == [.linkEnded])
    #expect(upload.endReason == .linkEnded)
    #expect(document.linkCount == 0)
  }

  @Test(
    "has its work cancelled on the thread that ends or releases a source, before that returns",
    arguments: [BagEnding.end, .release])
  func followsOnTheSourcesThread(cause: BagEnding) async {
    let source = Protected<CancelBag?>(CancelBag())
    let other = CancelBag()
    let linked = CancelBag(linkedTo: [source.withLock { $0! }, other])
    let work = ThreadNotingWork()
    linked.add(work)
    let (thread, cancels) = await cause.apply(to: source, watching: work)
    #expect(cancels == [thread])
    withExtendedLifetime(other) {}
  }

  @Test("ends when a source is deinitialized, without retaining it")
  func endsWhenSourceGoes() {
    weak var weakSource: CancelBag?
    var source: CancelBag? = CancelBag()
    weakSource = source
    let linked = CancelBag(linkedTo: [source!, CancelBag()])
    let work = RecordingWork()
    linked.add(work)
    source = nil
    #expect(weakSource == nil)
    #expect(work.reasons.contains(.linkEnded))
  }

  @Test("ignores its sources' cancelAll")
  func ignoresCancelAll() {
    let source = CancelBag()
    let (linked, work, _) = bagHoldingWork(CancelBag(linkedTo: [source]))
    source.cancelAll()
    #expect(work.reasons.isEmpty)
    #expect(!linked.hasEnded)
  }

  @Test("leaves every source when it ends")
  func leavesSources() {
    let sources = (0..<3).map { _ in CancelBag() }
    let linked = CancelBag(linkedTo: sources)
    #expect(sources.allSatisfy { $0.linkCount == 1 })
    linked.end()
    #expect(sources.allSatisfy { $0.linkCount == 0 })
  }
}

@Suite("A parent bag with children")
struct ParentBagTableTests {
  /// A new parent for each test, with a child.
  let parent = CancelBag()
  let child: CancelBag

  init() { child = CancelBag(parent: parent) }

  @Test("reuses its free slots after cancelAll, so the page-left pattern stays small")
  func cancelAllKeepsFreeSlots() {
    for _ in 0..<1_000 {
      let first = parent.add(RecordingWork())
      parent.add(RecordingWork())
      first.finish()
      parent.cancelAll()
    }
    #expect(parent.count == 0)
    #expect(parent.slotCount <= 3)
  }

  @Test("gives its large table back once drained, and keeps its children")
  func givesTableBack() {
    let registrations = (0..<1_000).map { _ in parent.add(RecordingWork()) }
    #expect(parent.slotCount >= 1_000)
    for registration in registrations { registration.finish() }
    #expect(parent.slotCount == 0)
    #expect(parent.linkCount == 1)
    parent.end()
    #expect(child.endReason == .parentEnded)
  }
}

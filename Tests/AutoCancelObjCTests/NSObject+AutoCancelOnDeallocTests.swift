import AutoCancel
import Foundation
import AutoCancelTestSupport
import Testing

@testable import AutoCancelObjC

/// A screen that is both an `NSObject` and an ``AutoCancelOwner``.
private final class Screen: NSObject, AutoCancelOwner {
  let cancelBag = CancelBag(label: "Screen")
}

@Suite("NSObject's autoCancelRequestOnDealloc", timeLimit(minutes: 1))
struct NSObjectAutoCancelOnDeallocTests {
  @Test("leaves autoCancel of an NSObject that is an AutoCancelOwner going to its stored bag")
  func autoCancelKeepsGoingToTheStoredBag() {
    var screen: Screen? = Screen()
    let stored = RecordingWork()
    screen!.autoCancel(stored)
    #expect(screen!.cancelBag.count == 1)
    #if canImport(ObjectiveC)
      #expect(runtimeBinder.store.holder(of: screen!) == nil)
      let hidden = RecordingWork()
      screen!.autoCancelRequestOnDealloc(hidden)
      #expect(screen!.cancelBag.count == 1)
      #expect(runtimeBinder.store.holder(of: screen!)?.cancelBag.count == 1)
      screen!.cancelBag.cancelAll()
      #expect(stored.reasons == [.explicit])
      #expect(hidden.cancelCount == 0)
      screen = nil
      #expect(hidden.reasons == [.ownerGone])
    #else
      screen = nil
      #expect(stored.reasons == [.ownerGone])
    #endif
  }

  #if canImport(ObjectiveC)
    /// An object handed to several threads that only bind to it.
    private struct SharedObject: @unchecked Sendable {
      // Safety: the threads only bind work to the object, and binding is thread-safe.
      let object: NSObject
      init(_ object: NSObject) { self.object = object }
    }

    @Test("cancels work bound to any NSObject when the object is deallocated")
    func deallocCancelsBoundWork() {
      var object: NSObject? = NSObject()
      let probe = RecordingWork()
      let item = DispatchWorkItem {}
      object!.autoCancelRequestOnDealloc(probe)
      object!.autoCancelRequestOnDealloc(item)
      let task = Task { try await Task.sleep(nanoseconds: 60_000_000_000) }
      object!.autoCancelRequestOnDealloc(task)
      #expect(probe.cancelCount == 0)
      object = nil
      #expect(probe.reasons == [.ownerGone])
      #expect(item.isCancelled)
      #expect(task.isCancelled)
    }

    @Test("attaches one holder when many threads bind to a fresh NSObject at once")
    func attachesOneHolderUnderRaces() async {
      for _ in 0..<20 {
        let shared = SharedObject(NSObject())
        let object = shared.object
        let holders = Protected<Set<ObjectIdentifier>>([])
        await onThreads(8) { _ in
          let object = shared.object
          object.autoCancelRequestOnDealloc(RecordingWork())
          if let holder = runtimeBinder.store.holder(of: object) {
            holders.withLock { _ = $0.insert(ObjectIdentifier(holder)) }
          }
        }
        #expect(holders.current.count == 1)
        #expect(runtimeBinder.store.holder(of: object)?.cancelBag.count == 8)
      }
    }

    @Test("sends cancel through the Objective-C drop-in only to requests that respond to it")
    func objectiveCDropInCancelsOnlyWhatResponds() {
      var object: NSObject? = NSObject()
      let operation = Operation()
      let mute = NSObject()
      object!._autoCancelObjectiveCRequestOnDealloc(operation)
      object!._autoCancelObjectiveCRequestOnDealloc(mute)
      object!._autoCancelObjectiveCRequestOnDealloc(nil)
      #expect(!operation.isCancelled)
      object = nil
      #expect(operation.isCancelled)
      withExtendedLifetime(mute) {}
    }

    @Test("reaches the drop-in through its Objective-C selector")
    func objectiveCSelectorIsTheOriginals() {
      let selector = NSSelectorFromString("autoCancelRequestOnDealloc:")
      #expect(NSObject().responds(to: selector))
      var object: NSObject? = NSObject()
      let operation = Operation()
      _ = object!.perform(selector, with: operation)
      object = nil
      #expect(operation.isCancelled)
    }
  #endif
}

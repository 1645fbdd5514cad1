import AutoCancelTestSupport
import AutoCancel
import Testing

@Suite("A CancelRegistration")
struct CancelRegistrationTests {
  @Test("is active until its work is finished, and finishing never cancels")
  func finishForgetsWithoutCancelling() {
    let bag = CancelBag()
    let probe = RecordingWork()
    let registration = bag.add(probe)
    #expect(registration.isActive)
    registration.finish()
    #expect(!registration.isActive)
    #expect(bag.count == 0)
    bag.end()
    #expect(probe.cancelCount == 0)
  }

  @Test("cancels its work alone, with the reason given, leaving the rest in flight")
  func cancelEndsOnlyItsOwnWork() {
    let bag = CancelBag()
    let target = RecordingWork()
    let bystander = RecordingWork()
    let registration = bag.add(target)
    bag.add(bystander)
    registration.cancel(reason: .timedOut)
    #expect(target.reasons == [.timedOut])
    #expect(bystander.cancelCount == 0)
    #expect(bag.count == 1)
    bag.add(RecordingWork()).cancel()
    #expect(bag.count == 1)
  }

  @Test("cancels with reason explicit when cancel() is called without a reason")
  func cancelWithoutReasonIsExplicit() {
    let bag = CancelBag()
    let probe = RecordingWork()
    bag.add(probe).cancel()
    #expect(probe.reasons == [.explicit])
  }

  @Test("does nothing when finished after it was cancelled")
  func finishAfterCancel() {
    let bag = CancelBag()
    let probe = RecordingWork()
    let registration = bag.add(probe)
    registration.cancel()
    registration.finish()
    #expect(probe.cancelCount == 1)
    #expect(!registration.isActive)
  }

  @Test("does nothing when cancelled after it was finished")
  func cancelAfterFinish() {
    let bag = CancelBag()
    let probe = RecordingWork()
    let registration = bag.add(probe)
    registration.finish()
    registration.cancel()
    registration.cancel(reason: .timedOut)
    #expect(probe.cancelCount == 0)
  }

  @Test("cancels its work once when cancelled twice, also from two copies")
  func cancelTwiceCancelsOnce() {
    let bag = CancelBag()
    let probe = RecordingWork()
    let registration = bag.add(probe)
    let copy = registration
    registration.cancel()
    copy.cancel(reason: .replaced)
    registration.cancel()
    #expect(probe.reasons == [.explicit])
  }

  @Test("never touches newer work that reused its slot when finished or cancelled again")
  func staleRegistrationNeverTouchesNewerWork() {
    let bag = CancelBag()
    let first = RecordingWork("A")
    let stale = bag.add(first)
    stale.finish()
    let second = RecordingWork("B")
    let fresh = bag.add(second)  // lands in the slot A left
    stale.finish()
    stale.cancel()
    #expect(fresh.isActive)
    #expect(!stale.isActive)
    #expect(stale != fresh)
    #expect(bag.count == 1)
    #expect(second.cancelCount == 0)
    #expect(first.cancelCount == 0)
  }

  @Test("is inert after its bag went away: isActive is false, finish and cancel do nothing")
  func inertAfterTheBagWentAway() {
    let probe = RecordingWork()
    let registration: CancelRegistration
    do {
      let bag = CancelBag()
      registration = bag.add(probe)
    }
    #expect(!registration.isActive)
    registration.finish()
    registration.cancel()
    #expect(probe.reasons == [.ownerGone])
  }

  @Test("is equal to its copies and to nothing else, and hashes alike")
  func equality() {
    let bag = CancelBag()
    let other = CancelBag()
    let first = bag.add(RecordingWork())
    let second = bag.add(RecordingWork())
    let elsewhere = other.add(RecordingWork())
    let copy = first
    #expect(first == copy)
    #expect(first != second)
    #expect(first != elsewhere)
    #expect(Set([first, copy, second, elsewhere]).count == 3)
  }

  @Test("can itself be added to another bag: ending that bag cancels the work, with its reason")
  func registrationIsCancellableWork() {
    let inner = CancelBag()
    let outer = CancelBag()
    let probe = RecordingWork()
    let registration = inner.add(probe)
    outer.add(registration)
    outer.end(reason: .custom("outer ended"))
    #expect(probe.reasons == [.custom("outer ended")])
    #expect(!registration.isActive)
    #expect(inner.count == 0)
    #expect(!inner.hasEnded)
  }
}

import AutoCancelTestSupport
import AutoCancel
import Testing

@Suite("A CancelRegistration")
struct CancelRegistrationTests {
  @Test("is active until its work is finished, and finishing never cancels")
  func finishForgetsWithoutCancelling() {
    let (bag, probe, registration) = bagHoldingWork()
    #expect(registration.isActive)
    registration.finish()
    #expect(!registration.isActive)
    #expect(bag.count == 0)
    bag.end()
    #expect(probe.cancelCount == 0)
  }

  @Test("cancels its work alone, with the reason given, leaving the rest in flight")
  func cancelEndsOnlyItsOwnWork() {
    let (bag, target, registration) = bagHoldingWork()
    let bystander = RecordingWork()
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

  /// A call that ends a registration, made on it or on a copy of it.
  enum EndingCall: String, CustomTestStringConvertible, Sendable {
    case finish = "finish()"
    case cancel = "cancel()"
    case cancelTimedOut = "cancel(reason: .timedOut)"
    case copyCancelReplaced = "copy.cancel(reason: .replaced)"
    var testDescription: String { rawValue }

    func make(on registration: CancelRegistration) {
      let copy = registration
      switch self {
      case .finish: registration.finish()
      case .cancel: registration.cancel()
      case .cancelTimedOut: registration.cancel(reason: .timedOut)
      case .copyCancelReplaced: copy.cancel(reason: .replaced)
      }
    }
  }

  @Test(
    "ends its work once, as the first of its finishes and cancels says, also from a copy",
    arguments: [
      [EndingCall.finish, .finish], [.cancel, .cancelTimedOut], [.cancel, .finish],
      [.finish, .cancel, .cancelTimedOut], [.cancel, .copyCancelReplaced, .cancel],
    ])
  func endsOnceAsTheFirstCallSays(calls: [EndingCall]) {
    let (bag, work, registration) = bagHoldingWork()
    for call in calls { call.make(on: registration) }
    let expected: [CancellationReason] = calls[0] == .finish ? [] : [.explicit]
    #expect(!registration.isActive)
    #expect(work.reasons == expected)
    #expect(bag.count == 0)
    bag.end()
    #expect(work.reasons == expected, "after the bag ended")
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
    let (inner, probe, registration) = bagHoldingWork()
    let outer = CancelBag()
    outer.add(registration)
    outer.end(reason: .custom("outer ended"))
    #expect(probe.reasons == [.custom("outer ended")])
    #expect(!registration.isActive)
    #expect(inner.count == 0)
    #expect(!inner.hasEnded)
  }
}

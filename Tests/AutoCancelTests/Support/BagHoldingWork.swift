import AutoCancel
import AutoCancelTestSupport

/// `bag` holding one new ``RecordingWork`` named `name`, and its registration: the start of
/// most tests of what happens to one piece of work.
///
/// ```swift
/// let (bag, work, registration) = bagHoldingWork()
/// registration.cancel()
/// #expect(work.reasons == [.explicit])
/// ```
func bagHoldingWork(
  _ bag: CancelBag = CancelBag(), name: String = "work"
) -> (bag: CancelBag, work: RecordingWork, registration: CancelRegistration) {
  let work = RecordingWork(name)
  return (bag, work, bag.add(work))
}

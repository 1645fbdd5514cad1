import Foundation

@testable import AutoCancelNetworking

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Returns once every URLSession call the library queued so far has been made, and every
/// event of its twins' tasks that had come has been handled, with what each led to.
func libraryQueueDrained() async {
  await withCheckedContinuation { done in TaskQueue.async { done.resume() } }
  for lane in TaskQueue.lanes {
    await withCheckedContinuation { done in lane.async { done.resume() } }
  }
  await withCheckedContinuation { done in TaskQueue.async { done.resume() } }
}

/// Returns once every operation queued so far on `session`'s delegate queue has run: what the
/// library handed the session's delegate, or its completion handlers.
func delegateQueueDrained(of session: URLSession) async {
  await withCheckedContinuation { done in session.delegateQueue.addOperation { done.resume() } }
}

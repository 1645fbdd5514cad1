import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Empties the test process's shared URL cache once, before its first request: every session
/// of the default configuration asks that cache, and what earlier runs stored in it must not
/// slow this one.
///
/// FoundationNetworking keeps the shared cache's answers on disk, in a directory named after
/// the process, and on every lookup that its memory does not answer it lists that directory;
/// the ephemeral configuration's cache lists the same directory. Answers stored by tests (each
/// run's own port in their URLs) piled up there run after run: with 364 of them, 10,000
/// requests on a default session took 101 s under ThreadSanitizer instead of 12 s, and the
/// lookups, made on the lowest-priority global queue, held a loaded machine's requests past
/// their tests' time limits.
///
/// ```swift
/// FreshURLCache.prepare()
/// let server = LoopbackHTTPServer()
/// ```
package enum FreshURLCache {
  /// Empties the shared URL cache the first time; every later call returns at once.
  package static func prepare() { _ = emptied }

  private static let emptied: Void = URLCache.shared.removeAllCachedResponses()
}

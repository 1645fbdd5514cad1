// The one file of the reliability tests that touches the platform C library: it asks the
// dynamic linker whether a sanitizer runtime is loaded, so that the randomized suites can
// shrink themselves under ThreadSanitizer (about 25 times slower here) instead of timing out.

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The sanitizers compiled into this test binary.
enum Sanitizers {
  /// Whether ThreadSanitizer's runtime is present (`swift test --sanitize=thread`).
  static let thread = isLinked("__tsan_init")

  /// Whether AddressSanitizer's runtime is present (`swift test --sanitize=address`).
  static let address = isLinked("__asan_init")

  /// Whether the process runs under valgrind (`AUTOCANCEL_VALGRIND` is set by
  /// scripts/reliability/valgrind.sh).
  static let valgrind = getenv("AUTOCANCEL_VALGRIND") != nil

  private static func isLinked(_ symbol: String) -> Bool {
    #if canImport(Glibc) || canImport(Darwin)
      guard let handle = dlopen(nil, RTLD_NOW) else { return false }
      return dlsym(handle, symbol) != nil
    #else
      return false
    #endif
  }
}

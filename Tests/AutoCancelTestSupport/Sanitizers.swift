#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What the test process runs under, so that long and randomized tests can shrink themselves
/// where every memory access is instrumented (ThreadSanitizer makes them about 25 times
/// slower, AddressSanitizer about 8) instead of overrunning their time limits.
///
/// The one probe of the tests: it asks the dynamic linker whether a sanitizer's runtime is
/// loaded, so it needs no setting and cannot disagree with how the binary was built.
///
/// ```swift
/// static let steps = Sanitizers.thread || Sanitizers.address ? 2_000 : 5_000
/// ```
public enum Sanitizers {
  /// Whether ThreadSanitizer's runtime is present (`swift test --sanitize=thread`).
  public static let thread = isLinked("__tsan_init")

  /// Whether AddressSanitizer's runtime is present (`swift test --sanitize=address`).
  public static let address = isLinked("__asan_init")

  /// Whether the process runs under valgrind (`AUTOCANCEL_VALGRIND` is set by
  /// scripts/reliability/valgrind.sh).
  package static let valgrind = getenv("AUTOCANCEL_VALGRIND") != nil

  /// The instrumentation in effect, for reports: a sanitizer's name, `valgrind`, or `none`.
  package static var description: String {
    thread ? "ThreadSanitizer" : address ? "AddressSanitizer" : valgrind ? "valgrind" : "none"
  }

  /// Runs LeakSanitizer's check now, as it would run at exit: with leaks found, it prints
  /// its report and ends the process with a failure. Does nothing without AddressSanitizer.
  ///
  /// For a child process that must report its leaks while its standard error is still
  /// watched (a test harness may close it before the exit-time check).
  package static func checkForLeaksNow() {
    #if canImport(Glibc) || canImport(Darwin)
      guard let handle = dlopen(nil, RTLD_NOW), let check = dlsym(handle, "__lsan_do_leak_check")
      else { return }
      unsafeBitCast(check, to: (@convention(c) () -> Void).self)()
    #endif
  }

  private static func isLinked(_ symbol: String) -> Bool {
    #if canImport(Glibc) || canImport(Darwin)
      guard let handle = dlopen(nil, RTLD_NOW) else { return false }
      return dlsym(handle, symbol) != nil
    #else
      return false
    #endif
  }
}

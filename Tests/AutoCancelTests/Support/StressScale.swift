import AutoCancelTestSupport

/// Sizes of the long and concurrent tests.
///
/// Under a sanitizer (``Sanitizers``) every memory access is instrumented, so the sizes are
/// scaled down to keep the suites within their time limits; the contract checked is the same.
enum StressScale {
  /// Whether the tests run under ThreadSanitizer or AddressSanitizer.
  static let underSanitizer = Sanitizers.thread || Sanitizers.address

  /// Add-and-finish cycles of the O(1) test: 1,000,000, or 200,000 under a sanitizer.
  static let millionCycles = underSanitizer ? 200_000 : 1_000_000
}

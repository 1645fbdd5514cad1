import Foundation

/// Number formatting shared by the progress line and the report.
enum Format {
  /// `31.0 MB`, `12.3 KB`, `512 B` (decimal units).
  static func bytes(_ count: Int) -> String {
    let value = Double(count)
    if count >= 1_000_000 { return String(format: "%.1f MB", value / 1e6) }
    if count >= 1_000 { return String(format: "%.1f KB", value / 1e3) }
    return "\(count) B"
  }

  /// `8.1 s`, `0.03 s`.
  static func seconds(_ value: Double) -> String {
    value >= 1 ? String(format: "%.1f s", value) : String(format: "%.2f s", value)
  }

  /// `812 ms`, `4.8 ms`.
  static func milliseconds(_ value: Double) -> String {
    value >= 10 ? String(format: "%.0f ms", value) : String(format: "%.1f ms", value)
  }

  /// `64%`.
  static func percent(_ part: Int, of whole: Int) -> String {
    whole > 0 ? String(format: "%.0f%%", Double(part) / Double(whole) * 100) : "0%"
  }

  /// Rounds to `places` decimals, for JSON.
  static func rounded(_ value: Double, places: Int = 3) -> Double {
    let scale = pow(10, Double(places))
    return (value * scale).rounded() / scale
  }
}

/// The demo's command-line options.
///
/// ```swift
/// let options = try DemoOptions(arguments: ["--screens", "8", "--json"])
/// print(options.screens, options.json)  // 8 true
/// ```
package struct DemoOptions: Sendable, Hashable {
  /// How many screens people open, in all.
  package var screens = 24
  /// How many requests each screen starts.
  package var requestsPerScreen = 6
  /// The seed of the scenario; the same seed replays the same scenario.
  package var seed: UInt64 = 42
  /// Print one JSON object instead of the table (progress then goes to standard error).
  package var json = false
  /// Print the usage and exit.
  package var help = false

  package static let screensRange = 1...1000
  package static let requestsPerScreenRange = 1...50

  /// The defaults.
  package init() {}

  /// Parses the arguments (without the program name).
  ///
  /// Accepts `--flag value` and `--flag=value`.
  ///
  /// - Throws: ``DemoOptionsError`` naming the first argument it cannot accept.
  package init(arguments: [String]) throws(DemoOptionsError) {
    var remaining = arguments[...]
    while let argument = remaining.popFirst() {
      let (flag, attached) = Self.split(argument)
      func value() throws(DemoOptionsError) -> String {
        if let attached { return attached }
        guard let next = remaining.popFirst() else {
          throw DemoOptionsError("\(flag): missing value")
        }
        return next
      }
      switch flag {
      case "--screens":
        screens = try Self.integer(flag, try value(), in: Self.screensRange)
      case "--requests-per-screen":
        requestsPerScreen = try Self.integer(flag, try value(), in: Self.requestsPerScreenRange)
      case "--seed":
        let text = try value()
        guard let parsed = UInt64(text) else {
          throw DemoOptionsError(
            "\(flag): expected a whole number from 0 to \(UInt64.max), got \"\(text)\"")
        }
        seed = parsed
      case "--json", "--help", "-h":
        if attached != nil { throw DemoOptionsError("\(flag): takes no value") }
        if flag == "--json" { json = true } else { help = true }
      default:
        throw DemoOptionsError("unknown argument \"\(argument)\"")
      }
    }
  }

  /// The usage text, for `--help` and after an error.
  package static let usage = """
    Usage: autocancel-demo [--screens N] [--requests-per-screen N] [--seed N] [--json]

    Simulates people browsing an app against a loopback HTTP server, twice: without binding
    requests to their screens, then with AutoCancel. Prints what the server did for screens
    that were already gone.

    Options:
      --screens N               screens opened in all, \(screensRange.lowerBound)-\
    \(screensRange.upperBound) (default 24)
      --requests-per-screen N   requests each screen starts, \
    \(requestsPerScreenRange.lowerBound)-\(requestsPerScreenRange.upperBound) (default 6)
      --seed N                  scenario seed; the same seed replays the same scenario \
    (default 42)
      --json                    print one JSON object instead of the table
      -h, --help                show this help
    """

  private static func split(_ argument: String) -> (flag: String, value: String?) {
    guard argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") else {
      return (argument, nil)
    }
    return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
  }

  private static func integer(
    _ flag: String, _ text: String, in range: ClosedRange<Int>
  ) throws(DemoOptionsError) -> Int {
    guard let parsed = Int(text), range.contains(parsed) else {
      throw DemoOptionsError(
        "\(flag): expected a whole number from \(range.lowerBound) to \(range.upperBound), "
          + "got \"\(text)\"")
    }
    return parsed
  }
}

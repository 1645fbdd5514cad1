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
  /// A smaller scenario (``quickScreens`` screens of ``quickRequestsPerScreen`` requests)
  /// for CI; explicit `--screens` and `--requests-per-screen` still win.
  package var quick = false

  package static let quickScreens = 8
  package static let quickRequestsPerScreen = 4

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
    var explicitScreens: Int?
    var explicitRequestsPerScreen: Int?
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
        explicitScreens = try Self.integer(flag, try value(), in: Self.screensRange)
      case "--requests-per-screen":
        explicitRequestsPerScreen = try Self.integer(
          flag, try value(), in: Self.requestsPerScreenRange)
      case "--seed":
        let text = try value()
        guard let parsed = UInt64(text) else {
          throw DemoOptionsError(
            "\(flag): expected a whole number from 0 to \(UInt64.max), got \"\(text)\"")
        }
        seed = parsed
      case "--json", "--quick", "--help", "-h":
        if attached != nil { throw DemoOptionsError("\(flag): takes no value") }
        switch flag {
        case "--json": json = true
        case "--quick": quick = true
        default: help = true
        }
      default:
        throw DemoOptionsError("unknown argument \"\(argument)\"")
      }
    }
    if quick {
      screens = Self.quickScreens
      requestsPerScreen = Self.quickRequestsPerScreen
    }
    if let explicitScreens { screens = explicitScreens }
    if let explicitRequestsPerScreen { requestsPerScreen = explicitRequestsPerScreen }
  }

  /// The usage text, for `--help` and after an error.
  package static let usage = """
    Usage: autocancel-demo [--screens N] [--requests-per-screen N] [--seed N] [--quick] [--json]

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
      --quick                   a smaller scenario for CI: \(quickScreens) screens of \
    \(quickRequestsPerScreen) requests
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

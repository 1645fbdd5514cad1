/// Command-line options of `autocancel-bench`.
struct Options {
  /// Print one JSON object instead of tables.
  var json = false
  /// A short run: fewer repetitions.
  var quick = false
  /// Repetitions per scenario (after one discarded warm-up), or nil for the default.
  var repetitions: Int?
  /// Scenario groups to run (`Scenario.id`), or nil for all.
  var only: Set<String>?
  /// Implementations to run, or nil for all (to profile one design alone).
  var implementations: Set<String>?
  /// Run one operation for an allocation counter instead of the scenarios.
  var countAllocations: AllocationCount.Operation?
  /// How many times `countAllocations` repeats its operation.
  var operations = 1_000

  static let groups = allScenarios.map(\.id)
  static let implementationNames = [
    "AutoCancel", "naive", "plain", "floor", "origin-port", "origin-port-quirk", "Task",
  ]

  static let usage = """
    usage: swift run -c release autocancel-bench [--json] [--quick] [--repetitions N]
                                                 [--only LIST] [--implementations LIST]
           autocancel-bench --count-allocations OPERATION --implementations NAME
                            [--operations N]
      --json            print one JSON object {"results": [...], "targets": [...]}
      --quick           a short run: smaller sizes, fewer repetitions
      --repetitions N   measured repetitions per scenario (default 9, quick 3;
                        S4 default 25, quick 5)
      --only LIST       run only these scenarios (comma-separated):
                        S1, S1b, S2, S2-bag, S3, S4, S5, S6, S7, S8
      --implementations LIST
                        run only these implementations (comma-separated), e.g. to profile
                        one: AutoCancel, naive, plain, floor, origin-port,
                        origin-port-quirk, Task
      --count-allocations OPERATION
                        run OPERATION of one implementation N times and print nothing, for
                        an allocation counter (scripts/bench-allocations.sh runs it under
                        valgrind's DHAT): empty-bag, bag-with-one, bag-of-10, add-finish,
                        oneliner, task-launch, task-launch-keyed
      --operations N    how many times --count-allocations repeats (default 1000)
      --help            show this help
    """

  /// What went wrong parsing the command line.
  struct Failure: Error {
    let message: String
  }

  /// Parses `arguments` (without the program name). Returns nil for `--help`.
  static func parse(_ arguments: [String]) throws(Failure) -> Options? {
    var options = Options()
    var rest = arguments[...]
    while let argument = rest.popFirst() {
      var name = argument
      var inlineValue: String?
      if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
        name = String(argument[..<equals])
        inlineValue = String(argument[argument.index(after: equals)...])
      }
      func value() throws(Failure) -> String {
        if let inlineValue { return inlineValue }
        guard let next = rest.popFirst() else {
          throw Failure(message: "missing value for \(name)")
        }
        return next
      }
      switch name {
      case "--json" where inlineValue == nil: options.json = true
      case "--quick" where inlineValue == nil: options.quick = true
      case "--help" where inlineValue == nil, "-h" where inlineValue == nil: return nil
      case "--repetitions":
        let text = try value()
        guard let count = Int(text), count >= 1, count <= 1000 else {
          throw Failure(message: "invalid value '\(text)' for --repetitions (expected 1...1000)")
        }
        options.repetitions = count
      case "--count-allocations":
        let text = try value()
        guard let operation = AllocationCount.Operation(rawValue: text) else {
          throw Failure(
            message: "invalid value '\(text)' for --count-allocations (expected "
              + "\(AllocationCount.Operation.allCases.map(\.rawValue).joined(separator: ",")))")
        }
        options.countAllocations = operation
      case "--operations":
        let text = try value()
        guard let count = Int(text), count >= 1 else {
          throw Failure(message: "invalid value '\(text)' for --operations (expected 1 or more)")
        }
        options.operations = count
      case "--only":
        let text = try value()
        let names = text.split(separator: ",").map(String.init)
        guard !names.isEmpty else { throw Failure(message: "invalid value '' for --only") }
        for group in names where !groups.contains(group) {
          throw Failure(
            message:
              "invalid value '\(group)' for --only (expected \(groups.joined(separator: ",")))")
        }
        options.only = Set(names)
      case "--implementations":
        let text = try value()
        let names = text.split(separator: ",").map(String.init)
        guard !names.isEmpty else {
          throw Failure(message: "invalid value '' for --implementations")
        }
        for name in names where !implementationNames.contains(name) {
          throw Failure(
            message: "invalid value '\(name)' for --implementations (expected "
              + "\(implementationNames.joined(separator: ",")))")
        }
        options.implementations = Set(names)
      default:
        throw Failure(message: "unknown option '\(argument)'")
      }
    }
    return options
  }

  /// Whether scenario group `group` runs.
  func runs(_ group: String) -> Bool { only?.contains(group) ?? true }
}

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// `swift run -c release autocancel-bench [--json] [--quick] [--help] ...`

func printError(_ text: String) {
  let line = text + "\n"
  line.withCString { _ = write(2, $0, strlen($0)) }
}

let options: Options
do {
  guard let parsed = try Options.parse(Array(CommandLine.arguments.dropFirst())) else {
    print(Options.usage)
    exit(0)
  }
  options = parsed
} catch {
  printError("autocancel-bench: \(error.message)")
  printError(Options.usage)
  exit(2)
}

if let operation = options.countAllocations {
  guard let name = options.implementations?.first, options.implementations?.count == 1,
    AllocationCount.run(operation, implementation: name, count: options.operations)
  else {
    printError(
      "autocancel-bench: --count-allocations \(operation.rawValue) needs one implementation "
        + "that has it (--implementations NAME)")
    exit(2)
  }
  exit(0)
}

let plan = RunPlan(options: options)
let suite = Suite(
  plan: plan, implementations: options.implementations,
  log: { options.json ? () : printError("running \($0)") })
var reports: [ScenarioReport] = []
for scenario in allScenarios where options.runs(scenario.id) {
  reports += await scenario.run(in: suite)
}

if options.json {
  print(Report.json(reports))
} else {
  print(Report.table(reports, plan: plan))
}

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// `swift run -c release autocancel-bench [--json] [--quick] [--help]`.

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

let plan = RunPlan(options: options)
let suite = Suite(
  plan: plan, implementations: options.implementations,
  log: { options.json ? () : printError("running \($0)") })
var reports: [ScenarioReport] = []
if options.runs("S1") { reports.append(suite.s1()) }
if options.runs("S1b") { reports.append(suite.s1b()) }
if options.runs("S2") { reports += suite.s2() }
if options.runs("S3") { reports += suite.s3() }
if options.runs("S4") { reports.append(suite.s4()) }
if options.runs("S5") { reports.append(suite.s5()) }
if options.runs("S6") { reports.append(await suite.s6()) }
if options.runs("S7") { reports.append(await suite.s7()) }

if options.json {
  print(Report.json(reports))
} else {
  print(Report.table(reports, plan: plan))
}

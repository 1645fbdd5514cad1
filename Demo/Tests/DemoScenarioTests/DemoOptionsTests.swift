import DemoScenario
import Testing

@Suite("The demo's options")
struct DemoOptionsTests {
  @Test("are the defaults when no argument is given")
  func noArgumentsGiveTheDefaults() throws {
    let options = try DemoOptions(arguments: [])
    #expect(options == DemoOptions())
  }

  @Test("take a flag's value as the next argument or after an equals sign")
  func flagsTakeValuesSeparatelyOrAfterAnEqualsSign() throws {
    let options = try DemoOptions(
      arguments: ["--screens", "8", "--requests-per-screen=3", "--seed", "99", "--json"])
    #expect(options.screens == 8)
    #expect(options.requestsPerScreen == 3)
    #expect(options.seed == 99)
    #expect(options.json)
    let help = try DemoOptions(arguments: ["-h"])
    #expect(help.help)
  }

  @Test("shrink the scenario with --quick unless sizes are given")
  func quickShrinksTheScenarioUnlessSizesAreGiven() throws {
    let quick = try DemoOptions(arguments: ["--quick"])
    #expect(quick.screens == DemoOptions.quickScreens)
    #expect(quick.requestsPerScreen == DemoOptions.quickRequestsPerScreen)
    let sized = try DemoOptions(arguments: ["--screens=3", "--quick"])
    #expect(sized.screens == 3)
    #expect(sized.requestsPerScreen == DemoOptions.quickRequestsPerScreen)
  }

  @Test(
    "name a bad argument's flag in the error",
    arguments: [
      (["--screens", "0"], "--screens"),
      (["--screens", "ten"], "--screens"),
      (["--requests-per-screen"], "--requests-per-screen"),
      (["--seed=-1"], "--seed"),
      (["--json=yes"], "--json"),
      (["--fast"], "--fast"),
    ])
  func aBadArgumentIsNamedInTheError(arguments: [String], named flag: String) {
    #expect {
      _ = try DemoOptions(arguments: arguments)
    } throws: { error in
      (error as? DemoOptionsError)?.message.contains(flag) == true
    }
  }
}

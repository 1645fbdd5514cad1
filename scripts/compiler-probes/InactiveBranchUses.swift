// What the compiler does with a local whose only mutation, or only use, sits in an `#if`
// branch that is off: it warns about neither. It looks into inactive branches for the name
// and takes it as read and written there (swiftlang/swift, test/decl/var/usage.swift,
// `testBuildConfigs`, a test of every release since Swift 2). So a `var` that only Linux
// mutates builds clean on Apple platforms with warnings as errors; the availability check
// flags that shape in the package's own code all the same, because a compiler that starts to
// warn would fail an Apple build that no Linux run shows, and one `let` per platform says each
// platform's value once.
//
// CI type-checks this file with warnings as errors on every compiler it runs (6.3.1 in
// `.ci/run`, 6.0 and 6.2 in the workflow's oldest-compilers job), where the branch below is
// off: a compiler that starts to warn here fails CI before it fails an Apple build.

func countedOnDarwinOnly(_ counted: Int64) -> Int64 {
  let doubled = counted * 2  // used only on Darwin
  var result = counted  // mutated only on Darwin
  #if canImport(Darwin)
    result = doubled
  #endif
  return result
}

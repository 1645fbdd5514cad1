import Testing

/// A test's argument that its raw value names in the test's report.
///
/// ```swift
/// enum Order: String, TestArgument {
///   case bindThenResume, resumeThenBind
/// }
/// ```
protocol TestArgument: RawRepresentable<String>, CaseIterable, CustomTestStringConvertible,
  Sendable
{}

extension TestArgument {
  var testDescription: String { rawValue }
}

#!/usr/bin/env python3
"""Check that Swift sources use nothing newer than the package's Apple floors.

Usage: scripts/check-availability.py [PATH ...]      (default: Sources Tests)
       scripts/check-availability.py --self-test    (runs the check on a built-in sample)

The package declares iOS 15, macOS 12, tvOS 15 and watchOS 8 (and, by SwiftPM's default,
visionOS 1) for every target, and `swift-tools-version:6.0`, so that every Xcode 16 user can
build it. CI runs on Linux, where the compiler enforces neither: availability is only checked
when compiling for an Apple platform, and the Linux toolchain is newer than 6.0. This script
is the check that can run here. It lists Swift and Foundation APIs introduced after the
floors and reports every use that no availability condition covers:

- `@available(...)` on the enclosing declaration, extension or type (any nesting depth);
- `if #available(...) { ... }` around the use, or `guard #available(...) else { ... }`
  earlier in the same block.

An annotation covers a use only if it raises every Apple platform to the API's version, or
marks the platform unavailable: `@available(macOS 13, *)` does not cover `Duration` on iOS.
It also reports what needs a newer compiler than tools version 6.0: `weak let`, `@concurrent`,
`nonisolated(nonsending)`, `isolated deinit`, raw identifiers, `Span`/`RawSpan` (Swift 6.2);
trailing commas before the `)` of an argument, parameter or tuple list, on its line or with
the `)` on a later one, `nonisolated` on a type or an extension, and `withTaskGroup` /
`withThrowingTaskGroup` without `of:` (Swift 6.1); the standard library's Swift 6.2 APIs
(`Task.immediate`, `Task(name:)`, ...), which older compilers do not declare at all; and, in
files that import Testing, Swift Testing's APIs newer than 6.0, each with the version its
documentation gives it (`@Available(Swift, introduced: X)`): exit tests (6.2) and their
capture lists (6.3), the error that `#expect(throws:)` returns, ranged confirmations and test
scoping traits (6.1), attachments, issue handling traits and `ConditionTrait.evaluate()`
(6.2), issue severities, `Test.cancel` and `SourceLocation.filePath` (6.3). Only
`#if compiler(>=X)` (or `swift(>=X)`) around the use covers those, not `@available`; and
they are checked in every branch, Linux-only ones too, since the Swift 6.0 and 6.2 builds on
Linux compile those.

`#if` conditions are read as Swift reads them: `!`, `&&` (binding tighter), `||` and
parentheses over `os(...)`, `canImport(...)` and `compiler(>=X)`/`swift(>=X)`. A branch is
skipped for the availability checks when its condition is false on every Apple platform;
it guarantees a compiler version when its condition (with the negations of the branches
before it) implies one: `compiler(>=6.3) && (os(Linux) || os(macOS))` guarantees 6.3,
`compiler(>=6.2) || os(Linux)` nothing.

And three pitfalls that only a build for another platform would show:
- A local `var` whose every mutation sits in `#if` branches that are off on some platform
  where the declaration is compiled (a Linux-only `received += n`, say): on that platform it
  is a constant spelled as a variable. Today's compilers take a name in an inactive branch as
  used and do not warn (the compiler probe in `scripts/compiler-probes/` shows it on every
  compiler CI runs), so nothing else would tell; write one `let` per platform instead, which
  says each platform's value once.
- `#if canImport(UIKit)` (or its negation) without an `os(...)` test, in a file that uses
  UIKit's views, view controllers, windows or application object: watchOS has UIKit but none
  of these. Write `canImport(UIKit) && !os(watchOS)` (or `!canImport(UIKit) || os(watchOS)`).
- In test targets, a `for` loop of a thousand passes or more (the count read from integer
  literals or `let count = 10_000` earlier in the file; nested loops multiply) that makes
  Objective-C objects (`BlockOperation`, `Operation()`, URLSession's `dataTask(...)` and other
  task factories, or a function of the same file that returns a task or an operation) outside
  the test kit's `withAutoreleasePool { ... }` inside the loop: on Apple platforms what each
  pass autoreleases would stay alive until the test returns.

A line that is a false positive can say so with a trailing `// availability-ok: <reason>`.
Exit status: 0 when nothing is found, 1 with findings (file:line: API, needed versions), 2
on a usage error.

What it cannot see (it reads text, it does not type-check):
- APIs that are not in its list below (the list covers the standard library, Concurrency,
  Synchronization, Observation, regexes, Swift Testing's time limits and the common
  Foundation additions of macOS 13+, not SwiftUI, UIKit or the rest of the SDKs).
- Uses that do not spell the API's name: inferred types (`let d = clock.now - start` where
  `clock` came from elsewhere), members reached through a typealias, a generic parameter or
  a protocol, and implicit-member literals that it cannot tell apart from older ones
  (`.seconds(1)` is taken as a `Duration` unless the line speaks of Dispatch).
- The project's own declarations marked `@available` (such as a test clock): using them from
  unannotated code is not reported, only their uses of the listed APIs are.
- `String.contains`/`split(separator:)` with a string argument need macOS 13 only when the
  module does not see Foundation; the check looks for `import Foundation` in the target's
  directory, and only recognises string-literal arguments.
- Overload resolution: a name that is also the name of an older API of another type, or of
  a type of the project's own, is reported all the same (use `availability-ok`).
- `#if` conditions it cannot decide (custom flags, `arch(...)`, `targetEnvironment(...)`,
  modules not in its table) are taken as possibly true.
- Uses inside string interpolations are checked; uses inside macros' string arguments and
  in DocC articles or doc comments are not (samples in articles are not compiled here).
- Trailing commas before `>` (generic parameter lists) or `{` (condition lists): `, {` is also
  how a closure argument follows another argument.
- Loops it cannot count (`while`, `forEach`, a count passed in or computed), and Objective-C
  objects made by functions of other files or returned under another type.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field

PLATFORMS = ("macOS", "iOS", "tvOS", "watchOS", "visionOS")
# The deployment floors of Package.swift; visionOS is SwiftPM's default for an undeclared platform.
FLOOR = {"macOS": (12, 0), "iOS": (15, 0), "tvOS": (15, 0), "watchOS": (8, 0), "visionOS": (1, 0)}

SWIFT_5_7 = {"macOS": (13, 0), "iOS": (16, 0), "tvOS": (16, 0), "watchOS": (9, 0), "visionOS": (1, 0)}
SWIFT_5_9 = {"macOS": (14, 0), "iOS": (17, 0), "tvOS": (17, 0), "watchOS": (10, 0), "visionOS": (1, 0)}
SWIFT_6_0 = {"macOS": (15, 0), "iOS": (18, 0), "tvOS": (18, 0), "watchOS": (11, 0), "visionOS": (2, 0)}
SWIFT_6_2 = {p: (26, 0) for p in PLATFORMS}
FOUNDATION_13 = SWIFT_5_7

# (name shown in reports, regular expression over code with comments and strings blanked, versions)
APIS: list[tuple[str, re.Pattern[str], dict[str, tuple[int, int]]]] = [
    (name, re.compile(pattern), versions)
    for name, pattern, versions in [
        # Synchronization (Swift 6.0 runtime).
        ("import Synchronization", r"\bimport\s+Synchronization\b", SWIFT_6_0),
        ("Mutex", r"\bMutex\b", SWIFT_6_0),
        ("Atomic", r"\b(Atomic|AtomicLazyReference|WordPair)\b", SWIFT_6_0),
        ("Int128/UInt128", r"\bU?Int128\b", SWIFT_6_0),
        ("task executors", r"\b(TaskExecutor|withTaskExecutorPreference|globalConcurrentExecutor)\b|\bexecutorPreference:", SWIFT_6_0),
        ("next(isolation:)", r"\.next\(\s*isolation:", SWIFT_6_0),
        # Clocks and durations (Swift 5.7 runtime).
        ("Duration", r"\bDuration\b", SWIFT_5_7),
        ("ContinuousClock", r"\bContinuousClock\b", SWIFT_5_7),
        ("SuspendingClock", r"\bSuspendingClock\b", SWIFT_5_7),
        ("Clock", r"\b(Clock|InstantProtocol|DurationProtocol)\b", SWIFT_5_7),
        ("clock: .continuous/.suspending", r"\bclock:\s*\.(continuous|suspending)\b", SWIFT_5_7),
        ("Task.sleep(for:)", r"\bsleep\(\s*for:", SWIFT_5_7),
        ("Task.sleep(until:)", r"\bsleep\(\s*until:", SWIFT_5_7),
        # `.seconds(1)` as an implicit member; Dispatch's lines are filtered out below.
        ("Duration literal", r"(?<![\w\)\]\.?!])\.(seconds|milliseconds|microseconds|nanoseconds|attoseconds)\(", SWIFT_5_7),
        ("Duration.formatted", r"\.formatted\(\s*\.(units|time)\(", SWIFT_5_7),
        ("OSAllocatedUnfairLock", r"\bOSAllocatedUnfairLock\b", SWIFT_5_7),
        # Swift Testing's time limits are built on `Duration`.
        ("Testing .timeLimit", r"\.timeLimit\(|\bTimeLimitTrait\b", SWIFT_5_7),
        # Regexes (Swift 5.7 runtime).
        ("import RegexBuilder", r"\bimport\s+RegexBuilder\b", SWIFT_5_7),
        ("Regex", r"\b(Regex|RegexComponent)\b", SWIFT_5_7),
        ("regex algorithms", r"\.(firstMatch|wholeMatch|prefixMatch|matches|firstRange|ranges)\(\s*of:|\.(trimmingPrefix|replacing)\(", SWIFT_5_7),
        ("regex literal", r"#/|(?:^|[=(,:\[]|\breturn)\s*/(?![\s/*=])(?:[^/\n\\]|\\.)+/(?![\w/*])", SWIFT_5_7),
        # Foundation additions of macOS 13 / iOS 16.
        ("URL(filePath:)", r"\bURL\(\s*filePath:", FOUNDATION_13),
        ("URL.appending(path:/component:)", r"\.appending\(\s*(path|component|components|queryItems):", FOUNDATION_13),
        ("URL directories", r"\bURL\.(temporaryDirectory|homeDirectory|documentsDirectory|cachesDirectory|applicationSupportDirectory)\b", FOUNDATION_13),
        ("URL.path(percentEncoded:)", r"\.path\(\s*percentEncoded:", FOUNDATION_13),
        # Observation and structured concurrency of Swift 5.9 (iOS 17 / macOS 14).
        ("@Observable", r"@(Observable|ObservationTracked|ObservationIgnored)\b", SWIFT_5_9),
        ("import Observation", r"\bimport\s+Observation\b", SWIFT_5_9),
        ("Observation", r"\b(withObservationTracking|ObservationRegistrar|Observable)\b", SWIFT_5_9),
        ("@Bindable", r"@Bindable\b", SWIFT_5_9),
        ("discarding task groups", r"\b(withDiscardingTaskGroup|withThrowingDiscardingTaskGroup|(Throwing)?DiscardingTaskGroup)\b", SWIFT_5_9),
        ("ExecutorJob", r"\bExecutorJob\b", SWIFT_5_9),
        # Swift 6.2 runtime (iOS 26 / macOS 26).
        ("Task.immediate", r"\b(Task|TaskGroup)\.immediate\b|\.addImmediateTask\w*\(|\bstartSynchronously\b", SWIFT_6_2),
        ("Task(name:)", r"\bTask(<[^>]*>)?\(\s*name:|\bTask\.name\b", SWIFT_6_2),
        ("Observations", r"\bObservations\b", SWIFT_6_2),
        ("InlineArray/UTF8Span", r"\b(InlineArray|UTF8Span|MutableSpan|MutableRawSpan|OutputSpan)\b", SWIFT_6_2),
    ]
]

# Syntax and types that the Swift 6.0 compiler (tools version 6.0, Xcode 16) rejects, with the
# compiler version that accepts them: (name shown in reports, pattern over one line, version).
# Only `#if compiler(>=X)` (or `swift(>=X)`) around the use covers them.
SWIFT_6_1_COMPILER = (6, 1)
SWIFT_6_2_COMPILER = (6, 2)
SYNTAX: list[tuple[str, re.Pattern[str], tuple[int, int]]] = [
    ("weak let (Swift 6.2)", re.compile(r"\bweak\s+let\b"), SWIFT_6_2_COMPILER),
    ("@concurrent (Swift 6.2)", re.compile(r"@concurrent\b"), SWIFT_6_2_COMPILER),
    ("nonisolated(nonsending) (Swift 6.2)", re.compile(r"\bnonisolated\s*\(\s*nonsending\s*\)"), SWIFT_6_2_COMPILER),
    ("isolated deinit (Swift 6.2)", re.compile(r"\bisolated\s+deinit\b"), SWIFT_6_2_COMPILER),
    ("raw identifier (Swift 6.2)", re.compile(r"`[^`\n]*[^\w`][^`\n]*`"), SWIFT_6_2_COMPILER),
    # The standard library back-deploys them to every floor; only the compiler is too old.
    ("Span/RawSpan (Swift 6.2)", re.compile(r"\b(Span|RawSpan)\b|\.span\b"), SWIFT_6_2_COMPILER),
    # SE-0449: `nonisolated` on a type or an extension; `nonisolated class func` is a member.
    (
        "nonisolated type or extension (Swift 6.1)",
        re.compile(
            r"\bnonisolated\s+((public|package|internal|fileprivate|private|open|final|indirect)\s+)*"
            r"(struct|enum|actor|protocol|extension|class\s+(?!(func|var|let|subscript|init)\b))\b"
        ),
        SWIFT_6_1_COMPILER,
    ),
]

# The same, over the whole text, for what spans lines: (name, pattern, version). A match is
# reported on the line where it starts.
MULTILINE_SYNTAX: list[tuple[str, re.Pattern[str], tuple[int, int]]] = [
    # SE-0439: a comma before the `)` of an argument, parameter or tuple list, on the same line
    # or with the `)` on a later one. (Array and dictionary literals always allowed it.)
    ("trailing comma in a list (Swift 6.1)", re.compile(r",(?=\s*\))"), SWIFT_6_1_COMPILER),
    # SE-0442: the child result type inferred; Swift 6.0 needs `of:` as the first argument.
    (
        "withTaskGroup without of: (Swift 6.1)",
        re.compile(r"\bwith(Throwing)?TaskGroup\s*(\{|\((?!\s*of\s*:))"),
        SWIFT_6_1_COMPILER,
    ),
]

# The standard library's Swift 6.2 APIs are declared only by its 6.2 interface: `#available`
# does not make them compile with an older compiler, `#if compiler(>=6.2)` must be around too.
SYNTAX += [
    (f"{name} (Swift 6.2 standard library)", pattern, SWIFT_6_2_COMPILER)
    for name, pattern, versions in APIS
    if versions is SWIFT_6_2
]

# Swift Testing's APIs newer than the Swift 6.0 that tools version 6.0 may bring, with the
# version its documentation gives each (`@Available(Swift, introduced: X)`), in files that
# import Testing.
SWIFT_6_3_COMPILER = (6, 3)
TESTING_SYNTAX: list[tuple[str, re.Pattern[str], tuple[int, int]]] = [
    ("exit test (Swift Testing 6.2)", re.compile(r"\b(ExitTest|ExitStatus)\b"), SWIFT_6_2_COMPILER),
    ("the error #expect(throws:) returns (Swift Testing 6.1)", re.compile(r"\b(let|var)\s+\w+\s*(:[^=]*)?=\s*((try|await)\s+)*#(expect|require)\(\s*throws:"), SWIFT_6_1_COMPILER),
    ("ranged confirmation (Swift Testing 6.1)", re.compile(r"\bexpectedCount:\s*[^,)]*(\.\.\.|\.\.<)"), SWIFT_6_1_COMPILER),
    ("test scoping traits (Swift Testing 6.1)", re.compile(r"\bTestScoping\b|\b(provideScope|scopeProvider)\(\s*for:"), SWIFT_6_1_COMPILER),
    ("attachments (Swift Testing 6.2)", re.compile(r"\b(Attachment|Attachable|AttachableWrapper)\b"), SWIFT_6_2_COMPILER),
    ("issue handling traits (Swift Testing 6.2)", re.compile(r"\bIssueHandlingTrait\b|\.(compactMapIssues|filterIssues)\("), SWIFT_6_2_COMPILER),
    ("ConditionTrait.evaluate() (Swift Testing 6.2)", re.compile(r"\.evaluate\(\s*\)"), SWIFT_6_2_COMPILER),
    ("issue severity (Swift Testing 6.3)", re.compile(r"\bIssue\.Severity\b|\bseverity:\s*\.(warning|error)\b"), SWIFT_6_3_COMPILER),
    ("Test.cancel (Swift Testing 6.3)", re.compile(r"\bTest(\.Case)?\.cancel\("), SWIFT_6_3_COMPILER),
    ("SourceLocation.filePath (Swift Testing 6.3)", re.compile(r"(?<!#)\b(sourceLocation|location)\.filePath\b"), SWIFT_6_3_COMPILER),
]
TESTING_MULTILINE_SYNTAX: list[tuple[str, re.Pattern[str], tuple[int, int]]] = [
    ("exit test (Swift Testing 6.2)", re.compile(r"#(expect|require)\(\s*(processExitsWith|exitsWith):"), SWIFT_6_2_COMPILER),
    # ST-0012: an exit test's closure that opens with a capture list.
    (
        "exit test capture list (Swift Testing 6.3)",
        re.compile(r"#(expect|require)\(\s*(processExitsWith|exitsWith):[^{}]*\)\s*\{\s*\["),
        SWIFT_6_3_COMPILER,
    ),
]

# watchOS's UIKit has no views, view controllers, windows or application object: a file that
# uses them must not take `canImport(UIKit)` to mean they exist.
UIKIT_VIEW_TYPES = re.compile(r"\bUI(Application|Responder|Scene|Window|View)\w*\b")
CAN_IMPORT_UIKIT = re.compile(r"\bcanImport\(\s*UIKit\s*\)")
NAMES_UIKIT_PLATFORM = re.compile(r"\bos\(\s*(watchOS|iOS|tvOS|visionOS)\s*\)")
UIKIT_RULE = "canImport(UIKit) without os(watchOS)"

# Objective-C objects made by the thousand in a test loop must be made inside the test kit's
# `withAutoreleasePool`, inside the loop, so that Apple platforms free them pass by pass.
OBJC_OBJECT_MAKERS = re.compile(
    r"\bBlockOperation\s*[({]|\bOperation\s*\(|\.(dataTask|downloadTask|uploadTask|streamTask|webSocketTask)\s*\("
)
AUTORELEASE_HELPER = "withAutoreleasePool"
AUTORELEASE_RULE = "Objective-C objects made in a loop without withAutoreleasePool"
LOOP_OF_THOUSANDS = 1_000

DISPATCH_LINE = re.compile(r"Dispatch|\.now\(\)|\bdeadline:|\bwallDeadline:|\brepeating:|\bleeway:")
STRING_ARGUMENT = re.compile(r"\.(contains|split)\(\s*(separator:\s*)?$")
ONE_CHARACTER = re.compile(r"[^\\]|\\[^u(]|\\u\{[0-9a-fA-F]+\}")
AVAILABILITY_OK = re.compile(r"//\s*availability-ok:\s*\S")


@dataclass
class Finding:
    path: str
    line: int
    api: str
    needs: str
    text: str


@dataclass
class Scope:
    cover: dict[str, object]  # platform -> (major, minor) or "unavailable"
    guard_pending: bool = False  # the block is a `guard #available ... else`
    guard_cover: dict[str, object] = field(default_factory=dict)


def version(text: str) -> tuple[int, int]:
    parts = [int(p) for p in text.split(".")[:2]]
    return (parts[0], parts[1] if len(parts) > 1 else 0)


def parse_availability(arguments: str) -> dict[str, object]:
    """Platform versions raised (or made unavailable) by one `@available`/`#available` list."""
    cover: dict[str, object] = {}
    parts = [p.strip() for p in arguments.split(",")]
    if parts and parts[0] == "*" and any(p == "unavailable" for p in parts[1:]):
        return {p: "unavailable" for p in PLATFORMS}
    long_form = len(parts) > 1 and re.fullmatch(r"[A-Za-z]+", parts[0] or "") and parts[0] in PLATFORMS
    if long_form:
        for p in parts[1:]:
            if p == "unavailable":
                cover[parts[0]] = "unavailable"
            m = re.fullmatch(r"introduced:\s*([\d.]+)", p)
            if m:
                cover[parts[0]] = version(m.group(1))
        return cover
    for p in parts:
        m = re.fullmatch(r"([A-Za-z]+)\s+([\d.]+)", p)
        if m and m.group(1) in PLATFORMS:
            cover[m.group(1)] = version(m.group(2))
    return cover


def merge(outer: dict[str, object], inner: dict[str, object]) -> dict[str, object]:
    result = dict(outer)
    for platform, value in inner.items():
        old = result.get(platform)
        if old == "unavailable" or value == "unavailable":
            result[platform] = "unavailable"
        elif old is None or value > old:  # type: ignore[operator]
            result[platform] = value
    return result


def covers(cover: dict[str, object], needs: dict[str, tuple[int, int]]) -> bool:
    for platform in PLATFORMS:
        if needs[platform] <= FLOOR[platform]:
            continue
        have = cover.get(platform, FLOOR[platform])
        if have != "unavailable" and have < needs[platform]:  # type: ignore[operator]
            return False
    return True


def describe(needs: dict[str, tuple[int, int]]) -> str:
    return ", ".join(f"{p} {v[0]}" for p, v in needs.items() if v > FLOOR[p])


def blank(source: str) -> tuple[str, list[tuple[int, int, str]]]:
    """Source with comments and string literal contents replaced by spaces (newlines kept).

    Returns the blanked text and the string literals as (start, end, content) so that
    callers can look at literal arguments. Interpolations stay code.
    """
    out = list(source)
    strings: list[tuple[int, int, str]] = []
    i, n = 0, len(source)
    # Stack of contexts: ("code", paren depth) inside interpolations, ("string", hashes, multiline).
    stack: list[tuple] = [("code", 0)]

    def wipe(a: int, b: int) -> None:
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    string_start = 0
    while i < n:
        top = stack[-1]
        c = source[i]
        if top[0] == "code":
            if source.startswith("//", i):
                j = source.find("\n", i)
                j = n if j < 0 else j
                wipe(i, j)
                i = j
            elif source.startswith("/*", i):
                depth, j = 1, i + 2
                while j < n and depth:
                    if source.startswith("/*", j):
                        depth, j = depth + 1, j + 2
                    elif source.startswith("*/", j):
                        depth, j = depth - 1, j + 2
                    else:
                        j += 1
                wipe(i, j)
                i = j
            elif c == "#" or c == '"':
                m = re.compile(r'(#*)("""|")').match(source, i)
                if m and (c == '"' or m.group(1)):
                    hashes, quote = len(m.group(1)), m.group(2)
                    stack.append(("string", hashes, quote == '"""', m.end()))
                    string_start = m.end()
                    i = m.end()
                else:
                    i += 1
            elif c == "(":
                stack[-1] = ("code", top[1] + 1)
                i += 1
            elif c == ")":
                if top[1] == 0 and len(stack) > 1:
                    stack.pop()  # end of an interpolation
                    out[i] = " "
                    i += 1
                    continue
                stack[-1] = ("code", top[1] - 1)
                i += 1
            else:
                i += 1
        else:
            _, hashes, multiline, start = top
            terminator = ('"""' if multiline else '"') + "#" * hashes
            if source.startswith(terminator, i):
                strings.append((start, i, source[start:i]))
                stack.pop()
                i += len(terminator)
            elif source.startswith("\\" + "#" * hashes + "(", i):
                wipe(i, i + hashes + 2)
                i += hashes + 2
                stack.append(("code", 0))
            elif c == "\\" and hashes == 0:
                wipe(i, i + 2)
                i += 2
            elif c == "\n" and not multiline:
                stack.pop()  # unterminated; keep going
                i += 1
            else:
                if c != "\n":
                    out[i] = " "
                i += 1
    return "".join(out), strings


IF_DIRECTIVE = re.compile(r"^\s*#(if|elseif|else|endif)\b(.*)$")

# The platforms a `#if` condition is evaluated for: the Apple ones of the floors, and Linux.
APPLE = PLATFORMS
LINUX = "Linux"
# `canImport(M)` per platform: True or False where it is known, absent (unknown) otherwise.
CAN_IMPORT: dict[str, dict[str, bool]] = {
    **{m: {**{p: True for p in APPLE}, LINUX: False} for m in ("Darwin", "ObjectiveC", "os", "Combine", "SwiftUI")},
    **{m: {**{p: True for p in APPLE}, LINUX: True} for m in ("Foundation", "Dispatch", "XCTest", "Testing")},
    "UIKit": {"macOS": False, "iOS": True, "tvOS": True, "watchOS": True, "visionOS": True, LINUX: False},
    "AppKit": {"macOS": True, "iOS": False, "tvOS": False, "watchOS": False, "visionOS": False, LINUX: False},
    "WatchKit": {"macOS": False, "iOS": False, "tvOS": False, "watchOS": True, "visionOS": False, LINUX: False},
    **{m: {**{p: False for p in APPLE}, LINUX: True} for m in ("FoundationNetworking", "Glibc")},
    "WinSDK": {**{p: False for p in APPLE}, LINUX: False},
}
CONDITION_TOKEN = re.compile(r"\s*(&&|\|\||!|\(|\)|[A-Za-z_]\w*\s*\([^()]*\)|[A-Za-z_]\w*)")


def parse_condition(text: str) -> tuple:
    """A `#if` condition as a tree: ("and"|"or", a, b), ("not", a) or ("atom", text).

    `&&` binds tighter than `||`, as in Swift; text it cannot read becomes one unknown atom."""
    tokens: list[str] = []
    rest = text.strip()
    while rest:
        m = CONDITION_TOKEN.match(rest)
        if not m:
            return ("atom", text.strip())
        tokens.append(re.sub(r"\s+", "", m.group(1)))
        rest = rest[m.end() :].strip()
    position = 0

    def peek() -> str | None:
        return tokens[position] if position < len(tokens) else None

    def take() -> str:
        nonlocal position
        position += 1
        return tokens[position - 1]

    def disjunction() -> tuple:
        node = conjunction()
        while peek() == "||":
            take()
            node = ("or", node, conjunction())
        return node

    def conjunction() -> tuple:
        node = unary()
        while peek() == "&&":
            take()
            node = ("and", node, unary())
        return node

    def unary() -> tuple:
        token = peek()
        if token == "!":
            take()
            return ("not", unary())
        if token == "(":
            take()
            node = disjunction()
            if peek() == ")":
                take()
            return node
        if token is None:
            return ("atom", "")
        return ("atom", take())

    tree = disjunction()
    return tree if position == len(tokens) else ("atom", text.strip())


def evaluate(tree: tuple, platform: str) -> bool | None:
    """Whether a condition holds on `platform`: True, False, or None when it depends on
    something else (the compiler, the architecture, a custom flag)."""
    kind = tree[0]
    if kind == "not":
        value = evaluate(tree[1], platform)
        return None if value is None else not value
    if kind in ("and", "or"):
        a, b = evaluate(tree[1], platform), evaluate(tree[2], platform)
        if kind == "and":
            return False if a is False or b is False else (True if a and b else None)
        return True if a is True or b is True else (False if a is False and b is False else None)
    atom = tree[1]
    if atom in ("true", "false"):
        return atom == "true"
    m = re.fullmatch(r"os\((\w+)\)", atom)
    if m:
        return m.group(1) == platform
    m = re.fullmatch(r"canImport\((\w+)[^)]*\)", atom)
    if m:
        return CAN_IMPORT.get(m.group(1), {}).get(platform)
    if atom == "_runtime(_ObjC)":
        return platform != LINUX
    return None


def guaranteed_compiler(tree: tuple, holds: bool = True) -> tuple[int, int]:
    """The compiler version that a condition guarantees when it holds (or, with
    `holds=False`, when it does not): `compiler(>=6.2) && os(Linux)` guarantees 6.2,
    `compiler(>=6.2) || os(Linux)` nothing, `!compiler(<6.3)` 6.3."""
    kind = tree[0]
    if kind == "not":
        return guaranteed_compiler(tree[1], not holds)
    if kind in ("and", "or"):
        a, b = guaranteed_compiler(tree[1], holds), guaranteed_compiler(tree[2], holds)
        # When it does not hold, `a && b` is `!a || !b` and `a || b` is `!a && !b`.
        return max(a, b) if (kind == "and") == holds else min(a, b)
    m = re.fullmatch(r"(compiler|swift)\((>=|<)(\d+)(?:\.(\d+))?[\d.]*\)", tree[1])
    if m and (m.group(2) == ">=") == holds:
        return (int(m.group(3)), int(m.group(4) or 0))
    return (0, 0)


def branch_conditions(lines: list[str]) -> list[list[tuple]]:
    """For each line, the conditions of the `#if` branches around it, one per nesting level:
    a branch's own condition and the negations of the branches before it. Directive lines
    themselves get a condition that is never true."""
    result: list[list[tuple]] = []
    stack: list[tuple[list[tuple], tuple]] = []  # (earlier branches' conditions, this branch's)
    never = ("atom", "false")
    for line in lines:
        m = IF_DIRECTIVE.match(line)
        if not m:
            result.append([branch for _, branch in stack])
            continue
        kind, condition = m.group(1), m.group(2).split("//")[0]
        if kind == "if":
            tree = parse_condition(condition)
            stack.append(([tree], tree))
        elif kind in ("elseif", "else") and stack:
            earlier, _ = stack[-1]
            tree = parse_condition(condition) if kind == "elseif" else ("atom", "true")
            branch = tree
            for previous in reversed(earlier):
                branch = ("and", ("not", previous), branch)
            stack[-1] = (earlier + [tree], branch)
        elif kind == "endif" and stack:
            stack.pop()
        result.append([never])
    return result


def active_on(conditions: list[tuple], platform: str) -> bool:
    """Whether a line may be compiled on `platform`: no enclosing branch is known to be off."""
    return all(evaluate(tree, platform) is not False for tree in conditions)


def compiler_floors(conditions: list[list[tuple]]) -> list[tuple[int, int]]:
    """For each line, the compiler version that its enclosing branches guarantee."""
    return [max((guaranteed_compiler(tree) for tree in line), default=(0, 0)) for line in conditions]


def header_start(code: str, brace: int) -> int:
    """Where the declaration or statement that a `{` (or a line) belongs to starts.

    Walks back from `brace` over the current line and the lines above that continue it:
    attribute lines, lines ending in an opener or a comma, and unbalanced parentheses.
    """
    line_start = code.rfind("\n", 0, brace) + 1
    start = line_start
    while start > 0:
        prev_end = start - 1
        prev_start = code.rfind("\n", 0, prev_end) + 1
        prev = code[prev_start:prev_end]
        stripped = prev.strip()
        segment = code[start:brace]
        opens = segment.count("(") - segment.count(")")
        current = code[start:code.find("\n", start) if code.find("\n", start) >= 0 else len(code)].strip()
        if not stripped:
            # Blank (or comment-only) line: part of the header only between attributes and the decl.
            above_start = code.rfind("\n", 0, max(prev_start - 1, 0)) + 1
            above = code[above_start:max(prev_start - 1, 0)].strip()
            if above.startswith("@") and prev_start > 0:
                start = prev_start
                continue
            break
        if re.search(r"[{};]\s*$", stripped):
            break
        if (
            stripped.startswith("@")
            or opens < 0
            or re.search(r"([,(\[<:&=]|->|\bwhere)\s*$", stripped)
            or re.match(r"(where|->|throws|async|rethrows|\)|\.|,|:|&)", current)
        ):
            start = prev_start
            continue
        break
    return start


AVAILABLE_ATTR = re.compile(r"@available\s*\(([^)]*)\)")
IF_AVAILABLE = re.compile(r"(?<![\w#])(if|while)\b[^{]*#available\s*\(([^)]*)\)")
GUARD_AVAILABLE = re.compile(r"\bguard\b[^{]*#available\s*\(([^)]*)\)[^{]*\belse\s*$")


def attribute_cover(header: str) -> dict[str, object]:
    cover: dict[str, object] = {}
    for m in AVAILABLE_ATTR.finditer(header):
        cover = merge(cover, parse_availability(m.group(1)))
    return cover


PLATFORM_VAR_RULE = "var mutated only in some platforms' branches"
LOCAL_VAR = re.compile(r"^\s*var\s+([A-Za-z_]\w*)\b", re.M)
TYPE_HEADER = re.compile(r"\b(struct|class|enum|extension|actor|protocol)\b")
MUTATING_METHODS = (
    "append|insert|remove\\w*|sort|reverse|shuffle|form\\w+|subtract|merge|update\\w*|pop\\w*"
    "|replace\\w*|swapAt|reserveCapacity|toggle|negate"
)


def mutation_pattern(name: str) -> re.Pattern[str]:
    """Where a local named `name` is changed: assigned (also through a member or a subscript,
    and by a compound operator), passed `inout`, or sent a mutating method of the standard
    library's collections."""
    target = rf"(?<![\w.]){re.escape(name)}(?:\s*(?:\.\w+|\[[^\]\n]*\]))*"
    return re.compile(
        rf"{target}\s*(?:[-+*/%&|^]|<<|>>|&[-+*])?=(?!=)"
        rf"|(?<![&\w])&{re.escape(name)}\b"
        rf"|{target}\.(?:{MUTATING_METHODS})\s*\("
    )


def platform_only_mutations(code: str, conditions: list[list[tuple]]) -> list[tuple[int, list[str]]]:
    """Local `var`s that some platform compiles but never mutates: for each, the line of the
    declaration and the platforms where every mutation is in a branch that is off."""
    closing: dict[int, int] = {}
    open_braces: list[int] = []
    for at, c in enumerate(code):
        if c == "{":
            open_braces.append(at)
        elif c == "}" and open_braces:
            closing[open_braces.pop()] = at
    found: list[tuple[int, list[str]]] = []
    for declaration in LOCAL_VAR.finditer(code):
        at = declaration.start(1)
        enclosing = [b for b, end in closing.items() if b < at < end]
        if not enclosing:
            continue
        brace = max(enclosing)
        header = re.split(r"[{}]", code[header_start(code, brace) : brace])[-1]
        if TYPE_HEADER.search(header) and not re.search(r"\bfunc\b", header):
            continue
        line = code.count("\n", 0, at)
        end_of_line = code.find("\n", at)
        body = code[end_of_line if end_of_line >= 0 else len(code) : closing[brace]]
        offset = end_of_line if end_of_line >= 0 else len(code)
        lines = {code.count("\n", 0, offset + m.start()) for m in mutation_pattern(declaration.group(1)).finditer(body)}
        if not lines:
            continue
        platforms = [
            p
            for p in (*APPLE, LINUX)
            if active_on(conditions[line], p) and not any(active_on(conditions[k], p) for k in lines)
        ]
        if platforms:
            found.append((line, platforms))
    return found


def check_file(path: str, module_has_foundation: bool) -> list[Finding]:
    with open(path, encoding="utf-8") as handle:
        source = handle.read()
    code, strings = blank(source)
    raw_lines = source.split("\n")
    lines = code.split("\n")
    conditions = branch_conditions(raw_lines)
    on_apple = [any(active_on(line, p) for p in APPLE) for line in conditions]
    compiler_floor = compiler_floors(conditions)
    line_offsets = [0]
    for line in lines[:-1]:
        line_offsets.append(line_offsets[-1] + len(line) + 1)

    # Coverage in effect at each column where it changes, per line, from the enclosing blocks.
    changes: list[list[tuple[int, dict[str, object]]]] = []
    scopes = [Scope(cover={})]
    pos = 0
    for index, line in enumerate(lines):
        changes.append([(0, dict(scopes[-1].cover))])
        if not on_apple[index]:
            pos += len(line) + 1
            continue
        for k, c in enumerate(line):
            at = pos + k
            if c == "{":
                start = header_start(code, at)
                header = code[start:at]
                # Only the part after the last brace on the header's lines belongs to this block.
                header = re.split(r"[{}]", header)[-1]
                cover = merge(scopes[-1].cover, attribute_cover(header))
                guard = GUARD_AVAILABLE.search(header)
                scope = Scope(cover=cover)
                if guard:
                    scope.guard_pending = True
                    scope.guard_cover = merge(scopes[-1].cover, parse_availability(guard.group(1)))
                else:
                    cond = IF_AVAILABLE.search(header)
                    if cond and not re.search(r"#unavailable", header):
                        scope.cover = merge(cover, parse_availability(cond.group(2)))
                scopes.append(scope)
                changes[index].append((k + 1, dict(scopes[-1].cover)))
            elif c == "}" and len(scopes) > 1:
                closed = scopes.pop()
                if closed.guard_pending:
                    scopes[-1].cover = merge(scopes[-1].cover, closed.guard_cover)
                changes[index].append((k, dict(scopes[-1].cover)))
        pos += len(line) + 1

    def cover_at(index: int, column: int) -> dict[str, object]:
        result = changes[index][0][1]
        for col, cover in changes[index]:
            if col <= column:
                result = cover
        return result

    findings: list[Finding] = []
    literal_at = {start: content for start, _, content in strings}
    uses_testing = bool(re.search(r"^\s*(@testable\s+)?import\s+Testing\b", code, re.M))
    syntax = SYNTAX + (TESTING_SYNTAX if uses_testing else [])
    multiline_syntax = MULTILINE_SYNTAX + (TESTING_MULTILINE_SYNTAX if uses_testing else [])
    for index, line in enumerate(lines):
        if AVAILABILITY_OK.search(raw_lines[index]) or not line.strip():
            continue
        text = raw_lines[index].strip()
        # Every branch: the Swift 6.0 and 6.2 builds on Linux compile the Linux-only ones too.
        for name, pattern, compiler in syntax:
            if pattern.search(line) and compiler_floor[index] < compiler:
                findings.append(Finding(path, index + 1, name, NEWER_COMPILER, text))
        if not on_apple[index]:
            continue
        hits: list[tuple[str, dict[str, tuple[int, int]], int]] = []
        for name, pattern, needs in APIS:
            match = pattern.search(line)
            if not match:
                continue
            if name == "Duration literal" and DISPATCH_LINE.search(line):
                continue
            hits.append((name, needs, match.start()))
        if not module_has_foundation:
            offset = line_offsets[index]
            for start, content in literal_at.items():
                if offset <= start < offset + len(line) + 1:
                    before = code[offset:start].rstrip('"# ')
                    if STRING_ARGUMENT.search(before) and not ONE_CHARACTER.fullmatch(content):
                        hits.append(("String.contains/split with a String (no Foundation in module)", SWIFT_5_7, start - offset))
        if not hits:
            continue
        # The line's own declaration may carry the annotation (`@available(...) var d: Duration`):
        # the attributes above the line, and the line up to its first brace.
        offset = line_offsets[index]
        first_brace = re.search(r"[{}]", line)
        end = offset + (first_brace.start() if first_brace else len(line))
        start = header_start(code, end)
        own = attribute_cover(re.split(r"[{}]", code[start:offset])[-1] + code[offset:end])
        for name, needs, column in hits:
            if not covers(merge(cover_at(index, column), own), needs):
                findings.append(Finding(path, index + 1, name, describe(needs), text))

    def reportable(index: int) -> bool:
        return on_apple[index] and not AVAILABILITY_OK.search(raw_lines[index])

    for name, pattern, compiler in multiline_syntax:
        for match in pattern.finditer(code):
            index = code.count("\n", 0, match.start())
            if not AVAILABILITY_OK.search(raw_lines[index]) and compiler_floor[index] < compiler:
                findings.append(Finding(path, index + 1, name, NEWER_COMPILER, raw_lines[index].strip()))

    for index, platforms in platform_only_mutations(code, conditions):
        if not AVAILABILITY_OK.search(raw_lines[index]):
            needs = f"a mutation compiled on {', '.join(platforms)}, or one let per platform"
            findings.append(Finding(path, index + 1, PLATFORM_VAR_RULE, needs, raw_lines[index].strip()))

    if UIKIT_VIEW_TYPES.search(code):
        for index, line in enumerate(raw_lines):
            m = IF_DIRECTIVE.match(line)
            if not m or m.group(1) not in ("if", "elseif") or AVAILABILITY_OK.search(line):
                continue
            condition = m.group(2).split("//")[0]
            if CAN_IMPORT_UIKIT.search(condition) and not NAMES_UIKIT_PLATFORM.search(condition):
                needs = "os(watchOS) in the condition: watchOS's UIKit has no views or view controllers"
                findings.append(Finding(path, index + 1, UIKIT_RULE, needs, line.strip()))

    if "Tests" in os.path.normpath(path).split(os.sep):
        for index in unpooled_objc_loops(code):
            if reportable(index):
                needs = f"{AUTORELEASE_HELPER} {{ ... }} around the pass on Apple platforms"
                findings.append(Finding(path, index + 1, AUTORELEASE_RULE, needs, raw_lines[index].strip()))
    return findings


NEWER_COMPILER = "a newer compiler than tools version 6.0"
FOR_HEADER = re.compile(r"^\s*(\w+\s*:\s*)?for\b.*?\bin\s+(.+?)(\s+where\b.*)?\s*$", re.S)
RANGE = re.compile(r"^\(?\s*([\w.]+)\s*(\.\.<|\.\.\.)\s*([\w.]+)\s*\)?$")
INTEGER = re.compile(r"^\d[\d_]*$")


def loop_count(sequence: str, code: str, before: int) -> int | None:
    """How many passes a `for` loop over `sequence` makes, when the text says: a range whose
    bounds are integer literals or names bound to one (`let count = 10_000`) earlier."""
    m = RANGE.match(sequence.strip())
    if not m:
        return None

    def value(operand: str) -> int | None:
        if INTEGER.match(operand):
            return int(operand.replace("_", ""))
        bindings = re.findall(
            rf"\b(?:let|var)\s+{re.escape(operand)}\s*(?::\s*Int\s*)?=\s*(\d[\d_]*)\s*$", code[:before], re.M
        )
        return int(bindings[-1].replace("_", "")) if bindings else None

    low, high = value(m.group(1)), value(m.group(3))
    if low is None or high is None:
        return None
    return max(0, high - low + (1 if m.group(2) == "..." else 0))


def unpooled_objc_loops(code: str) -> list[int]:
    """Lines (0-based) that make Objective-C objects in `for` loops of a thousand passes or
    more (nested loops multiply) without `withAutoreleasePool` inside the innermost loop.

    Makers are `BlockOperation(`, `Operation(`, URLSession's task factories, and the functions
    of the same file that return a task or an operation (so `downloader.fetch(url)` counts when
    `fetch` returns a `URLSessionDataTask`). Loops whose count the text does not give are not
    counted."""
    makers = [OBJC_OBJECT_MAKERS]
    returning = {
        m.group(1)
        for m in re.finditer(r"\bfunc\s+(\w+)\b[^{]*?->\s*(URLSession\w*Task|(Block)?Operation)\b", code)
    }
    if returning:
        makers.append(re.compile(r"(?<!func )\b(" + "|".join(map(re.escape, sorted(returning))) + r")\s*\("))
    sites = sorted({m.start() for p in makers for m in p.finditer(code)})
    lines: list[int] = []
    stack: list[tuple[str, int]] = []  # (loop, pool or block; passes of a loop, else 1)
    next_site = 0
    for at, c in enumerate(code):
        while next_site < len(sites) and sites[next_site] == at:
            passes, pooled = 1, False
            for kind, count in stack:
                if kind == "loop":
                    passes, pooled = passes * count, False
                elif kind == "pool":
                    pooled = True
            if passes >= LOOP_OF_THOUSANDS and not pooled:
                lines.append(code.count("\n", 0, at))
            next_site += 1
        if c == "{":
            header = re.split(r"[{}]", code[header_start(code, at) : at])[-1]
            loop = FOR_HEADER.match(header)
            if loop:
                stack.append(("loop", loop_count(loop.group(2), code, at) or 1))
            elif re.search(rf"\b{AUTORELEASE_HELPER}\s*(\(\s*\))?\s*$", header):
                stack.append(("pool", 1))
            else:
                stack.append(("block", 1))
        elif c == "}" and stack:
            stack.pop()
    return sorted(set(lines))


def swift_files(root: str) -> list[str]:
    if os.path.isfile(root):
        return [root] if root.endswith(".swift") else []
    found = []
    for directory, subdirectories, files in os.walk(root):
        subdirectories[:] = sorted(d for d in subdirectories if not d.startswith(".") and not d.endswith(".docc"))
        found += [os.path.join(directory, f) for f in sorted(files) if f.endswith(".swift")]
    return found


def module_of(path: str) -> str:
    parts = os.path.normpath(path).split(os.sep)
    for anchor in ("Sources", "Tests"):
        if anchor in parts:
            k = parts.index(anchor)
            return os.sep.join(parts[: k + 2])
    return os.path.dirname(path)


# A sample with one expected finding per line marked `// finds: <API>`, so that CI sees the
# check fail where it must (and pass where it must) before trusting its silence.
SELF_TEST = """\
import Dispatch
let s = "Duration in a string, \\(Duration.seconds(1))"  // finds: Duration
@available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
extension Int {
  func f() -> Duration { .seconds(1) }
  struct Inner { var d: Duration }
}
@available(macOS 13, *)
func g() -> Duration { .zero }  // finds: Duration
func h() async {
  if #available(macOS 13, iOS 16, tvOS 16, watchOS 9, *) {
    try? await Task.sleep(for: .seconds(1))
  } else {
    try? await Task.sleep(for: .seconds(1))  // finds: Task.sleep(for:); Duration literal
  }
  guard #available(macOS 13, iOS 16, tvOS 16, watchOS 9, *) else {
    _ = ContinuousClock.now  // finds: ContinuousClock
    return
  }
  _ = ContinuousClock.now
  DispatchQueue.main.asyncAfter(deadline: .now() + .seconds(1)) {}
  await withTaskGroup { group in group.addTask {} }  // finds: withTaskGroup without of: (Swift 6.1)
  await withThrowingTaskGroup(  // finds: withTaskGroup without of: (Swift 6.1)
    returning: Void.self
  ) { _ in }
  await withTaskGroup(
    of: Void.self
  ) { _ in }
}
#if os(Linux)
  let linuxOnly = Mutex(1)
#else
  let appleOnly = ContinuousClock()  // finds: ContinuousClock
#endif
@available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
let tooLow = Mutex(1)  // finds: Mutex
let excused = Mutex(1)  // availability-ok: sample of the escape hatch
@available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
struct S {
  @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
  func k() { _ = Mutex(1) }
  func l(
    a: Int
  ) { _ = Duration.zero }
}
func n() -> Bool { "abc".contains("bc") || "a".contains("b") }  // finds: String.contains/split with a String (no Foundation in module)
func o() { weak let w = C() }  // finds: weak let (Swift 6.2)
@Suite(.timeLimit(.minutes(1))) struct T {}  // finds: Testing .timeLimit
func p(a: Int, b: Int,) {}  // finds: trailing comma in a list (Swift 6.1)
func q() {
  p(
    a: 1,
    b: 2,  // finds: trailing comma in a list (Swift 6.1)
  )
  let pair = (
    1,
    2  // a comment, then the comma on a line of its own
    ,  // finds: trailing comma in a list (Swift 6.1)
  )
  let list = [
    1,
    2,
  ]
  p(a: 1, b: [3,].count)
  _ = (pair, list, "(a,)")
}
nonisolated struct U {}  // finds: nonisolated type or extension (Swift 6.1)
public nonisolated final class V {}  // finds: nonisolated type or extension (Swift 6.1)
nonisolated extension U {}  // finds: nonisolated type or extension (Swift 6.1)
class W {
  nonisolated class func make() -> W { W() }
  nonisolated(unsafe) static var shared = W()
  nonisolated func f() {}
}
func r(_ bytes: [UInt8]) -> Int { bytes.span.count }  // finds: Span/RawSpan (Swift 6.2)
func t(_ raw: RawSpan) {}  // finds: Span/RawSpan (Swift 6.2)
#if compiler(>=6.2)
  func u(_ span: Span<UInt8>) -> Int { span.count }
  func v(a: Int,) {}
#else
  func u(_ span: Span<UInt8>) -> Int { span.count }  // finds: Span/RawSpan (Swift 6.2)
#endif
#if compiler(>=6.1) && canImport(Darwin)
  nonisolated struct X {}
  func w(_ span: Span<UInt8>) {}  // finds: Span/RawSpan (Swift 6.2)
#endif
#if os(Linux)
  func onLinux(a: Int,) {}  // finds: trailing comma in a list (Swift 6.1)
#endif
#if canImport(FoundationNetworking) && (os(Linux) || os(Windows))
  let notOnApple = Mutex(1)
#endif
#if compiler(>=6.2) && (os(Linux) || os(macOS))
  func guarded(_ span: Span<UInt8>) {}
#elseif os(Linux)
  func notGuarded(_ span: Span<UInt8>) {}  // finds: Span/RawSpan (Swift 6.2)
#endif
#if os(Linux) || compiler(>=6.2)
  func eitherOr(_ span: Span<UInt8>) {}  // finds: Span/RawSpan (Swift 6.2)
#endif
#if !compiler(>=6.2)
  func older() {}
#else
  func newer(_ span: Span<UInt8>) {}
#endif
#if os(macOS)
  let onMac = 1
#else
  let elsewhere = ContinuousClock()  // finds: ContinuousClock
#endif
func immediate() { Task.immediate {} }  // finds: Task.immediate; Task.immediate (Swift 6.2 standard library)
func received(_ task: Int64) -> Int64? {
  var received: Int64? = nil  // finds: var mutated only in some platforms' branches
  #if canImport(FoundationNetworking)
    received = task
  #endif
  return received
}
func sent(_ task: Int64) -> Int64 {
  var sent = task  // finds: var mutated only in some platforms' branches
  #if canImport(Darwin)
    sent += 1
  #elseif os(macOS)
    sent.negate()
  #endif
  return sent
}
func counts(_ task: Int64) -> [Int64] {
  var counts: [Int64] = []  // finds: var mutated only in some platforms' branches
  #if !os(Linux)
    counts.append(task)
    counts[0] = 1
  #endif
  var both = task
  #if canImport(FoundationNetworking)
    both = 1
  #else
    both = 2
  #endif
  var anywhere = [task]
  anywhere.append(1)
  #if os(Linux)
    anywhere[0] = 2
  #endif
  var passed = task
  #if canImport(Darwin)
    swap(&passed, &passed)
  #else
    passed = (passed, 1).1
  #endif
  var unused = task
  return counts + anywhere + [both, passed, unused]
}
struct Account {
  var received: Int64 = 0
  #if os(Linux)
    mutating func add() { received += 1 }
  #endif
}
#if os(Linux)
  func linuxOnly() -> Int {
    var n = 0
    n += 1
    return n
  }
#endif
"""

# A test that uses Swift Testing's APIs newer than Swift 6.0, inside and outside the
# `#if compiler(>=X)` that each needs.
SELF_TEST_TESTING = """\
import Testing
struct E: Error {}
@Test func exits() async throws {
  await #expect(processExitsWith: .success) {}  // finds: exit test (Swift Testing 6.2)
  #if compiler(>=6.2) && (os(Linux) || os(macOS))
    await #expect(processExitsWith: .failure) { fatalError() }
    await #expect(  // finds: exit test capture list (Swift Testing 6.3)
      processExitsWith: .success, "\\(1)"
    ) { [n = 1 as Int] in
      _ = n
    }
  #endif
  #if compiler(>=6.3) && canImport(FoundationNetworking) && (os(Linux) || os(Windows))
    await #expect(processExitsWith: .success) { [n = 1 as Int] in _ = n }
  #endif
  #if os(Linux)
    let result = await #require(  // finds: exit test (Swift Testing 6.2)
      processExitsWith: .failure, observing: [\\.standardErrorContent]
    ) { fatalError() }
  #endif
  let error = #expect(throws: E.self) { throw E() }  // finds: the error #expect(throws:) returns (Swift Testing 6.1)
  #expect(throws: E.self) { throw E() }
  await confirmation(expectedCount: 1...2) { $0() }  // finds: ranged confirmation (Swift Testing 6.1)
  await confirmation(expectedCount: 2) { $0(); $0() }
  Issue.record("late", severity: .warning)  // finds: issue severity (Swift Testing 6.3)
  try Test.cancel()  // finds: Test.cancel (Swift Testing 6.3)
}
struct Scope: TestScoping {}  // finds: test scoping traits (Swift Testing 6.1)
"""

# A test target's file, where loops that make Objective-C objects by the thousand must drain a
# pool per pass, and where UIKit's view controllers are used.
SELF_TEST_TESTS = """\
import Foundation
#if canImport(UIKit)  // finds: canImport(UIKit) without os(watchOS)
  import UIKit
#endif
#if !canImport(UIKit)  // finds: canImport(UIKit) without os(watchOS)
  class UIViewController {}
#elseif canImport(UIKit) && !os(watchOS)
  typealias Screen = UIViewController
#endif
#if !canImport(UIKit) || os(watchOS)
  typealias Page = UIViewController
#endif
final class Loader {
  let session = URLSession.shared
  func fetch(_ url: URL) -> URLSessionDataTask { session.dataTask(with: url) }
  func start(_ url: URL) { fetch(url).resume() }
}
func loops(_ loader: Loader, _ url: URL) {
  let count = 10_000
  for _ in 0..<count {
    let operation = BlockOperation {}  // finds: Objective-C objects made in a loop without withAutoreleasePool
    operation.start()
  }
  for _ in 0..<100_000 {
    withAutoreleasePool {
      _ = Operation()
      _ = loader.session.dataTask(with: url)
    }
  }
  withAutoreleasePool {
    for _ in 1...5_000 {
      _ = loader.session.downloadTask(with: url)  // finds: Objective-C objects made in a loop without withAutoreleasePool
    }
  }
  for _ in 0..<100 {
    for _ in 0..<100 {
      loader.start(url)
      _ = loader.fetch(url)  // finds: Objective-C objects made in a loop without withAutoreleasePool
    }
  }
  for _ in 0..<3 {
    _ = Operation()
  }
  for index in 0..<count where index > 0 {
    withAutoreleasePool { _ = loader.fetch(url) }
  }
  for url in [url] {
    _ = loader.fetch(url)
  }
}
"""


def self_test() -> int:
    import tempfile

    samples = [
        (os.path.join("Sources", "Sample", "Sample.swift"), SELF_TEST, False),
        (os.path.join("Tests", "SampleTests", "SampleTests.swift"), SELF_TEST_TESTS, True),
        (os.path.join("Tests", "SampleTests", "ExitTests.swift"), SELF_TEST_TESTING, True),
    ]
    expected: set[tuple[str, int, str]] = set()
    found: set[tuple[str, int, str]] = set()
    with tempfile.TemporaryDirectory() as directory:
        for relative, sample, has_foundation in samples:
            for number, line in enumerate(sample.split("\n"), start=1):
                m = re.search(r"// finds: (.*)$", line)
                if m:
                    expected |= {(relative, number, api.strip()) for api in m.group(1).split("; ")}
            path = os.path.join(directory, relative)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(sample)
            found |= {(relative, f.line, f.api) for f in check_file(path, module_has_foundation=has_foundation)}
    if found != expected:
        print("check-availability self-test FAILED", file=sys.stderr)
        for relative, line, api in sorted(expected - found):
            print(f"  missed   {relative}:{line}: {api}", file=sys.stderr)
        for relative, line, api in sorted(found - expected):
            print(f"  spurious {relative}:{line}: {api}", file=sys.stderr)
        return 1
    print(f"self-test: {len(expected)} expected findings, nothing else.")
    return 0


def main(argv: list[str]) -> int:
    if argv[1:] == ["--self-test"]:
        return self_test()
    roots = argv[1:] or ["Sources", "Tests"]
    missing = [r for r in roots if not os.path.exists(r)]
    if missing:
        print(f"check-availability: no such path: {', '.join(missing)}", file=sys.stderr)
        return 2
    files = [f for root in roots for f in swift_files(root)]
    foundation: dict[str, bool] = {}
    for module in {module_of(f) for f in files}:
        foundation[module] = any(
            re.search(r"^\s*(@_exported\s+)?import\s+(Foundation|FoundationEssentials)\b", open(f, encoding="utf-8").read(), re.M)
            for f in swift_files(module)
        )
    findings: list[Finding] = []
    for f in files:
        findings += check_file(f, foundation[module_of(f)])
    for finding in findings:
        print(f"{finding.path}:{finding.line}: {finding.api} (needs {finding.needs}): {finding.text}")
    floors = ", ".join(f"{p} {v[0]}" for p, v in FLOOR.items())
    if findings:
        counts: dict[str, int] = {}
        for finding in findings:
            counts[finding.api] = counts.get(finding.api, 0) + 1
        print(
            f"\n{len(findings)} finding(s) in {len({f.path for f in findings})} file(s) "
            f"(floors {floors}, tools version 6.0, Apple-only pitfalls):"
        )
        for api, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
            print(f"  {count:4d}  {api}")
        return 1
    print(f"{len(files)} Swift files: nothing newer than the floors ({floors}) without availability.")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

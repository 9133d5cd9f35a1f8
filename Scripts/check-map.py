#!/usr/bin/env python3
"""Checks that CONTRIBUTING.md is still the map of the code, and that the names the documents
put in backticks name something.

    python3 Scripts/check-map.py        # from anywhere; exits 1 listing every problem

What it checks (issue 37: the map drifted while the code moved, and a newcomer was misled):

1. Every folder `Sources/<Target>/<Folder>` appears on its target's row of CONTRIBUTING's layout
   table (as `Folder/`), and every target under `Sources/` and `Integrations/Sources/` is named.
2. Every `realm-inspect` command (a `commandName:` in Sources/realm-inspect) is named.
3. Every type that owns a lock (a stored `Lock` or `Mutex`) is named in the table "Shared
   mutable state and what guards it".
4. Every name in single backticks that looks like a type (`WritePipeline`, `Realm.Configuration`,
   `Database.flush`) in CONTRIBUTING.md, FORMAT.md and the DocC articles names a type declared in
   the repository — and each dotted member after it, a declaration of that name — or is one of
   the outside names listed in EXTERNAL below (Swift's, Foundation's, Realm Swift's…), each
   with the reason it is there. DocC's own ``symbol links`` are checked by the DocC build.

Text only: no build needed, about a second.
"""
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

# Names in backticks that are not declared here, by where they come from. A name a document
# mentions that is none of ours and none of these is a problem: a type renamed or removed.
EXTERNAL = {
    # The Swift standard library, concurrency and Synchronization.
    "swift": """Any AnyObject Array AsyncSequence AsyncStream AsyncThrowingStream Bool CaseIterable
        CheckedContinuation Codable Collection Comparable CustomStringConvertible Decodable Dictionary
        Double Encodable Equatable Error Float Hashable Identifiable Int Int8 Int16 Int32 Int64
        KeyPath MainActor Mutex Never Optional RandomAccessCollection Range RawRepresentable Result
        Self Sendable Sequence Set String Substring Task TaskGroup UInt UInt8 UInt16 UInt32 UInt64
        Void ReferenceWritableKeyPath ObjectIdentifier Character StringProtocol AsyncIteratorProtocol
        Atomic ContinuousClock Duration Clock SerialExecutor TaskLocal ExpressibleByStringLiteral
        Synchronization.Mutex Task.sleep Task.isCancelled Task.checkCancellation Mirror
        CancellationError NonisolatedNonsendingByDefault""",
    # Foundation.
    "foundation": """Data Date Decimal FileManager JSONDecoder JSONEncoder NSError NSPredicate URL UUID
        Foundation ProcessInfo DispatchQueue NSLock NSRegularExpression Calendar Locale TimeInterval
        NSSortDescriptor NSNumber NSObject NSFilePathErrorKey NSLocalizedDescriptionKey NSUnderlyingErrorKey""",
    # Realm Swift and Realm Cocoa names our documents compare with or replace (see the DocC
    # article "Migrating from Realm Swift").
    "realm": """RealmSwift RLMRealm RLMObject RLMArray ThreadSafeReference RealmProperty RealmOptional
        NotificationCenter RunLoop DispatchQueue.main SyncConfiguration App User ObjectiveC
        RLMException Realm.Error.Code.fail SectionedResults ResultsSection AsymmetricObject
        RealmSectionedResult RLMSyncConfiguration FlexibleSyncConfiguration""",
    # Words, not names: the file names CONTRIBUTING's naming rule forbids.
    "words": "Utils Helpers Manager NaN",
    # Other libraries and tools our documents name: GRDB, SQLite, PostgreSQL, swift-log and
    # friends, Hummingbird, Vapor, libFuzzer.
    "other": """GRDB DatabaseQueue DatabasePool ValueObservation SQLite Logger Logging Metrics Counter
        Timer Gauge Recorder ServiceGroup Service ServiceLifecycle Hummingbird Router Application
        Vapor PostgresNIO PostgresClient LLVMFuzzerRunDriver LLVMFuzzerTestOneInput FuzzedDataProvider
        Benchmark NIO EventLoopGroup ByteBuffer""",
}

problems = []


def read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as handle:
        return handle.read()


def swift_files():
    for top in ("Sources", "Tests", "Integrations", "Benchmarks", "Fuzz"):
        for directory, folders, files in os.walk(os.path.join(ROOT, top)):
            folders[:] = [f for f in folders if not f.startswith(".")]
            for name in files:
                if name.endswith(".swift"):
                    yield os.path.join(directory, name)


contributing = read("CONTRIBUTING.md")
rows = {}  # `Sources/T` -> its row of the layout table
for line in contributing.splitlines():
    match = re.match(r"\|\s*`([^`]+)`", line)
    if match:
        rows[match.group(1).rstrip("/")] = line

# 1. Folders and targets.
for top in ("Sources",):
    for target in sorted(os.listdir(os.path.join(ROOT, top))):
        path = os.path.join(ROOT, top, target)
        if not os.path.isdir(path):
            continue
        key = f"{top}/{target}"
        row = rows.get(key)
        if row is None and f"`{target}`" not in contributing and key not in contributing:
            problems.append(f"CONTRIBUTING.md does not name the target {key}")
            continue
        for folder in sorted(os.listdir(path)):
            if not os.path.isdir(os.path.join(path, folder)) or folder == "include":
                continue  # a C target's public headers
            if f"`{folder}/`" not in (row or "") and f"{key}/{folder}" not in contributing:
                problems.append(f"CONTRIBUTING.md: the row of `{key}` does not name its folder `{folder}/`")
integrations = os.path.join(ROOT, "Integrations", "Sources")
for module in sorted(os.listdir(integrations)):
    if os.path.isdir(os.path.join(integrations, module)) and module not in contributing:
        problems.append(f"CONTRIBUTING.md does not name the Integrations module {module}")

# 2. realm-inspect's commands.
inspector = os.path.join(ROOT, "Sources", "realm-inspect")
for directory, _, files in os.walk(inspector):
    for name in files:
        if name.endswith(".swift"):
            for command in re.findall(r'commandName:\s*"([a-z-]+)"', open(os.path.join(directory, name), encoding="utf-8").read()):
                if f"`{command}`" not in contributing:
                    problems.append(f"CONTRIBUTING.md does not name the realm-inspect command `{command}`")

# 3. Lock owners: the type (or extension) declaring each stored Lock or Mutex.
declaration = re.compile(r"^(\s*)(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|private|fileprivate|final|open|nonisolated)\s+)*(class|struct|actor|enum|extension)\s+([A-Za-z_][A-Za-z0-9_.]*)")
lock = re.compile(r"^\s*(?:(?:public|package|internal|private|fileprivate|static|nonisolated)\s+)*(?:let|var)\s+\w+\s*(?::\s*(?:Lock|Mutex)<|=\s*(?:Lock|Mutex)\s*(?:<.*>)?\()")
shared = contributing.split("### Shared mutable state", 1)[-1].split("\n## ", 1)[0]
for path in swift_files():
    relative = os.path.relpath(path, ROOT)
    if not (relative.startswith("Sources/") or relative.startswith("Integrations/Sources/")) or relative.endswith("Concurrency/Lock.swift"):
        continue
    stack = []  # (indentation, type name)
    for number, line in enumerate(open(path, encoding="utf-8"), 1):
        if not line.strip() or line.lstrip().startswith("//"):
            continue
        indentation = len(line) - len(line.lstrip())
        while stack and stack[-1][0] >= indentation and not line.strip().startswith("}"):
            stack.pop()
        match = declaration.match(line)
        if match:
            stack.append((indentation, match.group(3)))
            continue
        if lock.match(line) and stack:
            owner = stack[-1][1].split(".")[-1]  # the innermost type: `Realm.AsyncOpenTask`'s lock is its own
            if not re.search(rf"`(?:\w+\.)*{owner}[`.]", shared):
                problems.append(f"{relative}:{number}: `{owner}` owns a lock but is not in CONTRIBUTING's shared-state table")

# 4. Backticked type names.
declared = set()
members = set()
for path in swift_files():
    text = open(path, encoding="utf-8").read()
    declared.update(re.findall(r"\b(?:class|struct|enum|actor|protocol|typealias|associatedtype)\s+([A-Za-z_][A-Za-z0-9_]*)", text))
    members.update(re.findall(r"\b(?:func|var|let|case|init|subscript)\s+`?([A-Za-z_][A-Za-z0-9_]*)", text))
    # `case a, b, c` lists.
    for cases in re.findall(r"\bcase\s+([a-z][A-Za-z0-9_, ]*)$", text, re.M):
        members.update(name.strip() for name in cases.split(",") if name.strip())
members.add("init")
# Modules, targets and products are names too (`RealmMetrics`, `RealmInspector`).
for manifest in ("Package.swift", "Integrations/Package.swift", "Benchmarks/Package.swift"):
    if os.path.exists(os.path.join(ROOT, manifest)):
        declared.update(re.findall(r'name:\s*"([A-Za-z0-9_-]+)"', read(manifest)))
external = set()
for names in EXTERNAL.values():
    external.update(names.split())

documents = ["CONTRIBUTING.md", "Sources/RealmStorage/FORMAT.md"]
docc = os.path.join(ROOT, "DocC")
for directory, _, files in os.walk(docc):
    documents += [os.path.relpath(os.path.join(directory, name), ROOT) for name in files if name.endswith(".md")]
single = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
# UpperCamelCase (not an ALL-CAPS keyword or constant such as `LIMIT` or `F_FULLFSYNC`), then
# dotted members; a file name (`FORMAT.md`, `Package.swift`) is not a type.
typeish = re.compile(r"^[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*(?:\(\))?$")
file_extensions = {"md", "swift", "resolved", "json", "sh", "txt", "py", "realm", "log", "lock"}
for document in documents:
    text = read(document)
    # Code blocks are examples, not names.
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    for number, line in enumerate(text.splitlines(), 1):
        for name in single.findall(line):
            name = name.strip()
            if not typeish.match(name) or name in external:
                continue
            parts = name.removesuffix("()").split(".")
            if parts[-1] in file_extensions:
                continue
            if parts[0] in external or ".".join(parts[:2]) in external:
                continue
            if parts[0] not in declared:
                problems.append(f"{document}: `{name}` names no type of the repository (renamed or removed? an outside name goes in EXTERNAL)")
                continue
            for part in parts[1:]:
                if part not in declared and part not in members:
                    problems.append(f"{document}: `{name}`: nothing is declared as `{part}`")
                    break

if problems:
    print(f"check-map: {len(problems)} problems")
    for problem in problems:
        print(f"  {problem}")
    sys.exit(1)
print("check-map: CONTRIBUTING.md names every folder, realm-inspect command, Integrations module and lock owner; every backticked type name names something")

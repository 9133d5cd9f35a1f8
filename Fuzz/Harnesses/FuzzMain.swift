import Foundation
#if REALM_LIBFUZZER
import CLibFuzzer
#endif

/// `realm-fuzz TARGET [ARGUMENTS…]`: runs one fuzz target (see ``FuzzTarget``).
///
/// - Built by `Scripts/fuzz.sh` (`-sanitize=fuzzer,address -DREALM_LIBFUZZER`), the arguments
///   after the target are libFuzzer's (flags, corpus directories, or inputs to run once).
/// - In a plain build (what `swift build` and CI's strict build compile), the arguments are
///   input files or directories of them, each run once through the target: how a crash that
///   libFuzzer saved is replayed under a debugger, and how the seed corpora are checked.
/// - `realm-fuzz seeds DIRECTORY` writes the seed corpora (`Fuzz/Corpus/<target>/`) and the
///   fixtures they need (``SeedCorpus``).
/// - `realm-fuzz seal FILE…` reseals the pages of realm files in place, as the `file` harness
///   does before opening one: a finding of that harness becomes a file a regression test opens.
@main
enum FuzzMain {
    static func main() {
        var arguments = CommandLine.arguments
        // libFuzzer re-runs the program for some modes (`-fork`, `-jobs`, minimizing) with its
        // own arguments, without the target's name: the environment carries it to them.
        let named = ProcessInfo.processInfo.environment[FuzzTargets.environmentVariable]
        if named == nil, arguments.count > 1 { setenv(FuzzTargets.environmentVariable, arguments.remove(at: 1), 1) }
        let name = named ?? ProcessInfo.processInfo.environment[FuzzTargets.environmentVariable] ?? ""
        if name == "seeds" {
            exit(SeedCorpus.write(to: arguments.dropFirst().first ?? "Fuzz") ? 0 : 1)
        }
        if name == "seal" {
            for path in arguments.dropFirst() {
                guard let contents = FileManager.default.contents(atPath: path) else { exit(1) }
                var bytes = [UInt8](contents)
                PageSealing.sealPages(&bytes)
                guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else { exit(1) }
            }
            exit(0)
        }
        guard let target = FuzzTargets.make(name) else {
            FileHandle.standardError.write(Data("""
                usage: realm-fuzz TARGET [FILE|DIRECTORY…]   (targets: \(FuzzTargets.names.joined(separator: ", ")))
                       realm-fuzz seeds DIRECTORY            (writes DIRECTORY/Corpus/<target>/ and DIRECTORY/Fixtures/)
                       realm-fuzz seal FILE…                 (reseals realm files' pages in place)

                """.utf8))
            exit(2)
        }
        FuzzTargets.active = target
        #if REALM_LIBFUZZER
        var argc = Int32(arguments.count)
        var cArguments = arguments.map { strdup($0) } + [nil]
        let status = cArguments.withUnsafeMutableBufferPointer { buffer in
            var argv = buffer.baseAddress
            return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzerTestOneInput(data, size) }
        }
        exit(status)
        #else
        exit(replay(Array(arguments.dropFirst()), through: target))
        #endif
    }

    /// Runs every file named (or in a directory named) through `target`; a trap is the finding.
    static func replay(_ paths: [String], through target: any FuzzTarget) -> Int32 {
        var count = 0
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                FileHandle.standardError.write(Data("realm-fuzz: no such file: \(path)\n".utf8))
                return 2
            }
            let files = isDirectory.boolValue
                ? ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted().map { "\(path)/\($0)" }
                : [path]
            for file in files {
                guard let input = FileManager.default.contents(atPath: file) else { continue }
                print("\(file): \(target.run(input))")
                count += 1
            }
        }
        print("realm-fuzz: \(count) inputs run, no crash")
        return 0
    }
}

#if REALM_LIBFUZZER
/// libFuzzer's callback, under the name libFuzzer's own `main` expects: the sanitizer runtime
/// links that `main` in (SwiftPM's `main` is the one that runs, and calls the driver above), so
/// the symbol must exist.
@c(LLVMFuzzerTestOneInput)
func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    _ = FuzzTargets.active?.run(size == 0 ? Data() : Data(bytes: data!, count: size))
    return 0
}
#endif

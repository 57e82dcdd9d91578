import Foundation
import StrataCore
import StrataTestSupport
import StrataTortureKit
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The `strata` tool used as a careless or hostile user would: commands racing each other on one
/// store, a store's own path spelled another way, read-only media, a full disk. Every backend;
/// each check is what a user would look at afterwards (`validate`, `inspect`).
@Suite struct HostileUseTests {
    /// Rounds of each race per backend.
    static let rounds = 20
    /// Employees each racing import writes.
    static let employees = 1_500

    /// An import with the first model version races a migration to the current one. Whatever
    /// the order, the store ends whole and valid: the migration waits for the import (or gives up
    /// with `storeBusy`), and an import that reaches the store after the migration is refused
    /// with a typed error instead of writing rows of the old shape.
    @Test(arguments: TortureStores.schemes)
    func anImportRacingAMigrationNeverCorruptsTheStore(_ scheme: String) throws {
        let directory = temporaryDirectory()
        let lines = try Tool.writeEmployees(Self.employees, to: directory + "/v1.jsonl")
        let empty = directory + "/empty.jsonl"
        try "".write(toFile: empty, atomically: true, encoding: .utf8)
        var random = SeededGenerator(seed: 0xACE + UInt64(scheme.utf8.count))
        var outcomes: [String: Int] = [:]
        for round in 0..<Self.rounds {
            let url = storeText(scheme, "race\(round)")
            #expect(try Tool.run(["import", "--model-version", "v1", url, empty], in: directory).status == 0)
            let importing = try Tool.start(["import", url, lines], in: directory)
            usleep(UInt32.random(in: 0...150_000, using: &random))
            let migration = try Tool.run(["migrate", "--yes", url], in: directory)
            let imported = importing.finish()
            for (name, run) in [("import", imported), ("migrate", migration)] where run.status != 0 {
                #expect(
                    ["storeBusy", "modelMismatch"].contains(run.errorCode ?? ""),
                    "round \(round): \(name) failed untyped: \(run.errors)")
            }
            #expect(
                imported.status == 0 || migration.status == 0,
                "round \(round): both failed: \(imported.errors) \(migration.errors)")
            let validation = try Tool.run(["validate", url], in: directory)
            #expect(validation.status == 0, "round \(round): \(validation.output) \(validation.errors)")
            let count = try Tool.objectCount(url, in: directory)
            #expect(count == 0 || count == Self.employees + 1, "round \(round): \(String(describing: count)) objects")
            outcomes[
                "import \(imported.status == 0 ? "ok" : imported.errorCode ?? "?"), migrate \(migration.status == 0 ? "ok" : migration.errorCode ?? "?")",
                default: 0] += 1
            if validation.status != 0 { return }
        }
        reportCount(
            "import racing migrate \(scheme): \(Self.rounds) rounds, store valid after each; \(outcomes.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "; "))"
        )
    }

    /// `copy --replace` onto a store races an import into it. The copy waits for the import or
    /// gives up with `storeBusy`; the destination ends with the import's objects, the copy's, or
    /// both (an import after the copy), and valid.
    @Test(arguments: TortureStores.schemes)
    func aCopyReplacingAStoreRacingAnImportIntoItLeavesAWholeStore(_ scheme: String) throws {
        let directory = temporaryDirectory()
        let lines = try Tool.writeEmployees(Self.employees, to: directory + "/employees.jsonl")
        let source = "sqlite:source.sqlite"
        let sourceObjects = 301
        #expect(
            try Tool.run(
                ["import", source, try Tool.writeEmployees(sourceObjects - 1, to: directory + "/source.jsonl")],
                in: directory
            ).status == 0)
        var random = SeededGenerator(seed: 0xC0B + UInt64(scheme.utf8.count))
        var outcomes: [String: Int] = [:]
        for round in 0..<Self.rounds {
            let url = storeText(scheme, "copy\(round)")
            let importing = try Tool.start(["import", url, lines], in: directory)
            usleep(UInt32.random(in: 0...150_000, using: &random))
            let copy = try Tool.run(["copy", source, url, "--replace"], in: directory)
            let imported = importing.finish()
            for (name, run) in [("import", imported), ("copy", copy)] where run.status != 0 {
                #expect(run.errorCode == "storeBusy", "round \(round): \(name) failed: \(run.errors)")
            }
            let validation = try Tool.run(["validate", url], in: directory)
            #expect(validation.status == 0, "round \(round): \(validation.output) \(validation.errors)")
            let count = try Tool.objectCount(url, in: directory)
            let allowed = [Self.employees + 1, sourceObjects, sourceObjects + Self.employees + 1]
            #expect(
                count.map(allowed.contains) == true,
                "round \(round): \(String(describing: count)) objects; import \(imported.status), copy \(copy.status)")
            outcomes[
                "import \(imported.status == 0 ? "ok" : imported.errorCode ?? "?"), copy \(copy.status == 0 ? "ok" : copy.errorCode ?? "?")",
                default: 0] += 1
            if validation.status != 0 { return }
        }
        reportCount(
            "copy --replace racing import \(scheme): \(Self.rounds) rounds, store whole and valid after each; \(outcomes.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "; "))"
        )
    }

    /// `copy A A' --replace`, where A' is A spelled another way (`./`, `..`, an absolute path, a
    /// symbolic link, another scheme on the same file), is refused and changes nothing.
    @Test(arguments: TortureStores.schemes)
    func copyingAStoreOntoItselfUnderAnotherSpellingIsRefused(_ scheme: String) throws {
        let directory = temporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory + "/d", withIntermediateDirectories: true)
        let name = scheme == "lmdb" ? "app-lmdb" : "app.\(scheme)"
        let url = "\(scheme):d/\(name)"
        #expect(
            try Tool.run(["import", url, try Tool.writeEmployees(50, to: directory + "/e.jsonl")], in: directory).status
                == 0)
        try FileManager.default.createSymbolicLink(atPath: directory + "/link", withDestinationPath: directory + "/d")
        let spellings =
            [
                "\(scheme):d/./\(name)", "\(scheme):d/../d/\(name)", "\(scheme):\(directory)/d/\(name)",
                "\(scheme):link/\(name)",
                "\(scheme == "xml" ? "sqlite" : "xml"):d/\(name)",
            ] + (scheme == "lmdb" ? ["sqlite:d/\(name)/data.mdb", "xml:d/\(name)/lock.mdb"] : ["lmdb:d/\(name)"])
        var refused = 0
        for spelling in spellings {
            for (from, to) in [(url, spelling), (spelling, url)] {
                let run = try Tool.run(["copy", from, to, "--replace"], in: directory)
                #expect(run.status != 0, "copy \(from) \(to) --replace: \(run.output)")
                if run.status != 0 { refused += 1 }
                #expect(
                    try Tool.objectCount(url, in: directory) == 51, "after copy \(from) \(to) --replace: \(run.errors)")
            }
        }
        #expect(try Tool.run(["validate", url], in: directory).status == 0)
        reportCount(
            "aliased paths \(scheme): \(refused) copies onto the store itself under another spelling refused, store intact"
        )
    }

    /// One store opened through a symbolic link and migrated through its real path: the two
    /// spellings share one lock, so the migration waits and gives up instead of changing the
    /// schema under the open store.
    @Test(arguments: TortureStores.schemes)
    func twoSpellingsOfOneStoreShareItsLock(_ scheme: String) throws {
        let directory = temporaryDirectory()
        let url = storeText(scheme, "store")
        #expect(
            try Tool.run(
                ["import", "--model-version", "v1", url, try Tool.writeEmployees(10, to: directory + "/e.jsonl")],
                in: directory
            ).status == 0)
        let location = String(url.drop { $0 != ":" }.dropFirst())
        try FileManager.default.createSymbolicLink(
            atPath: directory + "/alias", withDestinationPath: directory + "/" + location)
        let reading = try Tool.start(
            ["import", "\(scheme):alias", try Tool.writeEmployees(20_000, to: directory + "/many.jsonl")], in: directory
        )
        usleep(300_000)
        let migration = try Tool.run(["migrate", "--yes", url], in: directory)
        let imported = reading.finish()
        #expect(imported.status == 0, "\(imported.errors)")
        if migration.status != 0 { #expect(migration.errorCode == "storeBusy", "\(migration.errors)") }
        #expect(try Tool.run(["validate", url], in: directory).status == 0)
    }

    /// A store the user may not write is inspected, exported and validated: its files 0444 (read
    /// by a user other than the owner, so that root's privileges do not hide it), and the store
    /// on a read-only filesystem (a read-only bind mount, where one can be made). A write is
    /// refused with a typed error.
    @Test(arguments: TortureStores.schemes)
    func aStoreOnReadOnlyMediaIsStillReadable(_ scheme: String) throws {
        let directory = temporaryDirectory()
        let url = storeText(scheme, "ro")
        #expect(
            try Tool.run(["import", url, try Tool.writeEmployees(40, to: directory + "/e.jsonl")], in: directory).status
                == 0)
        let manager = FileManager.default
        // The other user must reach the directory: open the test's own folders above it (never
        // the system's temporary directory itself).
        var parent = (directory as NSString).deletingLastPathComponent
        while parent.hasPrefix(TemporaryDirectory.root) {
            chmod(parent, 0o755)
            parent = (parent as NSString).deletingLastPathComponent
        }
        chmod(directory, 0o777)
        for entry in try manager.subpathsOfDirectory(atPath: directory) {
            var isDirectory: ObjCBool = false
            _ = manager.fileExists(atPath: directory + "/" + entry, isDirectory: &isDirectory)
            chmod(directory + "/" + entry, isDirectory.boolValue ? 0o555 : 0o444)
        }
        func readEverything(in place: String, as user: String?, _ what: String) throws {
            for command in [["inspect", url], ["validate", url]] {
                let run = try Tool.run(command, in: place, asUser: user)
                #expect(run.status == 0, "\(what): \(command): \(run.errors)")
            }
            let export = try Tool.run(["export", url], in: place, asUser: user)
            #expect(export.output.split(separator: "\n").count == 41, "\(what): \(export.errors)")
            let write = try Tool.run(["import", url, directory + "/e.jsonl"], in: place, asUser: user)
            #expect(
                write.status != 0 && write.errorCode != nil,
                "\(what): a write is refused with a typed error: \(write.errors)")
        }
        try readEverything(in: directory, as: "nobody", "0444 files")
        var kinds = ["0444 files read by another user"]
        let mountPoint = temporaryDirectory()
        if getuid() == 0, try runCommand("/bin/mount", ["--bind", directory, mountPoint]) == 0 {
            defer { _ = try? runCommand("/bin/umount", [mountPoint]) }
            if try runCommand("/bin/mount", ["-o", "remount,bind,ro", mountPoint]) == 0 {
                try readEverything(in: mountPoint, as: nil, "a read-only filesystem")
                kinds.append("a read-only filesystem")
            }
        }
        for entry in try manager.subpathsOfDirectory(atPath: directory) { chmod(directory + "/" + entry, 0o755) }
        reportCount(
            "read-only media \(scheme): inspect, export and validate read the store, writes refused with a typed error, on \(kinds.joined(separator: " and "))"
        )
    }

    /// Creating a store on a full disk fails with a typed error and leaves no store: a later
    /// command finds nothing there, and a store created once there is room is whole. The disk is
    /// a small tmpfs where one can be mounted, and a file size limit (RLIMIT_FSIZE) in a child
    /// process always.
    @Test(arguments: TortureStores.schemes)
    func creatingAStoreOnAFullDiskLeavesNoStore(_ scheme: String) throws {
        var kinds: [String] = []
        // 2 KiB is below any new store (an XML store's header, with its model, is about 3.4 KB);
        // a limit between the header and the whole first save would leave a store without its
        // initial graph, which `create-limited` does not undo (an XML store's first save, with
        // its history, no longer fits in 4 KiB).
        for limit in [2_048, 16_384, 65_536] {
            let url = temporaryStoreURL(scheme)
            let result = try runTorture(["create-limited", url.description, String(limit)])
            try checkNothingOrWhole(
                url, after: "a \(limit)-byte file size limit: \(result.lines)", failed: result.status != 0)
            if result.status != 0 {
                #expect(result.lines.contains { $0.hasPrefix("error io") }, "\(result.lines)")
            }
        }
        kinds.append("a file size limit")
        let mountPoint = temporaryDirectory()
        if mount("tmpfs", mountPoint, "tmpfs", 0, "size=64k") == 0 {
            defer { umount(mountPoint) }
            let url = StoreURL(
                scheme: scheme, location: mountPoint + "/" + (scheme == "lmdb" ? "store-lmdb" : "store.\(scheme)"))
            let result = try runTorture(["create", url.description])
            // The disk stays full: no store is created again there.
            try checkNothingOrWhole(
                url, after: "a 64 KiB tmpfs: \(result.lines)", failed: result.status != 0, reopen: result.status == 0)
            if result.status != 0 { #expect(result.lines.contains { $0.hasPrefix("error io") }, "\(result.lines)") }
            kinds.append("a 64 KiB tmpfs")
        }
        reportCount(
            "full disk \(scheme): creation failed with a typed error and left no store, under \(kinds.joined(separator: " and "))"
        )
    }

    /// After a failed creation, no store is there (only the lock file may be), and `metadata(at:)`
    /// says so rather than `storeCorrupt`; then the store is created whole.
    private func checkNothingOrWhole(_ url: StoreURL, after what: String, failed: Bool, reopen: Bool = true) throws {
        let backend = try TortureStores.backend(url.scheme)
        let metadata = try backend.metadata(at: url)
        if failed {
            #expect(metadata == nil, "after \(what)")
            let directory = (url.location as NSString).deletingLastPathComponent
            // The lock files: the store-wide one, and an XML store's writer lock (never deleted).
            let left = try FileManager.default.contentsOfDirectory(atPath: directory).filter {
                !$0.hasSuffix(".strata-lock") && !$0.hasSuffix(".xml.lock")
            }
            #expect(left.isEmpty, "after \(what), left: \(left)")
        }
        guard reopen else { return }
        let store = try TortureStores.open(url)
        defer { try? store.close() }
        #expect(try StoreIntegrity.check(url, store: store).isEmpty)
    }
}

/// Runs a system command to the end and returns its exit status.
private func runCommand(_ executable: String, _ arguments: [String]) throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    return process.terminationStatus
}

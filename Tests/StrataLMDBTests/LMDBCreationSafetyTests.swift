import Foundation
import StrataCore
import StrataLMDB
import StrataTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Creating an LMDB store is safe on a full disk, against SIGKILL and against a second creator;
/// read-only media can be read; whatever is at the path, nothing blocks or crashes. Everything
/// that could crash or hang runs in a child process (`strata-lmdb-probe`), so a crash or a hang
/// fails the test instead of taking the test runner down with it.
@Suite("LMDB store: creation is whole or nothing, on any medium", .serialized)
struct LMDBCreationSafetyTests {
    // MARK: A full disk

    /// A full disk made liblmdb die of SIGBUS (exit 135) while it set up the lock file of a new
    /// store: it sizes `lock.mdb` with `ftruncate` and writes it through a shared map, whose pages
    /// a full file system cannot supply. Now the space is reserved before anything is mapped, and
    /// the store is built aside: every fill level gives a whole store or a typed `io` error
    /// leaving nothing behind.
    ///
    /// The disk is a small tmpfs when this process may mount one (it may as root); otherwise the
    /// child's file size limit (`RLIMIT_FSIZE`) plays the full disk, which checks the same errors
    /// and cleanup but cannot show a SIGBUS.
    @Test func creatingAStoreOnAFullDiskIsAnIOErrorThatLeavesNothingBehind() throws {
        let base = temporaryStorePath("disk")
        defer { cleanUp(base) }
        let disk = URL(fileURLWithPath: base).deletingLastPathComponent().path + "/disk"
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
        let mounted = mount("tmpfs", disk, "tmpfs", 0, "size=256k,mode=0755") == 0
        defer { if mounted { umount2(disk, Int32(MNT_DETACH)) } }
        var failures = 0
        var successes = 0
        // Free space from nothing to enough, one 4 KiB page at a time around the sizes that matter.
        for free in stride(from: 0, through: 160 * 1024, by: 4096) {
            let path = disk + "/store.lmdb"
            let arguments: [String]
            if mounted {
                try fill(disk, leaving: free)
                arguments = ["open", path]
            } else {
                arguments = ["open", path, "--file-size-limit", String(free)]
            }
            let output = try runProbe(arguments)
            let exit = "free \(free): status \(output.status) \(output.output) \(output.errors)"
            #expect(
                output.status == 0 || output.status == 2, "the probe ended by a signal or an unexpected status: \(exit)"
            )
            if output.output.hasPrefix("ok") {
                successes += 1
                #expect(try runProbe(["count", path]).output == "ok 0\n", "free \(free): the store is whole")
            } else {
                failures += 1
                #expect(output.output.hasPrefix("error io "), "\(exit)")
                #expect(output.output.contains(path), "\(exit)")
                // The store lock's file (`NAME.strata-lock`) may stay: no store was made to delete it with.
                let left = try FileManager.default.contentsOfDirectory(atPath: disk).filter {
                    $0 != "fill" && !$0.hasSuffix(".strata-lock")
                }
                #expect(left.isEmpty, "free \(free): the failed creation left \(left)")
                // Once there is room again, the store can be created: nothing left refuses it.
                unlink(disk + "/fill")
                let retry = try runProbe(["open", path])
                #expect(retry.output == "ok\n", "free \(free), then room: \(retry.output)")
            }
            removeStore(path)
        }
        #expect(
            failures > 0 && successes > 0,
            "the sweep reached both a full disk and enough space (\(failures) failures, \(successes) successes)")
        print(
            "full disk: \(mounted ? "a 256 KiB tmpfs" : "RLIMIT_FSIZE (mount refused)"), \(failures) failed creations left nothing, \(successes) made whole stores"
        )
    }

    /// A store whose lock file has holes (as liblmdb leaves it: earlier versions of Strata did
    /// not reserve it) on a full disk: a writable open is a typed `io` error, where liblmdb
    /// would have died of SIGBUS writing to a hole; a read-only open still reads the store, so
    /// its data can be copied elsewhere. Needs a tmpfs (this process must be able to mount).
    @Test(.enabled(if: geteuid() == 0, "mounting a small tmpfs needs root"))
    func aStoreOnAFullDiskIsRefusedForWritingAndStillRead() throws {
        let base = temporaryStorePath("disk")
        defer { cleanUp(base) }
        let disk = URL(fileURLWithPath: base).deletingLastPathComponent().path + "/disk"
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
        guard mount("tmpfs", disk, "tmpfs", 0, "size=256k,mode=0755") == 0 else {
            withKnownIssue(
                "this process may not mount a tmpfs (\(String(cString: strerror(errno)))): the full disk is not exercised"
            ) {
                Issue.record("mount refused")
            }
            return
        }
        defer { umount2(disk, Int32(MNT_DETACH)) }
        let path = disk + "/store.lmdb"
        #expect(try runProbe(["insert", path, "3", "1"]).output.hasPrefix("ok "))
        // A lock file with holes, as liblmdb makes one with ftruncate.
        unlink(path + "/lock.mdb")
        let descriptor = open(path + "/lock.mdb", O_RDWR | O_CREAT, 0o600)
        try #require(descriptor >= 0 && ftruncate(descriptor, 65_536) == 0)
        close(descriptor)
        try fill(disk, leaving: 0)
        let write = try runProbe(["open", path])
        #expect(
            write.status == 2 && write.output.hasPrefix("error io ")
                && write.output.contains("No space left on device"),
            "status \(write.status): \(write.output) \(write.errors)")
        let read = try runProbe(["read", path])
        #expect(read.output == "ok 3\n", "status \(read.status): \(read.output) \(read.errors)")
    }

    /// Fills the file system of `directory` with a file `fill`, then shrinks the file so that
    /// `free` bytes remain.
    private func fill(_ directory: String, leaving free: Int) throws {
        let file = directory + "/fill"
        unlink(file)
        let descriptor = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let chunk = [UInt8](repeating: 0x55, count: 4096)
        var written = 0
        while true {
            let count = chunk.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            written += count
        }
        try #require(ftruncate(descriptor, off_t(max(0, written - free))) == 0)
    }

    private func removeStore(_ path: String) {
        unlink(path + "/data.mdb")
        unlink(path + "/lock.mdb")
        rmdir(path)
    }

    // MARK: SIGKILL while creating

    /// A store whose creation was killed must open afterwards: either there is no store (and
    /// the open creates it) or the whole one the killed process made; never a directory every
    /// later command refuses as `storeCorrupt`. Kills land at random moments of creation, in a
    /// missing directory (two in three) and in an existing empty one; the private directories of
    /// killed creators are removed by the next open.
    @Test func aCreationKilledAtAnyMomentLeavesNoStoreOrAWholeOne() throws {
        let kills = 120
        // How long a creation takes once the probe says "opening", to spread kills over it.
        let timing = temporaryStorePath("timing")
        defer { cleanUp(timing) }
        let first = try probeChild(["create", timing])
        first.waitForLine(startingWith: "opening")
        let started = Date()
        first.finish()
        let span = max(2_000, Int(Date().timeIntervalSince(started) * 1_000_000 * 1.5))
        var random = SystemRandomNumberGenerator()
        var outcomes: [String: Int] = [:]
        for kill in 0..<kills {
            let path = temporaryStorePath("killed")
            defer { cleanUp(path) }
            if kill % 3 == 2 {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            }
            let child = try probeChild(["create", path])
            child.waitForLine(startingWith: "opening")
            usleep(UInt32.random(in: 0...UInt32(span), using: &random))
            child.kill()
            let created = child.lines.contains { $0.hasPrefix("created") }
            do {
                let store = try openStore(path, model: ProbeModels.lmdb())
                #expect(try store.fetch(FetchRequest(entityName: "Item", resultType: .count)).count() == 0)
                #expect(!store.identifier.isEmpty)
                try store.close()
                outcomes[created ? "created before the kill" : "killed while creating", default: 0] += 1
            } catch {
                Issue.record(
                    "kill \(kill) (\(created ? "after" : "during") creation) left a store that cannot be opened: \(error)"
                )
            }
            let parent = URL(fileURLWithPath: path).deletingLastPathComponent().path
            let strays =
                ((try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? []).filter {
                    $0.contains(".creating-")
                }
                + ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).filter {
                    $0.contains(".creating-")
                }
            #expect(strays.isEmpty, "kill \(kill): the open left the killed creation's private directory \(strays)")
        }
        print("creation kills: \(kills), outcomes \(outcomes.sorted { $0.key < $1.key })")
    }

    /// Two processes creating one store at the same moment: both end with the one store (the
    /// same identifier), neither sees `storeCorrupt` or a half-made environment.
    @Test func twoProcessesCreatingOneStoreAtOnceBothOpenTheSameStore() throws {
        for round in 0..<20 {
            let path = temporaryStorePath("race")
            defer { cleanUp(path) }
            if round % 2 == 1 {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            }
            let start = path + ".start"
            let children = try [probeChild(["create", path, start]), probeChild(["create", path, start])]
            for child in children { child.waitForLine(startingWith: "opening") }
            _ = FileManager.default.createFile(atPath: start, contents: nil)
            for child in children { child.finish() }
            let identifiers = children.map { $0.lines.first { $0.hasPrefix("created ") } }
            #expect(
                identifiers.allSatisfy { $0 != nil } && identifiers[0] == identifiers[1],
                "round \(round) (\(round % 2 == 1 ? "empty directory" : "missing directory")): \(children.map(\.lines))"
            )
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: path).sorted() == ["data.mdb", "lock.mdb"],
                "round \(round)")
        }
    }

    /// The lock file of a new store is reserved at the size liblmdb gives it, so liblmdb never
    /// grows it (and never writes to pages not yet allocated).
    @Test func aNewStoresLockFileHasTheSizeLiblmdbGivesIt() throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        try openStore(path).close()
        let attributes = try FileManager.default.attributesOfItem(atPath: path + "/lock.mdb")
        #expect((attributes[.size] as? Int) == 65_536)
        var info = stat()
        #expect(stat(path + "/lock.mdb", &info) == 0 && Int(info.st_blocks) * 512 >= 65_536, "every byte is allocated")
    }

    // MARK: Read-only media

    /// `inspect`, `export` and `validate` could not read an LMDB store on read-only media: liblmdb
    /// opens `lock.mdb` for writing even for a read-only environment. A read-only open now reads
    /// without the lock file when it may not write it. As root, whose permission bits are not
    /// checked, the reading runs in a child that became `nobody`; otherwise in this process.
    @Test(arguments: [false, true])
    func aReadOnlyOpenReadsAStoreWhoseFilesItMayNotWrite(lockFileRemoved: Bool) throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        #expect(try runProbe(["insert", path, "3", "1"]).output.hasPrefix("ok "))
        if lockFileRemoved { unlink(path + "/lock.mdb") }
        chmod(URL(fileURLWithPath: path).deletingLastPathComponent().path, 0o755)
        chmod(path + "/data.mdb", 0o444)
        chmod(path + "/lock.mdb", 0o444)
        chmod(path, 0o555)
        if geteuid() == 0 {
            let output = try runProbe(["read", path, "--as-nobody"])
            #expect(output.output == "ok 3\n", "as nobody: \(output.output) \(output.errors)")
        } else {
            let store = try openStore(path, model: ProbeModels.lmdb(), options: StoreOptions(isReadOnly: true))
            #expect(try store.fetch(FetchRequest(entityName: "Item", resultType: .count)).count() == 3)
            try store.close()
        }
        #expect(access(path + "/lock.mdb", F_OK) == (lockFileRemoved ? -1 : 0), "nothing was written")
    }

    /// Reading without a reader slot is safe only while nobody writes: while another process
    /// holds the store open, the lockless read-only open is refused as `storeBusy`.
    @Test(.enabled(if: geteuid() == 0, "permission bits bind only a process that is not root"))
    func aLocklessReadIsRefusedWhileAnotherProcessHasTheStoreOpen() throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        let store = try openStore(path, model: ProbeModels.lmdb())
        defer { try? store.close() }
        chmod(URL(fileURLWithPath: path).deletingLastPathComponent().path, 0o755)
        chmod(path + "/data.mdb", 0o444)
        chmod(path + "/lock.mdb", 0o444)
        chmod(path, 0o555)
        let output = try runProbe(["read", path, "--as-nobody"])
        #expect(output.output.hasPrefix("error storeBusy "), "\(output.output) \(output.errors)")
        #expect(output.output.contains(path))
    }

    /// The same on a read-only file system (`EROFS`): a read-only bind mount of the store's
    /// directory, when this process may mount.
    @Test(.enabled(if: geteuid() == 0, "mounting needs root"))
    func aReadOnlyOpenReadsAStoreOnAReadOnlyFileSystem() throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        #expect(try runProbe(["insert", path, "4", "1"]).output.hasPrefix("ok "))
        unlink(path + "/lock.mdb")
        let view = path + "-readonly"
        try FileManager.default.createDirectory(atPath: view, withIntermediateDirectories: false)
        guard mount(path, view, nil, UInt(MS_BIND), nil) == 0 else {
            withKnownIssue(
                "this process may not bind-mount (\(String(cString: strerror(errno)))): the read-only file system is not exercised"
            ) {
                Issue.record("mount refused")
            }
            return
        }
        defer { umount2(view, Int32(MNT_DETACH)) }
        try #require(mount(path, view, nil, UInt(MS_BIND | MS_REMOUNT | MS_RDONLY), nil) == 0)
        try #require(
            access(view + "/x", F_OK) != 0 && open(view + "/x", O_CREAT | O_WRONLY, 0o600) == -1 && errno == EROFS)
        let output = try runProbe(["read", view])
        #expect(output.output == "ok 4\n", "\(output.output) \(output.errors)")
        let write = try runProbe(["open", view])
        #expect(
            write.output.hasPrefix("error "),
            "a writable open of a read-only file system fails with a typed error: \(write.output)")
    }

    // MARK: Whatever is at the path

    /// A FIFO where the store's directory or its `data.mdb` belongs made liblmdb (or the page
    /// check before it) wait for a writer for ever. Everything that is not a directory at the
    /// path, and anything but a regular file in place of `data.mdb` or `lock.mdb`, is refused
    /// as `storeCorrupt` naming the path and what is there, before anything opens it.
    @Test(arguments: [
        "fifo", "socket", "device", "file", "fifo data.mdb", "fifo lock.mdb", "socket data.mdb", "directory data.mdb",
    ])
    func somethingOtherThanAStoreDirectoryIsRefusedNamingItWithoutBlocking(_ what: String) throws {
        let base = temporaryStorePath()
        defer { cleanUp(base) }
        var path = base
        var target = base
        let expectedKind: String
        let parts = what.split(separator: " ").map(String.init)
        if parts.count == 2 {
            try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: false)
            target = base + "/" + parts[1]
        }
        switch parts[0] {
        case "fifo":
            try #require(mkfifo(target, 0o600) == 0)
            expectedKind = "FIFO"
        case "socket":
            try makeSocket(at: target)
            expectedKind = "socket"
        case "device":
            path = "/dev/null"
            target = path
            expectedKind = "character device"
        case "directory":
            try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: false)
            expectedKind = "directory"
        default:
            try Data("not a store".utf8).write(to: URL(fileURLWithPath: target))
            expectedKind = "regular file"
        }
        for arguments in [["open", path], ["read", path]] {
            guard let output = try runProbe(arguments, timeout: 20) else {
                Issue.record("\(arguments[0]) of \(what) blocked for 20 s")
                continue
            }
            #expect(output.output.hasPrefix("error storeCorrupt "), "\(what): \(output.output) \(output.errors)")
            #expect(output.output.contains(target) && output.output.contains(expectedKind), "\(what): \(output.output)")
        }
        var info = stat()
        #expect(lstat(target, &info) == 0, "\(what) is left in place")
    }

    private func makeSocket(at path: String) throws {
        #if os(Linux)
            let streamType = Int32(SOCK_STREAM.rawValue) // an enum on Glibc
        #else
            let streamType = SOCK_STREAM
        #endif
        let descriptor = socket(AF_UNIX, streamType, 0)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        try #require(bytes.count < MemoryLayout.size(ofValue: address.sun_path))
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: bytes)
            buffer[bytes.count] = 0
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        try #require(bound == 0)
    }
}

/// Runs the probe, killing it when it has not finished after `timeout` seconds (then `nil`).
private func runProbe(_ arguments: [String], timeout: TimeInterval) throws -> ProgramOutput? {
    let process = Process()
    process.executableURL = try builtExecutable("strata-lmdb-probe")
    process.arguments = arguments
    let out = Pipe.closedOnExec()
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    try process.run()
    let deadline = Date().addingTimeInterval(timeout)
    while process.isRunning && Date() < deadline { usleep(10_000) }
    if process.isRunning {
        _ = kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return nil
    }
    let data = out.fileHandleForReading.readDataToEndOfFile()
    return ProgramOutput(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self), errors: "")
}

/// A probe child whose standard output is read line by line, to kill it at a chosen moment.
private func probeChild(_ arguments: [String]) throws -> LineReadingProgram {
    try LineReadingProgram(builtExecutable("strata-lmdb-probe"), arguments, discardingErrors: true)
}

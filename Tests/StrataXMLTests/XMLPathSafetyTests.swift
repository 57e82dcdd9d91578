import Foundation
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataXML

/// A store reached through symbolic links or other spellings of its path, and paths that hold
/// something other than a regular file.
@Suite struct XMLPathSafetyTests {
    func insertItems(_ store: XMLStore, _ names: [String]) throws {
        let ids = try store.obtainPermanentIDs(for: "Item", count: names.count)
        try store.save(SaveRequest(inserts: zip(ids, names).map { itemSnapshot($0, name: $1) }))
    }

    func names(_ store: XMLStore) throws -> [Value] {
        try store.fetch(FetchRequest(entityName: "Item")).snapshots().map { $0.attributes[0] }
    }

    func isSymbolicLink(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK
    }

    func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    // MARK: Symbolic links and other spellings

    /// A save through a link used to rename the new version over the link, turning it into a
    /// regular file while the file it pointed at stayed as it was.
    @Test func aSaveThroughASymbolicLinkWritesTheLinkedFileAndKeepsTheLink() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        try FileManager.default.createDirectory(atPath: dir.file("data"), withIntermediateDirectories: true)
        let real = dir.file("data/store.xml")
        try insertItems(openStore(StoreURL(scheme: "xml", location: real)), ["before"])
        #expect(symlink(real, dir.file("link.xml")) == 0)

        let throughLink = try openStore(dir.url("link.xml"))
        #expect(throughLink.path == real)
        try insertItems(throughLink, ["through the link"])

        #expect(isSymbolicLink(dir.file("link.xml")), "the link is still a link")
        let reopened = try openStore(StoreURL(scheme: "xml", location: real), options: StoreOptions(isReadOnly: true))
        #expect(try names(reopened) == [.string("before"), .string("through the link")])
        #expect(exists(real + ".lock") && exists(real + ".keys"))
        #expect(
            !exists(dir.file("link.xml.lock")) && !exists(dir.file("link.xml.keys")),
            "the lock and the ledger follow the real file, not the link's name")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: dir.path).withoutStoreLocks.sorted() == [
                "data", "link.xml",
            ])
    }

    /// Two spellings of one store used to lock two different lock files and keep two key
    /// ledgers, so they could save at the same moment and hand out the same keys.
    @Test func everySpellingOfAStoreSharesOneWriterLockAndOneKeyLedger() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        try FileManager.default.createDirectory(atPath: dir.file("data"), withIntermediateDirectories: true)
        let real = dir.file("data/store.xml")
        try insertItems(openStore(StoreURL(scheme: "xml", location: real)), ["first"])
        #expect(symlink(real, dir.file("link.xml")) == 0)
        #expect(symlink(dir.file("data"), dir.file("alias")) == 0)
        let spellings = [
            real, dir.file("link.xml"), dir.file("data/../data/store.xml"), dir.file("alias/store.xml"),
            dir.file("data/./store.xml"),
        ]
        let stores = try spellings.map { try openStore(StoreURL(scheme: "xml", location: $0)) }

        // The writer lock: while one spelling holds it, every other spelling's save is busy,
        // exactly as for a second open of the same spelling.
        let held = try #require(stores[0].state.withLock { $0.fileLock })
        try held.lock(timeoutMilliseconds: 0, storePath: real)
        for store in stores.dropFirst() {
            let error = strataError { try insertItems(store, ["blocked"]) }
            #expect(error?.code == .storeBusy, "saving through \(store.url) while \(real) is being saved")
        }
        held.unlock()

        // The key ledger: keys handed out through any spelling are never handed out again.
        var keys: [Int64] = []
        for store in stores {
            keys += try store.obtainPermanentIDs(for: "Item", count: 3).map { $0.primaryKey! }
        }
        #expect(Set(keys).count == keys.count, "keys handed out twice: \(keys)")
        #expect(Set(stores.map(\.path)) == [real])
    }

    @Test func aNewStoreIsCreatedWhereItsPathReallyLeads() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        try FileManager.default.createDirectory(atPath: dir.file("data"), withIntermediateDirectories: true)
        // A dangling link: the store is created at the link's target, and the link stays.
        #expect(symlink("data/target.xml", dir.file("dangling.xml")) == 0)
        let created = try openStore(dir.url("dangling.xml"))
        try insertItems(created, ["new"])
        #expect(isSymbolicLink(dir.file("dangling.xml")))
        #expect(
            try names(openStore(StoreURL(scheme: "xml", location: dir.file("data/target.xml")))) == [.string("new")])
        // A path through `..`.
        let dotted = try openStore(StoreURL(scheme: "xml", location: dir.file("data/../data/dotted.xml")))
        #expect(dotted.path == dir.file("data/dotted.xml"))
        #expect(exists(dir.file("data/dotted.xml")))
        // Destroying through the link removes the store it leads to (once it is closed).
        try created.close()
        try XMLBackend().destroyStore(at: dir.url("dangling.xml"))
        #expect(
            !exists(dir.file("data/target.xml")) && !exists(dir.file("data/target.xml.lock"))
                && !exists(dir.file("data/target.xml.keys")))
    }

    @Test func aLoopOfLinksIsAnIOError() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        #expect(symlink(dir.file("b.xml"), dir.file("a.xml")) == 0)
        #expect(symlink(dir.file("a.xml"), dir.file("b.xml")) == 0)
        let error = strataError { _ = try openStore(dir.url("a.xml")) }
        #expect(error?.code == .io)
        #expect(isSymbolicLink(dir.file("a.xml")) && isSymbolicLink(dir.file("b.xml")))
    }

    // MARK: Not a regular file

    /// Runs `body` on another thread and returns its error, or records a failure when it has not
    /// returned within `seconds` (then opens `fifo` for writing and closes it, which releases an
    /// open or a read blocked on it, so the test ends).
    func promptly(unblocking fifo: String, seconds: Double = 5, _ body: @escaping @Sendable () -> StrataError?)
        -> StrataError?
    {
        final class Box: @unchecked Sendable {
            let lock = NSLock()
            var error: StrataError?
        }
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        Thread {
            let error = body()
            box.lock.withLock { box.error = error }
            done.signal()
        }.start()
        if done.wait(timeout: .now() + seconds) == .timedOut {
            Issue.record("blocked for more than \(seconds) s on the FIFO \(fifo)")
            while done.wait(timeout: .now() + 0.05) == .timedOut {
                let fd = open(fifo, O_WRONLY | O_NONBLOCK)
                if fd >= 0 { close(fd) }
            }
        }
        return box.lock.withLock { box.error }
    }

    /// Opening a store whose path is a FIFO used to block forever in `open`.
    @Test(arguments: [false, true]) func aFIFOAtTheStorePathIsRefusedWithoutBlocking(readOnly: Bool) throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let fifo = dir.file("store.xml")
        #expect(mkfifo(fifo, 0o600) == 0)
        let url = dir.url()
        let error = promptly(unblocking: fifo) {
            strataError { _ = try openStore(url, options: StoreOptions(isReadOnly: readOnly)) }
        }
        #expect(error?.code == .io)
        #expect(error?.message.contains("FIFO") == true)
        #expect(error?.location["path"] == fifo)
        #expect(error?.location["fileType"] == "FIFO")
        let metadataError = promptly(unblocking: fifo) { strataError { _ = try XMLBackend().metadata(at: url) } }
        #expect(metadataError?.code == .io)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: dir.path).withoutStoreLocks == ["store.xml"],
            "nothing is created beside it")
    }

    /// A FIFO reached through a link is refused the same way.
    @Test func aLinkToAFIFOIsRefusedWithoutBlocking() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let fifo = dir.file("pipe")
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(symlink(fifo, dir.file("store.xml")) == 0)
        let url = dir.url()
        let error = promptly(unblocking: fifo) { strataError { _ = try openStore(url) } }
        #expect(error?.code == .io)
        #expect(error?.message.contains("FIFO") == true)
    }

    @Test func aDirectoryOrADeviceAtTheStorePathIsAnIOErrorNamingIt() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        try FileManager.default.createDirectory(atPath: dir.file("store.xml"), withIntermediateDirectories: true)
        let directoryError = strataError { _ = try openStore(dir.url()) }
        #expect(directoryError?.code == .io)
        #expect(directoryError?.message.contains("is a directory") == true)

        let deviceError = strataError {
            _ = try openStore(StoreURL(scheme: "xml", location: "/dev/null"), options: StoreOptions(isReadOnly: true))
        }
        #expect(deviceError?.code == .io)
        #expect(deviceError?.message.contains("character device") == true)
        #expect(deviceError?.location["path"] == "/dev/null")
    }

    @Test func aSocketAtTheStorePathIsAnIOErrorNamingIt() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let path = dir.file("store.xml")
        #if os(Linux)
            let streamType = Int32(SOCK_STREAM.rawValue) // an enum on Glibc
        #else
            let streamType = SOCK_STREAM
        #endif
        let socketFD = socket(AF_UNIX, streamType, 0)
        #expect(socketFD >= 0)
        defer { close(socketFD) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let pathBytes = Array(path.utf8)
        try #require(pathBytes.count < MemoryLayout.size(ofValue: address.sun_path))
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: pathBytes) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socketFD, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        try #require(bound == 0)
        let error = strataError { _ = try openStore(dir.url()) }
        #expect(error?.code == .io)
        #expect(error?.message.contains("socket") == true)
    }

    /// The lock file and the key ledger beside a store are refused the same way when they are
    /// FIFOs: a save or a key hand-out fails at once, naming the file, and the store's data stays.
    @Test func aFIFOAsTheLockFileOrTheKeyLedgerIsRefused() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let path = dir.file("store.xml")
        let store = try openStore(dir.url())
        try insertItems(store, ["kept"])
        try store.close()
        let saved = contents(path)

        unlink(path + ".lock")
        #expect(mkfifo(path + ".lock", 0o600) == 0)
        let url = dir.url()
        let lockError = promptly(unblocking: path + ".lock") { strataError { _ = try openStore(url) } }
        #expect(lockError?.code == .io)
        #expect(lockError?.message.contains("lock file") == true)
        #expect(lockError?.message.contains("FIFO") == true)
        unlink(path + ".lock")

        unlink(path + ".keys")
        #expect(mkfifo(path + ".keys", 0o600) == 0)
        let reopened = try openStore(url)
        let ledgerError = promptly(unblocking: path + ".keys") {
            strataError { _ = try reopened.obtainPermanentIDs(for: "Item", count: 1) }
        }
        #expect(ledgerError?.code == .io)
        #expect(ledgerError?.message.contains("key ledger") == true)
        #expect(ledgerError?.message.contains("FIFO") == true)
        #expect(contents(path) == saved)
    }
}

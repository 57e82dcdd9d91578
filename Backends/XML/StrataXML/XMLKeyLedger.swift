import Foundation
import StrataCore

/// The primary keys an XML store has handed out, kept durably in `NAME.keys` beside the store so
/// that no key is ever handed out twice: not after the store is closed without saving and opened
/// again, not by two processes (or two stores in one process) that opened the same file.
///
/// The store file stays the one atomic file that holds the data; the ledger only holds, per entity,
/// the next key that may be handed out, as text:
///
/// ```
/// strata-xml-keys 1
/// store 951BE41E-…
/// next Department 3
/// next Employee 12
/// end
/// ```
///
/// Each hand-out takes an exclusive `flock` on the ledger, reads it, starts after both the ledger's
/// next key and the store's own sequence (so keys saved by any process and keys handed out but not
/// saved are both skipped), writes the new next key with one `pwrite` and `fdatasync`s it before
/// any key is returned. A hand-out costs one small synchronous write (the engine asks once per
/// entity per save), and a crash after it leaves the keys reserved: they are gaps, never reused.
///
/// A ledger naming another store identifier (left by a store that was deleted and created again
/// at the same path) says nothing about this store and is overwritten. Deleting the ledger of a
/// store whose file is intact only forgets keys that were handed out and never saved.
final class XMLKeyLedger: Sendable {
    /// The ledger's path: the store's path followed by `.keys`.
    let path: String
    /// The store identifier the ledger must name.
    let storeIdentifier: String
    /// The model's entity names, indexed like the model.
    let entityNames: [String]
    /// The open ledger file, opened on first use (`-1` before, `-2` once closed), and serializing this process's
    /// hand-outs (`flock` serializes processes, and stores of one process, since each has its own
    /// open file description).
    private let descriptor = Locked<Int32>(-1)

    /// The ledger of the store at `storePath`. Touches nothing until keys are handed out.
    init(storePath: String, storeIdentifier: String, entityNames: [String]) {
        path = storePath + ".keys"
        self.storeIdentifier = storeIdentifier
        self.entityNames = entityNames
    }

    deinit { close() }

    /// Closes the ledger file; later hand-outs throw ``StrataError/Code/storeClosed``.
    func close() {
        descriptor.withLock { fd in
            if fd >= 0 { _ = Foundation.close(fd) }
            fd = -2
        }
    }

    /// Hands out `count` keys of the entity at `entity`, the first at least `floor` (the next key
    /// of the store's own sequence), and records them durably before returning the first.
    ///
    /// With `count` 0 it only raises the recorded next key to `floor` (writing nothing when the
    /// ledger is already there) and returns `floor`.
    ///
    /// - Throws: ``StrataError/Code/storeCorrupt`` for a ledger that cannot be read (with `path`
    ///   and `line`), ``StrataError/Code/internalInconsistency`` when the keys are exhausted,
    ///   ``StrataError/Code/io`` (or ``StrataError/Code/readOnly``) when it cannot be written.
    func reserve(entity: Int, count: Int, floor: Int64) throws -> Int64 {
        try descriptor.withLock { fd in
            var created = false
            if fd == -2 {
                throw StrataError(.storeClosed, "the XML store beside \(path) is closed", location: ["path": path])
            }
            if fd < 0 {
                var existing = stat()
                created = stat(path, &existing) != 0
                fd = try XMLStorePath.openRegularFile(path, flags: O_RDWR | O_CREAT, role: "key ledger")
            }
            while flock(fd, LOCK_EX) != 0 {
                guard errno == EINTR else {
                    throw XMLAtomicFile.ioError("cannot lock the key ledger \(path)", path: path)
                }
            }
            defer { _ = flock(fd, LOCK_UN) }

            var next = try read(fd)
            let name = entityNames[entity]
            let first = max(floor, next[name] ?? 1)
            let (end, overflow) = first.addingReportingOverflow(Int64(count))
            guard !overflow else {
                throw StrataError(
                    .internalInconsistency, "the primary keys of \(name) are exhausted",
                    location: ["entity": name, "path": path])
            }
            if next[name] == end && !created { return first }
            next[name] = end
            try write(next, to: fd)
            if created {
                // The ledger's directory entry must survive a crash as well as its content.
                try XMLAtomicFile.syncDirectory(URL(fileURLWithPath: path).deletingLastPathComponent().path)
            }
            return first
        }
    }

    // MARK: The file

    /// The first line of a ledger.
    static let header = "strata-xml-keys 1"
    /// The longest ledger read (a ledger holds one short line per entity).
    static let maximumSize = 1 << 20

    /// The next key of each entity the ledger names (empty for an empty ledger or one of another
    /// store).
    private func read(_ fd: Int32) throws -> [String: Int64] {
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw XMLAtomicFile.ioError("cannot read the key ledger \(path)", path: path)
        }
        let size = Int(info.st_size)
        if size == 0 { return [:] }
        guard size <= Self.maximumSize else {
            throw corrupt("is \(size) bytes long; a key ledger is a few lines", line: 1)
        }
        var bytes = [UInt8](repeating: 0, count: size)
        var done = 0
        while done < size {
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, size - done, off_t(done)) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw XMLAtomicFile.ioError("cannot read the key ledger \(path)", path: path) }
            guard n > 0 else { break }
            done += n
        }
        let lines = String(decoding: bytes[..<done], as: UTF8.self).split(
            separator: "\n", omittingEmptySubsequences: false)
        guard lines.first == Substring(Self.header) else {
            throw corrupt("does not start with '\(Self.header)'", line: 1)
        }
        guard lines.count >= 2, lines[1].hasPrefix("store ") else {
            throw corrupt("has no 'store IDENTIFIER' line", line: 2)
        }
        if lines[1].dropFirst("store ".count) != Substring(storeIdentifier) { return [:] }
        var next: [String: Int64] = [:]
        for (i, line) in lines.enumerated().dropFirst(2) {
            // Anything after `end` is a longer earlier version's tail that a crash kept.
            if line == "end" { return next }
            let fields = line.split(separator: " ", omittingEmptySubsequences: false)
            guard fields.count == 3, fields[0] == "next", let key = Int64(fields[2]), key >= 1 else {
                throw corrupt("line '\(line.prefix(80))' is not 'next ENTITY KEY' with a key >= 1", line: i + 1)
            }
            next[String(fields[1])] = key
        }
        throw corrupt("has no 'end' line: it was cut short", line: lines.count)
    }

    /// Replaces the ledger's content with `next` (entities sorted by name) and syncs it.
    private func write(_ next: [String: Int64], to fd: Int32) throws {
        var text = Self.header + "\nstore " + storeIdentifier + "\n"
        for (name, key) in next.sorted(by: { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }) {
            text += "next \(name) \(key)\n"
        }
        text += "end\n"
        let bytes = Array(text.utf8)
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress! + done, bytes.count - done, off_t(done)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw XMLAtomicFile.ioError("cannot write the key ledger \(path)", path: path) }
            done += n
        }
        guard ftruncate(fd, off_t(bytes.count)) == 0 else {
            throw XMLAtomicFile.ioError("cannot write the key ledger \(path)", path: path)
        }
        #if canImport(Darwin)
            let synced = fsync(fd) // Darwin has no fdatasync
        #else
            let synced = fdatasync(fd)
        #endif
        guard synced == 0 else { throw XMLAtomicFile.ioError("cannot sync the key ledger \(path) to disk", path: path) }
    }

    /// A ``StrataError/Code/storeCorrupt`` error about the ledger.
    private func corrupt(_ problem: String, line: Int) -> StrataError {
        StrataError(
            .storeCorrupt,
            "the key ledger \(path), line \(line), \(problem); fix or delete it (deleting it only forgets keys that were handed out and never saved)",
            location: ["path": path, "line": String(line)])
    }
}

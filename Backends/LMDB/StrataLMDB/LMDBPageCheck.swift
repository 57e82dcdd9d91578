import Foundation
import StrataCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The page check that runs when an environment opens, so that no damaged or hostile data file
/// can crash the process inside liblmdb, which trusts every page it maps: damage becomes a
/// ``StrataError/Code/storeCorrupt`` naming the file, the page, the field and its value.
///
/// It runs in two steps:
///
/// 1. ``checkMetaPages(directory:)``, before `mdb_env_open`: both meta pages are read with
///    `pread`, as liblmdb's `mdb_env_read_header` reads them, and must be valid meta pages
///    (`P_META`, magic, version) with a page size liblmdb can have written (a page size of 0
///    would divide by zero inside `mdb_env_open`), and the file must hold every page the newest
///    one counts (a truncated file would fault when its missing pages are touched).
/// 2. ``checkSnapshot(directory:descriptor:pageSize:transaction:)``, after `mdb_env_open` (which
///    reads only the meta pages) and inside a read transaction, before anything reads a B-tree
///    page: every tree reachable from the meta page of the transaction's snapshot is walked
///    (``LMDBTreeWalk``) through a read-only map of the file. The read transaction's reader slot
///    keeps other processes' writers from reusing the snapshot's pages during the walk; a meta
///    page rewritten by a concurrent commit while it was read is detected and the check retried.
///
/// Step 2 reads every page in use, which costs time proportional to the store (measured in
/// Benchmarks/README.md, "LMDB open check"); the `pageCheck=off` option skips it for trusted
/// files. Step 1 always runs (two small reads).
enum LMDBPageCheck {
    /// What ``checkMetaPages(directory:)`` found.
    struct MetaPages {
        /// The page size (`mm_psize`).
        var pageSize: Int
        /// The meta page liblmdb picks at open: the one with the higher transaction number.
        var newest: LMDBMetaPage
    }

    // MARK: Step 1: meta pages, before mdb_env_open

    /// Checks the meta pages of `directory`'s `data.mdb` before liblmdb opens it. Returns `nil`
    /// when there is no data file or it is empty (liblmdb then creates the environment).
    static func checkMetaPages(directory: String) throws -> MetaPages? {
        let file = LMDBDirectory.dataFile(directory)
        let descriptor = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard descriptor >= 0 else { return nil } // mdb_env_open reports why with its own error
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw LMDBDirectory.failure(file, errno: errno, doing: "examining") }
        let size = Int(info.st_size)
        guard size > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: LMDBMetaPage.byteCount)
        func read(slot: UInt64, at offset: Int) throws -> LMDBMetaPage {
            let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, off_t(offset)) }
            guard count == LMDBMetaPage.byteCount else {
                if count < 0 { throw LMDBDirectory.failure(file, errno: errno, doing: "reading") }
                throw LMDBPageDamage(
                    page: slot, role: "meta page", field: "file size", value: String(size),
                    reason: "data.mdb holds \(size) bytes, too few for meta page \(slot) at offset \(offset)"
                ).error(directory: directory)
            }
            let meta = buffer.withUnsafeBytes { LMDBMetaPage($0.baseAddress!) }
            if let damage = problem(with: meta, slot: slot) { throw damage.error(directory: directory) }
            return meta
        }
        let first = try read(slot: 0, at: 0)
        let second = try read(slot: 1, at: first.pageSize)
        guard second.pageSize == first.pageSize else {
            throw LMDBPageDamage(
                page: 1, role: "meta page", field: "mm_psize", value: String(second.pageSize),
                reason: "meta page 1 says pages are \(second.pageSize) bytes, meta page 0 says \(first.pageSize)"
            ).error(directory: directory)
        }
        let newestSlot = second.transaction > first.transaction ? 1 : 0
        let newest = newestSlot == 1 ? second : first
        let pages = newest.lastPage.addingReportingOverflow(1)
        let bytes = pages.partialValue.multipliedReportingOverflow(by: UInt64(first.pageSize))
        guard !pages.overflow, !bytes.overflow, bytes.partialValue <= UInt64(size) else {
            // Another process may have committed between measuring the file and reading the
            // meta pages: the file has grown since. The page walk inside the read transaction
            // checks that snapshot's pages against the file as it is then.
            var now = stat()
            if !pages.overflow, !bytes.overflow, fstat(descriptor, &now) == 0, bytes.partialValue <= UInt64(now.st_size)
            {
                return MetaPages(pageSize: first.pageSize, newest: newest)
            }
            throw StrataError(
                .storeCorrupt,
                "LMDB store at \(directory): data.mdb is truncated: it holds \(size) bytes, but its meta page counts \(pages.partialValue) pages of \(first.pageSize) bytes",
                location: [
                    "path": directory, "file": file, "page": String(newestSlot), "field": "mm_last_pg",
                    "value": String(newest.lastPage),
                ])
        }
        return MetaPages(pageSize: first.pageSize, newest: newest)
    }

    /// Why `meta`, read from meta page `slot`, cannot be a meta page liblmdb wrote; `nil` when it can.
    static func problem(with meta: LMDBMetaPage, slot: UInt64) -> LMDBPageDamage? {
        func damage(_ field: String, _ value: String, _ reason: String) -> LMDBPageDamage {
            LMDBPageDamage(page: slot, role: "meta page", field: field, value: value, reason: reason)
        }
        if meta.pageFlags & LMDBPageFormat.metaPage == 0 {
            let flags = "0x" + String(meta.pageFlags, radix: 16)
            return damage(
                "mp_flags", flags, "mp_flags is \(flags), without P_META (0x8): this is not an LMDB meta page")
        }
        if meta.magic != LMDBPageFormat.magic {
            let magic = "0x" + String(meta.magic, radix: 16)
            return damage(
                "mm_magic", magic, "the magic number is \(magic), not 0xbeefc0de: this is not an LMDB data file")
        }
        if meta.version != LMDBPageFormat.dataVersion {
            return damage(
                "mm_version", String(meta.version),
                "the data format version is \(meta.version); this liblmdb reads version 1")
        }
        if !LMDBPageFormat.isPageSize(meta.pageSize) {
            return damage(
                "mm_psize", String(meta.pageSize),
                "the page size is \(meta.pageSize), not a power of two from \(LMDBPageFormat.pageSizes.lowerBound) to \(LMDBPageFormat.pageSizes.upperBound)"
            )
        }
        if meta.lastPage < LMDBPageFormat.metaPageCount - 1 {
            return damage(
                "mm_last_pg", String(meta.lastPage), "the last page is \(meta.lastPage), before the meta pages end")
        }
        return nil
    }

    // MARK: Step 2: the trees, inside a read transaction

    /// Walks every tree of the snapshot that read transaction `transaction` sees, through a
    /// read-only map of the data file open as `descriptor` (liblmdb's own, from
    /// `mdb_env_get_fd`: closing another descriptor of the file is never needed).
    static func checkSnapshot(directory: String, descriptor: Int32, pageSize: Int, transaction: UInt64) throws {
        let file = LMDBDirectory.dataFile(directory)
        var attempt = 0
        while true {
            attempt += 1
            var info = stat()
            guard fstat(descriptor, &info) == 0 else {
                throw LMDBDirectory.failure(file, errno: errno, doing: "examining")
            }
            let length = Int(info.st_size) - Int(info.st_size) % pageSize
            guard length >= 2 * pageSize else {
                throw LMDBPageDamage(
                    page: 1, role: "meta page", field: "file size", value: String(info.st_size),
                    reason: "data.mdb holds \(info.st_size) bytes, too few for two meta pages of \(pageSize) bytes"
                ).error(directory: directory)
            }
            let mapped: UnsafeMutableRawPointer? = mmap(nil, length, PROT_READ, MAP_SHARED, descriptor, 0)
            guard let map = mapped, map != UnsafeMutableRawPointer(bitPattern: -1) else {
                throw LMDBDirectory.failure(file, errno: errno, doing: "mapping")
            }
            defer { munmap(map, length) }
            let base = UnsafeRawPointer(map)
            let metas = (0..<2).map { LMDBMetaPage(base + $0 * pageSize) }
            // The snapshot's meta page, or a later one a concurrent commit wrote over it (pages
            // reachable from a later snapshot are protected by the same reader slot).
            let candidates = (0..<2).filter {
                problem(with: metas[$0], slot: UInt64($0)) == nil && metas[$0].transaction >= transaction
            }
            let slot = candidates.min { metas[$0].transaction < metas[$1].transaction }
            let copy = slot.map {
                Array(UnsafeRawBufferPointer(start: base + $0 * pageSize, count: LMDBMetaPage.byteCount))
            }
            do {
                guard let slot else {
                    let expected = Int(transaction & 1)
                    throw problem(with: metas[expected], slot: UInt64(expected))
                        ?? LMDBPageDamage(
                            page: UInt64(expected), role: "meta page", field: "mm_txnid",
                            value: String(metas[expected].transaction),
                            reason:
                                "the environment's last transaction is \(transaction), but the meta pages hold transactions \(metas[0].transaction) and \(metas[1].transaction)"
                        )
                }
                let meta = metas[slot]
                guard meta.pageSize == pageSize else {
                    throw LMDBPageDamage(
                        page: UInt64(slot), role: "meta page", field: "mm_psize", value: String(meta.pageSize),
                        reason:
                            "the meta page says pages are \(meta.pageSize) bytes; the environment was opened with \(pageSize)"
                    )
                }
                guard meta.lastPage < UInt64(length / pageSize) else {
                    // A commit between measuring the file and reading its meta pages grows the
                    // file and writes a newer meta page: measure and map again.
                    var now = stat()
                    if attempt < 8, fstat(descriptor, &now) == 0, now.st_size > info.st_size { continue }
                    throw LMDBPageDamage(
                        page: UInt64(slot), role: "meta page", field: "mm_last_pg", value: String(meta.lastPage),
                        reason:
                            "the snapshot's last page is \(meta.lastPage), but data.mdb holds \(length / pageSize) pages: it is truncated"
                    )
                }
                var walk = LMDBTreeWalk(base: base, pageSize: pageSize, lastPage: meta.lastPage)
                try walk.check(meta, slot: UInt64(slot))
                return
            } catch let damage as LMDBPageDamage {
                let now = slot.map {
                    Array(UnsafeRawBufferPointer(start: base + $0 * pageSize, count: LMDBMetaPage.byteCount))
                }
                let rewritten = now != copy || (0..<2).contains { LMDBMetaPage(base + $0 * pageSize) != metas[$0] }
                if rewritten && attempt < 3 { continue }
                throw damage.error(directory: directory)
            }
        }
    }
}

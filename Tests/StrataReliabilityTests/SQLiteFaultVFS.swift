import CStrataSQLite
import Foundation
import StrataCore

/// A SQLite VFS over the default one (`unix`) that makes chosen calls fail, registered under
/// ``name`` and chosen per store with the SQLite store's `vfs` option.
///
/// Every file it opens is the default VFS's file, prefixed by a small header (the shim's method
/// table and the file's directory); every method forwards to the default one, unless a fault is
/// armed for the file's directory (``arm(_:directory:)``): then the `countdown`-th call of the
/// armed operation fails with the armed SQLite code, as a failing disk would make the default
/// VFS report (`SQLITE_IOERR_WRITE` for EIO, `SQLITE_FULL` for ENOSPC, `SQLITE_IOERR_FSYNC`),
/// after writing half of the data for a short write.
enum SQLiteFaultVFS {
    /// The VFS name to pass as the store option `vfs`.
    static let name = "strata-fault"

    /// The file method a fault replaces.
    enum Operation: Sendable, Hashable {
        case write, sync, truncate
    }

    /// One armed fault (one plan injects one fault, then disarms itself).
    struct Plan: Sendable, Hashable {
        var operation: Operation
        var countdown: Int
        var code: Int32
        var short = false
    }

    private static let plans = Locked<[String: Plan]>([:])
    private static let injected = Locked<[String: Int]>([:])

    /// Arms `plan` for the files in `directory`.
    static func arm(_ plan: Plan, directory: String) {
        _ = registration
        plans.withLock { $0[directory] = plan }
    }

    /// Disarms `directory`; returns the faults injected there since the last call.
    @discardableResult
    static func disarm(directory: String) -> Int {
        plans.withLock { $0[directory] = nil }
        return injected.withLock { $0.removeValue(forKey: directory) ?? 0 }
    }

    /// Registers the VFS (once per process).
    static let registration: Void = {
        guard let base = sqlite3_vfs_find(nil) else { fatalError("SQLite has no default VFS") }
        baseVFS = base
        let vfs = UnsafeMutablePointer<sqlite3_vfs>.allocate(capacity: 1)
        vfs.initialize(to: base.pointee)
        vfs.pointee.zName = UnsafePointer(strdup(name))
        vfs.pointee.szOsFile = Int32(headerSize) + base.pointee.szOsFile
        vfs.pointee.pNext = nil
        vfs.pointee.xOpen = shimOpen
        methods.initialize(
            to: sqlite3_io_methods(
                iVersion: 3, xClose: shimClose, xRead: shimRead, xWrite: shimWrite, xTruncate: shimTruncate,
                xSync: shimSync, xFileSize: shimFileSize, xLock: shimLock, xUnlock: shimUnlock,
                xCheckReservedLock: shimCheckReservedLock, xFileControl: shimFileControl, xSectorSize: shimSectorSize,
                xDeviceCharacteristics: shimDeviceCharacteristics, xShmMap: shimShmMap, xShmLock: shimShmLock,
                xShmBarrier: shimShmBarrier, xShmUnmap: shimShmUnmap, xFetch: shimFetch, xUnfetch: shimUnfetch))
        guard sqlite3_vfs_register(vfs, 0) == SQLITE_OK else { fatalError("cannot register the fault VFS") }
    }()

    /// The fault due now for `operation` on a file in `directory`, if any.
    fileprivate static func due(_ operation: Operation, directory: String) -> Plan? {
        let plan: Plan? = plans.withLock { plans in
            guard var plan = plans[directory], plan.operation == operation else { return nil }
            if plan.countdown > 0 {
                plan.countdown -= 1
                plans[directory] = plan
                return nil
            }
            plans[directory] = nil
            return plan
        }
        if plan != nil { injected.withLock { $0[directory, default: 0] += 1 } }
        return plan
    }
}

// MARK: The shim (C function pointers cannot capture, so its state is global and immutable after registration)

nonisolated(unsafe) private var baseVFS: UnsafeMutablePointer<sqlite3_vfs>!
nonisolated(unsafe) private let methods = UnsafeMutablePointer<sqlite3_io_methods>.allocate(capacity: 1)
/// The shim's header before the default VFS's file: the method table pointer, the directory.
private let headerSize = 16

private func real(_ file: UnsafeMutablePointer<sqlite3_file>?) -> UnsafeMutablePointer<sqlite3_file> {
    (UnsafeMutableRawPointer(file!) + headerSize).assumingMemoryBound(to: sqlite3_file.self)
}

private func directorySlot(_ file: UnsafeMutablePointer<sqlite3_file>?) -> UnsafeMutablePointer<
    UnsafeMutablePointer<CChar>?
> {
    (UnsafeMutableRawPointer(file!) + 8).assumingMemoryBound(to: UnsafeMutablePointer<CChar>?.self)
}

private func fault(_ operation: SQLiteFaultVFS.Operation, _ file: UnsafeMutablePointer<sqlite3_file>?) -> SQLiteFaultVFS
    .Plan?
{
    guard let directory = directorySlot(file).pointee else { return nil }
    return SQLiteFaultVFS.due(operation, directory: String(cString: directory))
}

private let shimOpen:
    @convention(c) (
        UnsafeMutablePointer<sqlite3_vfs>?, UnsafePointer<CChar>?, UnsafeMutablePointer<sqlite3_file>?, Int32,
        UnsafeMutablePointer<Int32>?
    ) -> Int32 = { _, name, file, flags, outFlags in
        guard let file else { return SQLITE_MISUSE }
        file.pointee.pMethods = nil
        directorySlot(file).pointee = name.map { strdup((String(cString: $0) as NSString).deletingLastPathComponent) }
        let target = real(file)
        target.pointee.pMethods = nil
        let code = baseVFS.pointee.xOpen(baseVFS, name, target, flags, outFlags)
        if target.pointee.pMethods != nil {
            file.pointee.pMethods = UnsafePointer(methods)
        } else {
            free(directorySlot(file).pointee)
            directorySlot(file).pointee = nil
        }
        return code
    }

private let shimClose: @convention(c) (UnsafeMutablePointer<sqlite3_file>?) -> Int32 = { file in
    let target = real(file)
    let code = target.pointee.pMethods.pointee.xClose(target)
    free(directorySlot(file).pointee)
    directorySlot(file).pointee = nil
    return code
}

private let shimRead:
    @convention(c) (UnsafeMutablePointer<sqlite3_file>?, UnsafeMutableRawPointer?, Int32, sqlite3_int64) -> Int32 = {
        file, buffer, amount, offset in
        let target = real(file)
        return target.pointee.pMethods.pointee.xRead(target, buffer, amount, offset)
    }

private let shimWrite:
    @convention(c) (UnsafeMutablePointer<sqlite3_file>?, UnsafeRawPointer?, Int32, sqlite3_int64) -> Int32 = {
        file, buffer, amount, offset in
        let target = real(file)
        if let plan = fault(.write, file) {
            if plan.short { _ = target.pointee.pMethods.pointee.xWrite(target, buffer, amount / 2, offset) }
            return plan.code
        }
        return target.pointee.pMethods.pointee.xWrite(target, buffer, amount, offset)
    }

private let shimTruncate: @convention(c) (UnsafeMutablePointer<sqlite3_file>?, sqlite3_int64) -> Int32 = { file, size in
    if let plan = fault(.truncate, file) { return plan.code }
    let target = real(file)
    return target.pointee.pMethods.pointee.xTruncate(target, size)
}

private let shimSync: @convention(c) (UnsafeMutablePointer<sqlite3_file>?, Int32) -> Int32 = { file, flags in
    if let plan = fault(.sync, file) { return plan.code }
    let target = real(file)
    return target.pointee.pMethods.pointee.xSync(target, flags)
}

private let shimFileSize:
    @convention(c) (UnsafeMutablePointer<sqlite3_file>?, UnsafeMutablePointer<sqlite3_int64>?) -> Int32 = {
        file, size in
        let target = real(file)
        return target.pointee.pMethods.pointee.xFileSize(target, size)
    }

private let shimLock: @convention(c) (UnsafeMutablePointer<sqlite3_file>?, Int32) -> Int32 = { file, level in
    let target = real(file)
    return target.pointee.pMethods.pointee.xLock(target, level)
}

private let shimUnlock: @convention(c) (UnsafeMutablePointer<sqlite3_file>?, Int32) -> Int32 = { file, level in
    let target = real(file)
    return target.pointee.pMethods.pointee.xUnlock(target, level)
}

private let shimCheckReservedLock:
    @convention(c) (UnsafeMutablePointer<sqlite3_file>?, UnsafeMutablePointer<Int32>?) -> Int32 = { file, result in
        let target = real(file)
        return target.pointee.pMethods.pointee.xCheckReservedLock(target, result)
    }

private let shimFileControl:
    @convention(c) (UnsafeMutablePointer<sqlite3_file>?, Int32, UnsafeMutableRawPointer?) -> Int32 = {
        file, op, argument in
        let target = real(file)
        return target.pointee.pMethods.pointee.xFileControl(target, op, argument)
    }

private let shimSectorSize: @convention(c) (UnsafeMutablePointer<sqlite3_file>?) -> Int32 = { file in
    let target = real(file)
    return target.pointee.pMethods.pointee.xSectorSize(target)
}

private let shimDeviceCharacteristics: @convention(c) (UnsafeMutablePointer<sqlite3_file>?) -> Int32 = { file in
    let target = real(file)
    return target.pointee.pMethods.pointee.xDeviceCharacteristics(target)
}

private let shimShmMap:
    @convention(c) (
        UnsafeMutablePointer<sqlite3_file>?, Int32, Int32, Int32, UnsafeMutablePointer<UnsafeMutableRawPointer?>?
    ) -> Int32 = { file, page, size, extend, pointer in
        let target = real(file)
        return target.pointee.pMethods.pointee.xShmMap(target, page, size, extend, pointer)
    }

private let shimShmLock: @convention(c) (UnsafeMutablePointer<sqlite3_file>?, Int32, Int32, Int32) -> Int32 = {
    file, offset, count, flags in
    let target = real(file)
    return target.pointee.pMethods.pointee.xShmLock(target, offset, count, flags)
}

private let shimShmBarrier: @convention(c) (UnsafeMutablePointer<sqlite3_file>?) -> Void = { file in
    let target = real(file)
    target.pointee.pMethods.pointee.xShmBarrier(target)
}

private let shimShmUnmap: @convention(c) (UnsafeMutablePointer<sqlite3_file>?, Int32) -> Int32 = { file, delete in
    let target = real(file)
    return target.pointee.pMethods.pointee.xShmUnmap(target, delete)
}

private let shimFetch:
    @convention(c) (
        UnsafeMutablePointer<sqlite3_file>?, sqlite3_int64, Int32, UnsafeMutablePointer<UnsafeMutableRawPointer?>?
    ) -> Int32 = { file, offset, amount, pointer in
        let target = real(file)
        return target.pointee.pMethods.pointee.xFetch(target, offset, amount, pointer)
    }

private let shimUnfetch:
    @convention(c) (UnsafeMutablePointer<sqlite3_file>?, sqlite3_int64, UnsafeMutableRawPointer?) -> Int32 = {
        file, offset, pointer in
        let target = real(file)
        return target.pointee.pMethods.pointee.xUnfetch(target, offset, pointer)
    }

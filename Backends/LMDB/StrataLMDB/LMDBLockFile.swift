import CStrataLMDB
import Foundation
import StrataCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Prepares an environment's `lock.mdb` before `mdb_env_open` maps it.
///
/// liblmdb sizes a new lock file with `ftruncate` and writes its header and reader slots
/// through a shared memory map. On a full file system the pages behind such a map cannot be
/// allocated, and the first store to one kills the process with `SIGBUS`. So before liblmdb
/// opens the lock file, every byte of it is reserved with `fallocate`: a full disk becomes a
/// ``StrataError/Code/io`` error while nothing is mapped yet. A new lock file gets its final
/// size (``byteCount``); an existing one only has its holes filled, so its size, which every
/// process sharing it reads its number of reader slots from, never changes under them.
///
/// A read-only open whose process may not write the lock file (a read-only file system,
/// `0444` files, a `0555` directory), or that finds no room to fill an existing lock file's
/// holes (a full disk), opens the environment with `MDB_NOLOCK`: it then takes no
/// reader slot, which is safe only while no process writes the store. So it is refused with
/// ``StrataError/Code/storeBusy`` when any process holds the environment open (liblmdb keeps a
/// shared `fcntl` lock on the lock file's first byte for as long as it does).
enum LMDBLockFile {
    /// How the environment uses its lock file.
    enum Mode {
        /// Through the lock file, with a reader slot per read transaction.
        case shared
        /// Without one (`MDB_NOLOCK`): a read-only open when the lock file cannot be written.
        case lockless
    }

    /// The size liblmdb gives the lock file of an environment with the store's 1,022 reader
    /// slots: a 64-byte slot per reader after a 192-byte header (two cache lines of header
    /// and the first slot), on 64-byte cache lines.
    static let byteCount = 65_536

    /// Reserves the space of `directory`'s lock file (creating it with mode `0600`), or, for a
    /// read-only open that may not write it, checks that the environment can be read without it.
    static func prepare(directory: String, readOnly: Bool) throws -> Mode {
        let file = LMDBDirectory.lockFile(directory)
        var created = false
        var descriptor = open(file, O_RDWR | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        if descriptor < 0 && errno == ENOENT {
            descriptor = open(file, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            created = descriptor >= 0
            if descriptor < 0 && errno == EEXIST { descriptor = open(file, O_RDWR | O_CLOEXEC | O_NONBLOCK | O_NOCTTY) }
        }
        guard descriptor >= 0 else {
            let error = errno
            if readOnly && (error == EACCES || error == EPERM || error == EROFS) {
                try requireNoOtherUser(file, directory: directory)
                return .lockless
            }
            throw LMDBDirectory.failure(file, errno: error, doing: "opening the lock file")
        }
        defer { close(descriptor) }
        do {
            try reserve(descriptor, file: file)
        } catch {
            if created { unlink(file) }
            guard let failure = error as? ReservationFailure else { throw error }
            // A full disk need not keep a store from being read (to copy its data elsewhere):
            // a read-only open reads without the lock file while no other process uses it.
            if readOnly && (failure.code == ENOSPC || failure.code == EDQUOT) {
                try requireNoOtherUser(file, directory: directory)
                return .lockless
            }
            throw failure.error(file)
        }
        return .shared
    }

    /// Creates the lock file `file` (mode `0600`) with its final size reserved.
    static func create(_ file: String) throws {
        let descriptor = open(file, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw LMDBDirectory.failure(file, errno: errno, doing: "creating the lock file") }
        defer { close(descriptor) }
        do {
            try reserve(descriptor, file: file)
        } catch let failure as ReservationFailure {
            throw failure.error(file)
        }
    }

    /// Space for the lock file could not be reserved.
    private struct ReservationFailure: Error {
        /// The `errno` value.
        var code: Int32
        /// The bytes asked for.
        var length: Int

        func error(_ file: String) -> StrataError {
            LMDBDirectory.failure(file, errno: code, doing: "reserving \(length) bytes for the lock file")
        }
    }

    /// Allocates every byte of the open lock file: ``byteCount`` bytes when it is empty, its own
    /// size otherwise. Throws ``ReservationFailure`` when the space cannot be had.
    private static func reserve(_ descriptor: Int32, file: String) throws {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw LMDBDirectory.failure(file, errno: errno, doing: "examining") }
        guard info.st_mode & S_IFMT == S_IFREG else {
            let kind = LMDBDirectory.kind(of: info.st_mode)
            throw StrataError(
                .storeCorrupt, "\(file) is \(kind), not a regular file; an LMDB lock file must be one",
                location: ["path": file, "kind": kind])
        }
        let length = info.st_size == 0 ? byteCount : Int(info.st_size)
        if info.st_size > 0 && Int(info.st_blocks) * 512 >= length { return } // no hole left
        if cstrata_lmdb_reserve(descriptor, 0, off_t(length)) == 0 { return }
        let error = errno
        guard error == EOPNOTSUPP || error == ENOSYS else { throw ReservationFailure(code: error, length: length) }
        // The file system cannot reserve space: at least check that the free space covers it.
        var volume = statvfs()
        if fstatvfs(descriptor, &volume) == 0, UInt64(volume.f_bavail) * UInt64(volume.f_frsize) < UInt64(length) {
            throw ReservationFailure(code: ENOSPC, length: length)
        }
        if info.st_size == 0 && ftruncate(descriptor, off_t(length)) != 0 {
            throw LMDBDirectory.failure(file, errno: errno, doing: "sizing the lock file")
        }
    }

    /// Throws ``StrataError/Code/storeBusy`` when a process holds the environment open, so that a
    /// lockless reader never reads pages a writer may be reusing.
    private static func requireNoOtherUser(_ file: String, directory: String) throws {
        let descriptor = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard descriptor >= 0 else {
            if errno == ENOENT { return } // no process has opened the environment with a lock file
            throw LMDBDirectory.failure(file, errno: errno, doing: "opening the lock file")
        }
        defer { close(descriptor) }
        var probe = flock()
        probe.l_type = Int16(F_WRLCK)
        probe.l_whence = Int16(SEEK_SET)
        probe.l_start = 0
        probe.l_len = 1
        guard fcntl(descriptor, F_GETLK, &probe) == 0 else {
            throw LMDBDirectory.failure(file, errno: errno, doing: "testing the lock of")
        }
        guard probe.l_type == Int16(F_UNLCK) else {
            throw StrataError(
                .storeBusy,
                "the LMDB store at \(directory) is open in process \(probe.l_pid), and this process may not write its lock file \(file) "
                    + "to register as a reader; reading without it is safe only while no process has the store open",
                location: ["path": directory, "file": file])
        }
    }
}

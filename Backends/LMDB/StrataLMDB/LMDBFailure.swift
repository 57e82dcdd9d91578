import CStrataLMDB
import Foundation
import StrataCore

/// A failed LMDB call, before it is turned into a ``StrataError`` that names the store's path.
struct LMDBFailure: Error {
    /// The LMDB or `errno` return code.
    var code: Int32
    /// The C function that failed (`mdb_put`).
    var call: String

    /// LMDB's own text for ``code`` (it falls back to `strerror` for `errno` values).
    var text: String { String(cString: mdb_strerror(code)) }

    /// Whether the map is full (the save is retried after growing the map).
    var isMapFull: Bool { code == MDB_MAP_FULL }
}

/// Throws ``LMDBFailure`` unless `code` is `MDB_SUCCESS`.
@inline(__always)
func check(_ code: Int32, _ call: @autoclosure () -> String) throws {
    if code != MDB_SUCCESS { throw LMDBFailure(code: code, call: call()) }
}

/// A record or key whose bytes cannot be decoded.
struct RecordCorruption: Error {
    /// What is wrong with the bytes.
    var reason: String
}

extension StrataError {
    /// The ``StrataError`` for a failed LMDB call on the environment at `path`.
    static func lmdb(_ failure: LMDBFailure, path: String, doing what: String) -> StrataError {
        let code: StrataError.Code
        let cause: String
        switch failure.code {
        case MDB_INVALID, MDB_VERSION_MISMATCH, MDB_CORRUPTED, MDB_PAGE_NOTFOUND, MDB_PANIC, MDB_INCOMPATIBLE,
            MDB_BAD_VALSIZE:
            code = .storeCorrupt
            cause = "the LMDB data is damaged or is not an LMDB environment"
        case EACCES, EPERM:
            code = .io
            cause = "permission denied"
        case EROFS:
            code = .readOnly
            cause = "the file system is read-only"
        case ENOENT:
            code = .storeNotFound
            cause = "no such file or directory"
        case MDB_READERS_FULL:
            code = .storeBusy
            cause = "every reader slot of the environment is in use"
        case MDB_MAP_FULL:
            code = .io
            cause = "the map is full and could not grow further"
        case ENOSPC:
            code = .io
            cause = "no space left on the device"
        default:
            code = .io
            cause = "LMDB error \(failure.code)"
        }
        return StrataError(
            code,
            "LMDB store at \(path): \(what) failed: \(cause) (\(failure.call): \(failure.text))",
            location: ["path": path],
            underlying: failure.text
        )
    }
}

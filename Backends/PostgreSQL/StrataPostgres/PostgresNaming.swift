import StrataCore

/// PostgreSQL's names for a store's tables, columns, indexes and constraints.
///
/// Every identifier is double-quoted and keeps its case, so `Name` and `name` are two names (no
/// disambiguation as in SQLite). PostgreSQL keeps at most 63 bytes of an identifier and silently
/// cuts the rest, so two long names could become one: a name longer than that keeps its first
/// 54 bytes and gets `_` and 8 hexadecimal digits of a hash of the whole name (FNV-1a), which
/// depends on the name alone, so every process derives the same one.
enum PostgresNaming {
    /// The most bytes PostgreSQL keeps of an identifier (`NAMEDATALEN - 1`).
    static let maximumIdentifierBytes = 63

    /// `name`, or its shortened form when it is longer than PostgreSQL keeps.
    static func identifier(_ name: String) -> String {
        let bytes = Array(name.utf8)
        guard bytes.count > maximumIdentifierBytes else { return name }
        var prefix = Array(bytes.prefix(maximumIdentifierBytes - 9))
        // Never cut a UTF-8 sequence in two (a schema name may be any text).
        while let last = prefix.last, last & 0xC0 == 0x80 || last >= 0xC0 { prefix.removeLast() }
        let hash = String(fnv1a(bytes) & 0xFFFF_FFFF, radix: 16)
        return String(decoding: prefix, as: UTF8.self) + "_" + String(repeating: "0", count: 8 - hash.count) + hash
    }

    /// FNV-1a, 64 bits: a hash that is the same in every process and on every platform.
    static func fnv1a<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return hash
    }

    /// The key of an advisory lock private to one store (its schema) and one purpose
    /// (`"create"`, `"history"`, `"migrate"`), for `pg_advisory_xact_lock`.
    static func advisoryLockKey(schema: String, purpose: String) -> Int64 {
        Int64(bitPattern: fnv1a(Array("strata.\(purpose).".utf8) + Array(schema.utf8)))
    }
}

/// Double-quotes an SQL identifier (``SQLIdentifier/quoted(_:)``) after shortening it as
/// PostgreSQL needs (``PostgresNaming``).
func pq(_ identifier: String) -> String { SQLIdentifier.quoted(PostgresNaming.identifier(identifier)) }

/// An SQL string literal, for the few statements that cannot take a bound value (DDL).
func pqLiteral(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
}

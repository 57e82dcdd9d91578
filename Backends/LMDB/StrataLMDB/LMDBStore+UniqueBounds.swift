import CStrataLMDB
import StrataCore

/// The ends of a unique constraint's database, read in one snapshot transaction. Its keys are
/// ordered by value (``IndexKey``), integers under one tag: the least stored integer is the first
/// key at or after that tag, the greatest the last key before the next tag. Two cursor seeks,
/// each O(log n).
extension LMDBStore: UniqueIntegerBounds {
    public func storedBounds(ofUnique attribute: String, in entityName: String) throws -> ClosedRange<Int64>? {
        let index = try model.requireUniqueIntegerAttribute(attribute, of: entityName)
        let layout = try layout(entityName)
        guard let secondary = layout.secondaries.first(where: { $0.kind == .unique && $0.attributes == [index] })
        else { return nil }
        let integerTag: UInt8 = 0x10
        do {
            return try environment.read { txn in
                let cursor = try txn.cursor(secondary.dbi)
                defer { cursor.close() }
                guard let first = try [integerTag].withUnsafeBytes({ try cursor.seek(atLeast: $0) }),
                    let least = Self.integer(inKey: first.key, tag: integerTag)
                else { return nil }
                let afterIntegers = try [integerTag + 1].withUnsafeBytes { try cursor.seek(atLeast: $0) }
                guard let last = try cursor.move(afterIntegers == nil ? MDB_LAST : MDB_PREV),
                    let greatest = Self.integer(inKey: last.key, tag: integerTag)
                else { return nil }
                return least...greatest
            }
        } catch let error as StrataError {
            throw error
        } catch {
            throw environment.translate(error, doing: "reading the bounds of \(entityName).\(attribute)")
        }
    }

    /// The integer an ``IndexKey`` of one integer value holds: its tag, then 8 big-endian bytes
    /// with the sign bit flipped; `nil` for a key of another kind.
    private static func integer(inKey key: UnsafeRawBufferPointer, tag: UInt8) -> Int64? {
        guard key.count == 9, key[0] == tag else { return nil }
        var bits: UInt64 = 0
        for byte in key.dropFirst() { bits = bits << 8 | UInt64(byte) }
        return Int64(bitPattern: bits ^ (1 << 63))
    }
}

import Foundation
import StrataCore

/// The bytes of a binary `COPY ... FROM STDIN (FORMAT binary)`: a header, then per row its field
/// count and each field as a length (-1 for NULL) and its bytes in PostgreSQL's binary format,
/// then a trailer. Values are written straight into one buffer, with no allocation per field;
/// ``PostgresConnection/copyIn(_:rows:_:)`` sends it in chunks.
struct PostgresCopyWriter {
    /// The bytes not sent yet.
    private(set) var bytes: [UInt8] = []

    /// How many bytes make a chunk worth sending.
    static let chunkSize = 1 << 20

    init() {
        bytes.reserveCapacity(Self.chunkSize + 4096)
        // Signature, flags (no OIDs), header extension length.
        bytes += Array("PGCOPY\n".utf8) + [0xFF, 0x0D, 0x0A, 0x00]
        integer(UInt32(0))
        integer(UInt32(0))
    }

    /// Whether the buffer holds a chunk worth sending.
    var isFull: Bool { bytes.count >= Self.chunkSize }

    /// Forgets the bytes sent.
    mutating func removeSent() { bytes.removeAll(keepingCapacity: true) }

    /// The trailer that ends the data.
    mutating func finish() { integer(UInt16.max) }

    /// Starts a row of `fields` fields.
    mutating func beginRow(fields: Int) { integer(UInt16(truncatingIfNeeded: fields)) }

    /// A NULL field.
    mutating func null() { integer(UInt32.max) }

    /// A `bigint` field.
    mutating func int64(_ value: Int64) {
        integer(UInt32(8))
        integer(UInt64(bitPattern: value))
    }

    /// A `bigint` field, or NULL.
    mutating func int64(_ value: Int64?) {
        if let value { int64(value) } else { null() }
    }

    /// A field holding `value` in a column of `kind` (already checked to fit it).
    ///
    /// - Throws: ``StrataError/Code/invalidRequest`` for a date that is not a number.
    mutating func value(_ value: Value, kind: PostgresColumnKind) throws {
        switch value {
        case .null: null()
        case .integer(let v):
            switch kind {
            case .integer16:
                integer(UInt32(2))
                integer(UInt16(bitPattern: Int16(truncatingIfNeeded: v)))
            case .integer32:
                integer(UInt32(4))
                integer(UInt32(bitPattern: Int32(truncatingIfNeeded: v)))
            default: int64(v)
            }
        case .double(let v):
            integer(UInt32(8))
            integer(v.bitPattern)
        case .float(let v):
            integer(UInt32(4))
            integer(v.bitPattern)
        case .decimal(let v): field(PostgresNumeric.binary(v))
        case .string(let v): string(v)
        case .bool(let v):
            integer(UInt32(1))
            bytes.append(v ? 1 : 0)
        case .date(let v): int64(try PostgresValueCoding.microseconds(of: v))
        case .binary(let v):
            integer(UInt32(v.count))
            bytes.append(contentsOf: v)
        case .uuid(let v):
            integer(UInt32(16))
            withUnsafeBytes(of: v.uuid) { bytes.append(contentsOf: $0) }
        case .uri(let v): text(v.absoluteString)
        }
    }

    /// A string's stored text (``PostgresValueCoding/storedText(_:)``), its bytes copied straight
    /// from the string unless it must be escaped.
    private mutating func string(_ value: String) {
        var value = value
        let written = value.withUTF8 { utf8 -> Bool in
            guard !PostgresValueCoding.needsEscape(utf8) else { return false }
            integer(UInt32(utf8.count))
            bytes.append(contentsOf: utf8)
            return true
        }
        if !written { text(PostgresValueCoding.storedText(value)) }
    }

    private mutating func text(_ string: String) {
        var string = string
        string.withUTF8 { utf8 in
            integer(UInt32(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    private mutating func field(_ value: [UInt8]) {
        integer(UInt32(value.count))
        bytes += value
    }

    private mutating func integer<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }
}

import Foundation
import StrataCore

/// One value bound to a `$n` placeholder, in PostgreSQL's binary format (numerics as text):
/// values are always bound, never spliced into SQL.
struct PostgresParameter: Sendable, Hashable {
    /// The type's OID (``PostgresType``), so the server never guesses.
    let type: UInt32
    /// The bytes, or `nil` for NULL.
    let bytes: [UInt8]?
    /// 1 for binary, 0 for text (numeric only).
    let format: Int32

    private init(type: UInt32, bytes: [UInt8]?, format: Int32 = 1) {
        self.type = type
        self.bytes = bytes
        self.format = format
    }

    /// NULL of a type.
    static func null(_ type: UInt32 = PostgresType.text) -> PostgresParameter {
        PostgresParameter(type: type, bytes: nil)
    }

    static func int64(_ value: Int64) -> PostgresParameter {
        PostgresParameter(type: PostgresType.int8, bytes: bigEndianBytes(UInt64(bitPattern: value)))
    }

    static func int16(_ value: Int16) -> PostgresParameter {
        PostgresParameter(type: PostgresType.int2, bytes: bigEndianBytes(UInt16(bitPattern: value)))
    }

    static func int32(_ value: Int32) -> PostgresParameter {
        PostgresParameter(type: PostgresType.int4, bytes: bigEndianBytes(UInt32(bitPattern: value)))
    }

    static func double(_ value: Double) -> PostgresParameter {
        PostgresParameter(type: PostgresType.float8, bytes: bigEndianBytes(value.bitPattern))
    }

    static func float(_ value: Float) -> PostgresParameter {
        PostgresParameter(type: PostgresType.float4, bytes: bigEndianBytes(value.bitPattern))
    }

    static func bool(_ value: Bool) -> PostgresParameter {
        PostgresParameter(type: PostgresType.bool, bytes: [value ? 1 : 0])
    }

    static func text(_ value: String) -> PostgresParameter {
        PostgresParameter(type: PostgresType.text, bytes: Array(value.utf8))
    }

    static func bytea(_ value: Data) -> PostgresParameter {
        PostgresParameter(type: PostgresType.bytea, bytes: Array(value))
    }

    static func bytea(_ value: [UInt8]) -> PostgresParameter {
        PostgresParameter(type: PostgresType.bytea, bytes: value)
    }

    static func uuid(_ value: UUID) -> PostgresParameter {
        let u = value.uuid
        return PostgresParameter(
            type: PostgresType.uuid,
            bytes: [
                u.0, u.1, u.2, u.3, u.4, u.5, u.6, u.7, u.8, u.9, u.10, u.11, u.12, u.13, u.14, u.15,
            ])
    }

    /// A `timestamptz`: microseconds since 2000-01-01 UTC, rounded to the nearest microsecond.
    static func timestamp(_ value: Date) -> PostgresParameter {
        let micros = ((value.timeIntervalSince1970 - PostgresType.postgresEpoch) * 1_000_000).rounded()
        return PostgresParameter(
            type: PostgresType.timestamptz, bytes: bigEndianBytes(UInt64(bitPattern: Int64(micros))))
    }

    /// A `timestamptz` of `microseconds` since 2000-01-01 UTC (`Int64.max` and `Int64.min` are
    /// `infinity` and `-infinity`).
    static func timestampMicroseconds(_ microseconds: Int64) -> PostgresParameter {
        PostgresParameter(type: PostgresType.timestamptz, bytes: bigEndianBytes(UInt64(bitPattern: microseconds)))
    }

    /// A `numeric`, sent as its decimal text (NUL-terminated: libpq reads text parameters as C strings).
    static func numeric(_ value: Decimal) -> PostgresParameter {
        let text = value.isNaN ? "NaN" : NSDecimalNumber(decimal: value).description(withLocale: nil)
        return PostgresParameter(type: PostgresType.numeric, bytes: Array(text.utf8) + [0], format: 0)
    }

    /// A one-dimensional `bigint[]` (for `= ANY($n)`).
    static func int64Array(_ values: [Int64]) -> PostgresParameter {
        // Written straight into one buffer (as ``array(of:arrayType:_:)`` lays it out): keys of
        // many objects go out this way in every save and fetch by IDs.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(20 + values.count * 12)
        func append<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
        }
        append(UInt32(values.isEmpty ? 0 : 1))
        append(UInt32(0))
        append(PostgresType.int8)
        if !values.isEmpty {
            append(UInt32(values.count))
            append(UInt32(1))
        }
        for value in values {
            append(UInt32(8))
            append(value)
        }
        return PostgresParameter(type: PostgresType.int8Array, bytes: bytes)
    }

    /// A one-dimensional `text[]` (for `= ANY($n)`).
    static func textArray(_ values: [String]) -> PostgresParameter {
        array(of: PostgresType.text, arrayType: PostgresType.textArray, values.map { Array($0.utf8) })
    }

    /// A one-dimensional `float8[]` (for `= ANY($n)`).
    static func doubleArray(_ values: [Double]) -> PostgresParameter {
        array(
            of: PostgresType.float8, arrayType: PostgresType.float8Array, values.map { bigEndianBytes($0.bitPattern) })
    }

    /// A one-dimensional array in binary form: dimensions, null flag, element type, then each
    /// element's length and bytes (`nil`: NULL).
    static func array(of elementType: UInt32, arrayType: UInt32, _ elements: [[UInt8]?]) -> PostgresParameter {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(20 + elements.reduce(0) { $0 + 4 + ($1?.count ?? 0) })
        let hasNull = elements.contains { $0 == nil }
        bytes += bigEndianBytes(UInt32(elements.isEmpty ? 0 : 1))
        bytes += bigEndianBytes(UInt32(hasNull ? 1 : 0))
        bytes += bigEndianBytes(elementType)
        if !elements.isEmpty {
            bytes += bigEndianBytes(UInt32(elements.count))
            bytes += bigEndianBytes(UInt32(1))
        }
        for element in elements {
            if let element {
                bytes += bigEndianBytes(UInt32(element.count))
                bytes += element
            } else {
                bytes += bigEndianBytes(UInt32.max)
            }
        }
        return PostgresParameter(type: arrayType, bytes: bytes)
    }

    static func bigEndianBytes<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian, Array.init)
    }
}

/// The OIDs of the types Strata binds and reads (pg_type's `oid`).
enum PostgresType {
    static let bool: UInt32 = 16
    static let bytea: UInt32 = 17
    static let name: UInt32 = 19
    static let int8: UInt32 = 20
    static let int2: UInt32 = 21
    static let int4: UInt32 = 23
    static let text: UInt32 = 25
    static let oid: UInt32 = 26
    static let float4: UInt32 = 700
    static let float8: UInt32 = 701
    static let bpchar: UInt32 = 1042
    static let varchar: UInt32 = 1043
    static let timestamp: UInt32 = 1114
    static let timestamptz: UInt32 = 1184
    static let numeric: UInt32 = 1700
    static let uuid: UInt32 = 2950
    static let int8Array: UInt32 = 1016
    static let textArray: UInt32 = 1009
    static let float8Array: UInt32 = 1022

    /// 2000-01-01 00:00:00 UTC in seconds since 1970: PostgreSQL's timestamps count from it.
    static let postgresEpoch: TimeInterval = 946_684_800
}

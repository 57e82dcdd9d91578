import Foundation

/// How attribute values are written in Strata's JSON formats (model defaults, JSON Lines).
///
/// | type | JSON |
/// |---|---|
/// | integer16/32/64 | a number without fraction: `42` |
/// | double, float | a number, or `"NaN"`, `"Infinity"`, `"-Infinity"` |
/// | decimal | a string with the exact digits: `"12.50"` (a number is accepted on input) |
/// | string | a string |
/// | boolean | `true` / `false` |
/// | date | ISO 8601 with fractional seconds, UTC: `"1990-05-01T08:30:00.000Z"`; on input a number means seconds since 1970 |
/// | binary | base64 |
/// | uuid | `"E621E1F8-C36C-495A-93FC-0C247A3E6E5F"` |
/// | uri | a string |
///
/// `null` is ``Value/null``. Dates keep full precision: a date whose seconds have more digits than
/// milliseconds is written as a number of seconds since 1970 so that it round-trips exactly.
package enum JSONValueCoding {
    /// Decodes `node` as a value of `type`; `what` names the place for the error message.
    ///
    /// - Throws: ``StrataError/Code/typeMismatch`` saying what was expected and what was found.
    package static func decode(_ node: JSONNode, as type: AttributeType, what: @autoclosure () -> String) throws
        -> Value
    {
        func mismatch(_ expected: String) -> StrataError {
            StrataError(
                .typeMismatch,
                "\(what()) must be \(expected) for type \(type.rawValue), found \(node.kindName)\(preview(node))")
        }
        if case .null = node { return .null }
        switch type {
        case .integer16, .integer32, .integer64:
            let value: Int64
            switch node {
            case .integer(let i): value = i
            case .double(let d) where d == d.rounded() && abs(d) < 9.2e18: value = Int64(d)
            default: throw mismatch("an integer")
            }
            guard type.integerRange!.contains(value) else {
                throw StrataError(.typeMismatch, "\(what()) = \(value) does not fit in a \(type.rawValue)")
            }
            return .integer(value)
        case .double, .float:
            let d: Double
            switch node {
            case .integer(let i): d = Double(i)
            case .double(let x): d = x
            case .string("NaN"): d = .nan
            case .string("Infinity"): d = .infinity
            case .string("-Infinity"): d = -.infinity
            default: throw mismatch("a number (or \"NaN\", \"Infinity\", \"-Infinity\")")
            }
            if type == .float, d.isFinite, !Float(d).isFinite {
                throw StrataError(.typeMismatch, "\(what()) = \(d) does not fit in a float")
            }
            return type == .double ? .double(d) : .float(Float(d))
        case .decimal:
            switch node {
            case .string(let s):
                guard let d = Decimal(string: s, locale: Locale(identifier: "en_US_POSIX")), !s.isEmpty else {
                    throw mismatch("a decimal number in a string")
                }
                return .decimal(d)
            case .integer(let i): return .decimal(Decimal(i))
            case .double(let x): return .decimal(Decimal(x))
            default: throw mismatch("a decimal number in a string")
            }
        case .string:
            guard case .string(let s) = node else { throw mismatch("a string") }
            return .string(s)
        case .boolean:
            guard case .bool(let b) = node else { throw mismatch("true or false") }
            return .bool(b)
        case .date:
            switch node {
            case .string(let s):
                guard let date = parseDate(s) else {
                    throw mismatch("an ISO 8601 date such as \"1990-05-01T08:30:00.000Z\"")
                }
                return .date(date)
            case .integer(let i): return .date(Date(timeIntervalSince1970: Double(i)))
            case .double(let d): return .date(Date(timeIntervalSince1970: d))
            default: throw mismatch("an ISO 8601 date string")
            }
        case .binary:
            guard case .string(let s) = node, let data = Data(base64Encoded: s) else { throw mismatch("base64 text") }
            return .binary(data)
        case .uuid:
            guard case .string(let s) = node, let uuid = UUID(uuidString: s) else { throw mismatch("a UUID string") }
            return .uuid(uuid)
        case .uri:
            guard case .string(let s) = node, let url = URL(string: s) else { throw mismatch("a URI string") }
            return .uri(url)
        }
    }

    /// Encodes `value` (see the table in the type's documentation).
    package static func encode(_ value: Value) -> JSONNode {
        switch value {
        case .null: return .null
        case .integer(let i): return .integer(i)
        case .double(let d): return encodeFloatingPoint(d)
        case .float(let f): return encodeFloatingPoint(Double(f))
        case .decimal(let d): return .string(d.description)
        case .string(let s): return .string(s)
        case .bool(let b): return .bool(b)
        case .date(let date):
            let text = formatDate(date)
            if let back = parseDate(text), back == date { return .string(text) }
            return .double(date.timeIntervalSince1970)
        case .binary(let data): return .string(data.base64EncodedString())
        case .uuid(let uuid): return .string(uuid.uuidString)
        case .uri(let url): return .string(url.absoluteString)
        }
    }

    private static func encodeFloatingPoint(_ d: Double) -> JSONNode {
        if d.isNaN { return .string("NaN") }
        if d.isInfinite { return .string(d > 0 ? "Infinity" : "-Infinity") }
        return .double(d)
    }

    private static func preview(_ node: JSONNode) -> String {
        let text = node.compactText()
        return text.count > 40 ? " (\(text.prefix(40))...)" : " (\(text))"
    }

    /// `yyyy-MM-dd'T'HH:mm:ss.SSS'Z'` in UTC, rounded to the nearest millisecond (the formatter
    /// alone truncates, so a date read from `.999Z` would be written as `.998Z`).
    package static func formatDate(_ date: Date) -> String {
        let rounded = Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded() / 1000)
        return rounded.formatted(
            Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: TimeZone(identifier: "UTC")!))
    }

    /// Parses ISO 8601 with or without fractional seconds.
    package static func parseDate(_ text: String) -> Date? {
        if let d = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) { return d }
        return try? Date.ISO8601FormatStyle().parse(text)
    }
}

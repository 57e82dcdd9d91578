import Foundation

extension ObjectPredicate: CustomStringConvertible {
    /// The predicate in the format language; `try ObjectPredicate(format: p.description) == p`.
    ///
    /// Compound children are parenthesized, strings are double-quoted and escaped, doubles print
    /// their shortest exact form, and values without a literal (dates, floats, decimals, UUIDs,
    /// URLs, data, object IDs, non-finite doubles) print as `CAST(value, "Type")`. `AND`/`OR` of
    /// fewer than two predicates print in the prefix form `AND()` / `OR(p)`. Keys that are
    /// reserved words print escaped (`#size`). O(n) in the size of the tree.
    public var description: String {
        var text = ""
        write(to: &text)
        return text
    }

    private func write(to text: inout String) {
        switch self {
        case .alwaysTrue:
            text += "TRUEPREDICATE"
        case .alwaysFalse:
            text += "FALSEPREDICATE"
        case .not(let inner):
            text += "NOT "
            inner.writeAsChild(to: &text)
        case .and(let terms):
            Self.write(terms, keyword: "AND", to: &text)
        case .or(let terms):
            Self.write(terms, keyword: "OR", to: &text)
        case .comparison(let comparison):
            text += comparison.description
        }
    }

    private static func write(_ terms: [ObjectPredicate], keyword: String, to text: inout String) {
        guard terms.count >= 2 else {
            text += keyword + "("
            if let only = terms.first { only.write(to: &text) }
            text += ")"
            return
        }
        for (i, term) in terms.enumerated() {
            if i > 0 { text += " \(keyword) " }
            term.writeAsChild(to: &text)
        }
    }

    /// Writes this predicate as an operand of `AND`, `OR` or `NOT`: parenthesized when it is an
    /// infix list itself, so that the parser neither flattens nor regroups it.
    private func writeAsChild(to text: inout String) {
        switch self {
        case .and(let terms) where terms.count >= 2, .or(let terms) where terms.count >= 2:
            text += "("
            write(to: &text)
            text += ")"
        default:
            write(to: &text)
        }
    }
}

extension ObjectPredicate.Comparison: CustomStringConvertible {
    /// `[ANY ]lhs OP[options] rhs` in the format language.
    public var description: String {
        var text = modifier == .direct ? "" : modifier.rawValue + " "
        text += lhs.description + " " + op.rawValue
        if !options.isEmpty {
            text += "["
            if options.contains(.caseInsensitive) { text += "c" }
            if options.contains(.diacriticInsensitive) { text += "d" }
            text += "]"
        }
        return text + " " + rhs.description
    }
}

extension ObjectPredicate.Operand: CustomStringConvertible {
    /// The operand in the format language: `department.name`, `employees.@count`, `"text"`,
    /// `{1, 2}`, `SELF`, `CAST("strata://...", "ObjectID")`.
    public var description: String {
        switch self {
        case .keyPath(let path):
            return Self.format(path)
        case .count(let path):
            return Self.format(path) + ".@count"
        case .constant(let value):
            return Self.format(value)
        case .objectID(let id):
            return "CAST(\(Self.quote(id.uriRepresentation)), \"ObjectID\")"
        case .list(let items):
            return "{" + items.map(\.description).joined(separator: ", ") + "}"
        case .evaluatedObject:
            return "SELF"
        }
    }

    /// A key path with reserved components escaped by `#`.
    static func format(_ path: PropertyPath) -> String {
        path.components.map { component in
            PredicateLexer.isReserved(component) ? "#" + component : component
        }.joined(separator: ".")
    }

    /// A value as a literal or a `CAST`.
    static func format(_ value: Value) -> String {
        switch value {
        case .null: return "nil"
        case .integer(let v): return String(v)
        case .double(let v): return format(v)
        case .float(let v):
            return "CAST(\(v.isFinite ? Double(v).description : quote(String(describing: v))), \"Float\")"
        case .decimal(let v): return "CAST(\(quote(v.isNaN ? "NaN" : v.description)), \"NSDecimalNumber\")"
        case .string(let v): return quote(v)
        case .bool(let v): return v ? "TRUE" : "FALSE"
        case .date(let v): return "CAST(\(format(v.timeIntervalSinceReferenceDate)), \"NSDate\")"
        case .binary(let v): return "CAST(\(quote(v.base64EncodedString())), \"Data\")"
        case .uuid(let v): return "CAST(\(quote(v.uuidString)), \"UUID\")"
        case .uri(let v): return "CAST(\(quote(v.absoluteString)), \"URL\")"
        }
    }

    /// The shortest text that parses back to the same double; a `CAST` for NaN and infinities.
    /// (A float prints as the double of the same value, which converts back exactly.)
    static func format(_ value: Double) -> String {
        if value.isNaN { return "CAST(\"nan\", \"Double\")" }
        if value.isInfinite { return value < 0 ? "CAST(\"-inf\", \"Double\")" : "CAST(\"inf\", \"Double\")" }
        return value.description
    }

    /// `text` double-quoted, with `"`, `\` and control characters escaped.
    static func quote(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    result += String(format: "\\u%04X", scalar.value)
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }
}

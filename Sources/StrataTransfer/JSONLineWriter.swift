import Foundation
import StrataCore

/// Writes one canonical JSON Lines object straight into a string, byte for byte what
/// `JSONNode.compactText()` gives for the same tree, without building the tree: exports spend
/// their time here.
struct JSONLineWriter {
    private(set) var text = ""

    init(capacity: Int = 256) { text.reserveCapacity(capacity) }

    mutating func raw(_ fragment: String) { text += fragment }

    /// A JSON string, quoted and escaped by `JSONNode.appendQuoted(_:to:)`.
    mutating func string(_ s: String) { JSONNode.appendQuoted(s, to: &text) }

    /// A key and its colon.
    mutating func key(_ name: String) {
        string(name)
        text += ":"
    }

    /// An attribute value, encoded as ``JSONValueCoding/encode(_:)`` does.
    mutating func value(_ value: Value) {
        switch value {
        case .null: text += "null"
        case .integer(let i): text += String(i)
        case .double(let d): number(d)
        case .float(let f): number(Double(f))
        case .decimal(let d): string(d.description)
        case .string(let s): string(s)
        case .bool(let b): text += b ? "true" : "false"
        case .binary(let data): string(data.base64EncodedString())
        case .uuid(let uuid): string(uuid.uuidString)
        case .uri(let url): string(url.absoluteString)
        case .date:
            switch JSONValueCoding.encode(value) {
            case .string(let s): string(s)
            case .double(let d): number(d)
            default: text += JSONValueCoding.encode(value).compactText()
            }
        }
    }

    /// A double as `JSONNode` writes it (`2.0`, `0.1`, `1e+20`), or `"NaN"` / `"Infinity"` /
    /// `"-Infinity"`.
    mutating func number(_ d: Double) {
        if d.isNaN {
            text += "\"NaN\""
            return
        }
        if d.isInfinite {
            text += d > 0 ? "\"Infinity\"" : "\"-Infinity\""
            return
        }
        if d == d.rounded() && abs(d) < 1e15 {
            text += (d == 0 && d.sign == .minus) ? "-0" : String(Int64(d))
            text += ".0"
        } else {
            text += "\(d)"
        }
    }
}

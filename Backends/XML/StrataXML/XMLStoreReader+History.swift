import CStrataXML
import Foundation
import StrataCore

/// Reading `<_history>` (``XMLHistory``): its structure is checked as it is read (each
/// `<_transaction>` directly inside it with a sequence above the pruned one and above the
/// previous transaction's, as a stored token must be); what a transaction holds is decoded only
/// when the history is read, so a damaged transaction never keeps the objects from loading.
extension XMLLoadState {
    /// `<_history prunedThrough="…">`, with `values` its attributes.
    func startHistory(_ values: [String: String]) {
        guard !sawHistory else { return fail("<\(XMLFormat.historyElement)> appears twice") }
        sawHistory = true
        for name in values.keys where name != "prunedThrough" {
            return fail("unknown attribute '\(name)' of <\(XMLFormat.historyElement)>")
        }
        if let text = values["prunedThrough"] {
            guard let sequence = Int64(text), sequence >= 0 else {
                return fail("<\(XMLFormat.historyElement)> has prunedThrough='\(text)', which is not a sequence >= 0")
            }
            history.prunedThrough = sequence
        }
        inHistory = true
    }

    /// An element below `<_history>`: kept, with its attributes, until its end tag.
    func startHistoryElement(
        _ localname: UnsafePointer<UInt8>, attributeCount: Int, attributes: UnsafeMutablePointer<UnsafePointer<UInt8>?>?
    ) {
        let name = String(cString: localname)
        if depth == 3 && name != XMLHistoryCoding.transactionElement {
            return fail(
                "<\(name)> inside <\(XMLFormat.historyElement)>; it holds only <\(XMLHistoryCoding.transactionElement)> elements"
            )
        }
        var values: [(name: String, value: String)] = []
        values.reserveCapacity(attributeCount)
        for i in 0..<attributeCount {
            let (n, v, _) = attribute(attributes!, i)
            values.append((String(cString: n), String(decoding: v, as: UTF8.self)))
        }
        openHistoryElements.append(XMLHistoryElement(name, values))
    }

    /// The end tag of `<_history>` or of an element inside it (called before ``depth`` drops).
    func endHistoryElement() {
        guard !failed else { return }
        if depth == 2 {
            inHistory = false
            return
        }
        guard let element = openHistoryElements.popLast() else { return }
        if !openHistoryElements.isEmpty {
            openHistoryElements[openHistoryElements.count - 1].children.append(element)
            return
        }
        guard let text = element["sequence"], let sequence = Int64(text) else {
            return fail("<\(XMLHistoryCoding.transactionElement)> has no sequence (a whole number)")
        }
        guard sequence > history.lastSequence else {
            return fail(
                "<\(XMLHistoryCoding.transactionElement) sequence=\"\(sequence)\"> follows sequence \(history.lastSequence); sequences must ascend"
            )
        }
        history.entries.append(XMLHistory.Entry(sequence: sequence, element: element))
    }
}

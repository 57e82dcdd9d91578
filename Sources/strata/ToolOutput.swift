import ArgumentParser
import Foundation
import Strata

/// Runs `body`, turning a ``StrataError`` into its message on standard error (and a JSON
/// `{"error":...}` object on standard output with `--json`) and exit code 1 (4 for
/// `historyExpired`).
func reportingErrors(json: Bool, _ body: () throws -> Void) throws {
    do {
        try body()
    } catch let error as StrataError {
        if json {
            let location = JSONNode.object(
                error.location.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })
            print(
                JSONNode.object([
                    (
                        "error",
                        .object([
                            ("code", .string(error.code.rawValue)), ("message", .string(error.message)),
                            ("location", location),
                        ])
                    )
                ]).compactText())
        }
        FileHandle.standardError.write(Data("strata: \(error)\n".utf8))
        throw error.code == .historyExpired ? ToolExit.historyExpired : ToolExit.strataError
    }
}

/// Parses a store URL argument.
func storeURL(_ text: String) throws -> StoreURL { try StoreURL.parse(text) }

/// Per-entity counts as a JSON object, in model order.
func countsNode(_ counts: [String: Int], model: Model) -> JSONNode {
    .object(
        model.entities.compactMap { entity in counts[entity.name].map { (entity.name, JSONNode.integer(Int64($0))) } })
}

/// `Company 2, Department 6, ...` in model order.
func countsText(_ counts: [String: Int], model: Model) -> String {
    model.entities.compactMap { entity in counts[entity.name].map { "\(entity.name) \($0)" } }.joined(separator: ", ")
}

/// Writes text to standard output in large chunks.
final class OutputBuffer {
    private var buffer = Data()
    private let handle = FileHandle.standardOutput

    func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 1 << 16 { flush() }
    }

    func flush() {
        guard !buffer.isEmpty else { return }
        handle.write(buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}

/// `1 object`, `2 objects`.
func objects(_ count: Int) -> String { count == 1 ? "1 object" : "\(count) objects" }

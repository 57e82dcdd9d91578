import Foundation
import Strata
import StrataTestSupport
import StrataTortureKit
import StrataTransfer
import Testing

/// The JSON Lines importer of the `strata` tool (`JSONLinesImporter`) under seeded random
/// mutations of a valid file: each input imports whole or fails with a typed error, and a
/// failed import leaves the store as it was (nothing imported).
@Suite struct JSONLinesFuzzTests {
    static let seed = """
        {"entity":"Group","ref":"g0","attributes":{"name":"g0","revision":0},"relationships":{"items":["i1","i2"]}}
        {"entity":"Group","ref":"g1","attributes":{"name":"g1","revision":3}}
        {"entity":"Item","ref":"i1","attributes":{"slot":1,"value":-5,"label":"a \\"q\\" é \\u00e9","payload":"xyz"},"relationships":{"group":"g0"}}
        {"entity":"Item","ref":"i2","attributes":{"slot":2,"value":9223372036854775807,"label":"b"},"relationships":{"group":"g0"}}
        {"entity":"Journal","ref":"j","attributes":{"lastSave":0}}
        {"entity":"Counter","ref":"c","attributes":{"slot":0,"value":1}}

        """

    static func importInto(_ bytes: [UInt8]) throws -> (any PersistentStore, Result<Int, any Error>) {
        let store = try BuiltInBackends.registry.open(
            StoreURL(scheme: "memory", location: ""), model: TortureModel.model())
        do {
            return (
                store,
                .success(try JSONLinesImporter().importLines(Data(bytes), source: "fuzz.jsonl", into: store).total)
            )
        } catch {
            return (store, .failure(error))
        }
    }

    @Test func mutatedJSONLinesImportWholeOrFailTypedImportingNothing() throws {
        let (_, pristine) = try Self.importInto(Array(Self.seed.utf8))
        #expect(try pristine.get() == 6, "the seed file imports")
        var random = SeededGenerator(seed: 81)
        let tokens = [
            "{", "}", "[", "]", ",", ":", "\"", "\\", "null", "true", "-1", "1e999", "\"\\u0000\"", "\"\\ud800\"",
            "\"ref\"", "\"entity\"",
            "\"attributes\"", "\"relationships\"", "\"Item\"", "\"g0\"", "\"i1\"", "99999999999999999999", "0.5",
            "\"\"", "\n", "\u{0}",
        ]
        let base = Array(Self.seed.utf8)
        var imported = 0
        var outcomes: [String: Int] = [:]
        let count = 3_000
        for i in 0..<count {
            var bytes = base
            bytes.mutate(edits: 1...3, longestCut: 30, tokens: tokens, using: &random)
            let (store, result) = try Self.importInto(bytes)
            switch result {
            case .success:
                imported += 1
                outcomes["imported", default: 0] += 1
            case .failure(let error as StrataError):
                outcomes[error.code.rawValue, default: 0] += 1
                var left = 0
                for entity in store.model.entities {
                    left += try store.fetch(FetchRequest(entityName: entity.name)).snapshots().count
                }
                #expect(left == 0, "mutation \(i): a failed import left \(left) objects: \(error)")
            case .failure(let error):
                Issue.record("mutation \(i): an untyped error \(error)")
                return
            }
            try store.close()
        }
        #expect(imported > 0)
        reportCount(
            "json lines fuzz: \(count) inputs tried, outcomes \(outcomes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))"
        )
    }
}

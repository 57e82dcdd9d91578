// strata-change-probe: another process changing a store of RandomGraphModel's, for the live
// query tests of StrataTests that watch the changes arrive as remote changes.
//
//   strata-change-probe URL SEED
//       Opens the store at URL (made beforehand with RandomGraphModel.make("live-process"),
//       holding departments and employees), prints "ready", then reads commands from standard
//       input, one a line:
//
//       step   makes one to four random changes (RandomGraphChanges.change: an insert, a
//              delete, a new key, rank, name or score, another department or none, a
//              department's new name) in a new context and saves them in one transaction;
//              prints "saved N TOKEN": N counts the saves from 1, TOKEN is the store's last
//              history token after the save.
//       quit   exits (as does the end of the input).
//
//   Any failure prints "error MESSAGE" and exits with status 1.

import Foundation
import Strata
import StrataRandomGraph
import StrataTestSupport

@main
struct ChangeProbe {
    static func main() throws {
        let arguments = CommandLine.arguments
        guard arguments.count == 3, let seed = UInt64(arguments[2]) else {
            FileHandle.standardError.write(Data("usage: strata-change-probe URL SEED\n".utf8))
            exit(2)
        }
        do {
            let model = RandomGraphModel.make("live-process")
            let coordinator = StoreCoordinator(model: model)
            try coordinator.addStore(BuiltInBackends.registry.open(try StoreURL.parse(arguments[1]), model: model))
            var random = SeededGenerator(seed: seed)
            var nextKey = try largestKey(in: ObjectContext(coordinator: coordinator)) + 1
            var saves = 0
            say("ready")
            while let command = readLine() {
                switch command {
                case "step":
                    let context = ObjectContext(coordinator: coordinator, name: "probe")
                    context.transactionAuthor = "probe"
                    for _ in 0..<Int.random(in: 1...4, using: &random) {
                        try RandomGraphChanges.change(context, nextKey: &nextKey, random: &random)
                    }
                    try context.save()
                    saves += 1
                    let token = try coordinator.lastHistoryToken().map(\.description) ?? "none"
                    say("saved \(saves) \(token)")
                case "quit":
                    return
                default:
                    say("error unknown command '\(command)'")
                    exit(1)
                }
            }
        } catch {
            say("error \(error)")
            exit(1)
        }
    }

    /// The largest employee key in the store, or -1.
    static func largestKey(in context: ObjectContext) throws -> Int64 {
        var request = FetchRequest(entityName: "Employee", sorts: [Sort("key", ascending: false)])
        request.limit = 1
        guard let top = try context.fetch(request).first, case .integer(let key) = top["key"] else { return -1 }
        return key
    }

    /// Writes `line` to standard output at once (unbuffered: the test reads it as it comes).
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}

// strata-change-probe: another process changing a store of RandomGraphModel's, for the live
// query tests of StrataTests that watch the changes arrive as remote changes.
//
//   strata-change-probe URL SEED
//       Opens the store at URL (made beforehand with RandomGraphModel.make("live-process"),
//       holding departments and employees), prints "ready", then reads commands from standard
//       input, one a line:
//
//       step   makes one to four random changes to employees and departments (an insert, a
//              delete, a new key, rank, name or score, another department or none, a
//              department's new name) in a new context and saves them in one transaction;
//              prints "saved N TOKEN": N counts the saves from 1, TOKEN is the store's last
//              history token after the save.
//       quit   exits (as does the end of the input).
//
//   Any failure prints "error MESSAGE" and exits with status 1.

import Foundation
import Strata
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
                        try change(context, nextKey: &nextKey, random: &random)
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

    /// One random change in `context`, not saved.
    static func change(_ context: ObjectContext, nextKey: inout Int64, random: inout SeededGenerator) throws {
        let employees = try context.fetchObjectIDs(FetchRequest(entityName: "Employee"))
        let departments = try context.fetchObjectIDs(FetchRequest(entityName: "Department"))
        let roll = Int.random(in: 0..<100, using: &random)
        if roll < 20 || employees.isEmpty {
            let employee = try context.insert("Employee")
            employee["key"] = .integer(nextKey)
            nextKey += 1
            employee["name"] = .string(["ann", "bob", "al", "cy", "bea"].randomElement(using: &random)!)
            employee["rank"] = .integer(Int64.random(in: 0..<6, using: &random))
            employee["score"] = .double(Double(Int.random(in: 0..<20, using: &random)) / 4)
            if Bool.random(using: &random), let department = departments.randomElement(using: &random) {
                try employee.setObject(context.object(with: department), for: "department")
            }
            return
        }
        let employee = context.object(with: employees.randomElement(using: &random)!)
        switch roll {
        case 20..<32: context.delete(employee)
        case 32..<45: employee["key"] = .integer(Int64.random(in: 0..<nextKey, using: &random))
        case 45..<62: employee["rank"] = .integer(Int64.random(in: 0..<6, using: &random))
        case 62..<72:
            employee["name"] = .string(["ann", "bob", "al", "cy", "bea", "zed"].randomElement(using: &random)!)
        case 72..<80: employee["score"] = .double(Double(Int.random(in: 0..<20, using: &random)) / 4)
        case 80..<90:
            let department = departments.randomElement(using: &random).map { context.object(with: $0) }
            try employee.setObject(Bool.random(using: &random) ? department : nil, for: "department")
        default:
            let department = context.object(with: departments.randomElement(using: &random)!)
            department["name"] = .string("d\(Int.random(in: 0..<6, using: &random))")
        }
    }

    /// Writes `line` to standard output at once (unbuffered: the test reads it as it comes).
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
